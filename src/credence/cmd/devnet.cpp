// `credence devnet`: a local chain with every Credence contract, for development (docs/cli.md).
//
//   credence devnet [--port N=8545] [--state DIR] [--chain-id N=31337] [--block-time S]
//                   [--revisions current|all] [--json]
//
// Starts anvil on 127.0.0.1 (chain/anvil_process.hpp), deploys every contract as
// contracts/script/Deploy.s.sol does (chain/devnet_deploy.hpp; idempotent, so a --state restart
// reuses the contracts; `--revisions all` adds the registries of the two earlier ERC-8004
// revisions, docs/compatibility.md), writes the deployment to $CREDENCE_HOME/devnet.json (with
// rpcUrl: how other commands find the devnet with no flags) and deployments/<chainId>.json, prints
// the addresses and the funded dev keys, then runs until SIGINT/SIGTERM, stops anvil (which writes
// its --state file) and removes devnet.json.
//
// Signals: SIGINT and SIGTERM are blocked from the start and collected with sigtimedwait, so a
// Ctrl-C during deployment still ends in the same clean shutdown. anvil runs in its own process
// group, so the terminal's Ctrl-C reaches only this process, which then stops anvil in order.
#include <signal.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <credence/chain/anvil_process.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/devnet_deploy.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/cmd/commands.hpp>
#include <credence/cmd/util.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::cmd {
namespace {

namespace fs = std::filesystem;

struct DevnetOptions {
    uint16_t port = 8545;
    std::string state_dir;
    uint64_t chain_id = 31337;
    std::optional<uint64_t> block_time;
    std::string anvil;  ///< empty: AnvilProcess::find_binary()
    std::string revisions = "current";
    bool json = false;
};

// Removes devnet.json on every exit path, but only while it still describes this devnet.
class DevnetFileGuard {
public:
    DevnetFileGuard(fs::path path, std::string rpc_url)
        : path_(std::move(path)), rpc_url_(std::move(rpc_url)) {}
    ~DevnetFileGuard() {
        auto current = chain::load_deployment(path_);
        if (current && current->rpc_url == rpc_url_) {
            std::error_code ec;
            fs::remove(path_, ec);
        }
    }
    DevnetFileGuard(const DevnetFileGuard&) = delete;
    DevnetFileGuard& operator=(const DevnetFileGuard&) = delete;

private:
    fs::path path_;
    std::string rpc_url_;
};

// Fails when devnet.json names a node that still answers: another devnet owns it.
void check_no_running_devnet() {
    auto existing = chain::load_deployment(chain::devnet_path());
    if (!existing) return;
    const std::string url = existing->rpc_url.value_or("");
    if (url.empty()) return;
    chain::HttpOptions http;
    http.connect_timeout = std::chrono::milliseconds(300);
    http.total_timeout = std::chrono::milliseconds(1'000);
    chain::RetryPolicy once;
    once.max_attempts = 1;
    auto rpc = chain::RpcClient::make_http(url, http, once);
    if (rpc.chain_id()) {
        throw CliError("a devnet is already running at " + url + " (" +
                       chain::devnet_path().string() + "); stop it first");
    }
}

void print_plain(const chain::AnvilProcess& anvil, const chain::DeployResult& deployed,
                 const fs::path& devnet_file, const fs::path& deployment_file,
                 const std::optional<fs::path>& state_file) {
    fmt::print("Credence devnet: anvil at {} (chain id {})\n", anvil.url(), anvil.chain_id());
    fmt::print("\nContracts ({} deployed now, {} already on chain; deployer {}):\n", deployed.sent,
               deployed.skipped, deployed.deployment.deployer.to_checksum_hex());
    for (const auto& [name, address] : deployed.deployment.contracts) {
        const auto revision = deployed.deployment.revision_of(name);
        fmt::print("  {:<33} {}{}\n", name, address.to_checksum_hex(),
                   revision == core::Erc8004Revision::current
                       ? std::string()
                       : fmt::format("  (ERC-8004 {})", core::to_string(revision)));
    }
    fmt::print(
        "\nFunded dev accounts. PUBLIC TEST KEYS of anvil's well-known mnemonic: anyone can use "
        "them;\nnever send real funds to these addresses or use the keys on a real chain.\n");
    const auto& accounts = anvil.dev_accounts();
    for (size_t i = 0; i < accounts.size(); ++i) {
        fmt::print("  ({}) {}  {}\n", i, accounts[i].address.to_checksum_hex(),
                   accounts[i].private_key_hex);
    }
    fmt::print("\nDeployment: {}\n            {}\n", devnet_file.string(),
               deployment_file.string());
    if (state_file) fmt::print("State:      {}\n", state_file->string());
    fmt::print("\nOther credence commands use this devnet with no flags. Ctrl-C to stop.\n");
}

void print_json(const chain::AnvilProcess& anvil, const chain::DeployResult& deployed,
                const fs::path& devnet_file, const fs::path& deployment_file,
                const std::optional<fs::path>& state_file) {
    nlohmann::ordered_json doc;
    doc["rpcUrl"] = anvil.url();
    doc["chainId"] = anvil.chain_id();
    doc["deployer"] = deployed.deployment.deployer.to_checksum_hex();
    doc["deployedNow"] = deployed.sent;
    doc["alreadyDeployed"] = deployed.skipped;
    auto contracts = nlohmann::ordered_json::object();
    for (const auto& [name, address] : deployed.deployment.contracts) {
        contracts[name] = address.to_checksum_hex();
    }
    doc["contracts"] = std::move(contracts);
    auto revisions = nlohmann::ordered_json::object();
    for (const auto& [name, revision] : deployed.deployment.revisions) {
        revisions[name] = std::string(core::to_string(revision));
    }
    doc["revisions"] = std::move(revisions);
    doc["devAccountsNote"] =
        "public anvil test keys (well-known mnemonic): devnet only, never on a real chain";
    auto accounts = nlohmann::ordered_json::array();
    for (const auto& a : anvil.dev_accounts()) {
        accounts.push_back(
            {{"address", a.address.to_checksum_hex()}, {"privateKey", a.private_key_hex}});
    }
    doc["devAccounts"] = std::move(accounts);
    doc["devnetFile"] = devnet_file.string();
    doc["deploymentFile"] = deployment_file.string();
    doc["stateFile"] = state_file ? nlohmann::ordered_json(state_file->string()) : nullptr;
    fmt::print("{}\n", doc.dump());
}

void run_devnet(const DevnetOptions& opts) {
    // Block the stop signals before anything starts: they stay pending until the wait below.
    const sigset_t stop_signals = block_stop_signals();

    check_no_running_devnet();

    chain::AnvilOptions anvil_options;
    anvil_options.port = opts.port;
    anvil_options.binary = opts.anvil;
    anvil_options.chain_id = opts.chain_id;
    anvil_options.block_time = opts.block_time;
    std::optional<fs::path> state_file;
    if (!opts.state_dir.empty()) {
        std::error_code ec;
        fs::create_directories(opts.state_dir, ec);
        if (ec) throw CliError("cannot create --state directory " + opts.state_dir);
        state_file = fs::absolute(fs::path(opts.state_dir) / "state.json");
        anvil_options.state_file = state_file;
    }
    auto started = chain::AnvilProcess::start(anvil_options);
    if (!started) {
        // The error carries anvil's log tail; keep the first line for the one-line contract.
        const std::string& e = started.error();
        throw CliError("cannot start anvil: " + e.substr(0, e.find('\n')) +
                       (opts.port != 0 ? " (is port " + std::to_string(opts.port) + " free?)"
                                       : std::string()));
    }
    auto& anvil = **started;
    if (anvil.dev_accounts().empty()) throw CliError("anvil reported no dev accounts");

    auto key = core::SecretKey::from_hex(anvil.dev_accounts().front().private_key_hex);
    if (!key) throw CliError("anvil's first dev key is invalid");
    auto rpc = chain::RpcClient::make_http(anvil.url());
    chain::DeployOptions deploy_options;
    deploy_options.revisions =
        opts.revisions == "all" ? chain::DeployRevisions::all : chain::DeployRevisions::current;
    deploy_options.sender.chain_id = opts.chain_id;
    deploy_options.sender.poll_interval = std::chrono::milliseconds(10);
    if (opts.block_time) {
        deploy_options.sender.receipt_timeout =
            std::chrono::milliseconds(60'000 + 3'000 * static_cast<int64_t>(*opts.block_time));
    }
    auto deployed = chain::deploy_all(rpc, *key, deploy_options);
    if (!deployed) throw CliError("deploy failed: " + deployed.error());

    chain::Deployment deployment = deployed->deployment;
    deployment.rpc_url = anvil.url();
    const fs::path devnet_file = chain::devnet_path();
    const fs::path deployment_file = chain::deployment_path(deployment.chain_id);
    if (auto saved = chain::save_deployment(deployment_file, deployment); !saved) {
        throw CliError(saved.error());
    }
    DevnetFileGuard guard(devnet_file, anvil.url());
    if (auto saved = chain::save_deployment(devnet_file, deployment); !saved) {
        throw CliError(saved.error());
    }

    if (opts.json) {
        print_json(anvil, *deployed, devnet_file, deployment_file, state_file);
    } else {
        print_plain(anvil, *deployed, devnet_file, deployment_file, state_file);
    }
    std::fflush(stdout);

    // Run until a stop signal; notice an anvil that died on its own.
    const timespec tick{0, 250'000'000};
    for (;;) {
        const int sig = ::sigtimedwait(&stop_signals, nullptr, &tick);
        if (sig == SIGINT || sig == SIGTERM) break;
        if (sig < 0 && errno != EAGAIN && errno != EINTR) break;
        if (!anvil.running()) {
            throw CliError("anvil exited unexpectedly: " + anvil.log().substr(0, 500));
        }
    }
    if (!opts.json) fmt::print(stderr, "Stopping anvil...\n");
    anvil.stop();
    if (!opts.json) fmt::print(stderr, "Devnet stopped.\n");
}

}  // namespace

void add_devnet_commands(CLI::App& app) {
    static DevnetOptions opts;
    auto* cmd = app.add_subcommand(
        "devnet", "Run a local anvil chain with every Credence contract deployed, until Ctrl-C");
    cmd->add_option("--port", opts.port, "Port on 127.0.0.1 (0: any free port)")
        ->capture_default_str();
    cmd->add_option("--state", opts.state_dir,
                    "Directory where anvil keeps its state across restarts (state.json)");
    cmd->add_option("--chain-id", opts.chain_id, "Chain id")->capture_default_str();
    cmd->add_option("--block-time", opts.block_time,
                    "Seconds between blocks (default: one block per transaction)");
    cmd->add_option("--anvil", opts.anvil,
                    "The anvil binary (default: $CREDENCE_ANVIL, the install's, the checkout's "
                    "node_modules, PATH)");
    cmd->add_option("--revisions", opts.revisions,
                    "ERC-8004 revisions to deploy: current (contracts/script/Deploy.s.sol's set), "
                    "or all (also the score revision's and the first draft's registries)")
        ->check(CLI::IsMember({"current", "all"}))
        ->capture_default_str();
    cmd->add_flag("--json", opts.json, "Print the devnet description as one JSON document");
    cmd->callback([] { run_devnet(opts); });
}

}  // namespace credence::cmd
