#include <credence/index/writer_lock.hpp>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include <fmt/core.h>

namespace credence::index {

std::expected<WriterLock, std::string> WriterLock::acquire(const Database& db, uint64_t chain_id) {
    if (db.dialect() != Dialect::sqlite) return WriterLock(-1);
    std::string path = db.describe();
    constexpr std::string_view kPrefix = "sqlite:";
    if (path.starts_with(kPrefix)) path.erase(0, kPrefix.size());
    if (path.empty() || path == ":memory:") return WriterLock(-1);

    const std::string lock_path = fmt::format("{}.chain-{}.lock", path, chain_id);
    const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return std::unexpected(
            fmt::format("cannot open the writer lock {}: {}", lock_path, std::strerror(errno)));
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int err = errno;
        std::string holder;
        char buf[32] = {};
        if (::pread(fd, buf, sizeof buf - 1, 0) > 0) holder = buf;
        while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' '))
            holder.pop_back();
        ::close(fd);
        if (err != EWOULDBLOCK) {
            return std::unexpected(
                fmt::format("cannot lock {}: {}", lock_path, std::strerror(err)));
        }
        return std::unexpected(fmt::format(
            "another credence process{} is indexing chain {} into {}: stop it, or give this one "
            "its own --database",
            holder.empty() ? std::string() : " (pid " + holder + ")", chain_id, path));
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) {
        // Best effort: the pid only improves the message another process prints.
        [[maybe_unused]] const auto written = ::pwrite(fd, pid.data(), pid.size(), 0);
    }
    return WriterLock(fd);
}

WriterLock::WriterLock(WriterLock&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}

WriterLock& WriterLock::operator=(WriterLock&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
}

WriterLock::~WriterLock() {
    if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace credence::index
