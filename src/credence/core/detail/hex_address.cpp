#include <credence/core/detail/hex_address.hpp>

#include <credence/core/bytes.hpp>
#include <credence/core/keccak.hpp>

namespace credence::core::detail {
namespace {

// EIP-55: hex digit i is uppercase iff nibble i of keccak256(lowercase hex) is >= 8.
bool checksum_nibble_set(const Hash32& hash, size_t i) noexcept {
    const uint8_t byte = hash[i / 2];
    const unsigned nibble = (i % 2 == 0) ? (byte >> 4U) : (byte & 0x0fU);
    return nibble >= 8;
}

}  // namespace

ParsedHexAddress parse_hex_address(std::string_view text, HexAddressCase rule) noexcept {
    ParsedHexAddress out;
    if (text.size() != 42 || text[0] != '0' || text[1] != 'x') return out;
    bool has_lower = false;
    bool has_upper = false;
    std::array<char, 40> lower{};
    for (size_t i = 0; i < 40; ++i) {
        const char c = text[2 + i];
        const int v = hex_digit_value(c);
        if (v < 0) return out;
        if (c >= 'a' && c <= 'f') has_lower = true;
        if (c >= 'A' && c <= 'F') has_upper = true;
        lower[i] = (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
        const auto nibble = static_cast<uint8_t>(v);
        if (i % 2 == 0)
            out.bytes[i / 2] = static_cast<uint8_t>(nibble << 4U);
        else
            out.bytes[i / 2] = static_cast<uint8_t>(out.bytes[i / 2] | nibble);
    }
    if (rule == HexAddressCase::lowercase && has_upper) {
        out.status = HexAddressStatus::not_lowercase;
        return out;
    }
    if ((has_lower && has_upper) || (rule == HexAddressCase::checksum_or_lowercase && has_upper)) {
        const Hash32 hash = keccak256(std::string_view(lower.data(), lower.size()));
        for (size_t i = 0; i < 40; ++i) {
            const char c = text[2 + i];
            if (c >= '0' && c <= '9') continue;
            const bool upper = c >= 'A' && c <= 'F';
            if (upper != checksum_nibble_set(hash, i)) {
                out.status = HexAddressStatus::bad_checksum;
                return out;
            }
        }
    }
    out.status = HexAddressStatus::ok;
    return out;
}

std::string checksum_hex_address(const std::array<uint8_t, 20>& address) {
    std::string lower = to_hex(address, false);
    const Hash32 hash = keccak256(std::string_view(lower));
    std::string out = "0x";
    out.reserve(42);
    for (size_t i = 0; i < lower.size(); ++i) {
        char c = lower[i];
        if (c >= 'a' && c <= 'f' && checksum_nibble_set(hash, i))
            c = static_cast<char>(c - 'a' + 'A');
        out.push_back(c);
    }
    return out;
}

}  // namespace credence::core::detail
