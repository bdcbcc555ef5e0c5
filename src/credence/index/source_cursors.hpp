// Where each followed contract stands in the index (migration 11, table source_cursors), so that a
// registry added to an indexed chain gets its whole history (docs/cli.md §index).
//
// A source either follows with the chain's cursor (every block of its from its start block up to
// the cursor is indexed), or is being backfilled: its logs of [start_block, next_block) are
// indexed, and the indexer fetches its next blocks on their own (indexer.cpp) until next_block
// passes the chain's cursor, when it joins. A source dropped from the configuration stops
// following at the cursor (next_block = cursor + 1), so adding it again backfills the gap: no
// block of a source is indexed twice or skipped.
//
// Pure SQL over a Database inside the caller's transaction where noted; thread-safety: the
// Database's.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/index/database.hpp>
#include <credence/index/sources.hpp>

namespace credence::index {

struct SourceCursor {
    core::Address address{};
    uint64_t start_block = 0;
    uint64_t next_block = 0;  ///< the next block to backfill (while not following)
    bool following = true;
    friend bool operator==(const SourceCursor&, const SourceCursor&) = default;
};

/// Every source cursor of `chain_id`, by address.
[[nodiscard]] DbResult<std::vector<SourceCursor>> read_source_cursors(Database& db,
                                                                      uint64_t chain_id);

/// Brings the table in line with the sources an indexer is about to follow (one transaction):
/// a new source of a chain never indexed follows from its start; a new source of an indexed chain
/// (`cursor` set) is backfilled from its start block; a source no longer configured stops at the
/// cursor. Returns one warning line per source whose start block is earlier than where it was
/// first followed (only a fresh index can go back that far), and the sources to backfill.
struct TrackedSources {
    std::vector<SourceCursor> backfill;
    std::vector<std::string> warnings;
};
[[nodiscard]] DbResult<TrackedSources> track_sources(Database& db, uint64_t chain_id,
                                                     std::optional<uint64_t> cursor,
                                                     std::span<const RegistrySource> sources);

/// Inside a batch's transaction: the backfilled `addresses` are indexed up to `to_block`, and
/// follow with the chain's cursor from now on when `join`.
[[nodiscard]] DbResult<void> advance_backfill(Database& db, uint64_t chain_id,
                                              std::span<const core::Address> addresses,
                                              uint64_t to_block, bool join);

/// Inside a rollback's transaction: no backfill stands above `block_num` any more.
[[nodiscard]] DbResult<void> rewind_backfills(Database& db, uint64_t chain_id, uint64_t block_num);

}  // namespace credence::index
