// ReplySubmitter: the one ERC-8301 reply protocol, used by `credence workflow reply` and by
// TaskWorker (docs/agent.md, docs/architecture.md §agent/).
//
//   begin():  journal.begin (the operationId, random and non-zero, and AgentReply.timestamp are
//             fsynced BEFORE anything is sent: ERC-8301 §Data Envelopes); for an operation the
//             journal already holds (a retry), getReplyHashByOperation: a reply the chain already
//             binds is never sent again (§onAgentReply step 1).
//   send():   onAgentReply with the journaled operationId and timestamp; the journal records
//             sent (right after the node accepted the transaction), then mined with the replyHash,
//             or reverted; the receipt gives the reply: this run and replier's
//             AgentReplyAnchored, else the canonical binding (the contract resolved a logical
//             retry without an event), and whether the gate silently discarded it (§Gate Logic).
//
// The journal has one owner per process and file: this object (the worker's unsettled-reply
// checks record through it too). Reply timestamps are chosen by reply_timestamp() for every
// caller. The crash tests' one hook is fault_point(): CREDENCE_FAULT=<point> SIGKILLs the process
// at `after-journal` (operation begun, nothing sent), `after-submit` (the node accepted the
// transaction, the journal does not say so yet) or `after-send` (the journal says sent).
//
// Thread-safety: one thread uses a ReplySubmitter. Ownership: borrows the RpcClient and the key,
// which must outlive it; owns the journal handle and the transaction sender (rebuilt after a
// failure, so its managed nonce is read again).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/agent/task_worker.hpp>
#include <credence/chain/operation_journal.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/txn.hpp>

namespace credence::agent {

/// AgentReply.timestamp (ERC-8301 §onAgentReply step 4: max(anchor_time(prevTaskHashes)) <
/// timestamp <= block.timestamp): chain time when it is past the anchor; else anchor + 1 once
/// our clock has left the anchor's second (nodes such as anvil give blocks of one second the same
/// timestamp, and the next block is built later); nullopt while it has not (try again shortly).
/// Never our clock alone, which can be ahead of the block a node estimates gas in.
[[nodiscard]] std::optional<uint64_t> reply_timestamp(uint64_t chain_now, uint64_t max_anchor,
                                                      uint64_t wall_now) noexcept;

/// The crash tests' hook: SIGKILLs the process when CREDENCE_FAULT names `point`.
void fault_point(std::string_view point);

/// What a reply says (AgentReply without operationId and timestamp, which the journal holds).
struct ReplyContent {
    core::Hash32 run_id{};
    std::vector<core::Hash32> task_hashes;  // prevTaskHashes, the primary task first
    core::Bytes output;                     // empty when withheld (only outputHash commits)
    core::Hash32 output_hash{};
};

struct ReplyBegin {
    /// An explicit operationId (assigned by the operation's originator); nullopt: the journal's
    /// operation of this content, else a new random one.
    std::optional<core::Hash32> operation_id;
    /// A new logical operation even if the journal holds one for this content (ERC-8301: an
    /// intentional new operation over the same output MUST use a new operationId).
    bool new_operation = false;
    /// AgentReply.timestamp of a new operation (reply_timestamp()); a retry keeps its first one.
    uint64_t timestamp = 0;
};

/// An operation begun in the journal.
struct BegunReply {
    chain::OperationEntry entry;
    bool reused = false;  // the journal already held it (a retry)
    /// Set when the chain already binds the operation (a retry whose first attempt reached the
    /// chain): the canonical replyHash; the journal records it mined.
    std::optional<core::Hash32> anchored;
};

enum class ReplyOutcome {
    anchored,        // this transaction anchored a new reply (AgentReplyAnchored)
    retry_resolved,  // the contract resolved it as a logical retry of an anchored operation
    not_anchored,    // the transaction succeeded but anchored nothing
    reverted,        // onAgentReply reverted (failure holds the revert data)
    failed,          // not sent, or no receipt (failure: RPC, timeout, ...); the journal keeps the
                     // operation pending, or sent with its transaction hash, for a retry
};

struct SentReply {
    ReplyOutcome outcome = ReplyOutcome::anchored;
    chain::OperationEntry entry;  // the journal's latest snapshot
    std::optional<core::Hash32> reply_hash;
    bool discarded = false;  // the gate discarded it (ReplyDiscarded / BidDiscarded names it)
    core::SignedTxn signed_txn;
    std::optional<chain::Receipt> receipt;
    std::optional<chain::SendFailure> failure;  // reverted / failed: why
};

class ReplySubmitter {
public:
    /// `sender_options.chain_id` must be set (the journal's key names the chain).
    ReplySubmitter(chain::RpcClient& rpc, const core::SecretKey& key, core::Address workflow,
                   chain::SenderOptions sender_options, std::filesystem::path journal_path);

    [[nodiscard]] const core::Address& replier() const noexcept { return replier_; }
    [[nodiscard]] const core::Address& workflow() const noexcept { return workflow_; }
    [[nodiscard]] const std::filesystem::path& journal_path() const noexcept {
        return journal_.path();
    }

    /// Begins (or finds) the operation of `content` in the journal; for a retry, asks
    /// getReplyHashByOperation whether the chain already binds it.
    [[nodiscard]] AgentResult<BegunReply> begin(const ReplyContent& content,
                                                const ReplyBegin& options);

    /// Sends onAgentReply for a begun operation that the chain does not bind yet, recording each
    /// step in the journal. Errors are the journal's (and calldata encoding); a revert or a lost
    /// transaction is an outcome.
    [[nodiscard]] AgentResult<SentReply> send(const ReplyContent& content, BegunReply& begun);

    /// getReplyHashByOperation(runId, replier, operationId): zero when unbound.
    [[nodiscard]] AgentResult<core::Hash32> canonical_reply(const core::Hash32& run_id,
                                                            const core::Hash32& operation_id);

    /// Records a new snapshot of an operation (fsynced).
    [[nodiscard]] AgentResult<void> record(const chain::OperationEntry& entry);
    /// The latest snapshot of every operation in the journal.
    [[nodiscard]] AgentResult<std::vector<chain::OperationEntry>> entries() const;

    /// Sends a transaction to the workflow through the same sender (its managed nonce): the
    /// receipt, or nullopt with `failure` set (a revert, at estimation or mined, or anything
    /// else). `after_submit` runs right after the node accepted it; its error is returned.
    /// `signed_out` receives the signed transaction.
    [[nodiscard]] AgentResult<std::optional<chain::Receipt>> transact(
        core::Bytes data, std::optional<chain::SendFailure>& failure,
        const std::function<AgentResult<void>(const core::Hash32&)>& after_submit = {},
        core::SignedTxn* signed_out = nullptr);

    /// Forgets the sender's managed nonce (after a reorg may have dropped our transactions).
    void reset_sender() noexcept { sender_.reset(); }

private:
    chain::TxnSender& sender();

    chain::RpcClient& rpc_;
    const core::SecretKey& key_;
    core::Address replier_;
    core::Address workflow_;
    chain::SenderOptions sender_options_;
    chain::OperationJournal journal_;
    std::optional<chain::TxnSender> sender_;
};

}  // namespace credence::agent
