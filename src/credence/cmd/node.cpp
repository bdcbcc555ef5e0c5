// `credence node`: the main job (docs/node.md; node/node.hpp). Indexes the chain, re-verifies,
// keeps trust scores and serves the REST API, MCP and the explorer until SIGINT / SIGTERM.
//
//   credence node [--config FILE] [--role all|writer|api] [--rpc URL] [--chain-id N]
//                 [--deployment FILE]
//                 [--database LOC] [--data-dir DIR] [--bind ADDR] [--port N] [--static-dir DIR]
//                 [--devnet-port N] [--devnet-state DIR] [--trusted ADDR]... [--no-verify]
//                 [--max-age S] [--allow-http] [--ca-file PEM] [--allow-host H]...
//                 [--connect-to C]... [--finality-depth N] [--poll-ms N]
//                 [--check-index quick|full|off]
//
// The TOML file (docs/node.md) is read first; each flag given wins over its key. Without --rpc
// (and chain.rpc) the node follows the running devnet, as every command finds it (devnet.json,
// when its RPC answers), else starts the embedded devnet. Prints "credence node: serving <url>" on
// stdout once the server listens. Errors (bad config naming the key, port taken) are one line.
#include <malloc.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <credence/chain/deployment.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/cmd/chain_context.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/util.hpp>
#include <credence/cmd/verify.hpp>
#include <credence/node/node.hpp>

namespace credence::cmd {
namespace {

struct NodeArgs {
    std::string config_file;
    std::optional<std::string> rpc, deployment, database, data_dir, bind, static_dir, devnet_state,
        ca_file, check_index, role;
    std::optional<uint64_t> chain_id, finality_depth;
    std::optional<uint16_t> port, devnet_port;
    std::optional<unsigned> poll_ms;
    std::optional<int64_t> max_age;
    std::vector<std::string> trusted, allow_hosts, connect_to, payment_rpcs;
    bool no_verify = false;
    bool allow_http = false;
};

node::NodeConfig merged_config(const NodeArgs& a) {
    node::NodeConfig c;
    if (!a.config_file.empty()) {
        auto loaded = node::load_node_config(a.config_file);
        if (!loaded) throw CliError(loaded.error());
        c = std::move(*loaded);
    }
    if (!c.chains.empty()) {
        // docs/node.md §Many chains: each chain's keys live in its [[chains]] entry.
        const std::pair<bool, const char*> chain_flags[] = {
            {a.rpc.has_value(), "--rpc"},
            {a.chain_id.has_value(), "--chain-id"},
            {a.deployment.has_value(), "--deployment"},
            {a.finality_depth.has_value(), "--finality-depth"},
            {a.poll_ms.has_value(), "--poll-ms"},
            {a.devnet_port.has_value(), "--devnet-port"},
            {a.devnet_state.has_value(), "--devnet-state"}};
        for (const auto& [given, flag] : chain_flags) {
            if (given) {
                throw CliError(fmt::format(
                    "{}: the config file lists [[chains]]: set it in each chain's entry", flag));
            }
        }
    }
    if (a.rpc) c.chain.rpc = *a.rpc;
    if (a.chain_id) c.chain.chain_id = a.chain_id;
    if (a.deployment) c.chain.deployment = *a.deployment;
    if (a.finality_depth) c.chain.finality_depth = a.finality_depth;
    if (a.poll_ms) c.chain.poll_ms = *a.poll_ms;
    if (a.devnet_port) c.chain.devnet_port = *a.devnet_port;
    if (a.devnet_state) c.chain.devnet_state = *a.devnet_state;
    if (a.role) {
        const auto role = node::parse_node_role(*a.role);
        if (!role) throw CliError("--role: " + role.error());
        c.node.role = *role;
    }
    if (a.database) c.database.location = *a.database;
    if (a.data_dir) c.database.data_dir = *a.data_dir;
    if (a.check_index) {
        const auto check = index::parse_integrity_check(*a.check_index);
        if (!check) throw CliError("--check-index: must be quick, full or off");
        c.database.check = *check;
    }
    if (a.bind) c.http.bind = *a.bind;
    if (a.port) c.http.port = *a.port;
    if (a.static_dir) c.http.static_dir = *a.static_dir;
    if (!a.trusted.empty()) c.trust.trusted = a.trusted;
    if (a.no_verify) c.verify.enabled = false;
    if (a.max_age) c.verify.max_age_seconds = *a.max_age;
    if (a.allow_http) c.fetch.allow_http = true;
    if (a.ca_file) c.fetch.ca_file = *a.ca_file;
    if (!a.allow_hosts.empty()) c.fetch.allow_hosts = a.allow_hosts;
    if (!a.connect_to.empty()) c.fetch.connect_to = a.connect_to;
    if (!a.payment_rpcs.empty()) {
        c.payment_chains.clear();
        for (const auto& kv : a.payment_rpcs) {
            auto [chain, url] = split_key_value("--payment-rpc", kv);
            c.payment_chains.push_back({parse_u64_arg("--payment-rpc chain id", chain), url});
        }
    }
    return c;
}

/// The running devnet's RPC URL: devnet.json names one and it answers with the chain id the file
/// names. A file left behind by a devnet that is gone does not count.
std::optional<std::string> running_devnet_rpc() {
    const auto devnet = running_devnet();
    if (!devnet) return std::nullopt;
    const chain::Deployment& found = *devnet;
    if (!found.rpc_url) return std::nullopt;
    std::string url = *found.rpc_url;
    chain::HttpOptions http;
    http.connect_timeout = std::chrono::seconds(2);
    http.total_timeout = std::chrono::seconds(5);
    chain::RetryPolicy once;
    once.max_attempts = 1;
    auto rpc = chain::RpcClient::make_http(url, http, once);
    auto id = rpc.chain_id();
    if (!id || *id != found.chain_id) return std::nullopt;
    return url;
}

/// glibc gives each thread that allocates at once an arena of its own, up to 8 per core, and keeps
/// what each arena held: with a pipeline per chain, that memory grows with the chains followed
/// (docs/benchmarks.md §Many chains: 190 MB more per chain by default, 79 MB with 4 arenas on 2
/// cores). Two per core keeps allocation uncontended. MALLOC_ARENA_MAX, when set, wins.
void cap_malloc_arenas() {
    if (std::getenv("MALLOC_ARENA_MAX") != nullptr) return;
    const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
    mallopt(M_ARENA_MAX, static_cast<int>(std::min(2 * cores, 64U)));
}

void run_node(const NodeArgs& a) {
    // Block the stop signals before any thread or child starts: they stay pending until the
    // watcher below collects them, so a Ctrl-C during start-up still ends in a clean shutdown.
    const sigset_t stop_signals = block_stop_signals();
    cap_malloc_arenas();

    node::NodeConfig config = merged_config(a);
    if (config.chains.empty() && config.chain.rpc.empty()) {
        if (auto rpc = running_devnet_rpc()) {
            config.chain.rpc = *rpc;
            fmt::print(stderr, "credence node: following the running devnet at {} ({})\n", *rpc,
                       chain::devnet_path().string());
        }
    }
    auto started = node::Node::start(std::move(config));
    if (!started) throw CliError(started.error());
    node::Node& n = **started;
    fmt::print("credence node: serving {}\n", n.url());
    std::fflush(stdout);
    fmt::print(stderr, "credence node: chain {} via {}, index {}\n", n.chain_id(), n.rpc_url(),
               n.database());
    for (const auto& [id, rpc] : n.other_chains()) {
        fmt::print(stderr, "credence node: chain {} via {}\n", id, rpc);
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
    auto result = n.run(stop.get_token());
    watcher.request_stop();
    if (!result) throw CliError(result.error());
    fmt::print(stderr, "credence node: stopped\n");
}

}  // namespace

void add_node_commands(CLI::App& app) {
    static NodeArgs args;
    auto* cmd = app.add_subcommand(
        "node", "Run the node: index, verify, score and serve the REST API, MCP and the explorer");
    cmd->add_option("--config", args.config_file, "TOML configuration file (docs/node.md)")
        ->check(CLI::ExistingFile);
    cmd->add_option("--rpc", args.rpc,
                    "JSON-RPC URL (default: the running devnet, else start the embedded one)");
    cmd->add_option("--chain-id", args.chain_id, "Expected chain id");
    cmd->add_option("--deployment", args.deployment, "Deployment file (contract addresses)");
    cmd->add_option("--role", args.role,
                    "all (default), writer (index, verify, score) or api (read and serve only); "
                    "docs/scale.md");
    cmd->add_option("--database", args.database,
                    "SQLite file or postgresql:// URL (default <data dir>/index.sqlite)");
    cmd->add_option("--data-dir", args.data_dir, "Data directory (default $CREDENCE_HOME)");
    cmd->add_option("--check-index", args.check_index,
                    "Check the SQLite index at start: quick (default), full or off");
    cmd->add_option("--bind", args.bind, "HTTP bind address (default 127.0.0.1)");
    cmd->add_option("--port", args.port, "HTTP port (default 8004; 0: any free port)");
    cmd->add_option("--static-dir", args.static_dir, "Explorer files to serve (web/dist)");
    cmd->add_option("--devnet-port", args.devnet_port, "Embedded devnet port (default: any)");
    cmd->add_option("--devnet-state", args.devnet_state,
                    "Directory where the embedded devnet keeps its state across restarts");
    cmd->add_option("--trusted", args.trusted, "Trusted seed address (repeatable)");
    cmd->add_flag("--no-verify", args.no_verify, "Do not run the re-verifier");
    cmd->add_option("--max-age", args.max_age, "Re-verify results older than this many seconds")
        ->check(CLI::NonNegativeNumber);
    cmd->add_flag("--allow-http", args.allow_http, "Fetch plain http:// documents too");
    cmd->add_option("--ca-file", args.ca_file, "Extra PEM CA bundle for fetching");
    cmd->add_option("--allow-host", args.allow_hosts,
                    "Host, IP, CIDR or name=IP[:port] pin exempt from the SSRF guard (repeatable)")
        ->check(allow_host_check());
    cmd->add_option("--connect-to", args.connect_to,
                    "curl CONNECT_TO host:port:connect-host:connect-port (repeatable)");
    cmd->add_option("--payment-rpc", args.payment_rpcs,
                    "CHAIN=URL: check proofOfPayment transactions on another chain (repeatable; "
                    "the followed chain needs none)");
    cmd->add_option("--finality-depth", args.finality_depth, "Blocks that may still reorg");
    cmd->add_option("--poll-ms", args.poll_ms, "Indexer poll interval once caught up");
    cmd->callback([] { run_node(args); });
}

}  // namespace credence::cmd
