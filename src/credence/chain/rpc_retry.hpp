// Retry policy of the JSON-RPC client: which failures are retried, and how long to wait.
//
// Only failures where the request may not have been processed, or where the server asks us to come
// back, are retried: transport errors (refused, reset), timeouts, HTTP 429 and HTTP 5xx. A JSON-RPC
// error object (e.g. "execution reverted"), any other 4xx, a too-large body and malformed JSON are
// answers, and retrying them would only repeat them. Retrying a timed-out eth_sendRawTransaction is
// safe: the same raw transaction has the same hash, and a node that already has it says so.
//
// Delay before retry k (k = 1, 2, ...): "equal jitter" exponential backoff,
// d = min(max_delay, base_delay * 2^(k-1)), waited uniformly in [d/2, d]. A Retry-After header
// (RFC 9110 §10.2.3) replaces d, capped at max_retry_after.
// Thread-safety: plain values and pure functions (the jitter source is passed in).
#pragma once

#include <chrono>
#include <cstdint>

#include <credence/chain/rpc_error.hpp>

namespace credence::chain {

struct RetryPolicy {
    /// Total HTTP attempts per call, the first included (1 = never retry).
    int max_attempts = 4;
    std::chrono::milliseconds base_delay{100};
    std::chrono::milliseconds max_delay{5'000};
    std::chrono::milliseconds max_retry_after{10'000};
};

/// True when `e` is a failure worth another attempt (see above).
[[nodiscard]] bool is_retryable(const RpcError& e) noexcept;

/// Delay before retry number `retry` (1-based) after failure `e`. `jitter` is a uniform draw in
/// [0, 1); pass 1.0 - epsilon for the upper bound in tests.
[[nodiscard]] std::chrono::milliseconds retry_delay(const RetryPolicy& policy, int retry,
                                                    const RpcError& e, double jitter) noexcept;

}  // namespace credence::chain
