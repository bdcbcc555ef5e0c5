// The index's integrity check at start (docs/node.md §Integrity): SQLite's own page-level checks,
// so a damaged file is refused in one line instead of answering wrong or empty results later.
//
//   quick: PRAGMA quick_check: every page, record format and free-list, O(file size), without
//          matching index entries against their rows;
//   full:  PRAGMA integrity_check: quick_check plus every index against its table (slower;
//          finds an index whose keys were damaged, which otherwise answers lookups with nothing).
// PostgreSQL keeps its own checksums and reports damage per query (XX001/XX002): nothing to do.
//
// Thread-safety: uses the caller's connection (one thread). Ownership: borrows the Database.
#pragma once

#include <optional>
#include <string_view>

#include <credence/index/database.hpp>

namespace credence::index {

enum class IntegrityCheck { off, quick, full };

/// "off", "quick" or "full".
[[nodiscard]] std::optional<IntegrityCheck> parse_integrity_check(std::string_view text);
[[nodiscard]] std::string_view to_string(IntegrityCheck check) noexcept;

/// Runs the check. A damaged file is DbErrorKind::corrupt with the first problem SQLite names;
/// an error running the check itself is returned as it is.
[[nodiscard]] DbResult<void> check_integrity(Database& db, IntegrityCheck check);

}  // namespace credence::index
