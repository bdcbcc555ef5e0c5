// The examples and printed values of the ERC texts, carried as data files in
// tests/data/erc-examples/ (README.md there names the section each one comes from), so that tests
// check our code against the specifications' own examples without reading their prose.
#pragma once

#include <string>

namespace credence::testing {

/// Whole bytes of tests/data/erc-examples/<name> (of $CREDENCE_SOURCE_DIR when set, else of the
/// checkout the tests were built from). A missing file fails the calling test and returns "".
[[nodiscard]] std::string read_erc_example(const std::string& name);

/// Drops // comments outside JSON strings (jsonc -> json).
[[nodiscard]] std::string strip_jsonc_comments(const std::string& in);

/// Drops commas that precede '}' or ']' (after optional whitespace).
[[nodiscard]] std::string drop_trailing_commas(const std::string& in);

/// Replaces every occurrence of `from` in `s` by `to`.
void replace_all(std::string& s, const std::string& from, const std::string& to);

}  // namespace credence::testing
