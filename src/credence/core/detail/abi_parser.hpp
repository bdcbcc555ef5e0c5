// Recursive-descent parser shared by parse_type (strict) and the human-readable signature parser
// (lenient: whitespace around tokens, parameter names and data-location keywords).
#pragma once

#include <string_view>

#include <credence/core/abi_type.hpp>

namespace credence::core::detail {

struct AbiCursor {
    std::string_view text;
    size_t pos = 0;
    bool lenient = false;  // human-readable signature mode

    [[nodiscard]] bool done() const noexcept { return pos >= text.size(); }
    [[nodiscard]] char peek() const noexcept { return done() ? '\0' : text[pos]; }
    void skip_space() noexcept {
        if (!lenient) return;
        while (!done() &&
               (text[pos] == ' ' || text[pos] == '\t' || text[pos] == '\n' || text[pos] == '\r'))
            ++pos;
    }
    /// Consumes `c` (after optional whitespace in lenient mode) if it is next.
    bool eat(char c) noexcept {
        skip_space();
        if (peek() != c) return false;
        ++pos;
        return true;
    }
    /// Reads [A-Za-z_$][A-Za-z0-9_$]*; empty if none.
    std::string_view identifier() noexcept;
};

/// Parses one type at the cursor. `depth` is the nesting level of the enclosing context.
[[nodiscard]] Result<AbiType, AbiError> parse_type_at(AbiCursor& cur, unsigned depth);

/// Parses "(T1,...,Tn)" at the cursor (n may be 0). In lenient mode each entry may carry a name
/// and keywords; `names`/`indexed` (optional) receive them.
[[nodiscard]] Result<std::vector<AbiType>, AbiError> parse_list_at(AbiCursor& cur, unsigned depth,
                                                                   std::vector<std::string>* names,
                                                                   std::vector<bool>* indexed);

}  // namespace credence::core::detail
