// Byte strings and hex.
//
// Hex parsing is strict: an optional "0x"/"0X" prefix, then an even number of hex digits, nothing
// else. No whitespace, no odd length, no silent truncation. Encoding is always lowercase.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/error.hpp>

namespace credence::core {

using Bytes = std::vector<uint8_t>;
using ByteView = std::span<const uint8_t>;

/// A 32-byte word: keccak256 digests, storage slots, ABI words.
using Hash32 = std::array<uint8_t, 32>;

enum class HexError {
    odd_length,
    bad_digit,
    missing_prefix,
    wrong_length,
};

[[nodiscard]] std::string_view to_string(HexError e) noexcept;

/// Lowercase hex of `data`, with a "0x" prefix when `prefix` is true.
[[nodiscard]] std::string to_hex(ByteView data, bool prefix = true);

/// Parses hex with an optional 0x prefix. Empty input (or "0x") is zero bytes.
[[nodiscard]] Result<Bytes, HexError> from_hex(std::string_view hex);

/// Parses hex that must carry the 0x prefix (JSON-RPC DATA form).
[[nodiscard]] Result<Bytes, HexError> from_prefixed_hex(std::string_view hex);

/// Parses exactly N bytes of hex (optional 0x prefix).
template <size_t N>
[[nodiscard]] Result<std::array<uint8_t, N>, HexError> from_hex_fixed(std::string_view hex) {
    auto bytes = from_hex(hex);
    if (!bytes) return std::unexpected(bytes.error());
    if (bytes->size() != N)
        return fail(HexError::wrong_length, "expected " + std::to_string(N) + " bytes");
    std::array<uint8_t, N> out{};
    std::copy(bytes->begin(), bytes->end(), out.begin());
    return out;
}

/// Value of one hex digit, or -1.
[[nodiscard]] constexpr int hex_digit_value(char c) noexcept {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/// View of a string's bytes (UTF-8 text as the EVM sees it).
[[nodiscard]] inline ByteView as_bytes(std::string_view s) noexcept {
    return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

/// Concatenates byte strings.
[[nodiscard]] Bytes concat(std::initializer_list<ByteView> parts);

/// Overwrites memory in a way the optimizer may not elide. For secrets.
void secure_wipe(void* data, size_t size) noexcept;

namespace literals {
/// "0a0b"_hex: compile-time-checked? No: parsed at run time, aborts on bad input. Tests only.
Bytes operator""_hex(const char* s, size_t n);
}  // namespace literals

}  // namespace credence::core
