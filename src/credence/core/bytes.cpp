#include <credence/core/bytes.hpp>

#include <cstdlib>
#include <cstring>

namespace credence::core {

std::string_view to_string(HexError e) noexcept {
    switch (e) {
        case HexError::odd_length:
            return "odd number of hex digits";
        case HexError::bad_digit:
            return "invalid hex digit";
        case HexError::missing_prefix:
            return "missing 0x prefix";
        case HexError::wrong_length:
            return "wrong byte length";
    }
    return "hex error";
}

std::string to_hex(ByteView data, bool prefix) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    out.resize((prefix ? 2 : 0) + 2 * data.size());
    size_t pos = 0;
    if (prefix) {
        out[0] = '0';
        out[1] = 'x';
        pos = 2;
    }
    for (uint8_t b : data) {
        out[pos++] = kDigits[b >> 4];
        out[pos++] = kDigits[b & 0xf];
    }
    return out;
}

Result<Bytes, HexError> from_hex(std::string_view hex) {
    if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
    if (hex.size() % 2 != 0) return fail(HexError::odd_length);
    Bytes out(hex.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        const int hi = hex_digit_value(hex[2 * i]);
        const int lo = hex_digit_value(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return fail(HexError::bad_digit, "at position " + std::to_string(2 * i));
        out[i] = static_cast<uint8_t>((hi << 4) | lo);
    }
    return out;
}

Result<Bytes, HexError> from_prefixed_hex(std::string_view hex) {
    if (hex.size() < 2 || hex[0] != '0' || hex[1] != 'x') return fail(HexError::missing_prefix);
    return from_hex(hex);
}

Bytes concat(std::initializer_list<ByteView> parts) {
    size_t total = 0;
    for (auto p : parts) total += p.size();
    Bytes out;
    out.reserve(total);
    for (auto p : parts) out.insert(out.end(), p.begin(), p.end());
    return out;
}

void secure_wipe(void* data, size_t size) noexcept {
    if (size == 0) return;
    std::memset(data, 0, size);
    // The asm barrier tells the compiler the zeroed memory is observed, so the memset stays.
    __asm__ __volatile__("" : : "r"(data) : "memory");
}

namespace literals {
Bytes operator""_hex(const char* s, size_t n) {
    auto r = from_hex({s, n});
    if (!r) std::abort();
    return *r;
}
}  // namespace literals

}  // namespace credence::core
