// The live EvidenceSource (evidence_source.hpp): ERC-8301 records over JSON-RPC through the
// IAgentWorkflow / IAgentVerifier bindings. Every read is pinned to one block (the head when the
// source is first used), so a run that advances while it is verified is seen consistently. Per
// tasks() / replies() call, all eth_calls go out as one JSON-RPC batch (kCallsPerRequest at most
// per HTTP request); the anchoring logs and the proof logs are one eth_getLogs each.
#include <credence/verify/verifiers/evidence_source.hpp>

#include <algorithm>
#include <map>

#include <fmt/core.h>

#include <credence/chain/bindings/i_agent_verifier.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/index/store.hpp>

namespace credence::verify {
namespace {

namespace iw = chain::bindings::i_agent_workflow;
namespace av = chain::bindings::i_agent_verifier;

constexpr size_t kCallsPerRequest = 500;

SourceError rpc_error(const chain::RpcError& e, std::string_view what) {
    return {SourceErrorKind::rpc, fmt::format("{}: {}", what, e.to_string())};
}

SourceError call_failed(const chain::CallError& e) {
    const bool decode =
        e.kind == chain::CallErrorKind::bad_answer || e.kind == chain::CallErrorKind::encoding;
    return {decode ? SourceErrorKind::decode : SourceErrorKind::rpc, e.message()};
}

class RpcSource final : public EvidenceSource {
public:
    RpcSource(chain::RpcClient& rpc, core::Address workflow, uint64_t from_block)
        : rpc_(rpc), workflow_(workflow), from_block_(from_block) {}

    std::string describe() const override { return "rpc"; }
    core::Address workflow() const override { return workflow_; }

    SourceResult<RunResult> result(const core::Hash32& run_id) override {
        if (auto ok = load_anchors(run_id); !ok) return std::unexpected(ok.error());
        auto head = pinned();
        if (!head) return std::unexpected(head.error());
        chain::ContractCaller caller(rpc_, chain::BlockId(*head));
        auto r = iw::call::result(caller, workflow_, run_id);
        if (!r) return std::unexpected(call_failed(r.error()));
        RunResult out;
        out.status = r->status;
        out.final_task_hash = r->final_task_hash;
        out.completed_at = r->completed_at.fits_u64() ? r->completed_at.limbs[0] : UINT64_MAX;
        if (completed_) out.completed_block_num = completed_->block_num;
        return out;
    }

    SourceResult<std::vector<std::optional<TaskRecord>>> tasks(
        std::span<const core::Hash32> task_hashes) override {
        std::vector<core::Bytes> calldata;
        calldata.reserve(task_hashes.size());
        for (const auto& h : task_hashes) calldata.push_back(*iw::get_agent_task(h));
        auto answers = batch_call(calldata, "getAgentTask");
        if (!answers) return std::unexpected(answers.error());
        std::vector<std::optional<TaskRecord>> out;
        out.reserve(task_hashes.size());
        for (size_t i = 0; i < task_hashes.size(); ++i) {
            auto d = iw::call::get_agent_task_answer(std::move((*answers)[i]));
            if (!d && d.error().kind == chain::CallErrorKind::reverted) {
                out.emplace_back();  // ERC-8301: getAgentTask MUST revert for an unknown hash
                continue;
            }
            if (!d) return std::unexpected(call_failed(d.error()));
            TaskRecord rec{std::move(d->task), d->proven, std::nullopt};
            if (auto a = task_anchors_.find(task_hashes[i]); a != task_anchors_.end()) {
                rec.anchor = a->second;
            }
            out.emplace_back(std::move(rec));
        }
        return out;
    }

    SourceResult<std::vector<std::optional<ReplyRecord>>> replies(
        std::span<const core::Hash32> reply_hashes) override {
        std::vector<core::Bytes> calldata;
        calldata.reserve(reply_hashes.size());
        for (const auto& h : reply_hashes) calldata.push_back(*iw::get_agent_reply(h));
        auto answers = batch_call(calldata, "getAgentReply");
        if (!answers) return std::unexpected(answers.error());
        std::vector<std::optional<ReplyRecord>> out;
        out.reserve(reply_hashes.size());
        for (size_t i = 0; i < reply_hashes.size(); ++i) {
            auto d = iw::call::get_agent_reply_answer(std::move((*answers)[i]));
            if (!d && d.error().kind == chain::CallErrorKind::reverted) {
                out.emplace_back();  // an unknown reply hash
                continue;
            }
            if (!d) return std::unexpected(call_failed(d.error()));
            ReplyRecord rec{std::move(d->reply), d->verifier, d->proven, d->verification_digest,
                            std::nullopt};
            if (auto a = reply_anchors_.find(reply_hashes[i]); a != reply_anchors_.end()) {
                rec.anchor = a->second;
            }
            out.emplace_back(std::move(rec));
        }
        return out;
    }

    SourceResult<std::vector<ProofRecord>> proofs(const core::Hash32& run_id) override {
        auto head = pinned();
        if (!head) return std::unexpected(head.error());
        // ERC-8274 VerificationCompleted(taskId indexed, ...): taskId = workflowRunId (ERC-8301
        // §onAgentProve Option A); any verifier contract.
        chain::LogFilter f;
        f.from_block = chain::BlockId(from_block_);
        f.to_block = chain::BlockId(*head);
        f.topics = {std::vector<core::Hash32>{av::kVerificationCompletedTopic},
                    std::vector<core::Hash32>{run_id}};
        auto logs = rpc_.get_logs(f);
        if (!logs) return std::unexpected(rpc_error(logs.error(), "eth_getLogs"));
        std::vector<ProofRecord> out;
        std::vector<core::Hash32> txn_hashes;  // of out[i]
        for (const auto& log : *logs) {
            if (log.removed) continue;
            auto ev = av::decode_verification_completed_event(log.topics, log.data);
            if (!ev) continue;  // same topic0, other layout: not an ERC-8274 record
            ProofRecord rec;
            rec.verifier = log.address;
            rec.task_id = ev->task_id;
            rec.agent_id = ev->agent_id;
            rec.verification_digest = ev->verification_digest;
            rec.valid = ev->valid;
            rec.input_hash = ev->input_hash;
            rec.output_hash = ev->output_hash;
            rec.timestamp = ev->timestamp.fits_u64() ? ev->timestamp.limbs[0] : UINT64_MAX;
            rec.block_num = log.block_num;
            out.push_back(rec);
            txn_hashes.push_back(log.txn_hash);
        }
        if (auto ok = read_prove_calls(out, txn_hashes); !ok) return std::unexpected(ok.error());
        return out;
    }

private:
    // ERC-8301 §onAgentProve: which replyHashes each record's transaction proved, from its call
    // data (the same decoding the indexer stores: index/store.hpp decode_prove_call). One batch.
    SourceResult<void> read_prove_calls(std::vector<ProofRecord>& records,
                                        const std::vector<core::Hash32>& txn_hashes) {
        std::vector<chain::RpcCall> calls;
        std::map<core::Hash32, size_t> call_of;
        for (const auto& h : txn_hashes) {
            if (call_of.emplace(h, calls.size()).second) {
                calls.push_back(
                    {"eth_getTransactionByHash", nlohmann::json::array({core::to_hex(h)})});
            }
        }
        std::vector<std::optional<index::ProveCall>> prove_calls(calls.size());
        for (size_t at = 0; at < calls.size(); at += kCallsPerRequest) {
            const size_t n = std::min(kCallsPerRequest, calls.size() - at);
            auto results = rpc_.batch(std::span<const chain::RpcCall>(calls).subspan(at, n));
            if (!results) return std::unexpected(rpc_error(results.error(), "proof transactions"));
            for (size_t k = 0; k < n; ++k) {
                const auto& txn = (*results)[k];
                if (!txn) return std::unexpected(rpc_error(txn.error(), "a proof transaction"));
                if (!txn->is_object()) continue;  // unknown to this node: the call stays unknown
                std::optional<core::Address> to;
                if (const auto it = txn->find("to"); it != txn->end() && !it->is_null()) {
                    auto a = chain::read_address(*it);
                    if (!a) return std::unexpected(rpc_error(a.error(), "a proof transaction"));
                    to = *a;
                }
                const auto input = txn->find("input");
                if (input == txn->end()) continue;
                auto data = chain::read_data(*input);
                if (!data) return std::unexpected(rpc_error(data.error(), "a proof transaction"));
                prove_calls[at + k] =
                    index::decode_prove_call(index::transaction_detail(to, *data));
            }
        }
        for (size_t i = 0; i < records.size(); ++i) {
            if (const auto& call = prove_calls[call_of.at(txn_hashes[i])]; call) {
                records[i].prove_workflow = call->workflow;
                records[i].proved_reply_hashes = call->reply_hashes;
            }
        }
        return {};
    }

    SourceResult<uint64_t> pinned() {
        if (head_) return *head_;
        auto n = rpc_.block_number();
        if (!n) return std::unexpected(rpc_error(n.error(), "eth_blockNumber"));
        head_ = *n;
        return *n;
    }

    // The run's NewAgentTask / AgentReplyAnchored / WorkflowCompleted logs (all indexed by
    // workflowRunId): where each node was anchored.
    SourceResult<void> load_anchors(const core::Hash32& run_id) {
        auto head = pinned();
        if (!head) return std::unexpected(head.error());
        chain::LogFilter f;
        f.from_block = chain::BlockId(from_block_);
        f.to_block = chain::BlockId(*head);
        f.addresses = {workflow_};
        f.topics = {std::vector<core::Hash32>{iw::kNewAgentTaskTopic, iw::kAgentReplyAnchoredTopic,
                                              iw::kWorkflowCompletedTopic},
                    std::vector<core::Hash32>{run_id}};
        auto logs = rpc_.get_logs(f);
        if (!logs) return std::unexpected(rpc_error(logs.error(), "eth_getLogs"));
        for (const auto& log : *logs) {
            if (log.removed) continue;
            const Anchor a{log.block_num, log.txn_hash};
            if (auto t = iw::decode_new_agent_task_event(log.topics, log.data)) {
                task_anchors_.emplace(t->task_hash, a);
            } else if (auto r = iw::decode_agent_reply_anchored_event(log.topics, log.data)) {
                reply_anchors_.emplace(r->reply_hash, a);
            } else if (auto c = iw::decode_workflow_completed_event(log.topics, log.data)) {
                // ERC-8301 §Terminal stage: the final task has no NewAgentTask; WorkflowCompleted
                // is its anchor.
                completed_ = a;
                if (c->final_task_hash != core::Hash32{}) {
                    task_anchors_.emplace(c->final_task_hash, a);
                }
            }
        }
        return {};
    }

    // eth_call of every calldata at the pinned block; element i is the answer to call i, for the
    // function's call::<f>_answer to decode. Fails only when a whole batch went unanswered.
    SourceResult<std::vector<chain::CallResult<core::Bytes>>> batch_call(
        const std::vector<core::Bytes>& calldata, std::string_view what) {
        auto head = pinned();
        if (!head) return std::unexpected(head.error());
        std::vector<chain::CallResult<core::Bytes>> out;
        out.reserve(calldata.size());
        for (size_t at = 0; at < calldata.size(); at += kCallsPerRequest) {
            const size_t n = std::min(kCallsPerRequest, calldata.size() - at);
            std::vector<chain::RpcCall> calls;
            calls.reserve(n);
            for (size_t k = 0; k < n; ++k) {
                chain::CallRequest req;
                req.to = workflow_;
                req.data = calldata[at + k];
                calls.push_back({"eth_call", nlohmann::json::array({chain::to_json(req),
                                                                    chain::to_quantity(*head)})});
            }
            auto results = rpc_.batch(calls);
            if (!results) return std::unexpected(rpc_error(results.error(), what));
            for (const auto& r : *results) out.push_back(chain::call_answer(r));
        }
        return out;
    }

    chain::RpcClient& rpc_;
    core::Address workflow_;
    uint64_t from_block_;
    std::optional<uint64_t> head_;
    std::map<core::Hash32, Anchor> task_anchors_;
    std::map<core::Hash32, Anchor> reply_anchors_;
    std::optional<Anchor> completed_;
};

}  // namespace

std::unique_ptr<EvidenceSource> make_rpc_evidence_source(chain::RpcClient& rpc,
                                                         core::Address workflow,
                                                         uint64_t from_block) {
    return std::make_unique<RpcSource>(rpc, workflow, from_block);
}

}  // namespace credence::verify
