#include <credence/index/source_cursors.hpp>

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include <credence/index/row.hpp>

namespace credence::index {

namespace {

constexpr std::string_view kSelect =
    "SELECT address, start_block, next_block, following FROM source_cursors WHERE chain_id = $1 "
    "ORDER BY address";
constexpr std::string_view kInsert =
    "INSERT INTO source_cursors (chain_id, address, start_block, next_block, following) VALUES "
    "($1, $2, $3, $4, $5)";
constexpr std::string_view kUpdate =
    "UPDATE source_cursors SET start_block = $3, next_block = $4, following = $5 WHERE "
    "chain_id = $1 AND address = $2";
constexpr std::string_view kRewind =
    "UPDATE source_cursors SET next_block = $2 + 1 WHERE chain_id = $1 AND following = 0 AND "
    "next_block > $2 + 1";

DbResult<void> write(Database& db, std::string_view sql, uint64_t chain_id, const SourceCursor& c) {
    const std::array<DbValue, 5> p{int_value(chain_id), blob_value(c.address.bytes),
                                   int_value(c.start_block), int_value(c.next_block),
                                   int_value(c.following ? 1 : 0)};
    return db.exec(sql, p);
}

}  // namespace

DbResult<std::vector<SourceCursor>> read_source_cursors(Database& db, uint64_t chain_id) {
    const std::array<DbValue, 1> p{int_value(chain_id)};
    auto rows = db.query(kSelect, p);
    if (!rows) return std::unexpected(rows.error());
    std::vector<SourceCursor> out;
    out.reserve(rows->size());
    for (const DbRow& row : *rows) {
        const core::Bytes* address = blob_at(row, 0);
        const int64_t* start = int_at(row, 1);
        const int64_t* next = int_at(row, 2);
        const int64_t* following = int_at(row, 3);
        if (address == nullptr || address->size() != 20 || start == nullptr || next == nullptr ||
            following == nullptr || *start < 0 || *next < 0) {
            return std::unexpected(unreadable("source_cursors", "a row"));
        }
        SourceCursor c;
        std::copy(address->begin(), address->end(), c.address.bytes.begin());
        c.start_block = static_cast<uint64_t>(*start);
        c.next_block = static_cast<uint64_t>(*next);
        c.following = *following != 0;
        out.push_back(c);
    }
    return out;
}

DbResult<TrackedSources> track_sources(Database& db, uint64_t chain_id,
                                       std::optional<uint64_t> cursor,
                                       std::span<const RegistrySource> sources) {
    if (auto r = db.begin(); !r) return std::unexpected(r.error());
    const auto fail = [&db](DbError e) -> DbResult<TrackedSources> {
        // rollback() leaves no transaction open even when it fails; the first error is the one
        // to report.
        if (auto r = db.rollback(); !r) return std::unexpected(std::move(e));
        return std::unexpected(std::move(e));
    };
    auto rows = read_source_cursors(db, chain_id);
    if (!rows) return fail(rows.error());
    // One address may be followed as several kinds: its earliest start block counts.
    std::vector<SourceCursor> wanted;
    for (const RegistrySource& src : sources) {
        auto it = std::ranges::find(wanted, src.address, &SourceCursor::address);
        if (it == wanted.end()) {
            wanted.push_back({src.address, src.start_block, src.start_block, true});
        } else {
            it->start_block = std::min(it->start_block, src.start_block);
        }
    }
    TrackedSources out;
    for (SourceCursor& row : *rows) {
        const bool configured =
            std::ranges::find(wanted, row.address, &SourceCursor::address) != wanted.end();
        if (!configured && row.following && cursor) {
            // Dropped: indexed up to the cursor; a later run that follows it again backfills from
            // there.
            row.following = false;
            row.next_block = *cursor + 1;
            if (auto r = write(db, kUpdate, chain_id, row); !r) return fail(r.error());
        }
    }
    for (SourceCursor& w : wanted) {
        auto it = std::ranges::find(*rows, w.address, &SourceCursor::address);
        if (it == rows->end()) {
            // New: a chain never indexed starts every source at its start block; an indexed one
            // backfills it.
            SourceCursor c{w.address, w.start_block, w.start_block, !cursor.has_value()};
            if (auto r = write(db, kInsert, chain_id, c); !r) return fail(r.error());
            if (!c.following) out.backfill.push_back(c);
            continue;
        }
        if (w.start_block < it->start_block) {
            if (!it->following && it->next_block == it->start_block) {
                // Nothing of it fetched yet: the backfill simply starts earlier.
                it->start_block = w.start_block;
                it->next_block = w.start_block;
                if (auto r = write(db, kUpdate, chain_id, *it); !r) return fail(r.error());
            } else {
                out.warnings.push_back(fmt::format(
                    "{} is indexed from block {}, not from block {}: only a fresh index can go "
                    "back that far",
                    w.address.to_checksum_hex(), it->start_block, w.start_block));
            }
        }
        if (!it->following) out.backfill.push_back(*it);
    }
    if (auto r = db.commit(); !r) return fail(r.error());
    return out;
}

DbResult<void> advance_backfill(Database& db, uint64_t chain_id,
                                std::span<const core::Address> addresses, uint64_t to_block,
                                bool join) {
    constexpr std::string_view kAdvance =
        "UPDATE source_cursors SET next_block = $3, following = $4 WHERE chain_id = $1 AND "
        "address = $2";
    for (const core::Address& a : addresses) {
        const std::array<DbValue, 4> p{int_value(chain_id), blob_value(a.bytes),
                                       int_value(to_block + 1), int_value(join ? 1 : 0)};
        if (auto r = db.exec(kAdvance, p); !r) return r;
    }
    return {};
}

DbResult<void> rewind_backfills(Database& db, uint64_t chain_id, uint64_t block_num) {
    const std::array<DbValue, 2> p{int_value(chain_id), int_value(block_num)};
    return db.exec(kRewind, p);
}

}  // namespace credence::index
