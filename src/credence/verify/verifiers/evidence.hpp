// Verifying an ERC-8301 evidence chain (docs/architecture.md §verify/; ERC-8301 §Evidence Chain,
// "Trustless (full traversal)"): from result(runId).finalTaskHash back to the initial task(s) of
// run(), every task and reply is read from an EvidenceSource, its hash recomputed from the stored
// struct, its links, run id, timestamps and proof claims checked, and the outcome reported as a
// verdict with typed reasons and a trace (text tree and JSON).
//
// Traversal is breadth-first by depth level (tasks, then the replies they name, then the tasks
// those name, ...): each level is one tasks() / replies() call on the source, so a live source
// batches its eth_calls per level. A node reached twice (the chain is a DAG: a Qualify task
// follows three audit replies) is read and checked once. Traversal is bounded by
// EvidenceOptions::max_nodes and max_depth (a hostile source cannot make it run forever), and a
// cycle (impossible for honest hashes, possible for a lying source) is detected and reported.
//
// Provenness is per replyHash (ERC-8301 §onAgentProve: proven = true when onAgentProve has
// succeeded for this replyHash), backed by an ERC-8274 record: a reply is proven when a valid
// VerificationCompleted of the run matches its statement (taskId = runId, agentId =
// bytes32(replier), inputHash = its primary task's inputHash, outputHash = its outputHash, and the
// claimed verifier / verificationDigest when the source reports them) AND that record's
// transaction called onAgentProve on this workflow with this replyHash. A statement is not a
// reply: two replies can make the same one (a commit and its reveal, an audit answered twice
// alike), and one proof must not prove both. When a record's call is unknown (a proof sent
// through another contract), the source's per-reply claim decides instead: live, the contract's
// own proven flag. A task is proven when every reply it names is (ERC-8301 §Evidence Chain,
// Proven state). A claim of proven without such a record is `unproven_claim`. A chain may be
// valid and not fully proven (async stages need no proof).
//
// Nothing throws; source failures come back as EvidenceError.
// Thread-safety: verify_run() is reentrant; the source is used by the calling thread only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/core/bytes.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>

namespace credence::verify {

/// Why a chain is not valid. One value per failure kind; the JSON names are the snake_case names.
enum class EvidenceReason {
    run_not_completed,  ///< result().status is not Success, or finalTaskHash is zero
    missing_task,       ///< a referenced taskHash is unknown to the workflow
    missing_reply,      ///< a referenced replyHash is unknown to the workflow
    hash_mismatch,      ///< the stored struct does not hash to the hash it is stored under
    content_mismatch,   ///< non-empty input / output whose keccak256 is not inputHash / outputHash
    broken_link,        ///< a link of the wrong kind, a reply with no prevTaskHashes, a final
                        ///< task with no prevReplyHashes, or a node with no anchoring log
    wrong_run,          ///< a node's workflowRunId is not the run's
    timestamp_order,    ///< ERC-8301 §onAgentReply step 4 / §Terminal stage time ordering broken
    sequence_order,     ///< taskSeq not increasing along the chain, or reused within the run
    duplicate_link,     ///< the same hash listed twice in one prevReplyHashes / prevTaskHashes
    unproven_claim,     ///< claimed proven, but no matching ERC-8274 record backs it
    cycle,              ///< the links form a cycle
    too_large,          ///< traversal stopped at EvidenceOptions::max_nodes / max_depth
};
[[nodiscard]] std::string_view to_string(EvidenceReason reason) noexcept;

enum class NodeKind { task, reply };

struct EvidenceFailure {
    EvidenceReason reason = EvidenceReason::missing_task;
    NodeKind kind = NodeKind::task;
    core::Hash32 hash{};  // the node the failure is about (zero for run-level failures)
    std::string detail;   // one line
};

/// A node as verified: the record (nullopt when missing) and the verifier's own conclusions.
struct TaskNode {
    core::Hash32 hash{};
    std::optional<TaskRecord> record;
    bool final_task = false;
    size_t depth = 0;
    bool proven = false;  // every prevReplyHash proven (by ERC-8274 records)
};

struct ReplyNode {
    core::Hash32 hash{};
    std::optional<ReplyRecord> record;
    size_t depth = 0;
    bool proven = false;               // onAgentProve succeeded for it, backed by a record
    std::optional<ProofRecord> proof;  // that record
};

struct EvidenceReport {
    core::Hash32 run_id{};
    core::Address workflow{};
    std::string source;  // EvidenceSource::describe()
    RunResult result;
    bool valid = false;
    bool fully_proven = false;
    std::vector<EvidenceFailure> failures;  // in traversal order; failures[0] is the first
    std::vector<TaskNode> tasks;            // in traversal order; tasks[0] is the final task
    std::vector<ReplyNode> replies;         // in traversal order
    size_t depth = 0;                       // levels traversed
    size_t source_calls = 0;                // tasks() + replies() calls (one per level)

    [[nodiscard]] const EvidenceFailure* first_failure() const noexcept {
        return failures.empty() ? nullptr : &failures.front();
    }
};

struct EvidenceOptions {
    size_t max_nodes = 1'000'000;
    size_t max_depth = 200'000;
};

enum class EvidenceErrorKind { source };

struct EvidenceError {
    EvidenceErrorKind kind = EvidenceErrorKind::source;
    SourceError source;
    [[nodiscard]] std::string to_string() const;
};

/// ERC-8301 taskHash: keccak256(abi.encode(stage, taskSeq, inputHash, timestamp, expiresAt,
/// keccak256(abi.encodePacked(prevReplyHashes)), workflowRunId)); input excluded.
[[nodiscard]] core::Hash32 task_hash(const chain::bindings::i_agent_workflow::AgentTask& task);
/// ERC-8301 replyHash: keccak256(abi.encode(operationId, outputHash, timestamp, replier,
/// keccak256(abi.encodePacked(prevTaskHashes)), workflowRunId)); output excluded.
[[nodiscard]] core::Hash32 reply_hash(const chain::bindings::i_agent_workflow::AgentReply& reply);

/// ERC-8301 RunStatus by name: "Pending", "Success", "Failed", else "RunStatus(<n>)".
[[nodiscard]] std::string run_status_name(uint64_t status);

/// Verifies the run's evidence chain. A failed chain is a report with valid = false; only source
/// failures are errors.
[[nodiscard]] std::expected<EvidenceReport, EvidenceError> verify_run(
    EvidenceSource& source, const core::Hash32& run_id, const EvidenceOptions& options = {});

/// The report as JSON: run, verdict, failures, and the chain as a tree from the final task
/// (each node in full under its first parent, as {"ref": hash} under the others).
[[nodiscard]] nlohmann::ordered_json to_json(const EvidenceReport& report);
/// The report as text: a verdict line, the tree (like `credence workflow trace`), the failures.
[[nodiscard]] std::string to_text(const EvidenceReport& report);

}  // namespace credence::verify
