// Strict UTF-8 helpers shared by the JSON parser, the JCS serializer and the NFC code.
//
// "Well-formed" is Unicode's Table 3-7 exactly: no overlong forms, no encoded surrogates
// (U+D800..U+DFFF), nothing above U+10FFFF, no truncated sequences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace credence::core::detail {

/// Length (1-4) of the well-formed UTF-8 sequence at s, given `avail` > 0 bytes; 0 if malformed.
[[nodiscard]] inline size_t utf8_sequence_length(const unsigned char* s, size_t avail) noexcept {
    const unsigned char c = s[0];
    if (c < 0x80) return 1;
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        if (c == 0xE0)
            lo = 0xA0;  // overlong
        else if (c == 0xED)
            hi = 0x9F;  // encoded surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        if (c == 0xF0)
            lo = 0x90;  // overlong
        else if (c == 0xF4)
            hi = 0x8F;  // above U+10FFFF
    } else {
        return 0;  // continuation byte, C0/C1 (always overlong), F5..FF
    }
    if (avail < len || s[1] < lo || s[1] > hi) return 0;
    for (size_t i = 2; i < len; ++i)
        if ((s[i] & 0xC0) != 0x80) return 0;
    return len;
}

/// Code point of a well-formed sequence of length `len` (from utf8_sequence_length).
[[nodiscard]] inline char32_t utf8_decode(const unsigned char* s, size_t len) noexcept {
    switch (len) {
        case 1:
            return s[0];
        case 2:
            return ((s[0] & 0x1Fu) << 6) | (s[1] & 0x3Fu);
        case 3:
            return ((s[0] & 0x0Fu) << 12) | ((s[1] & 0x3Fu) << 6) | (s[2] & 0x3Fu);
        default:
            return ((s[0] & 0x07u) << 18) | ((s[1] & 0x3Fu) << 12) | ((s[2] & 0x3Fu) << 6) |
                   (s[3] & 0x3Fu);
    }
}

/// Appends the UTF-8 form of `cp` (a Unicode scalar value) to `out`.
inline void append_utf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
        const char b[2] = {static_cast<char>(0xC0 | (cp >> 6)),
                           static_cast<char>(0x80 | (cp & 0x3F))};
        out.append(b, 2);
    } else if (cp < 0x10000) {
        const char b[3] = {static_cast<char>(0xE0 | (cp >> 12)),
                           static_cast<char>(0x80 | ((cp >> 6) & 0x3F)),
                           static_cast<char>(0x80 | (cp & 0x3F))};
        out.append(b, 3);
    } else {
        const char b[4] = {
            static_cast<char>(0xF0 | (cp >> 18)), static_cast<char>(0x80 | ((cp >> 12) & 0x3F)),
            static_cast<char>(0x80 | ((cp >> 6) & 0x3F)), static_cast<char>(0x80 | (cp & 0x3F))};
        out.append(b, 4);
    }
}

}  // namespace credence::core::detail
