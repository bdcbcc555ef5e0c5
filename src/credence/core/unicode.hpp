// Unicode Normalization Form C (UAX #15) per Unicode 17.0, for ERC-8257's NFC rule.
//
// ERC-8257 (Canonical Manifest Bytes) requires every manifest string to be NFC per Unicode 16 or
// later and consumers to reject, never repair, anything else. Debian's ICU and utf8proc are
// Unicode 15, so the tables are our own, generated from the UCD (detail/unicode_tables.cpp).
//
// is_nfc() is exact: the NFC_Quick_Check property answers Yes/No for almost all text in one pass
// without allocating; only a Maybe falls back to full normalization and comparison. to_nfc()
// is the full algorithm: canonical decomposition, canonical ordering (stable, by combining
// class), canonical composition with the composition exclusions, Hangul done algorithmically.
//
// All functions are pure and thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <credence/core/error.hpp>

namespace credence::core {

enum class UnicodeError {
    invalid_utf8,  // malformed UTF-8, a surrogate, or a code point above U+10FFFF
};

[[nodiscard]] std::string_view to_string(UnicodeError e) noexcept;

enum class NfcQuickCheck { yes, no, maybe };

/// Canonical_Combining_Class of `cp` (0 for unassigned and out-of-range values).
[[nodiscard]] uint8_t canonical_combining_class(char32_t cp) noexcept;

/// UAX #15 §9 quick check of a code point sequence: `no` means certainly not NFC, `yes`
/// certainly NFC, `maybe` needs full normalization. Invalid UTF-8 gives `no`.
[[nodiscard]] NfcQuickCheck nfc_quick_check(std::string_view utf8) noexcept;
[[nodiscard]] NfcQuickCheck nfc_quick_check(std::u32string_view text) noexcept;

/// Exact: true iff `utf8` is valid UTF-8 and equal to its NFC form.
[[nodiscard]] bool is_nfc(std::string_view utf8);
[[nodiscard]] bool is_nfc(std::u32string_view text);

/// NFC form of a code point sequence. Surrogates and values above U+10FFFF pass through as is.
[[nodiscard]] std::u32string to_nfc(std::u32string_view text);

/// NFC form of UTF-8 text.
[[nodiscard]] Result<std::string, UnicodeError> to_nfc(std::string_view utf8);

/// Decodes strict UTF-8 (Unicode Table 3-7) into code points.
[[nodiscard]] Result<std::u32string, UnicodeError> utf8_to_code_points(std::string_view utf8);

/// Encodes Unicode scalar values as UTF-8; fails on surrogates and values above U+10FFFF.
[[nodiscard]] Result<std::string, UnicodeError> code_points_to_utf8(std::u32string_view text);

}  // namespace credence::core
