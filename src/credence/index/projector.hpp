// The event catalog and projection rules of the indexer: decodes one registry log with the
// generated contract bindings (chain/bindings/*.hpp) and turns it into the SQL statements that
// apply it to the projection tables (schema.cpp). The store runs them in the batch's transaction,
// after inserting the raw log; rollback replays them (store.hpp).
//
// Catalog (contract kind -> every event its contracts emit, contracts/abi/*.json):
//   identity    ERC-8004 Registered, URIUpdated, MetadataSet; ERC-721 Transfer, Approval,
//               ApprovalForAll; EIP712DomainChanged (generic)
//   reputation  ERC-8004 NewFeedback, FeedbackRevoked, ResponseAppended
//   validation  ERC-8004 ValidationRequest, ValidationResponse
//   tool        ERC-8257 ToolRegistered, ToolMetadataUpdated, AccessPredicateUpdated,
//               ToolDeregistered
//   workflow    ERC-8301 NewAgentTask, AgentReplyAnchored, WorkflowCompleted; the scenarios'
//               BidAccepted, BidDiscarded, CommitAccepted, RevealAccepted, ReplyDiscarded,
//               ReplierEnrolled, AgentVerifierUpdated (generic)
//   verifier    ERC-8274 VerificationCompleted; AttesterSet, OwnershipTransferred,
//               EIP712DomainChanged (generic)
//   identity-score    the identity events above, ERC-4906 MetadataUpdate, BatchMetadataUpdate
//                     (generic); Registered also sets the wallet to the owner
//   reputation-score  NewFeedback (score 0..100 as value, valueDecimals 0; tag1 from readFeedback,
//                     the log's detail), FeedbackRevoked, ResponseAppended (no responseHash)
//   validation-score  ValidationRequest, ValidationResponse (the current events)
//   identity-draft    AgentRegistered, AgentUpdated (agents with agent_domain, agent_address)
//   reputation-draft  AuthFeedback (generic: an authorization, not a rating)
//   validation-draft  ValidationRequest, ValidationResponse by DataHash (validator_agent_id)
// "generic" events go to contract_events (name, run id, arguments as JSON). Rows of the earlier
// ERC-8004 revisions carry their `revision` (schema.cpp, migration 10).
//
// Invariants (what makes rollback by entity replay exact, store.hpp):
//   - each log belongs to exactly one entity of its emitting contract, named by Projection::entity:
//     identity / reputation (agent_id, 32 bytes; the first draft's AuthFeedback: the server
//     agent's id), except ApprovalForAll (owner, 20 bytes) and BatchMetadataUpdate (empty);
//     validation (request_hash, the first draft's DataHash); tool (tool_id, 32 bytes); workflow
//     (run id), except ReplierEnrolled (replier, 20 bytes) and AgentVerifierUpdated (empty);
//     verifier (task_id), except AttesterSet (attester) and the ownership / domain events (empty);
//   - its statements read and write only rows of that entity, and those rows depend only on the
//     entity's logs in chain order, so deleting an entity's rows (entity_delete_statements) and
//     replaying its remaining logs rebuilds them exactly;
//   - no statement reads the database (upserts only), so the hot path is a few writes per log.
// A log that fails to decode (unknown topic0, wrong topic count, bad data, a detail that does not
// decode or belongs to another run, a feedback value outside ERC-8004's bounds) yields an error
// string and nothing is stored.
// Thread-safety: pure functions. Ownership: a Projection owns its parameters; its SQL texts are
// string literals.
#pragma once

#include <cstdint>
#include <expected>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>
#include <credence/index/raw_log.hpp>
#include <credence/index/sources.hpp>

namespace credence::index {

/// One SQL statement with its parameters ($1 is always chain_id).
struct ProjectionStatement {
    std::string_view sql;
    std::vector<DbValue> params;
};

/// A single-row INSERT that commit_batch() may run for several consecutive statements at once,
/// as one multi-row INSERT: the same rows, far fewer statements (on PostgreSQL each costs a
/// round of parse-bind-execute on the server; docs/benchmarks.md §Sync speed). `sql`, the text
/// the projection's statements carry, is head + row + tail; the row holds $1..$params, of which
/// the first key_params are the ON CONFLICT key, and the tail names no parameter (only
/// `excluded.` columns and constants), so it reads the same for any number of rows. Two rows
/// with one key never share a statement: PostgreSQL refuses an ON CONFLICT DO UPDATE that meets
/// one row twice, and SQLite would apply them in order anyway.
struct MultiRowInsert {
    std::string_view head;  ///< "INSERT INTO t (a, b) VALUES "
    std::string_view row;   ///< "($1, $2)"
    std::string_view tail;  ///< " ON CONFLICT (a) DO UPDATE SET b = excluded.b", or ""
    size_t params = 0;
    size_t key_params = 0;
    std::string sql;  ///< head + row + tail
};

/// The projections' inserts that may run several rows at once (see MultiRowInsert).
[[nodiscard]] std::span<const MultiRowInsert* const> multi_row_inserts();

struct Projection {
    std::string_view event;  // the event's name, e.g. "NewFeedback"
    core::Bytes entity;      // the entity's id within the emitting contract (see above)
    std::vector<ProjectionStatement> statements;
};

/// Decodes `log` (emitted by a contract of `kind`; `detail` is the getAgentTask / getAgentReply
/// return data for NewAgentTask / AgentReplyAnchored, or empty) and builds its projection.
/// Error: one line saying why the log is rejected.
[[nodiscard]] std::expected<Projection, std::string> project_log(uint64_t chain_id,
                                                                 const RawLog& log,
                                                                 ContractKind kind,
                                                                 core::ByteView detail);

/// DELETE statements that remove every projection row of one entity of a contract of `kind`.
/// Parameters: $1 chain_id, $2 the contract's address, $3 the entity id.
[[nodiscard]] std::span<const std::string_view> entity_delete_statements(
    ContractKind kind) noexcept;

struct CatalogEvent {
    core::Hash32 topic0;
    std::string_view name;
};

/// Every event handled for `kind` (the catalog above), by topic0.
[[nodiscard]] std::span<const CatalogEvent> event_catalog(ContractKind kind) noexcept;

}  // namespace credence::index
