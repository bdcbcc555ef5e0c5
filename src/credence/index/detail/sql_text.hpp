// Shared by the database backends: how a statement is named in a one-line error, and the hash of
// their statement caches, keyed by SQL text.
#pragma once

#include <cstddef>
#include <functional>
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

/// Hashes std::string keys and std::string_view lookups alike (heterogeneous lookup: a cache hit
/// does not copy the statement).
struct StringHash {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): std name
    size_t operator()(std::string_view s) const noexcept {
        return std::hash<std::string_view>{}(s);
    }
};

}  // namespace credence::index::detail
