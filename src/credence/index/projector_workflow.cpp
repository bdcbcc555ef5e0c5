// Projection rules of ERC-8301 workflows and ERC-8274 agent verifiers (projector.hpp), and the
// detail calls (store.hpp detail_call): NewAgentTask / AgentReplyAnchored carry only hashes, so
// the indexer reads getAgentTask / getAgentReply at the log's block (docs/architecture.md §index/);
// a successful WorkflowCompleted reads the final task, which has no NewAgentTask
// (docs/architecture.md §verify/).
#include <algorithm>

#include <credence/chain/bindings/bft_commit_reveal_workflow.hpp>
#include <credence/chain/bindings/competitive_bid_workflow.hpp>
#include <credence/chain/bindings/ecdsa_attestation_verifier.hpp>
#include <credence/chain/bindings/i_agent_verifier.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/permissioned_single_stage_workflow.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/abi_type.hpp>
#include <credence/index/projector_rules.hpp>
#include <credence/index/store.hpp>

namespace credence::index {
namespace rules {
namespace {

namespace wf = chain::bindings::i_agent_workflow;
namespace bid = chain::bindings::competitive_bid_workflow;
namespace bft = chain::bindings::bft_commit_reveal_workflow;
namespace perm = chain::bindings::permissioned_single_stage_workflow;
namespace single = chain::bindings::single_stage_workflow;
namespace av = chain::bindings::i_agent_verifier;
namespace ver = chain::bindings::ecdsa_attestation_verifier;

// A run's row appears with its first task (or reply, when indexing started mid-run).
constexpr std::string_view kRunStarted =
    "INSERT INTO workflow_runs (chain_id, workflow, run_id, status, started_block_num) VALUES "
    "($1, $2, $3, 0, $4) ON CONFLICT (chain_id, workflow, run_id) DO NOTHING";
constexpr std::string_view kRunCompleted =
    "INSERT INTO workflow_runs (chain_id, workflow, run_id, status, final_task_hash, "
    "completed_at, completed_block_num) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT "
    "(chain_id, workflow, run_id) DO UPDATE SET status = excluded.status, "
    "final_task_hash = excluded.final_task_hash, completed_at = excluded.completed_at, "
    "completed_block_num = excluded.completed_block_num";
constexpr std::string_view kTaskInsert =
    "INSERT INTO workflow_tasks (chain_id, workflow, run_id, block_num, log_index, task_hash, "
    "stage, task_seq, input_hash, input, timestamp, expires_at, prev_reply_hashes, proven, "
    "txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)";
constexpr std::string_view kReplyInsert =
    "INSERT INTO workflow_replies (chain_id, workflow, run_id, block_num, log_index, reply_hash, "
    "replier, operation_id, output_hash, output, timestamp, prev_task_hashes, verifier, proven, "
    "verification_digest, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, "
    "$13, $14, $15, $16)";
constexpr std::string_view kResultInsert =
    "INSERT INTO workflow_results (chain_id, workflow, run_id, block_num, log_index, status, "
    "final_task_hash, timestamp, txn_hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)";
constexpr std::string_view kProofInsert =
    "INSERT INTO workflow_proofs (chain_id, verifier, task_id, block_num, log_index, agent_key, "
    "verification_digest, valid, input_hash, output_hash, proof_profile, timestamp, instance_id, "
    "proof_chain_id, txn_hash, prove_workflow, proved_reply_hashes) VALUES ($1, $2, $3, $4, $5, "
    "$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)";

std::vector<DbValue> at_position(const LogInput& in, const core::Hash32& id) {
    auto p = key_params(in, blob(id));
    p.emplace_back(integer(in.log->block_num));
    p.emplace_back(integer(in.log->log_index));
    return p;
}

ProjectionStatement run_started(const LogInput& in, const core::Hash32& run_id) {
    auto p = key_params(in, blob(run_id));
    p.emplace_back(integer(in.log->block_num));
    return {kRunStarted, std::move(p)};
}

DbValue concat_hashes(const std::vector<core::Hash32>& hashes) {
    core::Bytes out;
    out.reserve(hashes.size() * 32);
    for (const auto& h : hashes) out.insert(out.end(), h.begin(), h.end());
    return out;
}

// ERC-8301 NewAgentTask: one workflow_tasks row with the AgentTask struct read through
// getAgentTask at the log's block (NULL columns when the detail was not fetched); the run's row
// is created if this is its first task. A detail of another run or stage is rejected.
RuleResult on_new_task(const LogInput& in) {
    auto ev = wf::decode_new_agent_task_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("NewAgentTask", ev.error()));
    Projection out{"NewAgentTask", entity_of(ev->workflow_run_id), {}};
    out.statements.push_back(run_started(in, ev->workflow_run_id));
    auto p = at_position(in, ev->workflow_run_id);
    p.emplace_back(blob(ev->task_hash));
    p.emplace_back(integer(ev->stage));
    if (in.detail.empty()) {
        p.resize(p.size() + 7);
    } else {
        auto d = wf::decode_get_agent_task_result(in.detail);
        if (!d) return std::unexpected(decode_failure("getAgentTask", d.error()));
        if (d->task.workflow_run_id != ev->workflow_run_id || d->task.stage != ev->stage) {
            return std::unexpected(std::string(
                "NewAgentTask: getAgentTask detail is of another run or stage than the event"));
        }
        p.emplace_back(integer(d->task.task_seq));
        p.emplace_back(blob(d->task.input_hash));
        p.emplace_back(std::move(d->task.input));
        p.emplace_back(integer(d->task.timestamp));
        p.emplace_back(integer(d->task.expires_at));
        p.emplace_back(concat_hashes(d->task.prev_reply_hashes));
        p.emplace_back(flag(d->proven));
    }
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kTaskInsert, std::move(p)});
    return out;
}

// ERC-8301 AgentReplyAnchored: one workflow_replies row with the AgentReply struct and its
// verification status read through getAgentReply at the log's block.
RuleResult on_reply_anchored(const LogInput& in) {
    auto ev = wf::decode_agent_reply_anchored_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("AgentReplyAnchored", ev.error()));
    Projection out{"AgentReplyAnchored", entity_of(ev->workflow_run_id), {}};
    out.statements.push_back(run_started(in, ev->workflow_run_id));
    auto p = at_position(in, ev->workflow_run_id);
    p.emplace_back(blob(ev->reply_hash));
    p.emplace_back(blob(ev->replier));
    if (in.detail.empty()) {
        p.resize(p.size() + 8);
    } else {
        auto d = wf::decode_get_agent_reply_result(in.detail);
        if (!d) return std::unexpected(decode_failure("getAgentReply", d.error()));
        if (d->reply.workflow_run_id != ev->workflow_run_id || d->reply.replier != ev->replier) {
            return std::unexpected(std::string(
                "AgentReplyAnchored: getAgentReply detail is of another run or replier"));
        }
        p.emplace_back(blob(d->reply.operation_id));
        p.emplace_back(blob(d->reply.output_hash));
        p.emplace_back(std::move(d->reply.output));
        p.emplace_back(integer(d->reply.timestamp));
        p.emplace_back(concat_hashes(d->reply.prev_task_hashes));
        p.emplace_back(blob_or_null(d->verifier));
        p.emplace_back(flag(d->proven));
        p.emplace_back(blob(d->verification_digest));
    }
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kReplyInsert, std::move(p)});
    return out;
}

// ERC-8301 WorkflowCompleted: the run's status, finalTaskHash and completion time (result());
// one workflow_results row.
RuleResult on_completed(const LogInput& in) {
    auto ev = wf::decode_workflow_completed_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("WorkflowCompleted", ev.error()));
    Projection out{"WorkflowCompleted", entity_of(ev->workflow_run_id), {}};
    auto p = key_params(in, blob(ev->workflow_run_id));
    p.emplace_back(integer(ev->status));
    p.emplace_back(blob(ev->final_task_hash));
    p.emplace_back(integer(ev->timestamp));
    p.emplace_back(integer(in.log->block_num));
    out.statements.push_back({kRunCompleted, std::move(p)});
    p = at_position(in, ev->workflow_run_id);
    p.emplace_back(integer(ev->status));
    p.emplace_back(blob(ev->final_task_hash));
    p.emplace_back(integer(ev->timestamp));
    p.emplace_back(blob(in.log->txn_hash));
    out.statements.push_back({kResultInsert, std::move(p)});
    // ERC-8301 §Gate Logic (terminal): the final task is stored but has no NewAgentTask; its
    // struct (getAgentTask(finalTaskHash) at this block) becomes a workflow_tasks row at the
    // WorkflowCompleted position, so the evidence chain can be verified from the index alone
    // (verify/verifiers/evidence.hpp).
    if (!in.detail.empty()) {
        auto d = wf::decode_get_agent_task_result(in.detail);
        if (!d) return std::unexpected(decode_failure("getAgentTask", d.error()));
        if (d->task.workflow_run_id != ev->workflow_run_id) {
            return std::unexpected(std::string(
                "WorkflowCompleted: getAgentTask detail of the final task is of another run"));
        }
        p = at_position(in, ev->workflow_run_id);
        p.emplace_back(blob(ev->final_task_hash));
        p.emplace_back(integer(d->task.stage));
        p.emplace_back(integer(d->task.task_seq));
        p.emplace_back(blob(d->task.input_hash));
        p.emplace_back(std::move(d->task.input));
        p.emplace_back(integer(d->task.timestamp));
        p.emplace_back(integer(d->task.expires_at));
        p.emplace_back(concat_hashes(d->task.prev_reply_hashes));
        p.emplace_back(flag(d->proven));
        p.emplace_back(blob(in.log->txn_hash));
        out.statements.push_back({kTaskInsert, std::move(p)});
    }
    return out;
}

// Scenario events: contract_events rows, in the run's entity when they name a run.
RuleResult on_scenario(const LogInput& in, const core::Hash32& t) {
    const auto& topics = in.log->topics;
    const auto& data = in.log->data;
    if (t == bid::kBidAcceptedTopic) {
        auto ev = bid::decode_bid_accepted_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("BidAccepted", ev.error()));
        auto args = JsonArgs{}
                        .hex("workflowRunId", ev->workflow_run_id)
                        .hex("replyHash", ev->reply_hash)
                        .uint("price", ev->price)
                        .done();
        return generic_event(in, "BidAccepted", entity_of(ev->workflow_run_id),
                             blob(ev->workflow_run_id), std::move(args));
    }
    if (t == bid::kBidDiscardedTopic) {
        auto ev = bid::decode_bid_discarded_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("BidDiscarded", ev.error()));
        auto args = JsonArgs{}
                        .hex("workflowRunId", ev->workflow_run_id)
                        .hex("replyHash", ev->reply_hash)
                        .done();
        return generic_event(in, "BidDiscarded", entity_of(ev->workflow_run_id),
                             blob(ev->workflow_run_id), std::move(args));
    }
    if (t == bft::kCommitAcceptedTopic) {
        auto ev = bft::decode_commit_accepted_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("CommitAccepted", ev.error()));
        auto args = JsonArgs{}
                        .hex("workflowRunId", ev->workflow_run_id)
                        .address("agent", ev->agent)
                        .hex("commitment", ev->commitment)
                        .done();
        return generic_event(in, "CommitAccepted", entity_of(ev->workflow_run_id),
                             blob(ev->workflow_run_id), std::move(args));
    }
    if (t == bft::kRevealAcceptedTopic) {
        auto ev = bft::decode_reveal_accepted_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("RevealAccepted", ev.error()));
        auto args = JsonArgs{}
                        .hex("workflowRunId", ev->workflow_run_id)
                        .address("agent", ev->agent)
                        .hex("result", ev->result)
                        .done();
        return generic_event(in, "RevealAccepted", entity_of(ev->workflow_run_id),
                             blob(ev->workflow_run_id), std::move(args));
    }
    if (t == bft::kReplyDiscardedTopic) {
        auto ev = bft::decode_reply_discarded_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("ReplyDiscarded", ev.error()));
        auto args = JsonArgs{}
                        .hex("workflowRunId", ev->workflow_run_id)
                        .hex("replyHash", ev->reply_hash)
                        .done();
        return generic_event(in, "ReplyDiscarded", entity_of(ev->workflow_run_id),
                             blob(ev->workflow_run_id), std::move(args));
    }
    if (t == perm::kReplierEnrolledTopic) {
        auto ev = perm::decode_replier_enrolled_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("ReplierEnrolled", ev.error()));
        auto args = JsonArgs{}.address("replier", ev->replier).uint("agentId", ev->agent_id).done();
        return generic_event(in, "ReplierEnrolled", entity_of(ev->replier), {}, std::move(args));
    }
    if (t == single::kAgentVerifierUpdatedTopic) {
        auto ev = single::decode_agent_verifier_updated_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("AgentVerifierUpdated", ev.error()));
        auto args = JsonArgs{}.hex("data", ev->data_).done();
        return generic_event(in, "AgentVerifierUpdated", {}, {}, std::move(args));
    }
    return std::unexpected(unknown_event("workflow", *in.log));
}

// ERC-8274 VerificationCompleted: one workflow_proofs row (emitted on every verify(), passing or
// failing; `valid` says which).
RuleResult on_verification(const LogInput& in) {
    auto ev = av::decode_verification_completed_event(in.log->topics, in.log->data);
    if (!ev) return std::unexpected(decode_failure("VerificationCompleted", ev.error()));
    Projection out{"VerificationCompleted", entity_of(ev->task_id), {}};
    auto p = at_position(in, ev->task_id);
    p.emplace_back(blob(ev->agent_id));
    p.emplace_back(blob(ev->verification_digest));
    p.emplace_back(flag(ev->valid));
    p.emplace_back(blob(ev->input_hash));
    p.emplace_back(blob(ev->output_hash));
    p.emplace_back(blob(ev->agent_proof_profile));
    p.emplace_back(integer(ev->timestamp));
    p.emplace_back(std::move(ev->instance_id));
    p.emplace_back(std::move(ev->chain_id));
    p.emplace_back(blob(in.log->txn_hash));
    // The onAgentProve call of the transaction (its detail): the replyHashes this proof proved.
    if (auto call = decode_prove_call(in.detail)) {
        p.emplace_back(blob(call->workflow.view()));
        p.emplace_back(concat_hashes(call->reply_hashes));
    } else {
        p.resize(p.size() + 2);
    }
    out.statements.push_back({kProofInsert, std::move(p)});
    return out;
}

}  // namespace

RuleResult project_workflow(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    if (t == wf::kNewAgentTaskTopic) return on_new_task(in);
    if (t == wf::kAgentReplyAnchoredTopic) return on_reply_anchored(in);
    if (t == wf::kWorkflowCompletedTopic) return on_completed(in);
    return on_scenario(in, t);
}

RuleResult project_verifier(const LogInput& in) {
    const core::Hash32& t = in.log->topics[0];
    const auto& topics = in.log->topics;
    const auto& data = in.log->data;
    if (t == av::kVerificationCompletedTopic) return on_verification(in);
    if (t == ver::kAttesterSetTopic) {
        auto ev = ver::decode_attester_set_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("AttesterSet", ev.error()));
        auto args =
            JsonArgs{}.address("attester", ev->attester).boolean("enabled", ev->enabled).done();
        return generic_event(in, "AttesterSet", entity_of(ev->attester), {}, std::move(args));
    }
    if (t == ver::kOwnershipTransferredTopic) {
        auto ev = ver::decode_ownership_transferred_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("OwnershipTransferred", ev.error()));
        auto args = JsonArgs{}
                        .address("previousOwner", ev->previous_owner)
                        .address("newOwner", ev->new_owner)
                        .done();
        return generic_event(in, "OwnershipTransferred", {}, {}, std::move(args));
    }
    if (t == ver::kEip712DomainChangedTopic) {
        auto ev = ver::decode_eip712_domain_changed_event(topics, data);
        if (!ev) return std::unexpected(decode_failure("EIP712DomainChanged", ev.error()));
        return generic_event(in, "EIP712DomainChanged", {}, {}, "{}");
    }
    return std::unexpected(unknown_event("verifier", *in.log));
}

}  // namespace rules

bool needs_transaction_detail(const RawLog& log, ContractKind kind) {
    return kind == ContractKind::agent_verifier && !log.topics.empty() &&
           log.topics[0] == chain::bindings::i_agent_verifier::kVerificationCompletedTopic;
}

core::Bytes transaction_detail(const std::optional<core::Address>& to, core::ByteView input) {
    if (!to) return {};
    core::Bytes out(to->bytes.begin(), to->bytes.end());
    out.insert(out.end(), input.begin(), input.end());
    return out;
}

std::optional<ProveCall> decode_prove_call(core::ByteView detail) {
    namespace wf = chain::bindings::i_agent_workflow;
    constexpr size_t kAddress = 20;
    constexpr size_t kSelector = 4;
    if (detail.size() < kAddress + kSelector) return std::nullopt;
    const core::ByteView input = detail.subspan(kAddress);
    if (!std::equal(wf::kOnAgentProveSelector.begin(), wf::kOnAgentProveSelector.end(),
                    input.begin())) {
        return std::nullopt;
    }
    static const auto kTypes = core::parse_type_list("(bytes32[],bytes)");
    if (!kTypes) return std::nullopt;
    auto args = core::decode(*kTypes, input.subspan(kSelector));
    if (!args || args->size() != 2) return std::nullopt;
    const core::AbiValue::List* list = (*args)[0].as_list();
    if (list == nullptr) return std::nullopt;
    auto workflow = core::Address::from_bytes(detail.first(kAddress));
    if (!workflow) return std::nullopt;
    ProveCall call{*workflow, {}};
    call.reply_hashes.reserve(list->size());
    for (const core::AbiValue& v : *list) {
        const core::FixedBytes* word = v.as_fixed_bytes();
        if (word == nullptr) return std::nullopt;
        call.reply_hashes.push_back(word->data);
    }
    return call;
}

std::optional<chain::CallRequest> detail_call(const RawLog& log, ContractKind kind) {
    namespace wf = chain::bindings::i_agent_workflow;
    if (kind == ContractKind::reputation_score) return rules::score_feedback_detail_call(log);
    if (kind != ContractKind::workflow) return std::nullopt;
    core::Result<core::Bytes, core::AbiError> data = std::unexpected(core::Error<core::AbiError>{});
    // WorkflowCompleted(runId indexed, status, finalTaskHash, timestamp) of a Success: the final
    // task's struct (it has no NewAgentTask of its own).
    if (log.topics.size() == 2 && log.topics[0] == wf::kWorkflowCompletedTopic) {
        auto ev = wf::decode_workflow_completed_event(log.topics, log.data);
        if (!ev || ev->final_task_hash == core::Hash32{}) return std::nullopt;
        data = wf::get_agent_task(ev->final_task_hash);
        if (!data) return std::nullopt;
        chain::CallRequest call;
        call.to = log.address;
        call.data = std::move(*data);
        return call;
    }
    if (log.topics.size() != 4) return std::nullopt;
    if (log.topics[0] == wf::kNewAgentTaskTopic) {
        data = wf::get_agent_task(log.topics[3]);  // NewAgentTask(runId, stage, taskHash)
    } else if (log.topics[0] == wf::kAgentReplyAnchoredTopic) {
        data = wf::get_agent_reply(log.topics[2]);  // AgentReplyAnchored(runId, replyHash, ..)
    } else {
        return std::nullopt;
    }
    if (!data) return std::nullopt;
    chain::CallRequest call;
    call.to = log.address;
    call.data = std::move(*data);
    return call;
}

}  // namespace credence::index
