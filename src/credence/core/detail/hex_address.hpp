// Text forms of 20-byte Ethereum addresses for the EIP-712 and CAIP parsers.
//
// The case rules that EIP-712 and CAIP parsing need on top of address.hpp; both rules here
// (0x + 40 hex digits, EIP-55 checksum when the digits are mixed-case) match what
// ethers' getAddress enforces.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace credence::core::detail {

enum class HexAddressCase {
    any,        ///< all-lowercase, all-uppercase or a valid EIP-55 checksum
    lowercase,  ///< only lowercase hex digits (ERC-8257 canonical forms)
    /// lowercase, or any case that is the EIP-55 checksum (the eip155 CAIP-10 profile: an
    /// all-uppercase address "will not validate")
    checksum_or_lowercase,
};

enum class HexAddressStatus { ok, bad_syntax, bad_checksum, not_lowercase };

struct ParsedHexAddress {
    HexAddressStatus status = HexAddressStatus::bad_syntax;
    std::array<uint8_t, 20> bytes{};
};

/// Parses "0x" + 40 hex digits. Mixed-case digits must carry a valid EIP-55 checksum.
[[nodiscard]] ParsedHexAddress parse_hex_address(
    std::string_view text, HexAddressCase rule = HexAddressCase::any) noexcept;

/// EIP-55 mixed-case checksum form, "0x"-prefixed.
[[nodiscard]] std::string checksum_hex_address(const std::array<uint8_t, 20>& address);

}  // namespace credence::core::detail
