// Where an ERC-8301 evidence chain is read from (docs/architecture.md §verify/): the data-source
// interface of verify/verifiers/evidence.hpp, with two implementations that must yield the same
// records for the same run.
//
//   - make_rpc_evidence_source: live, over JSON-RPC through the generated bindings: result(),
//     getAgentTask and getAgentReply (one batched request of eth_calls per call to tasks() /
//     replies(), so the verifier pays one round trip per depth level, not per step), plus one
//     eth_getLogs for the run's anchoring events (NewAgentTask, AgentReplyAnchored,
//     WorkflowCompleted: their blocks) and one for its ERC-8274 VerificationCompleted records
//     (taskId = workflowRunId, ERC-8301 §onAgentProve Option A), plus one batch of
//     eth_getTransactionByHash for the records' transactions (their onAgentProve calls).
//   - make_index_evidence_source: offline, from the index database (index/schema.cpp):
//     workflow_results (result()), workflow_tasks / workflow_replies (by their hash indexes; the
//     final task's row is written by the WorkflowCompleted projection) and workflow_proofs (with
//     the onAgentProve call the indexer read from each record's transaction).
//
// Records carry the stored structs exactly as the source holds them: the verifier recomputes the
// hashes, so a source never needs to be trusted, only read. A hash the source does not know is
// nullopt in the result vector (a missing node is evidence, not an I/O error); SourceError is for
// I/O failures (RPC down, SQL error, undecodable return data).
//
// Claims differ by source: over RPC, `proven` / `verifier` / `verification_digest` are the
// contract's current state; in the index they are what getAgentReply returned at the anchoring
// block (a reply is normally proven later, so the index usually claims "not proven"). Both
// sources also give, per proof record, the onAgentProve call of its transaction (the RPC source
// reads it with eth_getTransactionByHash, the indexer stored it): which replyHashes it proved. The
// verifier decides provenness per replyHash from those (evidence.hpp), so both sources produce
// the same verdict and trace for an honest chain.
//
// Thread-safety: a source is used by one thread. Ownership: a source borrows its RpcClient or
// Database, which must outlive it.
#pragma once

#include <cstdint>
#include <expected>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::chain {
class RpcClient;
}
namespace credence::index {
class Database;
}

namespace credence::verify {

enum class SourceErrorKind {
    rpc,        ///< the node failed or refused a call
    database,   ///< the index database failed
    decode,     ///< return data or a stored row that cannot be decoded
    not_found,  ///< the run is unknown to the source (no result, no run row)
    ambiguous,  ///< offline: the run id exists under several workflows / chains
};
[[nodiscard]] std::string_view to_string(SourceErrorKind kind) noexcept;

struct SourceError {
    SourceErrorKind kind = SourceErrorKind::rpc;
    std::string message;  // one line
};

template <typename T>
using SourceResult = std::expected<T, SourceError>;

/// ERC-8301 result(workflowRunId), plus where the WorkflowCompleted log is (when known).
/// ERC-8301 RunStatus.Success, the one status with a completion time and a final task.
inline constexpr uint64_t kRunSuccess = 1;

struct RunResult {
    uint64_t status = 0;  // RunStatus: 0 Pending, 1 Success (kRunSuccess), 2 Failed
    core::Hash32 final_task_hash{};
    uint64_t completed_at = 0;
    std::optional<uint64_t> completed_block_num;
};

/// Where a node was anchored: the log that announced it (NewAgentTask, AgentReplyAnchored, or
/// WorkflowCompleted for the final task).
struct Anchor {
    uint64_t block_num = 0;
    core::Hash32 txn_hash{};

    friend bool operator==(const Anchor&, const Anchor&) = default;
};

/// getAgentTask(taskHash): the stored struct and the contract's proven claim.
struct TaskRecord {
    chain::bindings::i_agent_workflow::AgentTask task;
    bool proven = false;
    std::optional<Anchor> anchor;  // nullopt: no anchoring log known
};

/// getAgentReply(replyHash): the stored struct and its verification claim.
struct ReplyRecord {
    chain::bindings::i_agent_workflow::AgentReply reply;
    core::Address verifier{};
    bool proven = false;
    core::Hash32 verification_digest{};
    std::optional<Anchor> anchor;
};

/// One ERC-8274 VerificationCompleted record (IAgentVerifier), as emitted by `verifier`.
struct ProofRecord {
    core::Address verifier{};
    core::Hash32 task_id{};
    core::Hash32 agent_id{};
    core::Hash32 verification_digest{};
    bool valid = false;
    core::Hash32 input_hash{};
    core::Hash32 output_hash{};
    uint64_t timestamp = 0;
    uint64_t block_num = 0;
    /// The onAgentProve call of the transaction that emitted the record, when the source read it
    /// and it was a direct call: the workflow called and the replyHashes it proved (ERC-8301
    /// §onAgentProve; the record itself names a statement, which several replies can share).
    /// nullopt: the call is not known.
    std::optional<core::Address> prove_workflow;
    std::vector<core::Hash32> proved_reply_hashes;
};

class EvidenceSource {
public:
    virtual ~EvidenceSource() = default;

    /// "rpc http://..." or "index sqlite:/path": for reports.
    [[nodiscard]] virtual std::string describe() const = 0;
    /// The workflow contract the source reads.
    [[nodiscard]] virtual core::Address workflow() const = 0;
    [[nodiscard]] virtual SourceResult<RunResult> result(const core::Hash32& run_id) = 0;
    /// One element per hash, in order; nullopt for a hash the workflow does not know.
    [[nodiscard]] virtual SourceResult<std::vector<std::optional<TaskRecord>>> tasks(
        std::span<const core::Hash32> task_hashes) = 0;
    [[nodiscard]] virtual SourceResult<std::vector<std::optional<ReplyRecord>>> replies(
        std::span<const core::Hash32> reply_hashes) = 0;
    /// Every VerificationCompleted record whose taskId is `run_id`, in chain order.
    [[nodiscard]] virtual SourceResult<std::vector<ProofRecord>> proofs(
        const core::Hash32& run_id) = 0;
};

/// Live source over `rpc` for the workflow at `workflow`; logs are searched from `from_block`.
[[nodiscard]] std::unique_ptr<EvidenceSource> make_rpc_evidence_source(chain::RpcClient& rpc,
                                                                       core::Address workflow,
                                                                       uint64_t from_block = 0);

/// Offline source over the index. `chain_id` / `workflow` narrow the run when given; otherwise
/// they are taken from the run's workflow_runs row (SourceErrorKind::ambiguous when several).
[[nodiscard]] SourceResult<std::unique_ptr<EvidenceSource>> make_index_evidence_source(
    index::Database& db, const core::Hash32& run_id, std::optional<uint64_t> chain_id,
    std::optional<core::Address> workflow);

}  // namespace credence::verify
