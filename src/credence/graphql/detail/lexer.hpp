// The GraphQL lexer (GraphQL §2.1 Source Text): one token at a time, on demand.
//
// The whole source must be valid UTF-8 (checked once, up front), since the document's strings end
// up in JSON responses. Ignored tokens (§2.1.7: BOM, white space, line terminators, comments,
// commas) are skipped. String values are unescaped (§2.9.4), block strings dedented with
// BlockStringValue(). Every token counts against ParseLimits::max_tokens.
//
// Thread-safety: one Lexer per thread. It borrows the source, which must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <credence/graphql/error.hpp>
#include <credence/graphql/limits.hpp>

namespace credence::graphql::detail {

enum class TokenKind : std::uint8_t {
    eof,
    bang,
    dollar,
    amp,
    paren_l,
    paren_r,
    spread,
    colon,
    equals,
    at,
    bracket_l,
    bracket_r,
    brace_l,
    pipe,
    brace_r,
    name,
    int_value,
    float_value,
    string,
    block_string
};

struct Token {
    TokenKind kind = TokenKind::eof;
    std::string_view raw;  // the token's source text
    std::string value;     // strings: the unescaped value
    Location loc;
};

/// A short description of a token for error messages: `"{"`, `Name "foo"`, `<EOF>`.
[[nodiscard]] std::string describe(const Token& token);

/// Checks that `text` is well-formed UTF-8 (no overlongs, surrogates or values past U+10FFFF).
[[nodiscard]] bool is_valid_utf8(std::string_view text);

class Lexer {
public:
    Lexer(std::string_view source, const ParseLimits& limits) : src_(source), limits_(limits) {}

    /// The next token, or a syntax/limit error at its position.
    [[nodiscard]] Result<Token> next();

private:
    [[nodiscard]] Location here() const { return {line_, column_}; }
    void advance(std::size_t bytes);
    void newline(std::size_t bytes);
    [[nodiscard]] Result<Token> read_number(Location start);
    [[nodiscard]] Result<Token> read_string(Location start);
    [[nodiscard]] Result<Token> read_block_string(Location start);

    std::string_view src_;
    const ParseLimits& limits_;
    std::size_t pos_ = 0;
    std::uint32_t line_ = 1;
    std::uint32_t column_ = 1;
    std::size_t tokens_ = 0;
};

}  // namespace credence::graphql::detail
