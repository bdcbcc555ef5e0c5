#include "support/raw_http.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace credence::testing {

namespace {

using Clock = std::chrono::steady_clock;

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

int remaining_ms(Clock::time_point deadline) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return static_cast<int>(std::clamp<int64_t>(left, 0, 1'000'000));
}

}  // namespace

std::optional<std::string> RawResponse::header(std::string_view name) const {
    for (const auto& [key, value] : headers) {
        if (key == name) return value;
    }
    return std::nullopt;
}

std::expected<RawConnection, std::string> RawConnection::open(uint16_t port,
                                                              const std::string& source_ip) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return std::unexpected(fmt::format("socket: {}", std::strerror(errno)));
    RawConnection connection(fd);
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    sockaddr_in source{};
    source.sin_family = AF_INET;
    if (::inet_pton(AF_INET, source_ip.c_str(), &source.sin_addr) != 1) {
        return std::unexpected("bad source address " + source_ip);
    }
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&source), sizeof source) != 0) {
        return std::unexpected(fmt::format("bind {}: {}", source_ip, std::strerror(errno)));
    }
    sockaddr_in server{};
    server.sin_family = AF_INET;
    server.sin_port = htons(port);
    server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&server), sizeof server) != 0) {
        return std::unexpected(fmt::format("connect: {}", std::strerror(errno)));
    }
    return connection;
}

RawConnection& RawConnection::operator=(RawConnection&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = std::exchange(other.fd_, -1);
        buffer_ = std::move(other.buffer_);
    }
    return *this;
}

RawConnection::~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::send(std::string_view bytes) {
    while (!bytes.empty()) {
        const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

bool RawConnection::send_some(std::string_view bytes) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    return n >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

void RawConnection::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

template <typename Done>
bool RawConnection::read_until(Clock::time_point deadline, Done done) {
    char chunk[16384];
    while (!done(buffer_)) {
        pollfd p{fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready <= 0) return false;
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return done(buffer_);
        buffer_.append(chunk, static_cast<size_t>(n));
    }
    return true;
}

std::optional<RawResponse> RawConnection::read_response(std::chrono::milliseconds timeout,
                                                        bool head) {
    const auto deadline = Clock::now() + timeout;
    const auto has_header = [](const std::string& b) {
        return b.find("\r\n\r\n") != std::string::npos;
    };
    if (!read_until(deadline, has_header)) return std::nullopt;
    const size_t header_end = buffer_.find("\r\n\r\n");
    const std::string_view header(buffer_.data(), header_end);
    RawResponse response;
    size_t line_end = header.find("\r\n");
    const std::string_view status_line = header.substr(0, line_end);
    if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12) return std::nullopt;
    std::from_chars(status_line.data() + 9, status_line.data() + 12, response.status);
    while (line_end != std::string_view::npos) {
        const size_t start = line_end + 2;
        line_end = header.find("\r\n", start);
        const std::string_view line = header.substr(start, line_end - start);
        const size_t colon = line.find(':');
        if (colon == std::string_view::npos) continue;
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        response.headers.emplace_back(lower(line.substr(0, colon)), std::string(value));
    }
    buffer_.erase(0, header_end + 4);
    size_t length = 0;
    if (auto text = response.header("content-length"); text) {
        std::from_chars(text->data(), text->data() + text->size(), length);
    }
    if (head) length = 0;
    if (!read_until(deadline, [length](const std::string& b) { return b.size() >= length; })) {
        return std::nullopt;
    }
    response.body = buffer_.substr(0, length);
    buffer_.erase(0, length);
    return response;
}

bool RawConnection::closed_within(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    char chunk[16384];
    while (true) {
        pollfd p{fd_, POLLIN, 0};
        const int ready = ::poll(&p, 1, remaining_ms(deadline));
        if (ready <= 0) return false;
        const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return true;
    }
}

std::string http_get(std::string_view path, std::string_view extra) {
    return fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\n{}\r\n", path, extra);
}

std::vector<int64_t> measure_gets(uint16_t port, const std::string& path, size_t count,
                                  std::chrono::milliseconds timeout,
                                  std::chrono::milliseconds pause) {
    std::vector<int64_t> samples;
    std::optional<RawConnection> connection;
    const std::string request = http_get(path);
    const int64_t timeout_us =
        std::chrono::duration_cast<std::chrono::microseconds>(timeout).count();
    for (size_t i = 0; i < count; ++i) {
        const auto start = Clock::now();
        bool ok = false;
        for (int attempt = 0; attempt < 2 && !ok; ++attempt) {
            if (!connection) {
                auto opened = RawConnection::open(port);
                if (!opened) break;
                connection.emplace(std::move(*opened));
            }
            auto response =
                connection->send(request) ? connection->read_response(timeout) : std::nullopt;
            ok = response && response->status == 200;
            if (!response ||
                response->header("connection") == std::optional<std::string>("close")) {
                connection.reset();
            }
        }
        const int64_t took =
            std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - start).count();
        samples.push_back(ok ? took : std::max(took, timeout_us));
        if (pause.count() > 0) ::usleep(static_cast<useconds_t>(pause.count() * 1000));
    }
    return samples;
}

int64_t quantile(std::vector<int64_t> samples, double q) {
    if (samples.empty()) return 0;
    std::ranges::sort(samples);
    const auto index = static_cast<size_t>(q * static_cast<double>(samples.size() - 1) + 0.5);
    return samples[std::min(index, samples.size() - 1)];
}

MemoryUse memory_use() {
    MemoryUse out;
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        const auto read = [&line](std::string_view key, int64_t& value) {
            if (!line.starts_with(key)) return;
            std::string_view rest = std::string_view(line).substr(key.size());
            while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) {
                rest.remove_prefix(1);
            }
            std::from_chars(rest.data(), rest.data() + rest.size(), value);
        };
        read("VmRSS:", out.rss_kib);
        read("VmHWM:", out.hwm_kib);
    }
    return out;
}

}  // namespace credence::testing
