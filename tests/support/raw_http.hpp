// Raw HTTP/1.1 over TCP for tests and the hostile-client driver (bench/attack/): a connection
// from a chosen loopback source address (127.0.0.2, 127.0.0.3, ... are all local on Linux, so
// per-IP limits can tell an attacker from the normal client on 127.0.0.1), bytes sent exactly as
// given, one response read with a deadline, and a latency probe.
//
// Thread-safety: one RawConnection per thread. Ownership: RawConnection owns its descriptor.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace credence::testing {

struct RawResponse {
    int status = 0;
    std::vector<std::pair<std::string, std::string>> headers;  ///< names lowercased
    std::string body;
    [[nodiscard]] std::optional<std::string> header(std::string_view name) const;
};

class RawConnection {
public:
    /// Connects to 127.0.0.1:`port` from `source_ip` (any port); the error names the step.
    static std::expected<RawConnection, std::string> open(
        uint16_t port, const std::string& source_ip = "127.0.0.1");
    RawConnection(RawConnection&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    RawConnection& operator=(RawConnection&& other) noexcept;
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;
    ~RawConnection();

    /// Sends every byte (blocking); false when the peer closed or reset.
    bool send(std::string_view bytes);
    /// Sends what fits without blocking; false when the peer closed or reset.
    bool send_some(std::string_view bytes);
    /// Half-closes: no more bytes from us, the answer may still come.
    void shutdown_write();
    /// Reads one response; `head` means no body follows. nullopt on timeout, close or garbage.
    std::optional<RawResponse> read_response(std::chrono::milliseconds timeout, bool head = false);
    /// True when the peer closes (EOF or reset) within `timeout`; bytes before that are dropped.
    bool closed_within(std::chrono::milliseconds timeout);
    [[nodiscard]] int fd() const noexcept { return fd_; }

private:
    explicit RawConnection(int fd) : fd_(fd) {}
    /// Reads into buffer_ until `done(buffer_)` or the deadline; false on timeout or close.
    template <typename Done>
    bool read_until(std::chrono::steady_clock::time_point deadline, Done done);

    int fd_ = -1;
    std::string buffer_;
};

/// "GET <path> HTTP/1.1" with Host and optional extra header lines (each ending in "\r\n").
std::string http_get(std::string_view path, std::string_view extra = {});

/// Latencies of `count` GETs of `path` on one keep-alive connection, in microseconds (a failed
/// request counts as `timeout`).
std::vector<int64_t> measure_gets(uint16_t port, const std::string& path, size_t count,
                                  std::chrono::milliseconds timeout,
                                  std::chrono::milliseconds pause);

/// The `q`-quantile (0..1) of `samples` (sorted copy).
int64_t quantile(std::vector<int64_t> samples, double q);

/// Resident set sizes of this process from /proc/self/status, in KiB.
struct MemoryUse {
    int64_t rss_kib = 0;
    int64_t hwm_kib = 0;  ///< peak RSS (VmHWM)
};
MemoryUse memory_use();

}  // namespace credence::testing
