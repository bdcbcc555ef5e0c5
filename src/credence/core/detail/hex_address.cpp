#include <credence/core/detail/hex_address.hpp>

#include <algorithm>

#include <credence/core/address.hpp>

namespace credence::core::detail {

ParsedHexAddress parse_hex_address(std::string_view text, HexAddressCase rule) noexcept {
    ParsedHexAddress out;
    if (text.size() != 42 || text[0] != '0' || text[1] != 'x') return out;
    const auto address = Address::from_hex(text, ChecksumMode::ignore);
    if (!address) return out;
    out.bytes = address->bytes;
    const auto digits = text.substr(2);
    const bool has_upper =
        std::any_of(digits.begin(), digits.end(), [](char c) { return c >= 'A' && c <= 'F'; });
    const bool has_lower =
        std::any_of(digits.begin(), digits.end(), [](char c) { return c >= 'a' && c <= 'f'; });
    if (rule == HexAddressCase::lowercase && has_upper) {
        out.status = HexAddressStatus::not_lowercase;
        return out;
    }
    // EIP-55: mixed case must be the checksum; the CAIP-10 eip155 profile also refuses
    // all-uppercase digits that are not the checksum.
    const bool needs_checksum =
        (has_lower && has_upper) || (rule == HexAddressCase::checksum_or_lowercase && has_upper);
    if (needs_checksum && address->to_checksum_hex() != text) {
        out.status = HexAddressStatus::bad_checksum;
        return out;
    }
    out.status = HexAddressStatus::ok;
    return out;
}

std::string checksum_hex_address(const std::array<uint8_t, 20>& address) {
    return Address{address}.to_checksum_hex();
}

}  // namespace credence::core::detail
