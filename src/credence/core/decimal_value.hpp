// ERC-8004 feedback values: a decimal string <-> the on-chain (int128 value, uint8 valueDecimals).
//
// ERC-8004 §Reputation Registry stores feedback as a signed fixed-point `value` (int128) and its
// `valueDecimals` (uint8, 0..18); the deployed ReputationRegistry also rejects |value| > 1e38
// (ValueOutOfRange). A DecimalValue always satisfies both bounds.
//
// Accepted text (parse_decimal_value): an optional '-', an integer part without leading zeros
// ("0" or [1-9][0-9]*), and optionally '.' followed by 1..18 digits; that is the JSON number
// grammar (RFC 8259 §6) without exponent. Rejected on purpose: '+', exponents ("1e2": the exact
// value/decimals pair would be ambiguous), empty parts ("1.", ".5"), leading zeros ("01"),
// whitespace, thousands separators and the comma decimal mark ("-3,2" of the spec's table).
//
// Trailing fraction zeros are kept as written: "1.50" -> (150, 2), never (15, 1). The mapping is
// then purely textual (value = the digits without the point, decimals = number of fraction digits)
// as in the spec's own table ("99.77%" -> 9977 / 2), the client decides the precision it states,
// and format_decimal_value() gives back the very string that was parsed. "-0" (and "-0.00") is
// accepted and denotes zero: int128 has no negative zero, so it formats back without the sign.
//
// Thread-safe, no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <credence/core/error.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class DecimalValueError {
    malformed,          ///< not -?(0|[1-9][0-9]*)(\.[0-9]+)?
    too_many_decimals,  ///< more than 18 fraction digits (ERC-8004: valueDecimals 0..18)
    out_of_range,       ///< |value| > 1e38 (deployed ReputationRegistry bound; fits int128)
};

[[nodiscard]] std::string_view to_string(DecimalValueError e) noexcept;

/// ERC-8004 §Giving Feedback: valueDecimals MUST be between 0 and 18.
inline constexpr uint8_t kMaxValueDecimals = 18;

/// An ERC-8004 feedback value. Invariant (when built through make/parse): |value| <= 1e38 and
/// decimals <= 18. The number denoted is value / 10^decimals.
struct DecimalValue {
    Int256 value;
    uint8_t decimals = 0;
    /// Representation equality: (150, 2) != (15, 1), as on-chain.
    friend bool operator==(const DecimalValue&, const DecimalValue&) = default;
};

/// 10^38, the deployed registry's bound on |value|.
[[nodiscard]] Uint256 max_abs_feedback_value() noexcept;

/// Checks the bounds of an on-chain pair (e.g. decoded from a NewFeedback event).
[[nodiscard]] Result<DecimalValue, DecimalValueError> make_decimal_value(const Int256& value,
                                                                         unsigned decimals);

/// Parses a plain decimal string (grammar in the header comment).
[[nodiscard]] Result<DecimalValue, DecimalValueError> parse_decimal_value(std::string_view text);

/// The exact decimal string: (9977, 2) -> "99.77", (-32, 1) -> "-3.2", (5, 3) -> "0.005",
/// (0, 2) -> "0.00". Parsing the result gives `v` back. Works for any Int256 and any decimals.
[[nodiscard]] std::string format_decimal_value(const DecimalValue& v);

/// value * 10^(18 - decimals): the number at 18 decimals, the scale on which getSummary averages.
/// Exact (|result| <= 1e56 < 2^255) for any value obeying the invariant.
[[nodiscard]] Int256 to_wad(const DecimalValue& v);

}  // namespace credence::core
