#include <credence/agent/task_worker.hpp>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <memory>
#include <unordered_set>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/agent/reply_prover.hpp>
#include <credence/agent/reply_submitter.hpp>
#include <credence/agent/runtime.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/operation_journal.hpp>
#include <credence/chain/revert.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/keccak.hpp>

namespace credence::agent {

std::string_view to_string(TaskOutcome o) noexcept {
    switch (o) {
        case TaskOutcome::replied:
            return "replied";
        case TaskOutcome::already_replied:
            return "already_replied";
        case TaskOutcome::proven:
            return "proven";
        case TaskOutcome::declined:
            return "declined";
        case TaskOutcome::expired:
            return "expired";
        case TaskOutcome::ineligible:
            return "ineligible";
        case TaskOutcome::rejected:
            return "rejected";
        case TaskOutcome::discarded:
            return "discarded";
        case TaskOutcome::not_anchored:
            return "not_anchored";
        case TaskOutcome::handler_failed:
            return "handler_failed";
        case TaskOutcome::deferred:
            return "deferred";
    }
    return "unknown";
}

std::filesystem::path worker_journal_path(const std::filesystem::path& state_dir) {
    return state_dir / "operations.jsonl";
}

core::Hash32 agent_secret(const core::SecretKey& key) {
    core::Bytes pre;
    const std::string_view tag = "credence.agent.secret";
    pre.insert(pre.end(), tag.begin(), tag.end());
    pre.insert(pre.end(), key.expose_secret().begin(), key.expose_secret().end());
    const core::Hash32 h = core::keccak256(pre);
    std::fill(pre.begin(), pre.end(), uint8_t{0});
    return h;
}

namespace {

namespace iw = chain::bindings::i_agent_workflow;
namespace sw = chain::bindings::single_stage_workflow;
using detail::fail;
using Clock = std::chrono::steady_clock;

// With a wake-up source, the longest pause while tasks wait for the chain clock (deferred).
constexpr std::chrono::milliseconds kDeferredRecheck{250};

uint64_t low_u64(const core::Uint256& v) { return v.fits_u64() ? v.limbs[0] : UINT64_MAX; }

/// A handler output saved before the operation begins, so a restart replays the same content.
struct SavedOutput {
    core::Bytes output;
    core::Hash32 output_hash{};
    bool withhold = false;
};

std::string serialize(const SavedOutput& s) {
    return nlohmann::json{{"output", core::to_hex(s.output)},
                          {"outputHash", core::to_hex(s.output_hash)},
                          {"withhold", s.withhold}}
               .dump() +
           "\n";
}

std::optional<SavedOutput> parse_saved(const std::string& text) {
    try {
        const auto j = nlohmann::json::parse(text);
        auto out = core::from_hex(j.at("output").get<std::string>());
        auto h = core::from_hex_fixed<32>(j.at("outputHash").get<std::string>());
        if (!out || !h) return std::nullopt;
        return SavedOutput{std::move(*out), *h, j.at("withhold").get<bool>()};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

}  // namespace

struct TaskWorker::Impl {
    chain::RpcClient rpc;
    chain::ContractCaller caller{rpc};  // eth_call at latest through the call helpers
    core::SecretKey key;
    std::optional<core::SecretKey> attester_key;
    core::Address address;
    std::unique_ptr<Handler> handler;
    WorkerConfig config;
    uint64_t chain_id = 0;
    // The ERC-8301 reply protocol and the owner of the operation journal (reply_submitter.hpp);
    // made by create() once the chain id is known.
    std::unique_ptr<ReplySubmitter> submitter;
    /// Made by TaskWorker's constructor, so present whenever a member function runs.
    ReplySubmitter& replies() { return *submitter; }
    detail::Cursor cursor;
    // Tasks read but not finished (deferred or failed transiently), in arrival order.
    std::deque<std::pair<core::Hash32, uint64_t>> queue;  // (task hash, block)
    std::unordered_set<std::string> done;                 // task hashes finished in this process
    std::optional<std::pair<core::Address, bool>> proof_policy;
    // Replies this worker saw anchored that a reorg may still remove: re-checked every step until
    // reorg_depth blocks deep. A reply that is gone is not done (ERC-8301 §onAgentReply step 1:
    // only a canonical binding is a reply); its task is processed again, which resubmits the
    // journaled operation with the SAME operationId and content (§Data Envelopes).
    std::vector<chain::OperationEntry> unsettled;
    // A block that was the head at the last check, when every unsettled reply at or below it was
    // bound. While it stays canonical so do they (each block commits to its parent), so a step
    // re-asks getReplyHashByOperation only for newer replies: two block reads, not one call per
    // reply.
    std::optional<std::pair<uint64_t, core::Hash32>> checkpoint;

    Impl(chain::RpcClient r, core::SecretKey k, std::optional<core::SecretKey> a,
         std::unique_ptr<Handler> h, WorkerConfig c)
        : rpc(std::move(r)),
          key(std::move(k)),
          attester_key(std::move(a)),
          address(core::address_of(key)),
          handler(std::move(h)),
          config(std::move(c)),
          cursor(config.state_dir / "cursor.json", config.start_block) {}

    std::filesystem::path output_path(const core::Hash32& task_hash) const {
        return config.state_dir / "outputs" / (core::to_hex(task_hash).substr(2) + ".json");
    }

    AgentResult<iw::GetAgentReplyResult> get_reply(const core::Hash32& rh) {
        auto r = iw::call::get_agent_reply(caller, config.workflow, rh);
        if (!r) return detail::call_failed(r.error());
        return std::move(*r);
    }

    /// isTaskEligible (Credence's AgentWorkflow extension); nullopt when the workflow lacks it.
    AgentResult<std::optional<bool>> eligible(const core::Hash32& th) {
        return eligibility(sw::call::is_task_eligible(caller, config.workflow, th));
    }

    /// An isTaskEligible answer: a workflow without the function reverts or answers something
    /// else, which is nullopt, not a failure.
    static AgentResult<std::optional<bool>> eligibility(const chain::CallResult<bool>& r) {
        if (r) return std::optional<bool>{*r};
        if (r.error().kind == chain::CallErrorKind::reverted ||
            r.error().kind == chain::CallErrorKind::bad_answer)
            return std::optional<bool>{};
        return detail::call_failed(r.error());
    }

    AgentResult<std::pair<core::Address, bool>> verifier() {
        if (proof_policy) return *proof_policy;
        auto r = sw::call::proof_policy(caller, config.workflow);
        if (!r) {
            // A workflow without proofPolicy has no verifier.
            if (r.error().kind == chain::CallErrorKind::reverted) {
                proof_policy = std::pair{core::Address{}, true};
                return *proof_policy;
            }
            return detail::call_failed(r.error());
        }
        proof_policy = std::pair{r->verifier, r->agent_verifier_mode};
        return *proof_policy;
    }

    AgentResult<void> record(const chain::OperationEntry& e) { return replies().record(e); }

    /// Proves `reply_hash` when the stage waits for a proof. Sets report.proof_sent / detail.
    AgentResult<void> maybe_prove(const core::Hash32& task_hash, const core::Hash32& reply_hash,
                                  const iw::AgentTask& task, TaskReport& report) {
        if (config.proof_mode == ProofMode::never) return {};
        auto reply = get_reply(reply_hash);
        if (!reply) return std::unexpected(reply.error());
        if (reply->proven) return {};
        if (config.proof_mode == ProofMode::auto_) {
            // A sync stage leaves the task eligible until the proof lets the gate run; an async
            // gate that moved the FSM (or consumed the task) made it ineligible.
            auto e = eligible(task_hash);
            if (!e) return std::unexpected(e.error());
            if (!e->value_or(false)) return {};
        }
        auto policy = verifier();
        if (!policy) return std::unexpected(policy.error());
        if (policy->first.is_zero()) {
            report.detail = "no proof verifier";
            return {};
        }
        // ERC-8301 §onAgentProve step 1: inputHash of prevTaskHashes[0] (this task), read from
        // the chain.
        const ReplyProof proof = prove_reply(chain_id, ProofPolicy{policy->first, policy->second},
                                             attester_key ? *attester_key : key, reply_hash,
                                             reply->reply, task.input_hash);
        const std::vector<core::Hash32> hashes{reply_hash};
        auto data = iw::on_agent_prove(hashes, proof.proof);
        if (!data) return fail(AgentError::abi, data.error().detail);
        std::optional<chain::SendFailure> failure;
        const auto t0 = Clock::now();
        auto receipt = replies().transact(std::move(*data), failure);
        report.chain_time += Clock::now() - t0;
        if (!receipt) return std::unexpected(receipt.error());
        if (failure) {
            if (failure->code != chain::SendError::reverted) return send_failed(*failure);
            report.detail =
                "onAgentProve reverted: " + chain::describe_credence_revert(failure->revert_data);
            return {};
        }
        report.proof_sent = true;
        return {};
    }

    static std::unexpected<AgentFailure> send_failed(const chain::SendFailure& f) {
        return fail(AgentError::rpc, fmt::format("{}: {}", chain::to_string(f.code), f.detail));
    }

    /// What process() reads first, in one JSON-RPC batch (one round trip instead of three):
    /// getAgentTask, isTaskEligible and the latest block, all at the same head.
    struct Snapshot {
        std::optional<chain::CallError> unknown;  // getAgentTask reverted (UnknownTask)
        iw::GetAgentTaskResult task;
        std::optional<bool> eligible;  // nullopt: the workflow has no isTaskEligible
        chain::Block latest;
    };

    AgentResult<Snapshot> snapshot(const core::Hash32& th) {
        auto task_data = iw::get_agent_task(th);
        auto eligible_data = sw::is_task_eligible(th);
        if (!task_data || !eligible_data) return fail(AgentError::abi, "getAgentTask calldata");
        auto call_json = [&](const core::Bytes& data) {
            chain::CallRequest req;
            req.to = config.workflow;
            req.data = data;
            return nlohmann::json::array({chain::to_json(req), "latest"});
        };
        const std::vector<chain::RpcCall> calls{
            {"eth_call", call_json(*task_data)},
            {"eth_call", call_json(*eligible_data)},
            {"eth_getBlockByNumber", nlohmann::json::array({"latest", false})}};
        auto results = rpc.batch(calls);
        if (!results) return fail(AgentError::rpc, "batch: " + results.error().to_string());
        if (results->size() != 3) return fail(AgentError::rpc, "batch: wrong answer count");
        Snapshot snap;
        auto task = iw::call::get_agent_task_answer(chain::call_answer((*results)[0]));
        if (!task) {
            if (task.error().kind != chain::CallErrorKind::reverted)
                return detail::call_failed(task.error());
            snap.unknown = std::move(task.error());
            return snap;
        }
        snap.task = std::move(*task);
        auto eligible =
            eligibility(sw::call::is_task_eligible_answer(chain::call_answer((*results)[1])));
        if (!eligible) return std::unexpected(eligible.error());
        snap.eligible = *eligible;
        const auto& blk = (*results)[2];
        if (!blk) return fail(AgentError::rpc, "eth_getBlockByNumber: " + blk.error().to_string());
        auto block = chain::read_block(*blk);
        if (!block)
            return fail(AgentError::rpc, "eth_getBlockByNumber: " + block.error().to_string());
        snap.latest = std::move(*block);
        return snap;
    }

    void watch(const chain::OperationEntry& entry) {
        std::erase_if(unsettled, [&](const chain::OperationEntry& e) {
            return e.operation_id == entry.operation_id;
        });
        unsettled.push_back(entry);
    }

    /// The journal's anchored replies of this worker (a restart: a reorg while it was down must
    /// not leave a reply lost; the first step checks them).
    AgentResult<void> load_unsettled() {
        auto entries = replies().entries();
        if (!entries) return std::unexpected(entries.error());
        for (const auto& e : *entries) {
            if (e.status == chain::OperationStatus::mined && e.block_num &&
                e.key.chain_id == chain_id && e.key.workflow == config.workflow &&
                e.key.replier == address && e.key.task_hashes.size() == 1)
                unsettled.push_back(e);
        }
        return {};
    }

    /// Re-checks the unsettled replies at `head`: those above the checkpoint (all of them when the
    /// checkpoint's block changed) by getReplyHashByOperation, in one batch. A binding that
    /// disappeared puts its task back in the queue; a reply reorg_depth deep is settled. Returns
    /// whether a reply was found reorganised away.
    AgentResult<bool> check_unsettled(uint64_t head) {
        std::erase_if(unsettled, [&](const chain::OperationEntry& e) {
            return e.block_num.value_or(0) + config.reorg_depth <= head;
        });
        if (unsettled.empty()) return false;
        std::vector<chain::RpcCall> reads{
            {"eth_getBlockByNumber", nlohmann::json::array({"latest", false})}};
        if (checkpoint)
            reads.push_back(
                {"eth_getBlockByNumber",
                 nlohmann::json::array({chain::to_quantity(checkpoint->first), false})});
        auto blocks = rpc.batch(reads);
        if (!blocks) return fail(AgentError::rpc, "batch: " + blocks.error().to_string());
        if (blocks->size() != reads.size()) return fail(AgentError::rpc, "batch: wrong count");
        std::vector<chain::Block> read;
        for (const auto& b : *blocks) {
            if (!b) return fail(AgentError::rpc, "eth_getBlockByNumber: " + b.error().to_string());
            if (b->is_null()) {
                read.emplace_back();  // the checkpoint's block is gone: a zero hash never matches
                continue;
            }
            auto block = chain::read_block(*b);
            if (!block)
                return fail(AgentError::rpc, "eth_getBlockByNumber: " + block.error().to_string());
            read.push_back(std::move(*block));
        }
        const bool intact = checkpoint && read.size() == 2 && read[1].hash == checkpoint->second;
        std::vector<size_t> suspects;
        for (size_t i = 0; i < unsettled.size(); ++i)
            if (!intact || unsettled[i].block_num.value_or(0) > checkpoint->first)
                suspects.push_back(i);
        checkpoint = std::pair{read[0].number, read[0].hash};
        if (suspects.empty()) return false;

        std::vector<chain::RpcCall> calls;
        calls.reserve(suspects.size());
        for (const size_t i : suspects) {
            const chain::OperationEntry& e = unsettled[i];
            auto data = iw::get_reply_hash_by_operation(e.key.run_id, address, e.operation_id);
            if (!data) return fail(AgentError::abi, data.error().detail);
            chain::CallRequest req;
            req.to = config.workflow;
            req.data = std::move(*data);
            calls.push_back({"eth_call", nlohmann::json::array({chain::to_json(req), "latest"})});
        }
        auto results = rpc.batch(calls);
        if (!results) return fail(AgentError::rpc, "batch: " + results.error().to_string());
        if (results->size() != calls.size()) return fail(AgentError::rpc, "batch: wrong count");
        std::vector<bool> lost_at(unsettled.size(), false);
        for (size_t k = 0; k < suspects.size(); ++k) {
            auto canonical =
                iw::call::get_reply_hash_by_operation_answer(chain::call_answer((*results)[k]));
            // A workflow that cannot answer teaches nothing: the reply settles with depth.
            if (!canonical && canonical.error().kind == chain::CallErrorKind::reverted) continue;
            if (!canonical) return detail::call_failed(canonical.error());
            if (*canonical == core::Hash32{}) lost_at[suspects[k]] = true;
        }
        bool lost = false;
        std::vector<chain::OperationEntry> keep;
        for (size_t i = 0; i < unsettled.size(); ++i) {
            chain::OperationEntry& e = unsettled[i];
            if (!lost_at[i]) {
                keep.push_back(std::move(e));
                continue;
            }
            // Reorganised away: the journal says so, and the task is processed again.
            lost = true;
            e.status = chain::OperationStatus::pending;
            e.reply_hash.reset();
            e.error = "the anchored reply was reorganised away";
            const uint64_t block = e.block_num.value_or(1);
            e.block_num.reset();
            if (auto w = record(e); !w) return std::unexpected(w.error());
            const core::Hash32& th = e.key.task_hashes.front();
            done.erase(core::to_hex(th));
            const bool queued = std::any_of(queue.begin(), queue.end(),
                                            [&](const auto& q) { return q.first == th; });
            if (!queued) queue.emplace_back(th, block);
        }
        unsettled = std::move(keep);
        return lost;
    }

    AgentResult<TaskReport> process(const core::Hash32& task_hash) {
        const auto started = Clock::now();
        TaskReport report;
        report.task_hash = task_hash;
        auto finish = [&](TaskOutcome o) -> AgentResult<TaskReport> {
            report.outcome = o;
            report.total_time = Clock::now() - started;
            return report;
        };

        auto snap = snapshot(task_hash);
        if (!snap) return std::unexpected(snap.error());
        if (const std::optional<chain::CallError>& unknown = snap->unknown; unknown) {
            // UnknownTask: a reorg removed it.
            report.detail = unknown->message();
            return finish(TaskOutcome::ineligible);
        }
        const iw::AgentTask& task = snap->task.task;
        report.run_id = task.workflow_run_id;
        report.stage = static_cast<uint8_t>(task.stage);
        if (config.stage && task.stage != *config.stage) return finish(TaskOutcome::declined);
        const uint64_t anchor = low_u64(task.timestamp);
        const uint64_t expires_at = low_u64(task.expires_at);

        auto saved_text = detail::read_file(output_path(task_hash));
        if (!saved_text) return std::unexpected(saved_text.error());
        std::optional<SavedOutput> saved;
        if (const std::optional<std::string>& text = *saved_text; text) saved = parse_saved(*text);

        const chain::Block* latest = &snap->latest;
        if (!saved) {
            // A task this agent has not started: skip it when it can no longer take a reply.
            if (expires_at != 0 && latest->timestamp > expires_at)
                return finish(TaskOutcome::expired);
            if (!snap->eligible.value_or(true)) return finish(TaskOutcome::ineligible);
        }
        const auto ts =
            reply_timestamp(latest->timestamp, anchor, static_cast<uint64_t>(std::time(nullptr)));
        if (!saved && !ts) return finish(TaskOutcome::deferred);

        if (!saved) {
            HandlerInput in;
            in.kind = JobKind::task;
            in.chain_id = chain_id;
            in.contract = config.workflow;
            in.agent = address;
            in.task_hash = task_hash;
            in.run_id = task.workflow_run_id;
            in.stage = static_cast<uint8_t>(task.stage);
            in.task_seq = low_u64(task.task_seq);
            in.input_hash = task.input_hash;
            in.input = task.input;
            in.expires_at = expires_at;
            for (const auto& rh : task.prev_reply_hashes) {
                auto r = get_reply(rh);
                if (!r) return std::unexpected(r.error());
                in.prev_replies.push_back(
                    PrevReply{rh, r->reply.replier, r->reply.output_hash, r->reply.output});
            }
            const auto h0 = Clock::now();
            auto out = handler->handle(in);
            report.handler_time = Clock::now() - h0;
            if (!out) {
                report.detail =
                    fmt::format("{}: {}", to_string(out.error().code), out.error().detail);
                return finish(TaskOutcome::handler_failed);
            }
            if (out->decline) return finish(TaskOutcome::declined);
            SavedOutput s;
            s.output_hash = out->output_hash.value_or(core::keccak256(out->output));
            s.withhold = out->withhold_output;
            if (!s.withhold) s.output = std::move(out->output);
            // Durable before the operation begins: a restart must reply with this content.
            if (auto w = detail::write_file_durably(output_path(task_hash), serialize(s)); !w)
                return std::unexpected(w.error());
            saved = std::move(s);
        }

        // ERC-8301 §Data Envelopes / §onAgentReply step 1: the one reply protocol
        // (reply_submitter.hpp) journals the operation before any send and never resends one the
        // chain already binds.
        const ReplyContent content{
            task.workflow_run_id, {task_hash}, saved->output, saved->output_hash};
        ReplyBegin options;
        options.timestamp = ts.value_or(anchor + 1);
        auto begun = replies().begin(content, options);
        if (!begun) return std::unexpected(begun.error());
        auto& begin_state = *begun;
        report.operation_id = begin_state.entry.operation_id;
        if (begin_state.anchored) {
            chain::OperationEntry entry = begin_state.entry;
            if (!entry.block_num) entry.block_num = latest->number;
            watch(entry);
            report.reply_hash = *begin_state.anchored;
            if (auto p = maybe_prove(task_hash, *begin_state.anchored, task, report); !p)
                return std::unexpected(p.error());
            return finish(report.proof_sent ? TaskOutcome::proven : TaskOutcome::already_replied);
        }
        if (begin_state.reused && latest->timestamp <= anchor &&
            begin_state.entry.timestamp > static_cast<uint64_t>(std::time(nullptr)))
            return finish(TaskOutcome::deferred);

        const auto c0 = Clock::now();
        auto sent = replies().send(content, begin_state);
        report.chain_time += Clock::now() - c0;
        if (!sent) return std::unexpected(sent.error());
        const auto& sent_reply = *sent;
        switch (sent_reply.outcome) {
            case ReplyOutcome::failed:
                if (!sent_reply.failure) return fail(AgentError::rpc, "onAgentReply failed");
                return send_failed(*sent_reply.failure);
            case ReplyOutcome::reverted: {
                report.detail = sent_reply.entry.error.value_or("");
                const core::ByteView revert = sent_reply.failure
                                                  ? core::ByteView(sent_reply.failure->revert_data)
                                                  : core::ByteView();
                const auto is = [&](const core::Selector& error) {
                    return chain::bindings::reverted_with(revert, error);
                };
                // AgentWorkflow's custom errors (contracts/src/erc8301/AgentWorkflow.sol), by
                // selector: every Credence workflow inherits them.
                if (is(sw::kInvalidReplyTimestampError)) return finish(TaskOutcome::deferred);
                if (is(sw::kTaskExpiredError)) return finish(TaskOutcome::expired);
                if (is(sw::kTaskNotEligibleError) || is(sw::kRunNotPendingError))
                    return finish(TaskOutcome::ineligible);
                return finish(TaskOutcome::rejected);
            }
            case ReplyOutcome::not_anchored:
                return finish(TaskOutcome::not_anchored);
            case ReplyOutcome::anchored:
            case ReplyOutcome::retry_resolved:
                break;
        }
        watch(sent_reply.entry);
        report.reply_hash = sent_reply.reply_hash;
        if (sent_reply.discarded) {
            report.detail = "the gate discarded the reply";
            return finish(TaskOutcome::discarded);
        }
        if (!sent_reply.reply_hash) return fail(AgentError::rpc, "onAgentReply: no replyHash");
        if (auto p = maybe_prove(task_hash, *sent_reply.reply_hash, task, report); !p)
            return std::unexpected(p.error());
        return finish(sent_reply.outcome == ReplyOutcome::anchored ? TaskOutcome::replied
                                                                   : TaskOutcome::already_replied);
    }

    /// NewAgentTask of the workflow, of config.stage only when set (NewAgentTask's third topic).
    [[nodiscard]] std::vector<chain::TopicFilter> task_topics() const {
        std::vector<chain::TopicFilter> topics{std::vector<core::Hash32>{iw::kNewAgentTaskTopic}};
        if (config.stage) {
            core::Hash32 word{};
            word[31] = *config.stage;
            topics.emplace_back(std::nullopt);
            topics.emplace_back(std::vector<core::Hash32>{word});
        }
        return topics;
    }

    AgentResult<std::vector<TaskReport>> step() {
        const auto topics = task_topics();
        auto batch = detail::read_logs(rpc, cursor, config.workflow, topics, config.confirmations,
                                       config.max_log_range, config.reorg_depth);
        if (!batch) return std::unexpected(batch.error());
        auto lost = check_unsettled(batch->head);
        if (!lost) return std::unexpected(lost.error());
        if (batch->reorged || *lost) {
            done.clear();
            replies().reset_sender();  // a reorg may have dropped our transactions
        }
        for (const auto& log : batch->logs) {
            auto e = iw::decode_new_agent_task_event(log.topics, log.data);
            if (!e) continue;
            const bool queued = std::any_of(queue.begin(), queue.end(),
                                            [&](const auto& q) { return q.first == e->task_hash; });
            if (!queued && !done.contains(core::to_hex(e->task_hash)))
                queue.emplace_back(e->task_hash, log.block_num);
        }
        std::vector<TaskReport> reports;
        std::deque<std::pair<core::Hash32, uint64_t>> keep;
        std::optional<AgentFailure> failure;
        while (!queue.empty()) {
            auto item = queue.front();
            queue.pop_front();
            if (failure) {
                keep.push_back(item);
                continue;
            }
            auto r = process(item.first);
            if (!r) {
                failure = r.error();
                keep.push_back(item);
                continue;
            }
            if (r->outcome == TaskOutcome::deferred) {
                keep.push_back(item);
            } else {
                done.insert(core::to_hex(item.first));
            }
            reports.push_back(std::move(*r));
        }
        queue = std::move(keep);
        if (!batch->empty_range) {
            // Persist only what is finished: a restart re-reads from the oldest unfinished task.
            uint64_t save_block = batch->to_block;
            core::Hash32 save_hash = batch->to_hash;
            for (const auto& q : queue) {
                if (q.second <= save_block) {
                    save_block = q.second == 0 ? 0 : q.second - 1;
                    save_hash = {};
                }
            }
            if (save_hash == core::Hash32{} && save_block != batch->to_block) {
                auto b = rpc.get_block_by_number(chain::BlockId(save_block));
                if (b) {
                    if (const std::optional<chain::Block>& block = *b; block)
                        save_hash = block->hash;
                }
            }
            // Queued tasks at or before the saved block are read again next step (deduplicated).
            if (auto s = cursor.save(save_block, save_hash); !s) return std::unexpected(s.error());
        }
        if (failure) return std::unexpected(*failure);
        return reports;
    }
};

TaskWorker::TaskWorker(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TaskWorker::~TaskWorker() = default;

AgentResult<std::unique_ptr<TaskWorker>> TaskWorker::create(
    chain::RpcClient rpc, core::SecretKey key, std::optional<core::SecretKey> attester_key,
    std::unique_ptr<Handler> handler, WorkerConfig config) {
    if (!handler) return fail(AgentError::config, "no handler");
    if (config.state_dir.empty()) return fail(AgentError::config, "no state directory");
    std::error_code ec;
    std::filesystem::create_directories(config.state_dir / "outputs", ec);
    if (ec)
        return fail(AgentError::state,
                    fmt::format("{}: {}", config.state_dir.string(), ec.message()));
    auto impl = std::make_unique<Impl>(std::move(rpc), std::move(key), std::move(attester_key),
                                       std::move(handler), std::move(config));
    auto id = impl->rpc.chain_id();
    if (!id) return fail(AgentError::rpc, fmt::format("eth_chainId: {}", id.error().to_string()));
    impl->chain_id = *id;
    chain::SenderOptions sender_options;
    sender_options.chain_id = impl->chain_id;
    sender_options.confirmations = impl->config.txn_confirmations;
    sender_options.receipt_timeout = impl->config.receipt_timeout;
    impl->submitter = std::make_unique<ReplySubmitter>(impl->rpc, impl->key, impl->config.workflow,
                                                       sender_options,
                                                       worker_journal_path(impl->config.state_dir));
    if (auto r = impl->cursor.load(); !r) return std::unexpected(r.error());
    if (auto r = impl->load_unsettled(); !r) return std::unexpected(r.error());
    return std::unique_ptr<TaskWorker>(new TaskWorker(std::move(impl)));
}

const core::Address& TaskWorker::address() const noexcept { return impl_->address; }

AgentResult<std::vector<TaskReport>> TaskWorker::step() { return impl_->step(); }

size_t TaskWorker::pending() const noexcept { return impl_->queue.size(); }

uint64_t TaskWorker::cursor_block() const noexcept { return impl_->cursor.block().value_or(0); }

void TaskWorker::run(const std::stop_token& stop,
                     const std::function<void(const TaskReport&)>& on_report,
                     const std::function<void(const AgentFailure&)>& on_error) {
    const PollTiming timing{impl_->config.poll_interval, impl_->config.max_backoff};
    PollSleep sleep = impl_->config.sleep;
    std::unique_ptr<chain::LogWakeup> wakeup;
    if (const std::optional<chain::SubscribeConfig>& subscribe = impl_->config.subscribe;
        !sleep && subscribe) {
        // A task at the head is acted on at once: wake on its log. With confirmations, a task
        // becomes actionable when later blocks arrive: wake on each new head.
        const bool heads = impl_->config.confirmations > 0;
        wakeup = std::make_unique<chain::LogWakeup>(
            *subscribe,
            heads ? chain::SubscriptionFilter::new_heads()
                  : chain::SubscriptionFilter::logs({impl_->config.workflow}, impl_->task_topics()),
            heads
                ? std::string("new heads")
                : fmt::format("NewAgentTask logs of {}", impl_->config.workflow.to_checksum_hex()));
        sleep = [this, &wakeup](const std::stop_token& st, std::chrono::milliseconds pause) {
            // A deferred task waits for the chain clock to leave its anchor second, which takes
            // under a second: do not let it wait out a long poll_interval.
            if (pending() > 0) pause = std::min(pause, kDeferredRecheck);
            return wakeup->sleep(st, pause);
        };
    }
    run_report_loop<TaskReport>(
        stop, timing, sleep, [this] { return step(); }, on_report, on_error);
}

}  // namespace credence::agent
