// 256-bit integers: Uint256 (the EVM word) and Int256 (two's complement, Solidity int256).
//
// Plain operators wrap modulo 2^256 like the EVM; checked_* return std::nullopt on overflow.
// Parsing is strict: decimal digits, or 0x-prefixed hex; no signs on Uint256, no whitespace,
// no empty strings, no values past the type's range.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <credence/core/bytes.hpp>

namespace credence::core {

enum class IntError {
    empty,
    bad_digit,
    overflow,
    negative,
};

[[nodiscard]] std::string_view to_string(IntError e) noexcept;

class Uint256 {
public:
    /// Little-endian 64-bit limbs: limbs[0] is the least significant.
    std::array<uint64_t, 4> limbs{};

    constexpr Uint256() noexcept = default;
    constexpr Uint256(uint64_t v) noexcept : limbs{v, 0, 0, 0} {}  // NOLINT: implicit by design
    constexpr Uint256(uint64_t l3, uint64_t l2, uint64_t l1, uint64_t l0) noexcept
        : limbs{l0, l1, l2, l3} {}

    static constexpr Uint256 max() noexcept { return {~0ULL, ~0ULL, ~0ULL, ~0ULL}; }

    /// Big-endian bytes, at most 32 (shorter input is left-padded with zeros).
    [[nodiscard]] static std::optional<Uint256> from_be_bytes(ByteView be) noexcept;
    /// Exactly 32 big-endian bytes (an ABI word).
    [[nodiscard]] static Uint256 from_word(const uint8_t* word32) noexcept;
    [[nodiscard]] Hash32 to_word() const noexcept;
    void write_word(uint8_t* out32) const noexcept;
    /// Minimal big-endian bytes: zero is the empty string (the RLP form).
    [[nodiscard]] Bytes to_be_bytes_trimmed() const;

    /// Decimal digits only.
    [[nodiscard]] static Result<Uint256, IntError> from_dec(std::string_view s);
    /// Hex digits, with or without 0x; at most 64 digits after leading zeros are dropped.
    [[nodiscard]] static Result<Uint256, IntError> from_hex(std::string_view s);
    /// 0x-prefixed hex, else decimal.
    [[nodiscard]] static Result<Uint256, IntError> parse(std::string_view s);

    [[nodiscard]] std::string to_dec() const;
    /// 0x-prefixed minimal lowercase hex ("0x0" for zero), the JSON-RPC QUANTITY form.
    [[nodiscard]] std::string to_hex() const;

    [[nodiscard]] constexpr bool is_zero() const noexcept {
        return (limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0;
    }
    /// Number of significant bits (0 for zero).
    [[nodiscard]] unsigned bit_width() const noexcept;
    [[nodiscard]] bool fits_u64() const noexcept { return (limbs[1] | limbs[2] | limbs[3]) == 0; }
    [[nodiscard]] bool bit(unsigned i) const noexcept { return (limbs[i / 64] >> (i % 64)) & 1; }

    friend constexpr bool operator==(const Uint256&, const Uint256&) noexcept = default;
    friend std::strong_ordering operator<=>(const Uint256& a, const Uint256& b) noexcept;

    friend Uint256 operator+(const Uint256& a, const Uint256& b) noexcept;
    friend Uint256 operator-(const Uint256& a, const Uint256& b) noexcept;
    friend Uint256 operator*(const Uint256& a, const Uint256& b) noexcept;
    friend Uint256 operator~(const Uint256& a) noexcept;
    friend Uint256 operator&(const Uint256& a, const Uint256& b) noexcept;
    friend Uint256 operator|(const Uint256& a, const Uint256& b) noexcept;
    friend Uint256 operator^(const Uint256& a, const Uint256& b) noexcept;
    friend Uint256 operator<<(const Uint256& a, unsigned n) noexcept;
    friend Uint256 operator>>(const Uint256& a, unsigned n) noexcept;

    [[nodiscard]] static std::optional<Uint256> checked_add(const Uint256& a,
                                                            const Uint256& b) noexcept;
    [[nodiscard]] static std::optional<Uint256> checked_sub(const Uint256& a,
                                                            const Uint256& b) noexcept;
    [[nodiscard]] static std::optional<Uint256> checked_mul(const Uint256& a,
                                                            const Uint256& b) noexcept;

    struct DivMod;
    /// Quotient and remainder; nullopt when dividing by zero.
    [[nodiscard]] static std::optional<DivMod> divmod(const Uint256& a, const Uint256& b) noexcept;
};

struct Uint256::DivMod {
    Uint256 quot;
    Uint256 rem;
};

/// Solidity int256: two's complement over a Uint256.
class Int256 {
public:
    Uint256 bits;

    constexpr Int256() noexcept = default;
    constexpr explicit Int256(const Uint256& raw) noexcept : bits(raw) {}
    constexpr Int256(int64_t v) noexcept  // NOLINT: implicit by design
        : bits(v < 0 ? Uint256{~0ULL, ~0ULL, ~0ULL, static_cast<uint64_t>(v)}
                     : Uint256{static_cast<uint64_t>(v)}) {}

    static Int256 min() noexcept { return Int256(Uint256{1ULL << 63, 0, 0, 0}); }
    static Int256 max() noexcept { return Int256(Uint256{~0ULL >> 1, ~0ULL, ~0ULL, ~0ULL}); }

    /// Optional '-', then decimal digits or 0x hex. Range [-2^255, 2^255 - 1].
    [[nodiscard]] static Result<Int256, IntError> parse(std::string_view s);

    [[nodiscard]] bool is_negative() const noexcept { return bits.bit(255); }
    [[nodiscard]] Uint256 magnitude() const noexcept;
    [[nodiscard]] std::string to_dec() const;

    /// True when the value fits in a Solidity intN (N in 8..256).
    [[nodiscard]] bool fits_bits(unsigned n) const noexcept;

    friend bool operator==(const Int256&, const Int256&) noexcept = default;
    friend std::strong_ordering operator<=>(const Int256& a, const Int256& b) noexcept;

    [[nodiscard]] static std::optional<Int256> checked_add(const Int256& a,
                                                           const Int256& b) noexcept;
    [[nodiscard]] static std::optional<Int256> checked_sub(const Int256& a,
                                                           const Int256& b) noexcept;
    [[nodiscard]] static std::optional<Int256> checked_mul(const Int256& a,
                                                           const Int256& b) noexcept;
    /// Truncates toward zero like Solidity; nullopt on division by zero or min / -1.
    [[nodiscard]] static std::optional<Int256> checked_div(const Int256& a,
                                                           const Int256& b) noexcept;
    [[nodiscard]] Int256 negate() const noexcept { return Int256(~bits + Uint256{1}); }
};

}  // namespace credence::core
