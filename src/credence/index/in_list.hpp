// A query over a list of keys, as "... column IN ($k, ...)" run in chunks: the readers of the
// index that load the rows of a set of entities (the trust engine's incremental passes) share it.
// Chunks keep each statement well under SQLite's oldest parameter limit (999) and PostgreSQL's,
// and a chunk of a given size is one prepared statement, reused.
// Thread-safety: none (borrows one Database).
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>

namespace credence::index {

/// Keys per statement.
inline constexpr size_t kKeysPerQuery = 400;

/// Runs `sql_prefix` + "($k, ...)" + `sql_suffix` over `keys` in chunks of kKeysPerQuery, the
/// `fixed` parameters first ($1 .. $fixed.size()); calls `each(row)` per row, which returns
/// DbResult<void> (its first error stops the run). Rows come chunk by chunk: a caller that needs
/// one order sorts them.
template <typename Each>
[[nodiscard]] DbResult<void> query_in_chunks(Database& db, std::string_view sql_prefix,
                                             std::string_view sql_suffix,
                                             const std::vector<DbValue>& fixed,
                                             std::span<const core::Bytes> keys, Each&& each) {
    for (size_t from = 0; from < keys.size(); from += kKeysPerQuery) {
        const size_t n = std::min(kKeysPerQuery, keys.size() - from);
        std::vector<DbValue> params = fixed;
        std::string sql(sql_prefix);
        sql += '(';
        for (size_t i = 0; i < n; ++i) {
            if (i > 0) sql += ", ";
            sql += '$' + std::to_string(fixed.size() + i + 1);
            params.emplace_back(keys[from + i]);
        }
        sql += ')';
        sql += sql_suffix;
        auto rows = db.query(sql, params);
        if (!rows) return std::unexpected(rows.error());
        for (const DbRow& row : *rows) {
            if (auto r = each(row); !r) return r;
        }
    }
    return {};
}

}  // namespace credence::index
