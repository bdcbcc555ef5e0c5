// RFC 8785 JSON Canonicalization Scheme (JCS).
//
// canonicalize() parses with the strict parser of json.hpp (so everything RFC 8785 §3.1 and
// I-JSON forbid is rejected: duplicate names, lone surrogates, invalid UTF-8, numbers outside
// IEEE-754 double) and serializes the DOM canonically:
//   - no whitespace;
//   - object members sorted by the UTF-16 code units of their names (§3.2.3), which differs from
//     UTF-8 byte order for names mixing U+E000..U+FFFF with characters above U+FFFF;
//   - strings escaped per §3.2.2.2: \" \\ \b \f \n \r \t, \u00xx (lowercase hex) for the other
//     controls, every other character as literal UTF-8;
//   - numbers as ECMAScript Number.prototype.toString (§3.2.2.3), "-0" printed as "0".
// The result is deterministic bytes fit for hashing. Nothing here normalizes Unicode, case or
// BOMs; ERC-8257's extra pre-JCS rules live in manifest_checks.hpp.
#pragma once

#include <string>
#include <string_view>

#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/json.hpp>

namespace credence::core {

/// JCS errors are the parser's errors (plus non_finite_number / invalid_utf8 for hand-built DOMs).
using JcsError = JsonError;

/// Parses `text` strictly and returns its RFC 8785 canonical form.
[[nodiscard]] Result<std::string, JcsError> canonicalize(std::string_view text,
                                                         const ParseLimits& limits = {});
[[nodiscard]] Result<std::string, JcsError> canonicalize(ByteView bytes,
                                                         const ParseLimits& limits = {});

/// Canonical form of a DOM. Fails on a non-finite number, invalid UTF-8 or a duplicate name,
/// which only a hand-built DOM can contain.
[[nodiscard]] Result<std::string, JcsError> canonicalize(const JsonValue& value);

/// Appends the ECMAScript Number.prototype.toString form of `value` (RFC 8785 §3.2.2.3) to `out`.
/// Precondition: `value` is finite.
void append_es6_number(std::string& out, double value);

/// The ECMAScript form of a finite double, or non_finite_number.
[[nodiscard]] Result<std::string, JcsError> es6_number_to_string(double value);

/// Orders two UTF-8 strings by their UTF-16 code units (RFC 8785 §3.2.3). Inputs must be valid
/// UTF-8. Returns <0, 0 or >0.
[[nodiscard]] int compare_utf16(std::string_view a, std::string_view b) noexcept;

}  // namespace credence::core
