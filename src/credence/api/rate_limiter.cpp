#include <credence/api/rate_limiter.hpp>

#include <algorithm>

namespace credence::api {

RateLimiter::RateLimiter(double per_second, double burst)
    : rate_(per_second), burst_(std::max(burst, 1.0)) {}

double RateLimiter::take(const std::string& ip, double tokens) {
    if (rate_ <= 0) return 0;
    const auto now = Clock::now();
    const std::lock_guard lock(mutex_);
    if (buckets_.size() > kMaxBuckets) prune(now);
    auto [it, inserted] = buckets_.try_emplace(ip, Bucket{burst_, now});
    Bucket& bucket = it->second;
    if (!inserted) {
        const double elapsed = std::chrono::duration<double>(now - bucket.last).count();
        bucket.tokens = std::min(burst_, bucket.tokens + elapsed * rate_);
        bucket.last = now;
    }
    if (bucket.tokens >= tokens) {
        bucket.tokens -= tokens;
        return 0;
    }
    return (tokens - bucket.tokens) / rate_;
}

void RateLimiter::prune(Clock::time_point now) {
    const double full_after = burst_ / rate_;
    std::erase_if(buckets_, [&](const auto& entry) {
        return std::chrono::duration<double>(now - entry.second.last).count() > full_after;
    });
}

}  // namespace credence::api
