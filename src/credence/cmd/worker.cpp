// `credence worker`: an ERC-8301 task worker (agent/task_worker.hpp) on one workflow contract.
//
//   credence worker --workflow NAME|ADDR --handler 'CMD' | builtin:NAME [--stage N]
//                   [--private-key HEX | --keystore FILE] [--attester-key HEX] [--state-dir DIR]
//                   [--prove auto|always|never] [--from-block N] [--once] [--json]
//                   [--poll-ms N] [--ws-url URL | --no-subscribe]
//
// Runs until SIGINT / SIGTERM (a clean stop: the current task finishes its transaction first),
// or with --once until nothing is pending (for tests and scripts). Each task acted on prints one
// line (with --json, one JSON object per line). State (cursor, handler outputs, the operation
// journal) lives in --state-dir, by default <credence home>/agents/<address>/<workflow>.
// Tasks are read by polling eth_getLogs every --poll-ms; an eth_subscribe over the node's
// WebSocket (--ws-url, by default the RPC URL as ws:// or wss://) ends each pause as soon as a
// NewAgentTask is emitted, when the node offers it (agent/log_wakeup.hpp).
// Test hook: CREDENCE_FAULT=<point> (agent/reply_submitter.hpp fault_point) SIGKILLs the process.
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/agent/handler.hpp>
#include <credence/agent/stop_signals.hpp>
#include <credence/agent/task_worker.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/cmd/agent_subscribe.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/util.hpp>
#include <credence/cmd/workflow.hpp>

namespace credence::cmd {
namespace {

struct WorkerArgs {
    ChainOptions chain;
    std::string workflow = "SingleStageWorkflow";
    std::string handler;
    std::optional<unsigned> stage;
    std::string attester_key;
    std::string state_dir;
    std::string prove = "auto";
    uint64_t from_block = 0;
    bool once = false;
    unsigned poll_ms = 200;
    SubscribeOptions subscribe;
    unsigned handler_timeout_ms = 30'000;
    size_t max_output_bytes = size_t{1} << 20;
    unsigned once_timeout_s = 60;
};

void print_report(const agent::TaskReport& r, bool json) {
    if (r.outcome == agent::TaskOutcome::deferred) return;
    if (json) {
        nlohmann::ordered_json j{{"taskHash", core::to_hex(r.task_hash)},
                                 {"runId", core::to_hex(r.run_id)},
                                 {"stage", r.stage},
                                 {"outcome", agent::to_string(r.outcome)}};
        j["operationId"] =
            r.operation_id ? nlohmann::ordered_json(core::to_hex(*r.operation_id)) : nullptr;
        j["replyHash"] =
            r.reply_hash ? nlohmann::ordered_json(core::to_hex(*r.reply_hash)) : nullptr;
        j["proofSent"] = r.proof_sent;
        j["detail"] = r.detail;
        j["ms"] = std::chrono::duration_cast<std::chrono::milliseconds>(r.total_time).count();
        fmt::print("{}\n", j.dump());
    } else {
        fmt::print("task {} stage {}: {}{}{}{}\n", core::to_hex(r.task_hash), r.stage,
                   agent::to_string(r.outcome),
                   r.reply_hash ? " reply " + core::to_hex(*r.reply_hash) : std::string(),
                   r.proof_sent ? " (proved)" : "", r.detail.empty() ? "" : " - " + r.detail);
    }
    std::fflush(stdout);
}

void run_worker(WorkerArgs& a) {
    ChainContext ctx(a.chain);
    const core::Address wf = workflow_detail::resolve_workflow(ctx, a.workflow);
    const uint64_t chain_id = ctx.chain_id();
    const auto& signer = ctx.signer();
    auto key = core::SecretKey::from_bytes(signer.key.expose_secret());
    if (!key) throw CliError("signing key: invalid");
    std::optional<core::SecretKey> attester;
    if (!a.attester_key.empty()) attester = load_private_key(a.attester_key);

    agent::BuiltinContext builtin;
    builtin.secret = agent::agent_secret(*key);
    auto handler = agent::make_handler(
        a.handler, builtin,
        agent::CommandOptions{std::chrono::milliseconds(a.handler_timeout_ms), a.max_output_bytes});
    if (!handler) throw CliError(fmt::format("--handler: {}", handler.error().detail));

    agent::WorkerConfig config;
    config.workflow = wf;
    if (a.stage) {
        if (*a.stage > 255) throw CliError("--stage: 0..255");
        config.stage = static_cast<uint8_t>(*a.stage);
    }
    config.state_dir = a.state_dir.empty()
                           ? chain::credence_home() / "agents" /
                                 fmt::format("{}-{}", chain_id, signer.address.to_checksum_hex()) /
                                 wf.to_checksum_hex()
                           : std::filesystem::path(a.state_dir);
    config.start_block = a.from_block;
    config.txn_confirmations = a.chain.confirmations;
    config.poll_interval = std::chrono::milliseconds(a.poll_ms);
    config.subscribe = subscribe_config(a.subscribe, ctx.rpc_url(), "worker");
    if (a.prove == "auto") {
        config.proof_mode = agent::ProofMode::auto_;
    } else if (a.prove == "always") {
        config.proof_mode = agent::ProofMode::always;
    } else if (a.prove == "never") {
        config.proof_mode = agent::ProofMode::never;
    } else {
        throw CliError("--prove: auto, always or never");
    }
    const bool json = a.chain.json;
    // ERC-8274 ECDSA attestation: a signer the workflow's verifier never enabled gets every proof
    // rejected (ProofRejected). Said once, at start, with the fix; replies still go out.
    if (config.proof_mode != agent::ProofMode::never) {
        const core::Address proof_signer =
            attester ? core::address_of(*attester) : core::address_of(*key);
        auto policy = chain::bindings::single_stage_workflow::call::proof_policy(ctx.caller(), wf);
        if (policy && !policy->verifier.is_zero() &&
            !workflow_detail::verifier_may_accept(ctx, policy->verifier, proof_signer)) {
            fmt::print(stderr,
                       "worker: warning: {} is not an attester of the workflow's verifier {}: "
                       "its proofs will be rejected; pass --attester-key of one it enabled, or "
                       "--prove never\n",
                       proof_signer.to_checksum_hex(), policy->verifier.to_checksum_hex());
        }
    }
    // The worker owns its node connection: the context's client moves into it (the context has
    // resolved everything it needs from the node already).
    auto worker = agent::TaskWorker::create(std::move(ctx.rpc()), std::move(*key),
                                            std::move(attester), std::move(*handler), config);
    if (!worker) throw CliError(fmt::format("worker: {}", worker.error().detail));
    if (!json)
        fmt::print(stderr, "worker {} on {} (chain {}), handler {}, state {}\n",
                   (*worker)->address().to_checksum_hex(), wf.to_checksum_hex(), chain_id,
                   a.handler, config.state_dir.string());

    if (a.once) {
        // Process what is pending (waiting out deferred tasks), then exit.
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::seconds(a.once_timeout_s);
        while (true) {
            auto r = (*worker)->step();
            if (!r)
                throw CliError(fmt::format("worker: {}: {}", agent::to_string(r.error().code),
                                           r.error().detail));
            for (const auto& rep : *r) print_report(rep, json);
            // Done when a step found nothing: a reply of ours may have emitted the next task.
            if ((*worker)->pending() == 0 && r->empty()) break;
            if (std::chrono::steady_clock::now() > deadline)
                throw CliError("worker --once: tasks still deferred at the timeout");
            std::this_thread::sleep_for(std::chrono::milliseconds(a.poll_ms));
        }
        return;
    }
    agent::StopOnSignals signals;
    (*worker)->run(
        signals.token(), [json](const agent::TaskReport& r) { print_report(r, json); },
        [](const agent::AgentFailure& f) {
            fmt::print(stderr, "worker: {}: {} (retrying)\n", agent::to_string(f.code), f.detail);
        });
    if (!json) fmt::print(stderr, "worker stopped\n");
}

}  // namespace

void add_worker_commands(CLI::App& app) {
    static WorkerArgs args;
    auto* cmd = app.add_subcommand(
        "worker", "Answer ERC-8301 tasks of a workflow with a handler (runs until SIGINT/SIGTERM)");
    add_chain_options(*cmd, args.chain, true);
    cmd->add_option("--workflow", args.workflow,
                    "Workflow contract: a name in the deployment file or an address")
        ->capture_default_str();
    cmd->add_option("--handler", args.handler,
                    "A command (the job JSON on stdin, the output on stdout; exit 100 declines) "
                    "or builtin:echo|uppercase|bid|bft")
        ->required();
    cmd->add_option("--stage", args.stage, "Answer only tasks of this stage");
    cmd->add_option("--attester-key", args.attester_key,
                    "Key that signs attestation proofs (default: the signing key)");
    cmd->add_option("--state-dir", args.state_dir,
                    "Cursor, outputs and operation journal (default: under the credence home)");
    cmd->add_option("--prove", args.prove, "auto | always | never")->capture_default_str();
    cmd->add_option("--from-block", args.from_block, "First block to read without a cursor");
    cmd->add_flag("--once", args.once, "Process what is pending, then exit");
    cmd->add_option("--once-timeout", args.once_timeout_s,
                    "Seconds --once may wait for deferred tasks")
        ->capture_default_str();
    cmd->add_option("--poll-ms", args.poll_ms, "Milliseconds between polls")->capture_default_str();
    add_subscribe_options(*cmd, args.subscribe);
    cmd->add_option("--handler-timeout-ms", args.handler_timeout_ms, "Handler time limit")
        ->capture_default_str();
    cmd->add_option("--max-output-bytes", args.max_output_bytes, "Handler output size limit")
        ->capture_default_str();
    cmd->callback([] { run_worker(args); });
}

}  // namespace credence::cmd
