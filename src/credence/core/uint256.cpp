#include <credence/core/uint256.hpp>

#include <algorithm>
#include <bit>

namespace credence::core {
namespace {

__extension__ using u128 = unsigned __int128;

// Divides in place by a 64-bit divisor and returns the remainder.
uint64_t div_small(Uint256& a, uint64_t d) noexcept {
    u128 rem = 0;
    for (size_t i = 4; i-- > 0;) {
        const u128 cur = (rem << 64) | a.limbs[i];
        a.limbs[i] = static_cast<uint64_t>(cur / d);
        rem = cur % d;
    }
    return static_cast<uint64_t>(rem);
}

}  // namespace

std::string_view to_string(IntError e) noexcept {
    switch (e) {
        case IntError::empty:
            return "empty number";
        case IntError::bad_digit:
            return "invalid digit";
        case IntError::overflow:
            return "number out of range";
        case IntError::negative:
            return "negative number where unsigned expected";
    }
    return "integer error";
}

std::optional<Uint256> Uint256::from_be_bytes(ByteView be) noexcept {
    if (be.size() > 32) return std::nullopt;
    uint8_t word[32] = {};
    std::copy(be.begin(), be.end(), word + (32 - be.size()));
    return from_word(word);
}

Uint256 Uint256::from_word(const uint8_t* w) noexcept {
    Uint256 r;
    for (size_t i = 0; i < 4; ++i) {
        uint64_t v = 0;
        for (size_t j = 0; j < 8; ++j) v = (v << 8) | w[8 * i + j];
        r.limbs[3 - i] = v;
    }
    return r;
}

void Uint256::write_word(uint8_t* out) const noexcept {
    for (size_t i = 0; i < 4; ++i) {
        const uint64_t v = limbs[3 - i];
        for (size_t j = 0; j < 8; ++j) out[8 * i + j] = static_cast<uint8_t>(v >> (56 - 8 * j));
    }
}

Hash32 Uint256::to_word() const noexcept {
    Hash32 out;
    write_word(out.data());
    return out;
}

Bytes Uint256::to_be_bytes_trimmed() const {
    const Hash32 w = to_word();
    const auto first = std::find_if(w.begin(), w.end(), [](uint8_t b) { return b != 0; });
    return Bytes(first, w.end());
}

Result<Uint256, IntError> Uint256::from_dec(std::string_view s) {
    if (s.empty()) return fail(IntError::empty);
    Uint256 r;
    for (char c : s) {
        if (c < '0' || c > '9') return fail(IntError::bad_digit, std::string("'") + c + "'");
        auto times10 = checked_mul(r, Uint256{10});
        if (!times10) return fail(IntError::overflow);
        auto next = checked_add(*times10, Uint256{static_cast<uint64_t>(c - '0')});
        if (!next) return fail(IntError::overflow);
        r = *next;
    }
    return r;
}

Result<Uint256, IntError> Uint256::from_hex(std::string_view s) {
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
    if (s.empty()) return fail(IntError::empty);
    Uint256 r;
    unsigned width = 0;
    for (char c : s) {
        const int v = hex_digit_value(c);
        if (v < 0) return fail(IntError::bad_digit, std::string("'") + c + "'");
        if (width == 0 && v == 0) continue;
        if (++width > 64) return fail(IntError::overflow);
        r = (r << 4) | Uint256{static_cast<uint64_t>(v)};
    }
    return r;
}

Result<Uint256, IntError> Uint256::parse(std::string_view s) {
    if (s.size() >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) return from_hex(s);
    if (!s.empty() && s[0] == '-') return fail(IntError::negative);
    return from_dec(s);
}

std::string Uint256::to_dec() const {
    if (is_zero()) return "0";
    constexpr uint64_t kChunk = 10'000'000'000'000'000'000ULL;  // 10^19
    std::string out;
    Uint256 v = *this;
    while (!v.is_zero()) {
        uint64_t rem = div_small(v, kChunk);
        for (int i = 0; i < 19; ++i) {
            out.push_back(static_cast<char>('0' + rem % 10));
            rem /= 10;
            if (v.is_zero() && rem == 0) break;
        }
    }
    std::reverse(out.begin(), out.end());
    return out;
}

std::string Uint256::to_hex() const {
    if (is_zero()) return "0x0";
    std::string digits = core::to_hex(to_word(), true);
    const size_t first = digits.find_first_not_of('0', 2);
    digits.erase(2, first - 2);
    return digits;
}

unsigned Uint256::bit_width() const noexcept {
    for (size_t i = 4; i-- > 0;)
        if (limbs[i] != 0)
            return static_cast<unsigned>(64 * i) + static_cast<unsigned>(std::bit_width(limbs[i]));
    return 0;
}

std::strong_ordering operator<=>(const Uint256& a, const Uint256& b) noexcept {
    for (size_t i = 4; i-- > 0;)
        if (a.limbs[i] != b.limbs[i]) return a.limbs[i] <=> b.limbs[i];
    return std::strong_ordering::equal;
}

Uint256 operator+(const Uint256& a, const Uint256& b) noexcept {
    Uint256 r;
    unsigned long long carry = 0;
    for (size_t i = 0; i < 4; ++i) {
        unsigned long long s;
        const bool c1 = __builtin_uaddll_overflow(a.limbs[i], b.limbs[i], &s);
        const bool c2 = __builtin_uaddll_overflow(s, carry, &s);
        r.limbs[i] = s;
        carry = (c1 || c2) ? 1 : 0;
    }
    return r;
}

Uint256 operator-(const Uint256& a, const Uint256& b) noexcept {
    Uint256 r;
    unsigned long long borrow = 0;
    for (size_t i = 0; i < 4; ++i) {
        unsigned long long d;
        const bool b1 = __builtin_usubll_overflow(a.limbs[i], b.limbs[i], &d);
        const bool b2 = __builtin_usubll_overflow(d, borrow, &d);
        r.limbs[i] = d;
        borrow = (b1 || b2) ? 1 : 0;
    }
    return r;
}

Uint256 operator*(const Uint256& a, const Uint256& b) noexcept {
    Uint256 r;
    for (size_t i = 0; i < 4; ++i) {
        uint64_t carry = 0;
        for (size_t j = 0; i + j < 4; ++j) {
            const u128 t = static_cast<u128>(a.limbs[i]) * b.limbs[j] + r.limbs[i + j] + carry;
            r.limbs[i + j] = static_cast<uint64_t>(t);
            carry = static_cast<uint64_t>(t >> 64);
        }
    }
    return r;
}

Uint256 operator~(const Uint256& a) noexcept {
    return {~a.limbs[3], ~a.limbs[2], ~a.limbs[1], ~a.limbs[0]};
}
Uint256 operator&(const Uint256& a, const Uint256& b) noexcept {
    return {a.limbs[3] & b.limbs[3], a.limbs[2] & b.limbs[2], a.limbs[1] & b.limbs[1],
            a.limbs[0] & b.limbs[0]};
}
Uint256 operator|(const Uint256& a, const Uint256& b) noexcept {
    return {a.limbs[3] | b.limbs[3], a.limbs[2] | b.limbs[2], a.limbs[1] | b.limbs[1],
            a.limbs[0] | b.limbs[0]};
}
Uint256 operator^(const Uint256& a, const Uint256& b) noexcept {
    return {a.limbs[3] ^ b.limbs[3], a.limbs[2] ^ b.limbs[2], a.limbs[1] ^ b.limbs[1],
            a.limbs[0] ^ b.limbs[0]};
}

Uint256 operator<<(const Uint256& a, unsigned n) noexcept {
    if (n >= 256) return {};
    Uint256 r;
    const unsigned limb = n / 64, bit = n % 64;
    for (size_t i = 4; i-- > limb;) {
        r.limbs[i] = a.limbs[i - limb] << bit;
        if (bit != 0 && i - limb > 0) r.limbs[i] |= a.limbs[i - limb - 1] >> (64 - bit);
    }
    return r;
}

Uint256 operator>>(const Uint256& a, unsigned n) noexcept {
    if (n >= 256) return {};
    Uint256 r;
    const unsigned limb = n / 64, bit = n % 64;
    for (size_t i = 0; i + limb < 4; ++i) {
        r.limbs[i] = a.limbs[i + limb] >> bit;
        if (bit != 0 && i + limb + 1 < 4) r.limbs[i] |= a.limbs[i + limb + 1] << (64 - bit);
    }
    return r;
}

std::optional<Uint256> Uint256::checked_add(const Uint256& a, const Uint256& b) noexcept {
    Uint256 r = a + b;
    if (r < a) return std::nullopt;
    return r;
}

std::optional<Uint256> Uint256::checked_sub(const Uint256& a, const Uint256& b) noexcept {
    if (a < b) return std::nullopt;
    return a - b;
}

std::optional<Uint256> Uint256::checked_mul(const Uint256& a, const Uint256& b) noexcept {
    const unsigned width = a.bit_width() + b.bit_width();
    if (width <= 256) return a * b;
    if (width > 257) return std::nullopt;
    // Widths summing to 257 leave the product in [2^255, 2^257): a * (b >> 1) is below 2^256,
    // so double it and add the odd part with carry checks.
    const Uint256 half = a * (b >> 1);
    if (half.bit(255)) return std::nullopt;
    const Uint256 doubled = half << 1;
    return b.bit(0) ? checked_add(doubled, a) : std::optional<Uint256>(doubled);
}

std::optional<Uint256::DivMod> Uint256::divmod(const Uint256& a, const Uint256& b) noexcept {
    if (b.is_zero()) return std::nullopt;
    if (a < b) return DivMod{Uint256{}, a};
    if (b.fits_u64()) {
        Uint256 q = a;
        const uint64_t rem = div_small(q, b.limbs[0]);
        return DivMod{q, Uint256{rem}};
    }
    // Shift-subtract long division; the divisor has > 64 bits so at most 192 iterations.
    Uint256 quot, rem;
    for (unsigned i = a.bit_width(); i-- > 0;) {
        rem = rem << 1;
        if (a.bit(i)) rem.limbs[0] |= 1;
        if (rem >= b) {
            rem = rem - b;
            quot.limbs[i / 64] |= 1ULL << (i % 64);
        }
    }
    return DivMod{quot, rem};
}

Result<Int256, IntError> Int256::parse(std::string_view s) {
    const bool negative = !s.empty() && s[0] == '-';
    if (negative) s.remove_prefix(1);
    if (!s.empty() && s[0] == '-') return fail(IntError::bad_digit, "'-'");
    auto mag = Uint256::parse(s);
    if (!mag) return std::unexpected(mag.error());
    const Uint256 limit = Uint256{1} << 255;  // |min| = 2^255, max = 2^255 - 1
    if (negative ? *mag > limit : *mag >= limit) return fail(IntError::overflow);
    Int256 r(*mag);
    return negative ? r.negate() : r;
}

Uint256 Int256::magnitude() const noexcept { return is_negative() ? negate().bits : bits; }

std::string Int256::to_dec() const {
    return is_negative() ? "-" + magnitude().to_dec() : bits.to_dec();
}

bool Int256::fits_bits(unsigned n) const noexcept {
    if (n >= 256) return true;
    // In range iff every bit from n-1 up to 255 equals the sign bit.
    const Uint256 high = bits >> (n - 1);
    return high.is_zero() || high == (Uint256::max() >> (n - 1));
}

std::strong_ordering operator<=>(const Int256& a, const Int256& b) noexcept {
    if (a.is_negative() != b.is_negative())
        return a.is_negative() ? std::strong_ordering::less : std::strong_ordering::greater;
    return a.bits <=> b.bits;
}

std::optional<Int256> Int256::checked_add(const Int256& a, const Int256& b) noexcept {
    const Int256 r(a.bits + b.bits);
    if (a.is_negative() == b.is_negative() && r.is_negative() != a.is_negative())
        return std::nullopt;
    return r;
}

std::optional<Int256> Int256::checked_sub(const Int256& a, const Int256& b) noexcept {
    const Int256 r(a.bits - b.bits);
    if (a.is_negative() != b.is_negative() && r.is_negative() != a.is_negative())
        return std::nullopt;
    return r;
}

std::optional<Int256> Int256::checked_mul(const Int256& a, const Int256& b) noexcept {
    auto mag = Uint256::checked_mul(a.magnitude(), b.magnitude());
    if (!mag) return std::nullopt;
    const bool negative = a.is_negative() != b.is_negative() && !mag->is_zero();
    const Uint256 limit = Uint256{1} << 255;
    if (negative ? *mag > limit : *mag >= limit) return std::nullopt;
    const Int256 r(*mag);
    return negative ? r.negate() : r;
}

std::optional<Int256> Int256::checked_div(const Int256& a, const Int256& b) noexcept {
    if (b.bits.is_zero()) return std::nullopt;
    if (a == min() && b == Int256(-1)) return std::nullopt;
    const auto dm = Uint256::divmod(a.magnitude(), b.magnitude());
    if (!dm) return std::nullopt;
    const Int256 q(dm->quot);
    return a.is_negative() != b.is_negative() ? q.negate() : q;
}

}  // namespace credence::core
