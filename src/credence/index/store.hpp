// The indexer's store: raw logs, their projections, recent block hashes and the per-chain cursor,
// in one SQL database (database.hpp: SQLite by default, PostgreSQL by URL). The schema is code
// (schema.cpp: versioned migrations, a comment above each table giving its key and columns).
//
// Invariants:
//   - Everything a batch changes (its raw logs, every projection row, the block hashes and the
//     cursor) commits in ONE database transaction (docs/architecture.md §index/), so a crash at any
//     moment leaves the database at a batch boundary and a restart resumes from the cursor.
//   - Projections are a pure function of the stored raw logs (plus the task / reply structs stored
//     beside them): every projection row belongs to exactly one entity (an agent of an identity or
//     reputation registry, a validation request, a tool, a workflow run, ...), and rollback_to()
//     deletes the raw logs past the fork point and rebuilds the affected entities from the raw
//     logs that remain. Hence a rolled-back-and-re-ingested database equals a fresh index of the
//     final chain (canonical_dump() compares them).
//   - No auto-increment ids: every key is natural (chain_id, block_num, log_index, ...), so two
//     runs over the same chain produce identical rows.
// A log that does not decode against its contract's ABI (wrong topic count, bad data, unknown
// topic0) is not stored; it is returned in BatchOutcome::rejected with the reason.
//
// Thread-safety: not thread-safe; one IndexStore per Database. Ownership: borrows the Database.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <credence/chain/rpc_types.hpp>
#include <credence/index/database.hpp>
#include <credence/index/projector.hpp>
#include <credence/index/raw_log.hpp>
#include <credence/index/sources.hpp>

namespace credence::index {

/// A log to ingest, with its contract's kind and, for ERC-8301 NewAgentTask / AgentReplyAnchored,
/// the return data of getAgentTask(taskHash) / getAgentReply(replyHash) read at the log's block
/// (the events carry only hashes; docs/architecture.md §index/).
struct IngestLog {
    RawLog log;
    ContractKind kind = ContractKind::identity_registry;
    core::Bytes detail;  // empty unless detail_call() asked for it
    /// project_log()'s result, when project_logs() computed it ahead (on the fetch thread, so the
    /// committing thread only runs SQL); commit_batch() computes it otherwise. Either way the
    /// batch runs the projections grouped by entity, after the raw logs (commit_batch).
    std::optional<std::expected<Projection, std::string>> projection;
};

/// Computes every log's projection ahead of commit_batch() (a pure function of the log: see
/// projector.hpp), each statement's parameters shrunk to fit: the batch holds them until it
/// commits. Thread-safe for distinct spans.
void project_logs(uint64_t chain_id, std::span<IngestLog> logs);

/// A batch that backfills sources added to an indexed chain (source_cursors.hpp): their logs up
/// to the batch's to_block; the chain's cursor and remembered hashes stay as they are.
struct Backfill {
    std::vector<core::Address> addresses;
    bool join = false;  ///< they follow with the chain's cursor from this batch on
};

struct Batch {
    uint64_t chain_id = 0;
    uint64_t to_block = 0;        // the cursor after this batch: every block <= to_block is indexed
    std::vector<IngestLog> logs;  // sorted by (block_num, log_index)
    /// Hashes of unfinalized blocks to remember for reorg detection (at least to_block's).
    std::vector<BlockHeader> headers;
    /// Forget remembered hashes of blocks below this (they are final).
    uint64_t forget_below = 0;
    /// Set: a backfill (to_block is how far it reached), not a step of the chain's cursor.
    std::optional<Backfill> backfill;
};

struct RejectedLog {
    RawLog log;
    std::string reason;
};

struct BatchOutcome {
    uint64_t stored = 0;  // raw logs stored and projected
    std::vector<RejectedLog> rejected;
};

struct RollbackOutcome {
    uint64_t logs_removed = 0;
    uint64_t entities_rebuilt = 0;
};

struct TableCount {
    std::string table;
    int64_t rows = 0;
};

struct ChainStatus {
    uint64_t chain_id = 0;
    std::optional<uint64_t> cursor;  // nullopt: nothing indexed yet
    std::vector<TableCount> counts;  // every data table, rows of this chain
};

/// The eth_call whose return data must accompany `log` (getAgentTask / getAgentReply on the
/// emitting workflow for NewAgentTask / AgentReplyAnchored, and getAgentTask(finalTaskHash) for a
/// successful WorkflowCompleted; readFeedback for an intermediate-revision NewFeedback, whose tag1
/// the log holds only as a hash), or nullopt for every other log. The caller runs it at the log's
/// block.
[[nodiscard]] std::optional<chain::CallRequest> detail_call(const RawLog& log, ContractKind kind);

/// Whether `log`'s detail is its transaction (an ERC-8274 VerificationCompleted of a verifier):
/// a workflow emits no event of its own when a reply is proven, so which replyHashes a proof
/// proved is read from the transaction's onAgentProve call (ERC-8301 §onAgentProve). The detail
/// stored is transaction_detail(to, input).
[[nodiscard]] bool needs_transaction_detail(const RawLog& log, ContractKind kind);

/// A transaction as a log's detail: its `to` (20 bytes) followed by its input; empty for a
/// contract creation.
[[nodiscard]] core::Bytes transaction_detail(const std::optional<core::Address>& to,
                                             core::ByteView input);

/// onAgentProve(bytes32[] replyHashes, bytes proof) sent directly to `workflow`: as decoded from a
/// transaction_detail(). A transaction that succeeded proved every listed reply (onAgentProve is
/// all or nothing).
struct ProveCall {
    core::Address workflow;
    std::vector<core::Hash32> reply_hashes;
};
/// nullopt when the transaction is not a direct onAgentProve call (a creation, another function,
/// a call through another contract).
[[nodiscard]] std::optional<ProveCall> decode_prove_call(core::ByteView transaction_detail);

class IndexStore {
public:
    /// Runs the schema migrations and returns a store over `db`.
    [[nodiscard]] static DbResult<IndexStore> open(Database& db);

    /// The last fully indexed block of `chain_id`, or nullopt when it has never been indexed.
    [[nodiscard]] DbResult<std::optional<uint64_t>> cursor(uint64_t chain_id);
    /// Every chain with a cursor, ascending.
    [[nodiscard]] DbResult<std::vector<uint64_t>> chains();

    /// Stores, projects and advances the cursor in one transaction (all or nothing).
    [[nodiscard]] DbResult<BatchOutcome> commit_batch(const Batch& batch);

    /// Remembered block hashes of `chain_id`, highest block first.
    [[nodiscard]] DbResult<std::vector<BlockHeader>> recent_blocks(uint64_t chain_id);

    /// Undoes every block above `block_num` (one transaction): deletes their raw logs, remembered
    /// hashes and the verifications that saw them (verification_table.hpp), rebuilds the
    /// projections of the entities they touched from the remaining raw logs, and sets the cursor
    /// to `block_num` (never forward: a cursor below it stays).
    [[nodiscard]] DbResult<RollbackOutcome> rollback_to(uint64_t chain_id, uint64_t block_num);

    /// Records the keccak256 of a registry's runtime code (ERC-8257 asks consumers to pin it).
    /// Returns the previously recorded hash when it differs (a proxy upgrade, say), else nullopt.
    [[nodiscard]] DbResult<std::optional<core::Hash32>> record_code_hash(
        uint64_t chain_id, const core::Address& address, uint64_t block_num,
        const core::Hash32& code_hash);

    [[nodiscard]] DbResult<ChainStatus> status(uint64_t chain_id);

    /// How many raw logs are stored, of every chain (the secondary indexes cover them all),
    /// counting no further than `limit`: the cost stays bounded on a large database.
    [[nodiscard]] DbResult<uint64_t> log_count_up_to(uint64_t limit);

    /// Bulk load (docs/benchmarks.md). The secondary indexes that ingestion never reads
    /// (schema.hpp: index_deferrable_indexes) cost a random-order B-tree insert per event. Far
    /// behind the head the indexer drops them, then builds each in one sorted pass when it nears
    /// the head. Each call is one transaction and idempotent, so a crash between them leaves a
    /// consistent database, and the next run finishes the job. Rows never depend on them.
    [[nodiscard]] DbResult<bool> secondary_indexes_built();
    [[nodiscard]] DbResult<void> drop_secondary_indexes();
    [[nodiscard]] DbResult<void> build_secondary_indexes();

    /// The data tables (raw logs and projections) in a fixed order, for canonical_dump().
    [[nodiscard]] static std::span<const std::string_view> data_tables() noexcept;

    [[nodiscard]] Database& database() noexcept { return *db_; }

private:
    explicit IndexStore(Database& db) : db_(&db) {}
    Database* db_;
};

}  // namespace credence::index
