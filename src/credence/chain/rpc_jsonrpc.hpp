// The JSON-RPC 2.0 envelope: building requests and reading responses, single and batched.
//
// JSON-RPC 2.0 §4: a request is {"jsonrpc":"2.0","id":N,"method":...,"params":[...]}.
// §5: a response carries the same id and exactly one of "result" or "error".
// §6: a batch response is an array whose order is arbitrary, so results are matched by id.
// A malformed envelope is bad_response; an error object is rpc_error with its code, message and
// data (a 0x-hex `data` string is decoded to bytes: the revert data of eth_call/estimateGas).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_error.hpp>

namespace credence::chain {

struct RpcCall {
    std::string method;
    nlohmann::json params = nlohmann::json::array();
};

/// Serializes one request with the given id.
[[nodiscard]] std::string encode_request(uint64_t id, const RpcCall& call);
/// Serializes a batch; request i gets id first_id + i.
[[nodiscard]] std::string encode_batch(uint64_t first_id, std::span<const RpcCall> calls);

/// Parses the body of a single call's response: its result, or its error as rpc_error.
[[nodiscard]] RpcResult<nlohmann::json> decode_response(std::string_view body, uint64_t id);

/// Parses a batch response for `count` requests numbered from first_id. The outer result fails
/// when the body is not a usable batch (bad JSON, not an array, unknown or duplicate ids); a
/// request with no answer in the array gets its own bad_response.
[[nodiscard]] RpcResult<std::vector<RpcResult<nlohmann::json>>> decode_batch(std::string_view body,
                                                                             uint64_t first_id,
                                                                             size_t count);

}  // namespace credence::chain
