#include "support/process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>

#include <gtest/gtest.h>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, not in a header

namespace credence::testing {
namespace {

std::filesystem::path from_env_or(const char* name, const std::filesystem::path& fallback) {
    const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): read-only here
    if (value != nullptr && *value != '\0') return value;
    return fallback;
}

}  // namespace

std::filesystem::path source_dir() {
    return from_env_or("CREDENCE_SOURCE_DIR", CREDENCE_TEST_SOURCE_DIR);
}

std::filesystem::path cast_binary() {
    return from_env_or("CREDENCE_CAST",
                       source_dir() / "node_modules/@foundry-rs/cast-linux-amd64/bin/cast");
}

std::filesystem::path anvil_binary() {
    return from_env_or("CREDENCE_ANVIL",
                       source_dir() / "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
}

std::filesystem::path find_program(std::string_view name) {
    const char* path = std::getenv("PATH");  // NOLINT(concurrency-mt-unsafe): read-only here
    if (path == nullptr) return {};
    std::string_view dirs(path);
    while (!dirs.empty()) {
        const size_t colon = dirs.find(':');
        const std::string_view dir = dirs.substr(0, colon);
        if (!dir.empty()) {
            const auto candidate = std::filesystem::path(dir) / name;
            if (::access(candidate.c_str(), X_OK) == 0) return candidate;
        }
        if (colon == std::string_view::npos) break;
        dirs.remove_prefix(colon + 1);
    }
    return {};
}

CommandResult run_cast(const std::vector<std::string>& args) {
    return run_command(cast_binary(), args);
}

std::string cast_output(const std::vector<std::string>& args) {
    auto r = run_cast(args);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    return trimmed(r.out);
}

uint16_t port_of_url(const std::string& url) {
    return static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1)));
}

uint16_t free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    EXPECT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    const bool bound = ::bind(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0 &&
                       ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    EXPECT_TRUE(bound);
    ::close(fd);
    return ntohs(addr.sin_port);
}

std::string closed_loopback_url() {
    return "http://127.0.0.1:" + std::to_string(free_loopback_port());
}

std::string trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' '))
        text.pop_back();
    return text;
}

CommandResult run_command(const std::filesystem::path& binary, const std::vector<std::string>& args,
                          const std::map<std::string, std::string>& env,
                          std::string_view stdin_text) {
    CommandResult result;
    // Everything the child needs is built before fork (only async-signal-safe calls after it).
    std::vector<std::string> argv_storage{binary.string()};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    argv.reserve(argv_storage.size() + 1);
    for (auto& s : argv_storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_storage;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if (!env.contains(name)) env_storage.emplace_back(entry);
    }
    for (const auto& [name, value] : env) {
        std::string entry = name;
        entry.append("=").append(value);
        env_storage.push_back(std::move(entry));
    }
    std::vector<char*> envp;
    envp.reserve(env_storage.size() + 1);
    for (auto& s : env_storage) envp.push_back(s.data());
    envp.push_back(nullptr);

    std::array<int, 2> in_pipe{-1, -1};
    std::array<int, 2> out_pipe{-1, -1};
    std::array<int, 2> err_pipe{-1, -1};
    if (::pipe2(in_pipe.data(), O_CLOEXEC) != 0 || ::pipe2(out_pipe.data(), O_CLOEXEC) != 0 ||
        ::pipe2(err_pipe.data(), O_CLOEXEC) != 0) {
        result.err = "pipe failed";
        return result;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        ::dup2(in_pipe[0], STDIN_FILENO);
        ::dup2(out_pipe[1], STDOUT_FILENO);
        ::dup2(err_pipe[1], STDERR_FILENO);
        ::execve(argv[0], argv.data(), envp.data());
        ::_exit(127);
    }
    ::close(in_pipe[0]);
    ::close(out_pipe[1]);
    ::close(err_pipe[1]);
    if (pid < 0) {
        ::close(in_pipe[1]);
        ::close(out_pipe[0]);
        ::close(err_pipe[0]);
        result.err = "fork failed";
        return result;
    }
    // Feed stdin and drain both outputs together, so neither side blocks on a full pipe.
    ::signal(SIGPIPE, SIG_IGN);
    size_t written = 0;
    int in_fd = in_pipe[1];
    if (stdin_text.empty()) {
        ::close(in_fd);
        in_fd = -1;
    }
    std::array<char, 4096> buf{};
    bool out_open = true;
    bool err_open = true;
    while (out_open || err_open) {
        std::array<pollfd, 3> fds{};
        nfds_t n = 0;
        if (out_open) fds[n++] = {out_pipe[0], POLLIN, 0};
        if (err_open) fds[n++] = {err_pipe[0], POLLIN, 0};
        if (in_fd >= 0) fds[n++] = {in_fd, POLLOUT, 0};
        if (::poll(fds.data(), n, -1) < 0) {
            if (errno == EINTR) continue;
            break;
        }
        for (nfds_t i = 0; i < n; ++i) {
            if (fds[i].revents == 0) continue;
            if (fds[i].fd == in_fd) {
                const ssize_t w =
                    ::write(in_fd, stdin_text.data() + written, stdin_text.size() - written);
                if (w > 0) written += static_cast<size_t>(w);
                if (w < 0 || written == stdin_text.size()) {
                    ::close(in_fd);
                    in_fd = -1;
                }
                continue;
            }
            const ssize_t r = ::read(fds[i].fd, buf.data(), buf.size());
            if (r > 0) {
                (fds[i].fd == out_pipe[0] ? result.out : result.err)
                    .append(buf.data(), static_cast<size_t>(r));
            } else if (r == 0 || errno != EINTR) {
                (fds[i].fd == out_pipe[0] ? out_open : err_open) = false;
            }
        }
    }
    if (in_fd >= 0) ::close(in_fd);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace credence::testing
