// Builds a Snapshot (snapshot.hpp) of one chain's ERC-8004 registries from the index: the
// projections (agents, metadata, approvals, feedback, responses, validation requests), the
// block times, and the documents the verifiers stored in their reports (registration and
// feedback files). One read transaction, so the snapshot is one state of the index.
//
// Derived values follow the subgraph's mappings (src/identity-registry.ts,
// src/reputation-registry.ts, src/validation-registry.ts): totalFeedback counts feedback not
// revoked; lastActivity is the time of the agent's last feedback or validation event (its
// registration before any); updatedAt that of its last event of any registry. Entities the
// subgraph skips are skipped: feedback and validations of agents the identity registry never
// registered. docs/graphql.md lists each field.
//
// Errors: a database error, or a row that does not decode, as DbError.
// Thread-safety: uses `db` for the call's duration; one call at a time per Database.
#pragma once

#include <cstdint>
#include <optional>

#include <credence/core/address.hpp>
#include <credence/index/database.hpp>
#include <credence/subgraph/snapshot.hpp>

namespace credence::subgraph {

struct SnapshotSources {
    uint64_t chain_id = 0;
    core::Address identity_registry{};
    std::optional<core::Address> reputation_registry;
    std::optional<core::Address> validation_registry;
};

[[nodiscard]] index::DbResult<Snapshot> load_snapshot(index::Database& db,
                                                      const SnapshotSources& sources);

/// The chain's name as the subgraph's Protocol.name gives it ("Ethereum Mainnet", ...), or
/// "Chain <id>".
[[nodiscard]] std::string chain_name(uint64_t chain_id);

}  // namespace credence::subgraph
