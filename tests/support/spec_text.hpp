// Reading the specification texts (../shared/specs) at run time, so that tests take examples
// and expected values from the ERC texts themselves instead of copies in test code.
#pragma once

#include <string>

namespace credence::testing {

/// Whole text of a spec file: $CREDENCE_SPECS/<name>, else <vectors_dir>/../specs/<name>.
/// A missing file fails the calling test and returns an empty string.
[[nodiscard]] std::string read_spec(const std::string& name);

/// Body of the first ```json / ```jsonc block after `heading` (empty when the heading is absent).
[[nodiscard]] std::string spec_json_block(const std::string& spec, const std::string& heading);

/// Drops // comments outside JSON strings (jsonc -> json).
[[nodiscard]] std::string strip_jsonc_comments(const std::string& in);

/// Drops commas that precede '}' or ']' (after optional whitespace).
[[nodiscard]] std::string drop_trailing_commas(const std::string& in);

/// Replaces every occurrence of `from` in `s` by `to`.
void replace_all(std::string& s, const std::string& from, const std::string& to);

}  // namespace credence::testing
