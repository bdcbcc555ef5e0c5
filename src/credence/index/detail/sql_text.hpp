// Shared by the database backends: how a statement is named in a one-line error.
#pragma once

#include <string>
#include <string_view>

namespace credence::index::detail {

/// The statement's first 48 characters on one line ("INSERT INTO raw_logs (chain_id, ...").
[[nodiscard]] inline std::string first_words(std::string_view sql) {
    constexpr size_t kMax = 48;
    std::string out;
    for (const char c : sql.substr(0, kMax)) out.push_back(c == '\n' || c == '\t' ? ' ' : c);
    if (sql.size() > kMax) out.append("...");
    return out;
}

}  // namespace credence::index::detail
