// End-to-end tests of `credence devnet`: run the real binary on a free port, wait for its
// devnet.json, talk to the chain, stop it with SIGINT and check that anvil is gone and
// devnet.json removed; a --state restart reuses the deployed contracts. Also the test harness
// (tests/support/devnet.hpp) that the other CLI tests build on.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/anvil_process.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/rpc_client.hpp>

#include "support/child_process.hpp"
#include "support/devnet.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using credence::testing::read_text;

// pids of running anvil processes whose command line has "--port <port>".
std::vector<pid_t> anvils_on_port(uint16_t port) {
    std::vector<pid_t> out;
    const std::string wanted = std::string("--port") + '\0' + std::to_string(port) + '\0';
    for (const auto& entry : fs::directory_iterator("/proc")) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
        const std::string cmdline = read_text(entry.path() / "cmdline");
        if (cmdline.find("anvil") != std::string::npos &&
            cmdline.find(wanted) != std::string::npos) {
            // A zombie has an empty cmdline, so a match is a live process.
            out.push_back(static_cast<pid_t>(std::stol(name)));
        }
    }
    return out;
}

// A `credence devnet` child process with its own CREDENCE_HOME; killed if the test bails out.
class DevnetChild {
public:
    DevnetChild(const fs::path& home, std::vector<std::string> args)
        : home_(home),
          proc_(argv(std::move(args)), home, home / "stdout.txt", home / "stderr.txt") {}

    // Waits for devnet.json (the devnet is up); false on timeout or early exit.
    bool wait_ready(std::chrono::seconds timeout = std::chrono::seconds(90)) {
        const auto deadline = Clock::now() + timeout;
        while (Clock::now() < deadline) {
            if (fs::exists(home_ / "devnet.json")) return true;
            if (proc_.exited()) return false;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return false;
    }
    // Sends `sig` and waits for the exit; the exit code, or -1.
    int stop(int sig, std::chrono::seconds timeout = std::chrono::seconds(30)) {
        return proc_.stop(sig, timeout);
    }
    [[nodiscard]] std::string out() const { return proc_.out(); }
    [[nodiscard]] std::string err() const { return proc_.err(); }

private:
    static std::vector<std::string> argv(std::vector<std::string> args) {
        std::vector<std::string> all{CREDENCE_BIN, "devnet"};
        all.insert(all.end(), args.begin(), args.end());
        return all;
    }
    fs::path home_;
    credence::testing::ChildProcess proc_;
};

fs::path make_home(const std::string& tag) {
    const fs::path home = fs::temp_directory_path() /
                          ("credence-devnet-cli-" + tag + "-" + std::to_string(::getpid()));
    fs::remove_all(home);
    fs::create_directories(home);
    return home;
}

}  // namespace

TEST(cli_devnet, runs_until_sigint_then_stops_anvil_and_removes_devnet_json) {
    const fs::path home = make_home("sigint");
    const uint16_t port = credence::chain::pick_free_port();
    ASSERT_NE(port, 0);
    DevnetChild child(home, {"--port", std::to_string(port)});
    ASSERT_TRUE(child.wait_ready()) << child.err();

    auto deployment = credence::chain::load_deployment(home / "devnet.json");
    ASSERT_TRUE(deployment) << deployment.error();
    EXPECT_EQ(deployment->rpc_url, "http://127.0.0.1:" + std::to_string(port));
    EXPECT_EQ(deployment->chain_id, 31337U);
    EXPECT_EQ(deployment->contracts.size(), 20U);
    EXPECT_TRUE(fs::exists(home / "deployments" / "31337.json"));

    auto rpc = credence::chain::RpcClient::make_http(*deployment->rpc_url);
    auto code = rpc.get_code(deployment->contracts.at("IdentityRegistry"));
    ASSERT_TRUE(code) << code.error().to_string();
    EXPECT_FALSE(code->empty());

    // The output names the contracts and labels the keys as public.
    const std::string out = child.out();
    EXPECT_NE(out.find(deployment->contracts.at("ToolRegistry").to_checksum_hex()),
              std::string::npos)
        << out;
    EXPECT_NE(out.find("PUBLIC TEST KEYS"), std::string::npos) << out;
    EXPECT_NE(out.find("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"),
              std::string::npos);
    EXPECT_EQ(anvils_on_port(port).size(), 1U);

    EXPECT_EQ(child.stop(SIGINT), 0) << child.err();
    EXPECT_FALSE(fs::exists(home / "devnet.json"));
    EXPECT_TRUE(anvils_on_port(port).empty()) << "anvil still running";
    credence::chain::HttpOptions http;
    http.total_timeout = std::chrono::milliseconds(1'000);
    credence::chain::RetryPolicy once;
    once.max_attempts = 1;
    auto gone = credence::chain::RpcClient::make_http(*deployment->rpc_url, http, once);
    EXPECT_FALSE(gone.chain_id());
    fs::remove_all(home);
}

TEST(cli_devnet, state_dir_restart_reuses_the_contracts) {
    const fs::path home = make_home("state");
    const fs::path state = home / "state";
    nlohmann::json first;
    {
        DevnetChild child(home, {"--port", "0", "--state", state.string(), "--json"});
        ASSERT_TRUE(child.wait_ready()) << child.err();
        // --json prints one document once devnet.json is written.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        first = nlohmann::json::parse(child.out(), nullptr, false);
        ASSERT_TRUE(first.is_object()) << child.out();
        EXPECT_EQ(first["deployedNow"], 20);
        EXPECT_EQ(child.stop(SIGTERM), 0) << child.err();
    }
    EXPECT_TRUE(fs::exists(state / "state.json"));
    EXPECT_FALSE(fs::exists(home / "devnet.json"));
    DevnetChild child(home, {"--port", "0", "--state", state.string(), "--json"});
    ASSERT_TRUE(child.wait_ready()) << child.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto second = nlohmann::json::parse(child.out(), nullptr, false);
    ASSERT_TRUE(second.is_object()) << child.out();
    EXPECT_EQ(second["deployedNow"], 0);
    EXPECT_EQ(second["alreadyDeployed"], 20);
    EXPECT_EQ(second["contracts"], first["contracts"]);
    EXPECT_EQ(child.stop(SIGINT), 0) << child.err();
    fs::remove_all(home);
}

TEST(cli_devnet, a_taken_port_is_one_clear_error) {
    const fs::path home = make_home("taken");
    auto anvil = credence::chain::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    DevnetChild child(home, {"--port", std::to_string((*anvil)->port())});
    EXPECT_FALSE(child.wait_ready(std::chrono::seconds(60)));
    const std::string err = child.err();
    EXPECT_EQ(err.rfind("error: cannot start anvil", 0), 0U) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    fs::remove_all(home);
}

// The harness: a deployed devnet and a CREDENCE_HOME that a spawned process sees.
class cli_devnet_harness : public credence::testing::DevnetFixture {};

TEST_F(cli_devnet_harness, home_holds_the_deployment_and_env_reaches_children) {
    auto& d = devnet();
    EXPECT_EQ(d.chain_id(), 31337U);
    EXPECT_EQ(d.deployment().contracts.size(), 20U);
    auto from_file = credence::chain::load_deployment(d.home() / "devnet.json");
    ASSERT_TRUE(from_file) << from_file.error();
    EXPECT_EQ(from_file->rpc_url, d.rpc_url());
    EXPECT_EQ(from_file->contracts, d.deployment().contracts);
    EXPECT_TRUE(fs::exists(d.home() / "deployments" / "31337.json"));

    auto rpc = d.rpc();
    auto code = rpc.get_code(d.address("ValidationRegistry"));
    ASSERT_TRUE(code);
    EXPECT_FALSE(code->empty());
    EXPECT_EQ(d.dev_key(0), "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    EXPECT_EQ(d.dev_address(1).to_checksum_hex(), "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    EXPECT_EQ(d.deployment().deployer, d.dev_address(0));

    // run_command passes env() and stdin, and captures stdout and stderr apart.
    const auto r = credence::testing::run_command(
        "/bin/sh", {"-c", "printf %s \"$CREDENCE_HOME\"; cat; echo oops >&2; exit 3"}, d.env(),
        "from-stdin");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.out, d.home().string() + "from-stdin");
    EXPECT_EQ(r.err, "oops\n");
}

class cli_devnet_shared : public credence::testing::SharedDevnetFixture {};

TEST_F(cli_devnet_shared, one_devnet_serves_the_suite) {
    auto rpc = devnet().rpc();
    auto code = rpc.get_code(devnet().address("ToolRegistry"));
    ASSERT_TRUE(code);
    EXPECT_FALSE(code->empty());
}

TEST_F(cli_devnet_shared, unknown_contract_names_fail_the_test) {
    EXPECT_NONFATAL_FAILURE((void)devnet().address("NoSuchContract"), "NoSuchContract");
}
