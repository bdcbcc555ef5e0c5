// A token bucket per client IP (docs/api.md "a per-IP rate limit"): the HTTP server takes one
// token per request, and handlers take more through HttpRequest::charge (an MCP batch pays per
// call). Buckets idle long enough to be full again are dropped when the table grows, so memory
// stays bounded by the number of active IPs.
//
// Thread-safety: take() from any thread (one mutex). Ownership: plain value.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <unordered_map>

namespace credence::api {

class RateLimiter {
public:
    /// per_second <= 0 turns the limit off (take() always allows).
    RateLimiter(double per_second, double burst);

    /// Takes `tokens` from `ip`'s bucket: 0 when allowed, else the seconds until the bucket
    /// holds that many again (nothing is taken then).
    [[nodiscard]] double take(const std::string& ip, double tokens = 1);

private:
    using Clock = std::chrono::steady_clock;
    struct Bucket {
        double tokens = 0;
        Clock::time_point last;
    };
    static constexpr size_t kMaxBuckets = 10000;

    void prune(Clock::time_point now);

    double rate_;
    double burst_;
    std::mutex mutex_;
    std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace credence::api
