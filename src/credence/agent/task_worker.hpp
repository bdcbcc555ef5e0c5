// TaskWorker: an ERC-8301 agent that follows one workflow contract and answers its tasks.
//
// Loop (step()): read NewAgentTask logs of the workflow from a persisted cursor (eth_getLogs in
// ranges, optionally filtered to one stage), load each task with getAgentTask, skip those that are
// expired or no longer eligible, run the Handler on the task (plus the outputs of its previous
// replies), and submit onAgentReply; then, when the task's stage waits for a proof (the task is
// still eligible after the reply, so the gate has not moved), submit onAgentProve with an
// ECDSAAttestationVerifier attestation (agent/reply_prover.hpp; ERC-8274 / ERC-8301 §onAgentProve
// Option A or B).
//
// Exactly-once replies (ERC-8301 §Data Envelopes, §onAgentReply step 1): before anything is sent,
// the handler output is saved under state_dir/outputs/; the reply then goes through the one reply
// protocol (agent/reply_submitter.hpp, shared with `credence workflow reply`), which begins the
// operation in the operation journal (chain/operation_journal.hpp, state_dir/operations.jsonl):
// the operationId (random, non-zero, never derived from content) and the reply timestamp. A restart
// finds the same output and so the same journal entry; getReplyHashByOperation is asked before
// any resubmission, and a resubmission carries the same operationId and content, which the
// contract resolves to the first canonical replyHash. So a crash between eth_sendRawTransaction
// and the receipt never makes a second reply.
//
// Failure handling:
//   - expiry: a task whose expiresAt has passed (chain time) is skipped (ERC-8301 §onAgentReply
//     step 4); the outcome says so.
//   - silent gate rejection (ERC-8301 §Gate Logic "silent"): the reply is anchored but the gate
//     discards it; seen as a discard event of the workflow in the receipt (or, when no
//     AgentReplyAnchored was emitted and no canonical binding exists, as not anchored).
//   - reverts that close the task for this agent (NotSelectedBidder, TaskNotEligible, ...) are
//     final for the task; the revert's error name is recorded.
//   - reorgs: the cursor keeps the hash of its block; when that block changes, the cursor moves
//     back `reorg_depth` blocks and the range is read again (replies are idempotent). A reply
//     stays unsettled until `reorg_depth` blocks deep; one that a reorg removed (its task kept) is
//     resubmitted with the same operationId (docs/agent.md §Reorgs).
//   - a lost RPC: step() fails with AgentError::rpc; run() backs off (doubling, capped) and
//     retries (agent/poll_loop.hpp).
// Wake-up: run() pauses poll_interval between steps; with WorkerConfig::subscribe, a
// notification of eth_subscribe ends the pause at once (agent/log_wakeup.hpp).
//
// Thread-safety: a TaskWorker is used by one thread (step() / run()); run() returns when the
// stop_token is set. Several workers (threads or processes, one key each) may share a workflow.
// Ownership: owns its RpcClient, key and handler.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include <credence/agent/handler.hpp>
#include <credence/agent/poll_loop.hpp>
#include <credence/chain/log_wakeup.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::agent {

enum class AgentError {
    rpc,      // the node failed or could not be reached (retryable)
    abi,      // a call's data could not be encoded or its result decoded
    journal,  // the operation journal failed (never ignored: see operation_journal.hpp)
    state,    // the state directory cannot be read or written
    config,   // a bad configuration (no verifier for a proof, ...)
};

[[nodiscard]] std::string_view to_string(AgentError e) noexcept;

struct AgentFailure {
    AgentError code = AgentError::rpc;
    std::string detail;  // one line
};

template <typename T>
using AgentResult = std::expected<T, AgentFailure>;

/// What happened to one task, as reported by step().
enum class TaskOutcome {
    replied,          // a new reply was anchored (and proven when the stage needed it)
    already_replied,  // the journal's operation was already anchored (a restart or a retry)
    proven,           // only the proof was missing, and it was submitted now
    declined,         // the handler declined the job
    expired,          // the task expired before this agent replied
    ineligible,       // the task is closed / superseded / the run is over
    rejected,         // onAgentReply or onAgentProve reverted for this agent (detail: the error)
    discarded,        // anchored, but the gate silently discarded it (ERC-8301 §Gate Logic)
    not_anchored,     // the transaction succeeded but anchored nothing
    handler_failed,   // the handler failed (detail); the task is not retried
    deferred,         // not ready yet (the chain clock has not passed the task's anchor second)
};

[[nodiscard]] std::string_view to_string(TaskOutcome o) noexcept;

struct TaskReport {
    core::Hash32 task_hash{};
    core::Hash32 run_id{};
    uint8_t stage = 0;
    TaskOutcome outcome = TaskOutcome::replied;
    std::optional<core::Hash32> operation_id;
    std::optional<core::Hash32> reply_hash;
    bool proof_sent = false;
    std::string detail;  // e.g. the revert's error name, the handler's failure
    /// Wall time spent in the handler and waiting for receipts; the rest is worker overhead.
    std::chrono::nanoseconds handler_time{0};
    std::chrono::nanoseconds chain_time{0};
    std::chrono::nanoseconds total_time{0};
};

/// How the worker decides to prove a reply.
enum class ProofMode {
    // Prove when the task is still eligible after the reply (the stage is sync). `auto` is a
    // keyword, hence the underscore.
    auto_,   // NOLINT(readability-identifier-naming)
    always,  // prove every reply
    never,
};

struct WorkerConfig {
    core::Address workflow;
    /// Answer only tasks of this stage (NewAgentTask's indexed stage); nullopt: every stage.
    std::optional<uint8_t> stage;
    /// Cursor, outputs and the operation journal live here (created when missing).
    std::filesystem::path state_dir;
    /// First block to read when there is no cursor yet.
    uint64_t start_block = 0;
    /// Blocks a log must be deep before it is acted on (0: the head itself).
    uint64_t confirmations = 0;
    /// Blocks to go back when the cursor's block was reorganised away.
    uint64_t reorg_depth = 64;
    /// Largest eth_getLogs range.
    uint64_t max_log_range = 5'000;
    /// Confirmations the sender waits for on each transaction (TxnSender).
    unsigned txn_confirmations = 1;
    std::chrono::milliseconds receipt_timeout{30'000};
    ProofMode proof_mode = ProofMode::auto_;
    /// run(): the pause between steps, and the cap of the backoff after failures.
    std::chrono::milliseconds poll_interval{200};
    std::chrono::milliseconds max_backoff{5'000};
    /// run()'s pause (agent/poll_loop.hpp); empty: a real sleep. Tests observe the backoff here.
    PollSleep sleep;
    /// run(): when set (and `sleep` is empty), an eth_subscribe to the NewAgentTask logs (newHeads
    /// when confirmations > 0) ends the pause early (agent/log_wakeup.hpp); the logs are still
    /// read by eth_getLogs. nullopt: poll only.
    std::optional<chain::SubscribeConfig> subscribe;
};

class TaskWorker {
public:
    /// `key` signs the replies; `attester_key` signs the attestation proofs (nullopt: `key`).
    /// Fails when the state directory cannot be created or the node cannot be reached.
    [[nodiscard]] static AgentResult<std::unique_ptr<TaskWorker>> create(
        chain::RpcClient rpc, core::SecretKey key, std::optional<core::SecretKey> attester_key,
        std::unique_ptr<Handler> handler, WorkerConfig config);

    ~TaskWorker();
    TaskWorker(const TaskWorker&) = delete;
    TaskWorker& operator=(const TaskWorker&) = delete;
    TaskWorker(TaskWorker&&) = delete;
    TaskWorker& operator=(TaskWorker&&) = delete;

    [[nodiscard]] const core::Address& address() const noexcept;

    /// Processes everything pending up to the head: new logs since the cursor and deferred
    /// tasks. Returns a report per task acted on (not for tasks of other stages).
    [[nodiscard]] AgentResult<std::vector<TaskReport>> step();

    /// Calls step() until `stop` is requested; failures back off (poll_interval doubling up to
    /// max_backoff). `on_report` (optional) sees every report; `on_error` every failure.
    void run(const std::stop_token& stop,
             const std::function<void(const TaskReport&)>& on_report = {},
             const std::function<void(const AgentFailure&)>& on_error = {});

    /// Tasks waiting for the chain clock (deferred); 0 when step() has nothing left to do.
    [[nodiscard]] size_t pending() const noexcept;

    /// The block the cursor has read through.
    [[nodiscard]] uint64_t cursor_block() const noexcept;

private:
    struct Impl;
    explicit TaskWorker(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

/// The operation journal the worker keeps under `state_dir`.
[[nodiscard]] std::filesystem::path worker_journal_path(const std::filesystem::path& state_dir);

/// A per-agent secret for the builtins: keccak256("credence.agent.secret" || key bytes).
[[nodiscard]] core::Hash32 agent_secret(const core::SecretKey& key);

}  // namespace credence::agent
