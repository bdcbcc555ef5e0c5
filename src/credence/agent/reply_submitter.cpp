// The ERC-8301 reply protocol (reply_submitter.hpp).
#include <credence/agent/reply_submitter.hpp>

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include <fmt/core.h>

#include <credence/agent/runtime.hpp>
#include <credence/chain/bindings/bft_commit_reveal_workflow.hpp>
#include <credence/chain/bindings/competitive_bid_workflow.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/revert.hpp>

namespace credence::agent {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
using detail::fail;

std::unexpected<AgentFailure> journal_fail(const chain::JournalFailure& f) {
    return fail(AgentError::journal, fmt::format("{}: {}", chain::to_string(f.code), f.detail));
}

}  // namespace

std::optional<uint64_t> reply_timestamp(uint64_t chain_now, uint64_t max_anchor,
                                        uint64_t wall_now) noexcept {
    if (chain_now > max_anchor) return chain_now;
    if (wall_now > max_anchor) return max_anchor + 1;
    return std::nullopt;
}

void fault_point(std::string_view point) {
    const char* f = std::getenv("CREDENCE_FAULT");  // NOLINT(concurrency-mt-unsafe): tests only
    if (f != nullptr && point == f) ::kill(::getpid(), SIGKILL);
}

ReplySubmitter::ReplySubmitter(chain::RpcClient& rpc, const core::SecretKey& key,
                               core::Address workflow, chain::SenderOptions sender_options,
                               std::filesystem::path journal_path)
    : rpc_(rpc),
      key_(key),
      replier_(core::address_of(key)),
      workflow_(workflow),
      sender_options_(sender_options),
      journal_(std::move(journal_path)) {}

chain::TxnSender& ReplySubmitter::sender() {
    if (!sender_) sender_.emplace(rpc_, key_, sender_options_);
    return *sender_;
}

AgentResult<void> ReplySubmitter::record(const chain::OperationEntry& entry) {
    if (auto r = journal_.record(entry); !r) return journal_fail(r.error());
    return {};
}

AgentResult<std::vector<chain::OperationEntry>> ReplySubmitter::entries() const {
    auto e = journal_.entries();
    if (!e) return journal_fail(e.error());
    return std::move(*e);
}

AgentResult<core::Hash32> ReplySubmitter::canonical_reply(const core::Hash32& run_id,
                                                          const core::Hash32& operation_id) {
    chain::ContractCaller caller(rpc_);
    auto r =
        iw::call::get_reply_hash_by_operation(caller, workflow_, run_id, replier_, operation_id);
    if (!r) return detail::call_failed(r.error());
    return *r;
}

AgentResult<BegunReply> ReplySubmitter::begin(const ReplyContent& content,
                                              const ReplyBegin& options) {
    // ERC-8301 §Data Envelopes: the operationId is assigned (and journaled, fsynced) before the
    // first submission and carried unchanged by every retry.
    uint64_t chain_id = 0;
    if (sender_options_.chain_id) chain_id = *sender_options_.chain_id;
    const chain::OperationKey key{chain_id, workflow_,          content.run_id, content.task_hashes,
                                  replier_, content.output_hash};
    auto begun = journal_.begin(key, chain::BeginOptions{.operation_id = options.operation_id,
                                                         .new_operation = options.new_operation,
                                                         .timestamp = options.timestamp});
    if (!begun) return journal_fail(begun.error());
    fault_point("after-journal");
    BegunReply out{std::move(begun->entry), begun->reused, std::nullopt};
    if (!out.reused) return out;
    // A retry whose first attempt reached the chain (even if its receipt was never seen) is
    // already anchored: never send it again (ERC-8301 §onAgentReply step 1).
    auto canonical = canonical_reply(content.run_id, out.entry.operation_id);
    if (!canonical) return std::unexpected(canonical.error());
    if (*canonical == core::Hash32{}) return out;
    chain::OperationEntry& e = out.entry;
    if (e.status != chain::OperationStatus::mined || e.reply_hash != *canonical) {
        e.status = chain::OperationStatus::mined;
        e.reply_hash = *canonical;
        e.error.reset();
        if (auto r = record(e); !r) return std::unexpected(r.error());
    }
    out.anchored = *canonical;
    return out;
}

AgentResult<std::optional<chain::Receipt>> ReplySubmitter::transact(
    core::Bytes data, std::optional<chain::SendFailure>& failure,
    const std::function<AgentResult<void>(const core::Hash32&)>& after_submit,
    core::SignedTxn* signed_out) {
    chain::TxnRequest req;
    req.to = workflow_;
    req.data = std::move(data);
    auto failed = [&](chain::SendFailure f) -> AgentResult<std::optional<chain::Receipt>> {
        // The managed nonce may be off after anything but a revert at estimation: read it again.
        if (f.code != chain::SendError::reverted || f.txn_hash) sender_.reset();
        failure = std::move(f);
        return std::optional<chain::Receipt>{};
    };
    auto& s = sender();
    auto signed_txn = s.prepare(req);
    if (!signed_txn) return failed(signed_txn.error());
    if (signed_out != nullptr) *signed_out = *signed_txn;
    auto txn_hash = s.submit(*signed_txn);
    if (!txn_hash) return failed(txn_hash.error());
    if (after_submit) {
        if (auto r = after_submit(*txn_hash); !r) return std::unexpected(r.error());
    }
    auto receipt = s.wait(*txn_hash);
    if (!receipt) return failed(receipt.error());
    return std::optional<chain::Receipt>{std::move(*receipt)};
}

AgentResult<SentReply> ReplySubmitter::send(const ReplyContent& content, BegunReply& begun) {
    chain::OperationEntry& entry = begun.entry;
    iw::AgentReply reply;
    reply.operation_id = entry.operation_id;
    reply.output_hash = content.output_hash;
    reply.output = content.output;
    reply.timestamp = core::Uint256{entry.timestamp};
    reply.replier = replier_;
    reply.prev_task_hashes = content.task_hashes;
    reply.workflow_run_id = content.run_id;
    auto data = iw::on_agent_reply(reply);
    if (!data) return fail(AgentError::abi, data.error().detail);

    SentReply out;
    std::optional<chain::SendFailure> failure;
    auto receipt = transact(
        std::move(*data), failure,
        [&](const core::Hash32& txn_hash) -> AgentResult<void> {
            fault_point("after-submit");
            entry.status = chain::OperationStatus::sent;
            entry.txn_hash = txn_hash;
            entry.error.reset();
            if (auto r = record(entry); !r) return r;
            fault_point("after-send");
            return {};
        },
        &out.signed_txn);
    if (!receipt) return std::unexpected(receipt.error());
    if (failure) {
        // A revert is final for this attempt; any other failure leaves the operation where it
        // was (pending, or sent with its txn hash) for the next retry to resolve.
        if (failure->code == chain::SendError::reverted) {
            out.outcome = ReplyOutcome::reverted;
            entry.status = chain::OperationStatus::reverted;
            entry.error = chain::describe_credence_revert(failure->revert_data);
        } else {
            out.outcome = ReplyOutcome::failed;
            entry.status =
                entry.txn_hash ? chain::OperationStatus::sent : chain::OperationStatus::pending;
            entry.error = fmt::format("{}: {}", chain::to_string(failure->code), failure->detail);
        }
        if (auto r = record(entry); !r) return std::unexpected(r.error());
        out.entry = entry;
        out.failure = std::move(failure);
        return out;
    }
    // transact() gives a receipt whenever it reports no failure.
    const std::optional<chain::Receipt>& maybe_mined = *receipt;
    if (!maybe_mined) return fail(AgentError::rpc, "onAgentReply: no receipt and no failure");
    const chain::Receipt& mined = *maybe_mined;
    // The anchored replyHash: this run and replier's AgentReplyAnchored, or, when the contract
    // resolved the call as a logical retry (no event), its canonical binding.
    for (const auto& log : mined.logs) {
        if (log.address != workflow_) continue;
        auto e = iw::decode_agent_reply_anchored_event(log.topics, log.data);
        if (e && e->workflow_run_id == content.run_id && e->replier == replier_) {
            out.reply_hash = e->reply_hash;
        }
    }
    out.outcome = ReplyOutcome::anchored;
    if (!out.reply_hash) {
        auto canonical = canonical_reply(content.run_id, entry.operation_id);
        if (!canonical) return std::unexpected(canonical.error());
        if (*canonical != core::Hash32{}) {
            out.reply_hash = *canonical;
            out.outcome = ReplyOutcome::retry_resolved;
        }
    }
    out.receipt = mined;
    if (!out.reply_hash) {
        out.outcome = ReplyOutcome::not_anchored;
        entry.error = "the transaction anchored no reply";
        if (auto r = record(entry); !r) return std::unexpected(r.error());
        out.entry = entry;
        return out;
    }
    entry.status = chain::OperationStatus::mined;
    entry.reply_hash = *out.reply_hash;
    entry.block_num = mined.block_num;
    if (auto r = record(entry); !r) return std::unexpected(r.error());
    out.entry = entry;
    // ERC-8301 §Gate Logic, silent mode: the workflow names the anchored reply it dropped
    // (Credence's workflows: ReplyDiscarded / BidDiscarded(runId, replyHash)).
    for (const auto& log : mined.logs) {
        if (log.address != workflow_ || log.topics.size() < 3) continue;
        const bool discard_event =
            log.topics[0] == chain::bindings::bft_commit_reveal_workflow::kReplyDiscardedTopic ||
            log.topics[0] == chain::bindings::competitive_bid_workflow::kBidDiscardedTopic;
        if (discard_event && log.topics[2] == *out.reply_hash) out.discarded = true;
    }
    return out;
}

}  // namespace credence::agent
