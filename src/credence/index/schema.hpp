// The indexer's schema as code: versioned migrations (database.hpp's migrate()) that create every
// table of the store (docs/architecture.md §index/), with a comment above each table giving its key
// and columns.
//
// Column encodings (the same on SQLite and PostgreSQL, so canonical_dump() compares them):
//   - addresses: {{BLOB}} of 20 bytes; bytes32 values (hashes, run ids): {{BLOB}} of 32 bytes;
//   - uint256 identifiers (agent_id, tool_id): {{BLOB}} of 32 bytes, big-endian, so that the
//     byte-wise order of both backends (SQLite memcmp, PostgreSQL bytea) is the numeric order;
//   - the ERC-8004 feedback value (int128): `value` TEXT, the exact integer in decimal; beside it
//     `value_wad` TEXT (value * 10^(18 - decimals), exact, the scale getSummary averages on) and
//     `normalized` {{REAL}} (value / 10^decimals, the nearest double, for ordering and charts);
//   - timestamps and counters that are uint256 on chain: BIGINT, saturated at 2^63 - 1 (no
//     realistic chain reaches it; the exact value stays in raw_logs.detail);
//   - booleans: BIGINT 0 / 1; a missing optional value: NULL;
//   - verifications.flags: BIGINT, a set of VerificationFlag bits (below).
//
// Invariants: every table has chain_id; no auto-increment ids (keys are natural, so two indexings
// of one chain produce identical rows); every projection table's primary key starts with
// (chain_id, <contract>, <entity id>) so that rollback deletes an entity's rows through the key
// (store.hpp: rollback by entity replay).
// Thread-safety: constant data.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include <credence/index/database.hpp>

namespace credence::index {

/// One bit of verifications.flags (migration 2): a signal the latest check of a subject raised,
/// which the trust engine and the API read without parsing the JSON report. Stored bits never
/// change meaning: a new signal takes a new bit.
enum class VerificationFlag : uint64_t {
    /// feedback: its proofOfPayment was checked on chain (ERC-8004 §Off-Chain Feedback File
    /// Structure).
    payment_verified = 1,
    /// agent: an endpoint domain was verified (ERC-8004 §Endpoint Domain Verification).
    domain_verified = 2,
    /// agent: an A2A agent card was read.
    agent_card = 4,
};

/// A set of VerificationFlag: the value of verifications.flags.
class VerificationFlags {
public:
    constexpr VerificationFlags() noexcept = default;
    /// Implicit: one flag is a set of one (`record.flags = VerificationFlag::agent_card`).
    constexpr VerificationFlags(VerificationFlag flag) noexcept
        : bits_(static_cast<uint64_t>(flag)) {}
    /// The stored column value (unknown bits are kept, so a newer writer's bits survive).
    [[nodiscard]] static constexpr VerificationFlags from_bits(uint64_t bits) noexcept {
        VerificationFlags out;
        out.bits_ = bits;
        return out;
    }

    [[nodiscard]] constexpr bool has(VerificationFlag flag) const noexcept {
        return (bits_ & static_cast<uint64_t>(flag)) != 0;
    }
    constexpr VerificationFlags& operator|=(VerificationFlag flag) noexcept {
        bits_ |= static_cast<uint64_t>(flag);
        return *this;
    }
    [[nodiscard]] constexpr uint64_t bits() const noexcept { return bits_; }

    friend constexpr bool operator==(VerificationFlags, VerificationFlags) noexcept = default;

private:
    uint64_t bits_ = 0;
};

/// Every migration of the indexer's schema, oldest first (versions 1, 2, ...).
[[nodiscard]] std::span<const Migration> index_migrations() noexcept;

/// How a reader that must not write opens the index (API-only nodes; a PostgreSQL hot standby):
/// OpenMode::read_only, then require_schema(index_migrations()), so an index its writer has not
/// migrated yet is refused in one line rather than queried with missing tables.
[[nodiscard]] DbResult<std::unique_ptr<Database>> open_index_read_only(std::string_view location);

/// The data tables (raw logs and projections) in dump order; store.hpp's data_tables().
[[nodiscard]] std::span<const std::string_view> index_data_tables() noexcept;

/// A secondary index: its name and its CREATE INDEX IF NOT EXISTS statement.
struct SecondaryIndex {
    std::string_view name;
    std::string_view create_sql;
};

/// The secondary indexes that ingestion never reads: rollback's raw_logs_by_entity and the read
/// paths of the API, the verifier and the trust engine. Each one costs a random-order B-tree
/// insert per event, so a bulk load drops them and builds them once at its end (IndexStore::
/// drop_secondary_indexes). The definitions equal the latest migration's (a test compares them).
[[nodiscard]] std::span<const SecondaryIndex> index_deferrable_indexes() noexcept;

}  // namespace credence::index
