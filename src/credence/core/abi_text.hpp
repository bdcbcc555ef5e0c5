// Text form of ABI values, as Foundry's cast reads and prints them. Used by
// `credence util abi-encode "f(uint256,string)" 1 hi` and `abi-decode "f()(uint256,string)" 0x...`.
//
// Reading (parse_value):
//   uintN     decimal or 0x-hex ("1", "0x2a")          intN   the same with an optional '-'
//   address   0x + 40 hex digits (any case)            bool   "true" | "false"
//   bytesN    0x + exactly 2N hex digits               bytes  0x-hex
//   string    the text itself; inside arrays/tuples it may be "quoted" (with \" and \\ escapes) and
//             must be quoted if it contains , ] ) or surrounding spaces
//   T[]/T[k]  "[v1, v2, ...]"                         tuple  "(v1, v2, ...)"
// Values are range-checked against their type (uint8 "256" is an error).
//
// Printing (format_value): decimal integers, EIP-55 checksummed addresses, lowercase 0x-hex bytes,
// true/false, strings as-is at the top level and "quoted" inside arrays and tuples, "[a, b]" and
// "(a, b)" for containers.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/abi.hpp>

namespace credence::core {

[[nodiscard]] Result<AbiValue, AbiError> parse_value(const AbiType& type, std::string_view text);

/// One argument per type (the argument list of `cast abi-encode`).
[[nodiscard]] Result<std::vector<AbiValue>, AbiError> parse_values(
    std::span<const AbiType> types, std::span<const std::string> args);

/// Text of `value` read as `type`; a value that does not match its type prints as "<invalid>".
[[nodiscard]] std::string format_value(const AbiType& type, const AbiValue& value);

}  // namespace credence::core
