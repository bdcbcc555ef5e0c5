// JSON forms of the Ethereum JSON-RPC types (execution-apis): strict readers for QUANTITY, DATA,
// hashes, addresses, blocks, logs, receipts and fee history, and writers for call requests and
// log filters.
//
// Strictness (execution-apis "Value encoding"): a QUANTITY is "0x" plus lowercase-or-uppercase hex
// digits with no leading zeros ("0x0" for zero, "0x" alone rejected); DATA is "0x" plus an even
// number of hex digits. Every reader returns bad_response naming the field instead of throwing;
// the nlohmann::json exceptions never escape.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_error.hpp>
#include <credence/chain/rpc_types.hpp>

namespace credence::chain {

/// QUANTITY string → Uint256.
[[nodiscard]] RpcResult<core::Uint256> parse_quantity(std::string_view s);
/// QUANTITY string that must fit 64 bits.
[[nodiscard]] RpcResult<uint64_t> parse_quantity_u64(std::string_view s);
/// uint64 → QUANTITY string.
[[nodiscard]] std::string to_quantity(uint64_t v);

[[nodiscard]] RpcResult<core::Uint256> read_quantity(const nlohmann::json& j);
[[nodiscard]] RpcResult<uint64_t> read_u64(const nlohmann::json& j);
[[nodiscard]] RpcResult<core::Bytes> read_data(const nlohmann::json& j);
[[nodiscard]] RpcResult<core::Hash32> read_hash(const nlohmann::json& j);
[[nodiscard]] RpcResult<core::Address> read_address(const nlohmann::json& j);

[[nodiscard]] RpcResult<Block> read_block(const nlohmann::json& j);
[[nodiscard]] RpcResult<Log> read_log(const nlohmann::json& j);
[[nodiscard]] RpcResult<std::vector<Log>> read_logs(const nlohmann::json& j);
[[nodiscard]] RpcResult<Receipt> read_receipt(const nlohmann::json& j);
[[nodiscard]] RpcResult<FeeHistory> read_fee_history(const nlohmann::json& j);

[[nodiscard]] nlohmann::json to_json(const CallRequest& req);
[[nodiscard]] nlohmann::json to_json(const LogFilter& filter);

}  // namespace credence::chain
