// Command-line argument parsing shared by every command group: integers, addresses, hashes, hex
// bytes, key=value pairs; and the small result helpers (uint JSON, logs of a receipt). Every
// parser throws CliError with one line naming the argument ("tool id 'x': not an unsigned 256-bit
// integer"), so the commands stay free of error plumbing.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_types.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/uint256.hpp>

namespace credence::cmd {

/// A uint256 argument (agentId, toolId): decimal or 0x-hex.
[[nodiscard]] core::Uint256 parse_uint256_arg(std::string_view what, const std::string& text);
/// A uint64 argument such as a feedbackIndex.
[[nodiscard]] uint64_t parse_u64_arg(std::string_view what, const std::string& text);
/// An address: 0x + 40 hex digits; mixed case must carry a valid EIP-55 checksum.
[[nodiscard]] core::Address parse_address_arg(std::string_view what, const std::string& text);
/// A 32-byte hex value (feedbackHash, requestHash, taskHash).
[[nodiscard]] core::Hash32 parse_hash_arg(std::string_view what, const std::string& text);
/// 0x-hex bytes.
[[nodiscard]] core::Bytes parse_bytes_arg(std::string_view what, const std::string& text);
/// "key=value" -> {key, value}; the key must be non-empty. The value may contain '='.
[[nodiscard]] std::pair<std::string, std::string> split_key_value(std::string_view what,
                                                                  const std::string& text);

/// A uint256 as JSON: a number when it fits 64 bits, else its decimal string.
[[nodiscard]] nlohmann::ordered_json uint_json(const core::Uint256& v);

/// The logs of `receipt` emitted by `contract` with topic0 `topic`.
[[nodiscard]] std::vector<const chain::Log*> find_logs(const chain::Receipt& receipt,
                                                       const core::Address& contract,
                                                       const core::Hash32& topic);

}  // namespace credence::cmd
