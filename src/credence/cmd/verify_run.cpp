// `credence verify run <runId>`: verify an ERC-8301 evidence chain (docs/architecture.md §verify/;
// verify/verifiers/evidence.hpp) from result(runId).finalTaskHash back to the initial task, and
// print the verdict and the trace.
//
//   credence verify run <runId> [--workflow NAME|ADDRESS] [--from-block N] [--json]
//                               [--rpc URL ...]                      live, over JSON-RPC (default)
//   credence verify run <runId> --database PATH|URL [--workflow ...]  offline, from the index
//   credence verify run <runId> --offline                            offline, the default index
//                                                                    ($CREDENCE_DATABASE, else
//                                                                    $CREDENCE_HOME/index.sqlite)
// Live is the default so that a verdict never silently comes from a stale index: offline is always
// asked for. Offline, --workflow is optional (the run id finds its workflow in the index); a
// workflow NAME needs the deployment file (and so the node) to resolve, an ADDRESS does not.
//
// Output: the trace as a tree, the failures and the verdict (or one JSON document with --json).
// Exit status: 0 for a valid chain; 1 with "error: evidence chain ... is invalid: <reason>" on
// stderr (after the report on stdout) for an invalid one, and 1 for any other error.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include <fmt/core.h>

#include <credence/chain/deployment.hpp>
#include <credence/cmd/args.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/index_database.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/cmd/workflow.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>

namespace credence::cmd {
namespace {

struct VerifyRunArgs {
    ChainOptions chain;
    std::string run_id;
    std::string workflow;
    std::string database;
    bool offline = false;
    uint64_t from_block = 0;
};

void run_verify(VerifyRunArgs& a) {
    const core::Hash32 run_id = parse_hash_arg("run id", a.run_id);
    const bool offline = a.offline || !a.database.empty();
    std::unique_ptr<ChainContext> ctx;
    std::unique_ptr<index::Database> db;
    std::unique_ptr<verify::EvidenceSource> source;
    if (offline) {
        db = open_index_database(a.database, IndexOpen::existing);
        std::optional<core::Address> workflow;
        if (!a.workflow.empty()) {
            ctx = std::make_unique<ChainContext>(a.chain);
            workflow = workflow_detail::resolve_workflow(*ctx, a.workflow);
        }
        auto s = verify::make_index_evidence_source(*db, run_id, a.chain.chain_id, workflow);
        if (!s) throw CliError(fmt::format("index: {}", s.error().message));
        source = std::move(*s);
    } else {
        ctx = std::make_unique<ChainContext>(a.chain);
        const core::Address workflow = workflow_detail::resolve_workflow(
            *ctx, a.workflow.empty() ? std::string("SingleStageWorkflow") : a.workflow);
        source = verify::make_rpc_evidence_source(ctx->rpc(), workflow, a.from_block);
    }
    auto report = verify::verify_run(*source, run_id);
    if (!report) throw CliError(fmt::format("verify run: {}", report.error().to_string()));
    if (a.chain.json) {
        fmt::print("{}\n", verify::to_json(*report).dump(2));
    } else {
        fmt::print("{}", verify::to_text(*report));
    }
    std::fflush(stdout);
    if (const auto* f = report->first_failure()) {
        throw CliError(fmt::format("evidence chain of run {} is invalid: {} at {} {}",
                                   core::to_hex(run_id), verify::to_string(f->reason),
                                   f->kind == verify::NodeKind::task ? "task" : "reply",
                                   core::to_hex(f->hash)));
    }
}

}  // namespace

void add_verify_run_command(CLI::App& group) {
    static VerifyRunArgs args;
    auto* cmd = group.add_subcommand(
        "run", "Verify an ERC-8301 run's evidence chain from result() back to run()");
    add_chain_options(*cmd, args.chain, false);
    cmd->add_option("run-id", args.run_id, "workflowRunId")->required();
    cmd->add_option("--workflow", args.workflow,
                    "Workflow contract: a name in the deployment file or an address (live "
                    "default SingleStageWorkflow; offline default: found from the run id)");
    cmd->add_option("--database", args.database,
                    "Verify offline from this index (SQLite path or postgresql:// URL)");
    cmd->add_flag("--offline", args.offline,
                  "Verify offline from the default index ($CREDENCE_DATABASE, else "
                  "$CREDENCE_HOME/index.sqlite)");
    cmd->add_option("--from-block", args.from_block,
                    "Live: first block to search for the run's logs (default 0)");
    cmd->callback([] { run_verify(args); });
}

}  // namespace credence::cmd
