// `credence workflow run|task|reply|prove|result|timeout` (trace: workflow_trace.cpp).
#include <credence/cmd/workflow.hpp>
#include <credence/verify/verifiers/evidence.hpp>

#include <algorithm>
#include <chrono>
#include <optional>
#include <string_view>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/agent/reply_prover.hpp>
#include <credence/agent/reply_submitter.hpp>
#include <credence/chain/bindings/ecdsa_attestation_verifier.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/operation_journal.hpp>
#include <credence/chain/revert.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/txn.hpp>

namespace credence::cmd {
namespace workflow_detail {

namespace iw = chain::bindings::i_agent_workflow;
namespace sw = chain::bindings::single_stage_workflow;

CLI::App* add_command(CLI::App& group, const std::string& name, const std::string& about,
                      CommonArgs& args, bool signs) {
    auto* cmd = group.add_subcommand(name, about);
    add_chain_options(*cmd, args.chain, signs);
    cmd->add_option("--workflow", args.workflow,
                    "Workflow contract: a name in the deployment file or an address")
        ->capture_default_str();
    return cmd;
}

core::Address resolve_workflow(ChainContext& ctx, const std::string& flag) {
    if (flag.starts_with("0x") || flag.starts_with("0X")) {
        auto a = core::Address::from_hex(flag);
        if (!a) throw CliError(fmt::format("--workflow: not an address: {}", flag));
        return *a;
    }
    return ctx.contract(flag);
}

std::string run_status_name(uint64_t status) { return verify::run_status_name(status); }

bool verifier_may_accept(ChainContext& ctx, const core::Address& verifier,
                         const core::Address& signer) {
    auto enabled = chain::bindings::ecdsa_attestation_verifier::call::is_attester(ctx.caller(),
                                                                                  verifier, signer);
    return !enabled || *enabled;
}

}  // namespace workflow_detail

namespace {

using namespace workflow_detail;  // NOLINT(google-build-using-namespace): this file's own helpers
namespace iw = chain::bindings::i_agent_workflow;
namespace sw = chain::bindings::single_stage_workflow;

nlohmann::ordered_json hex_list(const std::vector<core::Hash32>& hs) {
    auto a = nlohmann::ordered_json::array();
    for (const auto& h : hs) a.push_back(core::to_hex(h));
    return a;
}

uint64_t to_u64(const core::Uint256& v, std::string_view what) {
    if (!v.fits_u64()) throw CliError(fmt::format("{} does not fit 64 bits", what));
    return v.limbs[0];
}

chain::Block latest_block(ChainContext& ctx) {
    auto b = must_rpc(ctx.rpc().get_block_by_number(chain::BlockId::latest()), "eth_getBlock");
    if (!b) throw CliError("eth_getBlockByNumber: the node has no latest block");
    return *b;
}

iw::GetAgentTaskResult get_task(ChainContext& ctx, const core::Address& wf,
                                const core::Hash32& task_hash) {
    return ctx.call(iw::call::get_agent_task, wf, task_hash);
}

iw::GetAgentReplyResult get_reply(ChainContext& ctx, const core::Address& wf,
                                  const core::Hash32& reply_hash) {
    return ctx.call(iw::call::get_agent_reply, wf, reply_hash);
}

/// Events of this workflow in a receipt, decoded.
template <typename Event, typename Decode>
std::vector<Event> receipt_events(const std::optional<chain::Receipt>& receipt,
                                  const core::Address& wf, Decode decode) {
    std::vector<Event> out;
    if (!receipt) return out;
    for (const auto& log : receipt->logs) {
        if (log.address != wf) continue;
        auto e = decode(log.topics, log.data);
        if (e) out.push_back(std::move(*e));
    }
    return out;
}

std::vector<iw::NewAgentTaskEvent> new_tasks(const std::optional<chain::Receipt>& r,
                                             const core::Address& wf) {
    return receipt_events<iw::NewAgentTaskEvent>(
        r, wf, [](auto t, auto d) { return iw::decode_new_agent_task_event(t, d); });
}

std::vector<iw::WorkflowCompletedEvent> completions(const std::optional<chain::Receipt>& r,
                                                    const core::Address& wf) {
    return receipt_events<iw::WorkflowCompletedEvent>(
        r, wf, [](auto t, auto d) { return iw::decode_workflow_completed_event(t, d); });
}

nlohmann::ordered_json tasks_json(const std::vector<iw::NewAgentTaskEvent>& events) {
    auto a = nlohmann::ordered_json::array();
    for (const auto& e : events) {
        a.push_back({{"taskHash", core::to_hex(e.task_hash)}, {"stage", e.stage}});
    }
    return a;
}

nlohmann::ordered_json completions_json(const std::vector<iw::WorkflowCompletedEvent>& events) {
    auto a = nlohmann::ordered_json::array();
    for (const auto& e : events) {
        a.push_back({{"runId", core::to_hex(e.workflow_run_id)},
                     {"status", run_status_name(e.status)},
                     {"finalTaskHash", core::to_hex(e.final_task_hash)},
                     {"timestamp", e.timestamp.to_dec()}});
    }
    return a;
}

// ───────────────────────────── run ─────────────────────────────

struct RunArgs {
    CommonArgs common;
    std::string input_file;
    std::optional<uint64_t> expires_in;
    std::optional<uint64_t> expires_at;
    bool withhold_input = false;
};

void run_run(RunArgs& a) {
    // ERC-8301 §run(): inputHash = keccak256(input), of the exact bytes of the file.
    const std::string input = read_input(a.input_file);
    const core::Hash32 input_hash = core::keccak256(input);
    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);
    if (a.expires_in && a.expires_at) throw CliError("give --expires-in or --expires-at, not both");
    // --expires-in counts from now: the later of the latest block's time (a node's clock may run
    // ahead of ours on a devnet) and our clock (an idle devnet's latest block is stale, while the
    // block that mines this transaction carries the time it is mined: counting from the stale
    // block would expire the task before it exists, ERC-8301 §run() InvalidExpiry).
    uint64_t expires_at = 0;
    if (a.expires_at) {
        expires_at = *a.expires_at;
    } else {
        const auto wall =
            static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count());
        expires_at = std::max(latest_block(ctx).timestamp, wall) + a.expires_in.value_or(3600);
    }
    // "Callers with sensitive inputs SHOULD pass input = "" ...; inputHash still commits."
    const core::ByteView plaintext =
        a.withhold_input ? core::ByteView{} : core::as_bytes(std::string_view(input));
    auto calldata = must(iw::run(input_hash, plaintext, core::Uint256{expires_at}), "run");
    const SentTxn sent = ctx.send(wf, std::move(calldata), "run");

    Output out(a.common.chain.json, OutputStyle::labeled);
    const auto tasks = new_tasks(sent.receipt, wf);
    if (sent.receipt) {
        if (tasks.empty()) throw CliError("run: the receipt holds no NewAgentTask event");
        out.add("runId", core::to_hex(tasks.front().workflow_run_id));
    }
    out.add("workflow", wf.to_checksum_hex());
    out.add("inputHash", core::to_hex(input_hash));
    out.add("expiresAt", expires_at);
    if (sent.receipt) out.add("tasks", tasks_json(tasks));
    ChainContext::report(out, sent);
    out.flush();
}

// ───────────────────────────── task ─────────────────────────────

struct TaskArgs {
    CommonArgs common;
    std::string task_hash;
    bool show_input = false;
};

void run_task(TaskArgs& a) {
    const core::Hash32 th = parse_hash_arg("task hash", a.task_hash);
    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);
    const auto t = get_task(ctx, wf, th);
    const bool eligible = ctx.call(sw::call::is_task_eligible, wf, th);
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("taskHash", core::to_hex(th));
    out.add("runId", core::to_hex(t.task.workflow_run_id));
    out.add("stage", t.task.stage);
    out.add("taskSeq", t.task.task_seq.to_dec());
    out.add("inputHash", core::to_hex(t.task.input_hash));
    out.add("inputSize", t.task.input.size());
    if (a.show_input) out.add("input", core::to_hex(t.task.input));
    out.add("timestamp", t.task.timestamp.to_dec());
    out.add("expiresAt", t.task.expires_at.to_dec());
    out.add("prevReplyHashes", hex_list(t.task.prev_reply_hashes));
    out.add("proven", t.proven);
    out.add("eligible", eligible);
    out.flush();
}

// ───────────────────────────── reply ─────────────────────────────

struct ReplyArgs {
    CommonArgs common;
    std::vector<std::string> task_hashes;
    std::string output_file;
    std::string operation_id;
    bool new_operation = false;
    std::optional<uint64_t> timestamp;
    bool withhold_output = false;
};

/// AgentReply.timestamp by the one rule (agent/reply_submitter.hpp reply_timestamp()). When the
/// task was anchored in the latest block's second, wait out the second: anvil gives blocks of one
/// second the same timestamp, and the next block is built later.
uint64_t reply_timestamp(ChainContext& ctx, uint64_t max_anchor) {
    const uint64_t chain_now = latest_block(ctx).timestamp;
    const auto wall = [] {
        return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                         std::chrono::system_clock::now().time_since_epoch())
                                         .count());
    };
    if (auto ts = agent::reply_timestamp(chain_now, max_anchor, wall())) return *ts;
    const auto since_epoch = std::chrono::system_clock::now().time_since_epoch();
    const auto into_second = std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch) %
                             std::chrono::seconds(1);
    std::this_thread::sleep_for(std::chrono::seconds(1) - into_second +
                                std::chrono::milliseconds(50));
    return max_anchor + 1;
}

/// The CLI line of a failed onAgentReply / onAgentProve send.
std::string send_failure_line(const chain::SendFailure& f, std::string_view what) {
    if (f.code == chain::SendError::reverted) {
        return fmt::format("{} reverted: {}", what, chain::describe_credence_revert(f.revert_data));
    }
    if (f.code == chain::SendError::rpc && f.rpc) {
        try {
            throw_rpc_error(*f.rpc, what);
        } catch (const CliError& e) {
            return e.what();
        }
    }
    return fmt::format("{}: {}: {}", what, to_string(f.code), f.detail);
}

void run_reply(ReplyArgs& a) {
    if (a.task_hashes.empty()) throw CliError("reply: give at least one task hash");
    std::vector<core::Hash32> task_hashes;
    task_hashes.reserve(a.task_hashes.size());
    for (const auto& t : a.task_hashes) task_hashes.push_back(parse_hash_arg("task hash", t));
    std::optional<core::Hash32> explicit_op;
    if (!a.operation_id.empty()) {
        explicit_op = parse_hash_arg("--operation-id", a.operation_id);
        // ERC-8301: operationId MUST be non-zero.
        if (*explicit_op == core::Hash32{}) throw CliError("--operation-id must be non-zero");
    }
    if (explicit_op && a.new_operation)
        throw CliError("give --operation-id or --new-operation, not both");
    const std::string output = read_input(a.output_file);
    const core::Hash32 output_hash = core::keccak256(output);

    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);
    const core::Address replier = ctx.signer().address;

    // The run and the anchor times come from the chain, never from the caller.
    const auto first = get_task(ctx, wf, task_hashes.front());
    const core::Hash32 run_id = first.task.workflow_run_id;
    uint64_t max_anchor = to_u64(first.task.timestamp, "task timestamp");
    for (size_t i = 1; i < task_hashes.size(); ++i) {
        const auto t = get_task(ctx, wf, task_hashes[i]);
        if (t.task.workflow_run_id != run_id)
            throw CliError(
                fmt::format("task {} belongs to another run", core::to_hex(task_hashes[i])));
        max_anchor = std::max(max_anchor, to_u64(t.task.timestamp, "task timestamp"));
    }

    iw::AgentReply reply;
    reply.output_hash = output_hash;
    if (!a.withhold_output) reply.output.assign(output.begin(), output.end());
    reply.replier = replier;
    reply.prev_task_hashes = task_hashes;
    reply.workflow_run_id = run_id;

    Output out(a.common.chain.json, OutputStyle::labeled);
    if (a.common.chain.dry_run) {
        // Nothing is sent, so nothing is journaled: a dry run never creates an operation.
        auto id = chain::random_operation_id();
        if (!id) throw CliError(fmt::format("operationId: {}", id.error().detail));
        reply.operation_id = explicit_op.value_or(*id);
        reply.timestamp = core::Uint256{a.timestamp.value_or(reply_timestamp(ctx, max_anchor))};
        const SentTxn sent =
            ctx.send(wf, must(iw::on_agent_reply(reply), "onAgentReply"), "onAgentReply");
        out.add("operationId", core::to_hex(reply.operation_id));
        ChainContext::report(out, sent);
        out.flush();
        return;
    }

    // ERC-8301 §Data Envelopes / §onAgentReply step 1: the one reply protocol
    // (agent/reply_submitter.hpp) journals the operationId before anything is sent and never
    // resends an operation the chain already binds.
    chain::SenderOptions sender_options;
    sender_options.chain_id = ctx.chain_id();
    sender_options.confirmations = a.common.chain.confirmations;
    agent::ReplySubmitter submitter(ctx.rpc(), ctx.signer().key, wf, sender_options,
                                    chain::journal_path(chain::credence_home()));
    const agent::ReplyContent content{run_id, task_hashes, reply.output, output_hash};
    const uint64_t timestamp = a.timestamp.value_or(0);
    auto begun = submitter.begin(
        content, agent::ReplyBegin{
                     .operation_id = explicit_op,
                     .new_operation = a.new_operation,
                     .timestamp = timestamp != 0 ? timestamp : reply_timestamp(ctx, max_anchor)});
    if (!begun) throw CliError(begun.error().detail);
    auto& begin_state = *begun;
    const chain::OperationEntry& entry = begin_state.entry;
    out.add("operationId", core::to_hex(entry.operation_id));
    out.add("runId", core::to_hex(run_id));
    out.add("outputHash", core::to_hex(output_hash));
    out.add("reused", begin_state.reused);
    if (begin_state.anchored) {
        out.add("replyHash", core::to_hex(*begin_state.anchored));
        out.add("outcome", "already-anchored");
        out.add("journal", submitter.journal_path().string());
        out.flush();
        return;
    }

    auto sent = submitter.send(content, begin_state);
    if (!sent) throw CliError(sent.error().detail);
    const auto& sent_reply = *sent;
    switch (sent_reply.outcome) {
        case agent::ReplyOutcome::reverted:
        case agent::ReplyOutcome::failed:
            if (!sent_reply.failure) throw CliError("onAgentReply failed");
            throw CliError(send_failure_line(*sent_reply.failure, "onAgentReply"));
        case agent::ReplyOutcome::not_anchored:
            throw CliError("onAgentReply: the transaction anchored no reply");
        case agent::ReplyOutcome::anchored:
        case agent::ReplyOutcome::retry_resolved:
            break;
    }
    if (!sent_reply.reply_hash) throw CliError("onAgentReply: the transaction anchored no reply");
    out.add("replyHash", core::to_hex(*sent_reply.reply_hash));
    out.add("outcome",
            sent_reply.outcome == agent::ReplyOutcome::anchored ? "anchored" : "retry-resolved");
    out.add("journal", submitter.journal_path().string());
    // FSM side effects of this reply (async gates): new tasks or completion.
    out.add("newTasks", tasks_json(new_tasks(sent->receipt, wf)));
    out.add("completed", completions_json(completions(sent->receipt, wf)));
    SentTxn txn;
    txn.txn_hash = sent->entry.txn_hash.value_or(core::Hash32{});
    txn.raw_txn = core::encode_signed(sent->signed_txn);
    txn.receipt = std::move(sent->receipt);
    ChainContext::report(out, txn);
    out.flush();
}

// ───────────────────────────── prove ─────────────────────────────

struct ProveArgs {
    CommonArgs common;
    std::vector<std::string> reply_hashes;
    std::string proof;
    std::string attester_key;
};

void run_prove(ProveArgs& a) {
    if (a.reply_hashes.empty()) throw CliError("prove: give at least one reply hash");
    std::vector<core::Hash32> reply_hashes;
    reply_hashes.reserve(a.reply_hashes.size());
    for (const auto& r : a.reply_hashes) reply_hashes.push_back(parse_hash_arg("reply hash", r));
    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);
    Output out(a.common.chain.json, OutputStyle::labeled);

    std::vector<core::Bytes> proofs;
    auto statements = nlohmann::ordered_json::array();
    if (!a.proof.empty()) {
        if (reply_hashes.size() != 1) throw CliError("--proof covers exactly one reply hash");
        proofs.push_back(must(core::from_hex(a.proof), "--proof"));
    } else {
        // Attest with the workflow's own verifier (its proof policy), as the attester.
        const auto policy = ctx.call(sw::call::proof_policy, wf);
        if (policy.verifier.is_zero()) throw CliError("the workflow has no proof verifier");
        std::optional<core::SecretKey> own_key;
        if (!a.attester_key.empty()) own_key = load_private_key(a.attester_key);
        const core::SecretKey& key = own_key ? *own_key : ctx.signer().key;
        const core::Address attester = core::address_of(key);
        const agent::ProofPolicy proof_policy{policy.verifier, policy.agent_verifier_mode};
        // ERC-8274 ECDSA attestation: asked first, so a wrong key gets a fix instead of a bare
        // ProofRejected.
        if (!verifier_may_accept(ctx, policy.verifier, attester)) {
            throw CliError(fmt::format(
                "{} is not an attester of the workflow's verifier {}: sign with --attester-key "
                "of one it enabled, or have its owner call setAttester({}, true)",
                attester.to_checksum_hex(), policy.verifier.to_checksum_hex(),
                attester.to_checksum_hex()));
        }
        for (const auto& rh : reply_hashes) {
            const auto r = get_reply(ctx, wf, rh);
            if (r.reply.prev_task_hashes.empty())
                throw CliError(fmt::format("reply {} has no prevTaskHashes", core::to_hex(rh)));
            // ERC-8301 §onAgentProve step 1: the inputHash of prevTaskHashes[0], from the chain.
            const auto t = get_task(ctx, wf, r.reply.prev_task_hashes.front());
            agent::ReplyProof p = agent::prove_reply(ctx.chain_id(), proof_policy, key, rh, r.reply,
                                                     t.task.input_hash);
            if (p.proof.empty()) throw CliError("sign attestation: the key cannot sign");
            statements.push_back({{"replyHash", core::to_hex(rh)},
                                  {"inputHash", core::to_hex(p.input_hash)},
                                  {"outputHash", core::to_hex(p.output_hash)},
                                  {"digest", core::to_hex(p.digest)}});
            proofs.push_back(std::move(p.proof));
        }
        out.add("verifier", policy.verifier.to_checksum_hex());
        out.add("attester", attester.to_checksum_hex());
        out.add("statement", policy.agent_verifier_mode ? "AgentAttestation" : "Attestation");
    }
    // One reply: the proof as is. Several: abi.encode(bytes[]), one proof per reply.
    const core::Bytes proof = agent::combine_proofs(std::move(proofs));
    const SentTxn sent = [&] {
        try {
            return ctx.send(wf, must(iw::on_agent_prove(reply_hashes, proof), "onAgentProve"),
                            "onAgentProve");
        } catch (const CliError& e) {
            // ERC-8301 §onAgentProve: the verifier refused the proof itself.
            if (std::string_view(e.what()).find("ProofRejected(") == std::string_view::npos) throw;
            throw CliError(std::string(e.what()) +
                           ": the workflow's verifier refused the proof; check that its signer "
                           "is an attester the verifier enabled and that it signs this reply");
        }
    }();
    out.add("replyHashes", hex_list(reply_hashes));
    if (!statements.empty()) out.add("statements", statements);
    out.add("proof", core::to_hex(proof));
    if (sent.receipt) {
        out.add("newTasks", tasks_json(new_tasks(sent.receipt, wf)));
        out.add("completed", completions_json(completions(sent.receipt, wf)));
    }
    ChainContext::report(out, sent);
    out.flush();
}

// ───────────────────────────── result ─────────────────────────────

struct ResultArgs {
    CommonArgs common;
    std::string run_id;
};

void run_result(ResultArgs& a) {
    const core::Hash32 run_id = parse_hash_arg("run id", a.run_id);
    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);
    const auto r = ctx.call(iw::call::result, wf, run_id);
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("runId", core::to_hex(run_id));
    out.add("status", run_status_name(r.status));
    out.add("finalTaskHash", core::to_hex(r.final_task_hash));
    out.add("completedAt", r.completed_at.to_dec());
    out.flush();
}

// ───────────────────────────── timeout ─────────────────────────────

struct TimeoutArgs {
    CommonArgs common;
    std::string task_hash;
};

void run_timeout(TimeoutArgs& a) {
    const core::Hash32 th = parse_hash_arg("task hash", a.task_hash);
    ChainContext ctx(a.common.chain);
    const core::Address wf = resolve_workflow(ctx, a.common.workflow);
    // ERC-8301 §Security Considerations (expiresAt): anyone may time out an expired task; the
    // workflow then retries (a new task) or aborts (WorkflowCompleted(Failed)).
    const SentTxn sent = ctx.send(wf, must(sw::reply_timeout(th), "replyTimeout"), "replyTimeout");
    Output out(a.common.chain.json, OutputStyle::labeled);
    out.add("taskHash", core::to_hex(th));
    if (sent.receipt) {
        out.add("newTasks", tasks_json(new_tasks(sent.receipt, wf)));
        out.add("completed", completions_json(completions(sent.receipt, wf)));
    }
    ChainContext::report(out, sent);
    out.flush();
}

}  // namespace

void add_workflow_commands(CLI::App& app) {
    auto* group = app.add_subcommand(
        "workflow", "ERC-8301 agent workflows: run, task, reply, prove, result, timeout, trace");
    group->require_subcommand(1);

    static RunArgs run_args;
    auto* run = add_command(*group, "run", "Start a run: inputHash = keccak256 of the file's bytes",
                            run_args.common, true);
    run->add_option("input-file", run_args.input_file, "Input file ('-' for stdin)")->required();
    run->add_option("--expires-in", run_args.expires_in,
                    "Seconds from now (the later of the latest block's time and this machine's "
                    "clock) until the initial task expires (default 3600)");
    run->add_option("--expires-at", run_args.expires_at, "Absolute expiry (0: no expiry)");
    run->add_flag("--withhold-input", run_args.withhold_input,
                  "Send an empty input on-chain; only inputHash commits to it");
    run->callback([] { run_run(run_args); });

    static TaskArgs task_args;
    auto* task = add_command(*group, "task", "Show a task (getAgentTask)", task_args.common, false);
    task->add_option("task-hash", task_args.task_hash, "Task hash")->required();
    task->add_flag("--show-input", task_args.show_input, "Print the input plaintext as hex");
    task->callback([] { run_task(task_args); });

    static ReplyArgs reply_args;
    auto* reply = add_command(*group, "reply",
                              "Reply to task(s); the operationId is journaled before sending",
                              reply_args.common, true);
    reply
        ->add_option("task-hashes", reply_args.task_hashes,
                     "prevTaskHashes (the first is the primary task)")
        ->required();
    reply->add_option("--output-file", reply_args.output_file, "Output file ('-' for stdin)")
        ->required();
    reply->add_option("--operation-id", reply_args.operation_id,
                      "Use this operationId (assigned by the operation's originator)");
    reply->add_flag("--new-operation", reply_args.new_operation,
                    "A new logical operation even if the journal holds one for this content");
    reply->add_option("--timestamp", reply_args.timestamp,
                      "AgentReply.timestamp (default: now, after the task's anchor time)");
    reply->add_flag("--withhold-output", reply_args.withhold_output,
                    "Send an empty output on-chain; only outputHash commits to it");
    reply->callback([] { run_reply(reply_args); });

    static ProveArgs prove_args;
    auto* prove = add_command(*group, "prove",
                              "Prove replies with an attestation from the workflow's verifier",
                              prove_args.common, true);
    prove->add_option("reply-hashes", prove_args.reply_hashes, "Reply hashes")->required();
    prove->add_option("--proof", prove_args.proof, "Raw proof bytes (hex) instead of attesting");
    prove->add_option("--attester-key", prove_args.attester_key,
                      "Attester private key (default: the signing key)");
    prove->callback([] { run_prove(prove_args); });

    static ResultArgs result_args;
    auto* result = add_command(*group, "result", "A run's result()", result_args.common, false);
    result->add_option("run-id", result_args.run_id, "workflowRunId")->required();
    result->callback([] { run_result(result_args); });

    static TimeoutArgs timeout_args;
    auto* timeout = add_command(*group, "timeout", "Time out an expired task (replyTimeout)",
                                timeout_args.common, true);
    timeout->add_option("task-hash", timeout_args.task_hash, "Expired task hash")->required();
    timeout->callback([] { run_timeout(timeout_args); });

    add_trace_command(*group);
}

}  // namespace credence::cmd
