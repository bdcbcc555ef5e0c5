#include <credence/chain/rpc_retry.hpp>

#include <algorithm>

namespace credence::chain {

bool is_retryable(const RpcError& e) noexcept {
    switch (e.kind) {
        case RpcErrorKind::transport:
        case RpcErrorKind::timeout:
            return true;
        // 429 Too Many Requests (RFC 6585 §4) and 5xx server errors (RFC 9110 §15.6).
        case RpcErrorKind::http_status:
            return e.http_status == 429 || e.http_status >= 500;
        default:
            return false;
    }
}

std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int retry, const RpcError& e,
                                      double jitter) noexcept {
    using std::chrono::milliseconds;
    if (e.retry_after) return std::min(*e.retry_after, policy.max_retry_after);
    const int shift = std::clamp(retry - 1, 0, 30);
    const int64_t base = std::max<int64_t>(policy.base_delay.count(), 0);
    const int64_t cap = std::max<int64_t>(policy.max_delay.count(), 0);
    // Saturate before shifting so huge attempt counts cannot overflow.
    const int64_t d = base > (cap >> shift) ? cap : std::min(cap, base << shift);
    jitter = std::clamp(jitter, 0.0, 1.0);
    const auto half = d / 2;
    return milliseconds(half + static_cast<int64_t>(static_cast<double>(d - half) * jitter));
}

}  // namespace credence::chain
