// `credence verify pending`: re-verification from the index (docs/architecture.md §verify/). One
// pass checks every subject that is due (never checked, changed on chain since its last check, or
// older than
// --max-age) and stores the result in the index's `verifications` table with status, reason and
// time; --follow repeats a pass every --interval seconds until SIGINT / SIGTERM, which stop
// between batches (a batch's results commit whole).
#include <signal.h>

#include <chrono>
#include <map>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/index_database.hpp>
#include <credence/cmd/util.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/index/store.hpp>
#include <credence/verify/store/funding_pass.hpp>
#include <credence/verify/store/index_checks.hpp>
#include <credence/verify/store/reverifier.hpp>
#include <credence/verify/verifiers/feedback_verifier.hpp>
#include <credence/verify/verifiers/tool_verifier.hpp>

namespace credence::cmd {
namespace {

struct PendingArgs {
    ChainOptions chain;
    FetchArgs fetch;
    std::string database;
    std::vector<std::string> kinds;
    int64_t max_age = 86'400;
    size_t batch = 64;
    bool follow = false;
    unsigned interval = 30;
};

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

void run_pending(const PendingArgs& a) {
    const sigset_t stop_signals = block_stop_signals();
    // The arguments first: a typo is named before any node or file is touched.
    for (const auto& name : a.kinds) {
        if (!verify::subject_kind_from_string(name)) {
            throw CliError(fmt::format(
                "--kind: unknown kind '{}' (agent, tool, feedback, validation, run)", name));
        }
    }

    ChainContext ctx(a.chain);
    const uint64_t chain_id = ctx.chain_id();
    auto db = open_index_database(a.database, IndexOpen::existing);
    auto store = index::IndexStore::open(*db);  // applies the migrations (verifications table)
    if (!store) throw CliError(store.error().to_string());
    const auto fetcher = make_fetcher(a.fetch);

    std::map<verify::SubjectKind, verify::BatchCheck> checks;
    const auto wanted = [&](verify::SubjectKind k) {
        if (a.kinds.empty()) return true;
        for (const auto& name : a.kinds) {
            if (verify::subject_kind_from_string(name) == k) return true;
        }
        return false;
    };
    if (wanted(verify::SubjectKind::agent)) {
        checks[verify::SubjectKind::agent] =
            verify::make_agent_check(*fetcher, ctx.rpc(), chain_id, {}, db.get());
    }
    if (wanted(verify::SubjectKind::tool)) {
        checks[verify::SubjectKind::tool] = verify::make_tool_check(*fetcher, ctx.rpc());
    }
    if (wanted(verify::SubjectKind::feedback)) {
        // A proofOfPayment on the indexed chain is checked over the same node (ERC-8004
        // §Off-Chain Feedback File Structure: x402 proof of payment), so the trust engine's
        // verified-payment flag is set; other chains stay unchecked (a warning, not a failure).
        verify::FeedbackVerifyOptions feedback_options;
        feedback_options.rpc_for_chain = [&ctx, chain_id](uint64_t id) -> chain::RpcClient* {
            return id == chain_id ? &ctx.rpc() : nullptr;
        };
        checks[verify::SubjectKind::feedback] =
            verify::make_feedback_check(*fetcher, ctx.rpc(), std::move(feedback_options));
    }
    if (wanted(verify::SubjectKind::validation)) {
        checks[verify::SubjectKind::validation] =
            verify::make_validation_check(*fetcher, ctx.rpc());
    }
    if (wanted(verify::SubjectKind::run)) {
        checks[verify::SubjectKind::run] = verify::make_run_check(*db, chain_id);
    }

    std::stop_source stop;
    std::jthread watcher([&](const std::stop_token& own) {
        const timespec tick{0, 100'000'000};
        while (!own.stop_requested()) {
            if (::sigtimedwait(&stop_signals, nullptr, &tick) > 0) {
                stop.request_stop();
                return;
            }
        }
    });

    Output out(a.chain.json, OutputStyle::labeled);
    do {
        verify::ReverifyOptions options;
        options.now = unix_now();
        options.max_age = a.max_age;
        options.batch_size = a.batch;
        auto counts = verify::reverify_due(*db, chain_id, checks, options);
        if (!counts) throw CliError(counts.error().to_string());
        out.add("checked", counts->checked);
        out.add("verified", counts->verified);
        out.add("unverified", counts->unverified);
        out.add("unreachable", counts->unreachable);
        // Where the reviewers' funds came from (docs/trust.md §Funding), for trust's clusters.
        if (wanted(verify::SubjectKind::feedback)) {
            auto head = ctx.rpc().block_number();
            if (!head) throw CliError("eth_blockNumber: " + head.error().to_string());
            verify::FundingPassOptions funding;
            funding.now = unix_now();
            funding.head = *head;
            auto traced = verify::trace_fundings(*db, ctx.rpc(), chain_id, funding);
            if (!traced) throw CliError(traced.error().to_string());
            out.add("fundingsTraced", traced->traced);
        }
        out.flush();
        if (!a.follow) break;
        for (unsigned s = 0; s < a.interval * 10 && !stop.stop_requested(); ++s) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    } while (!stop.stop_requested());
    watcher.request_stop();
}

}  // namespace

void add_verify_pending_command(CLI::App& verify_group) {
    static PendingArgs args;
    auto* cmd = verify_group.add_subcommand(
        "pending", "Check every agent, tool, feedback, validation and run the index says is due");
    add_chain_options(*cmd, args.chain, false);
    add_fetch_flags(*cmd, args.fetch);
    cmd->add_option("--database", args.database, kDatabaseHelp);
    cmd->add_option("--kind", args.kinds,
                    "Only these kinds (agent, tool, feedback, validation, run); repeatable");
    cmd->add_option("--max-age", args.max_age,
                    "Re-check results older than this many seconds (default 86400; 0: only on "
                    "on-chain changes)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--batch", args.batch, "Subjects per check and per write (default 64)")
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--follow", args.follow, "Repeat every --interval seconds until interrupted");
    cmd->add_option("--interval", args.interval, "Seconds between passes with --follow")
        ->check(CLI::PositiveNumber);
    cmd->callback([] { run_pending(args); });
}

}  // namespace credence::cmd
