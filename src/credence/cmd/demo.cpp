// `credence demo`: seeds a devnet with the demo world and serves its documents (docs/agent.md).
//
//   credence demo [--rpc URL] [--https-port N] [--state-dir DIR] [--private-key HEX] [--json]
//
// The chain is found as every command finds it (--rpc, $ETH_RPC_URL, the running `credence
// devnet`); the seeding is agent/demo_seed.hpp. After seeding it prints what it made and the
// fetch flags a verifier needs to reach the demo's HTTPS origin (--ca-file, --allow-host,
// --connect-to), then serves until SIGINT/SIGTERM. A second run against the same chain finds
// <state-dir>/demo-state.json, seeds nothing and only serves again.
// The funder defaults to anvil's first development key, which is public: only on a devnet
// (chain 31337) is it used without --private-key.
#include <signal.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/agent/demo_seed.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/util.hpp>

namespace credence::cmd {
namespace {

// anvil's first development account (its default mnemonic): public knowledge, devnet only.
constexpr std::string_view kAnvilKey0 =
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr uint64_t kDevnetChainId = 31337;

struct DemoArgs {
    ChainOptions chain;
    std::optional<std::string> private_key;
    int https_port = 0;
    std::string state_dir;
    bool once = false;
};

void run_demo(const DemoArgs& a) {
    // Stop signals are blocked before any thread starts (the HTTPS server's), so they stay
    // pending for the sigtimedwait below instead of killing a worker thread.
    const sigset_t stop_signals = block_stop_signals();

    ChainContext ctx(a.chain);
    const uint64_t chain_id = ctx.chain_id();
    const chain::Deployment* deployment = ctx.deployment(true);

    std::string key_text;
    if (a.private_key) {
        key_text = *a.private_key;
    } else if (const char* env = std::getenv("CREDENCE_PRIVATE_KEY"); env != nullptr && *env) {
        key_text = env;
    } else if (chain_id == kDevnetChainId) {
        key_text = kAnvilKey0;
    } else {
        throw CliError(fmt::format(
            "chain {} is not a devnet: give the funding account with --private-key", chain_id));
    }

    agent::DemoOptions options;
    options.rpc_url = [&] {
        if (!a.chain.rpc.empty()) return a.chain.rpc;
        if (const char* env = std::getenv("ETH_RPC_URL"); env != nullptr && *env)
            return std::string(env);
        if (deployment->rpc_url) return *deployment->rpc_url;
        return std::string("http://127.0.0.1:8545");
    }();
    options.chain_id = chain_id;
    options.contracts = deployment->contracts;
    options.state_dir =
        a.state_dir.empty() ? chain::credence_home() / "demo" : std::filesystem::path(a.state_dir);
    options.https_port = a.https_port;
    if (!a.chain.json)
        options.progress = [](std::string_view line) { fmt::print(stderr, "demo: {}\n", line); };

    const core::SecretKey funder = load_private_key(key_text);
    auto demo = agent::Demo::start(options, funder);
    if (!demo)
        throw CliError(
            fmt::format("demo: {}: {}", agent::to_string(demo.error().code), demo.error().detail));
    const auto& s = (*demo)->summary();
    if (a.chain.json) {
        nlohmann::json doc = s.to_json();
        doc["https"] = {{"port", (*demo)->port()},
                        {"caFile", (*demo)->ca_file().string()},
                        {"connectTo", (*demo)->connect_to()},
                        {"fetchFlags", (*demo)->fetch_flags()}};
        fmt::print("{}\n", doc.dump());
    } else {
        size_t verified = 0;
        for (const auto& agent : s.agents)
            if (agent.expected_domain == "verified") ++verified;
        fmt::print("{} on chain {}\n", s.already_seeded ? "already seeded" : "seeded", s.chain_id);
        fmt::print("agents: {} ({} with a verifiable domain)\n", s.agents.size(), verified);
        fmt::print("clients: {} ({} in the Sybil cluster rating agent {})\n", s.clients,
                   s.sybil_clients, s.sybil_target);
        fmt::print("feedback: {} ({} paid), responses: {}, revocations: {}\n", s.feedback,
                   s.paid_feedback, s.responses, s.revocations);
        fmt::print("tools: {}\n", s.tools.size());
        for (const auto& e : s.earlier_revisions) {
            if (e.role != "server") continue;
            fmt::print("earlier revision {}: agent {} ({})\n", e.revision, e.agent_id,
                       e.domain.empty() ? s.agents.front().name : e.domain);
        }
        fmt::print("https: 127.0.0.1:{}\n", (*demo)->port());
        std::string flags;
        for (const auto& f : (*demo)->fetch_flags()) flags += " " + f;
        fmt::print("fetch flags:{}\n", flags);
    }
    std::fflush(stdout);
    if (a.once) return;

    for (;;) {
        const int sig = ::sigwaitinfo(&stop_signals, nullptr);
        if (sig == SIGINT || sig == SIGTERM) break;
        if (sig < 0 && errno != EINTR) break;
    }
}

}  // namespace

void add_demo_commands(CLI::App& app) {
    static DemoArgs args;
    auto* cmd = app.add_subcommand(
        "demo", "Seed a devnet with the demo (agents, feedback, tools, ...) and serve its files");
    add_chain_options(*cmd, args.chain, false);
    cmd->add_option("--private-key", args.private_key,
                    "Funding account (default: $CREDENCE_PRIVATE_KEY, else anvil's first "
                    "development key on chain 31337)");
    cmd->add_option("--https-port", args.https_port,
                    "Port of the demo's HTTPS origin on 127.0.0.1 (default: a free port)")
        ->check(CLI::Range(0, 65535));
    cmd->add_option("--state-dir", args.state_dir,
                    "Where the demo keeps its CA and demo-state.json (default: "
                    "$CREDENCE_HOME/demo)");
    cmd->add_flag("--once", args.once, "Seed (or check the seeding), print, and exit");
    cmd->callback([] { run_demo(args); });
}

}  // namespace credence::cmd
