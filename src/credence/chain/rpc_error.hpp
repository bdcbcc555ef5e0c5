// Errors of the JSON-RPC client: one typed value for every way a call can fail.
//
// An RpcError says which layer failed (RpcErrorKind), carries what that layer knows (the HTTP
// status, the JSON-RPC error code, message and data) and prints as one line for the CLI. Revert
// data of eth_call / eth_estimateGas is kept as bytes in `data`, so callers can decode
// Error(string), Panic(uint256) and custom errors by ABI.
// Thread-safety: plain value type.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/bytes.hpp>

namespace credence::chain {

enum class RpcErrorKind {
    transport,         // connection refused, reset, DNS, TLS: the request may not have arrived
    timeout,           // connect or total timeout elapsed
    http_status,       // the server answered with a non-2xx status
    too_large,         // the response body exceeded the configured cap
    bad_json,          // the body is not JSON
    bad_response,      // JSON, but not a valid JSON-RPC 2.0 response or not the expected shape
    rpc_error,         // a JSON-RPC error object (JSON-RPC 2.0 §5.1), e.g. execution reverted
    invalid_argument,  // misuse by the caller (e.g. a batch too large to number)
};

[[nodiscard]] std::string_view to_string(RpcErrorKind kind) noexcept;

struct RpcError {
    RpcErrorKind kind = RpcErrorKind::transport;
    /// Human-readable detail: the curl error text, the body snippet, or the JSON-RPC message.
    std::string message;
    /// HTTP status for http_status (0 otherwise).
    int http_status = 0;
    /// JSON-RPC error code for rpc_error (e.g. -32000, 3 for reverts on geth/anvil).
    int64_t code = 0;
    /// The error object's `data` when it is a 0x-hex string (revert data); empty otherwise.
    core::Bytes data;
    /// The error object's `data` as JSON text when present and not hex ("" when absent).
    std::string data_json;
    /// Server-requested delay from a Retry-After header (RFC 9110 §10.2.3), delta-seconds form.
    std::optional<std::chrono::milliseconds> retry_after;
    /// How many HTTP attempts were made before giving up (filled in by the client).
    int attempts = 1;

    /// One line: "rpc_error -32000: execution reverted (data 0x08c3...)" and so on.
    [[nodiscard]] std::string to_string() const;
};

/// Whether the node says the EVM reverted: an error object carrying revert data, code 3 (geth and
/// anvil's "execution reverted"), or a message saying so.
[[nodiscard]] inline bool is_revert(const RpcError& e) noexcept {
    return e.kind == RpcErrorKind::rpc_error &&
           (!e.data.empty() || e.code == 3 || e.message.find("revert") != std::string::npos);
}

template <typename T>
using RpcResult = std::expected<T, RpcError>;

/// Shorthand: `return rpc_fail(RpcErrorKind::bad_response, "missing result");`
[[nodiscard]] inline std::unexpected<RpcError> rpc_fail(RpcErrorKind kind, std::string message) {
    RpcError e;
    e.kind = kind;
    e.message = std::move(message);
    return std::unexpected(std::move(e));
}

}  // namespace credence::chain
