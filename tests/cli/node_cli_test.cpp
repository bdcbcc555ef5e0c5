// End-to-end tests of `credence node` (docs/node.md): the real binary on 127.0.0.1 with a free
// port, against the embedded devnet or a test devnet; a bad config is one line naming the key;
// SIGINT stops cleanly (exit 0, nothing partial: a restart continues to the same index a fresh
// `credence index` builds); the trust engine writes scores the API serves; and a real MCP client
// (npm @modelcontextprotocol/sdk, tests/mcp/mcp_client_test.mjs) uses every tool.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/index/database.hpp>

#include "erc8004_cli_helpers.hpp"
#include "support/child_process.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using credence::testing::CommandResult;
using credence::testing::Devnet;
using credence::testing::run_command;
using nlohmann::json;

fs::path fresh_dir(const std::string& name) {
    static int counter = 0;
    const fs::path dir =
        credence::testing::scratch_dir() / (name + "_" + std::to_string(counter++));
    fs::create_directories(dir);
    return dir;
}

// A `credence node` child with its own CREDENCE_HOME; SIGKILLed if the test bails out.
class NodeChild : public credence::testing::ChildProcess {
public:
    NodeChild(const fs::path& home, std::vector<std::string> args)
        : ChildProcess(argv(std::move(args)), home, home / "node.out", home / "node.err") {}

    /// The URL from "credence node: serving <url>", or nullopt after `limit`.
    std::optional<std::string> wait_serving(std::chrono::milliseconds limit) {
        static const std::regex line(R"(credence node: serving (http://127\.0\.0\.1:\d+))");
        const auto until = Clock::now() + limit;
        while (Clock::now() < until) {
            std::smatch m;
            const std::string text = out();
            if (std::regex_search(text, m, line)) return m[1].str();
            if (exited()) return std::nullopt;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        return std::nullopt;
    }

private:
    static std::vector<std::string> argv(std::vector<std::string> args) {
        std::vector<std::string> all{CREDENCE_BIN, "node"};
        all.insert(all.end(), args.begin(), args.end());
        return all;
    }
};

/// GET `path` on the node; the parsed JSON body and status.
std::pair<int, json> get_json(const std::string& url, const std::string& path) {
    httplib::Client client(url);
    client.set_connection_timeout(std::chrono::seconds(2));
    client.set_read_timeout(std::chrono::seconds(3));
    auto res = client.Get(path);
    if (!res) return {0, json()};
    return {res->status, json::parse(res->body, nullptr, false)};
}

/// Polls /api/v1/status until `done(status)` or `limit`.
template <typename Pred>
json wait_status(const std::string& url, std::chrono::milliseconds limit, Pred done) {
    const auto until = Clock::now() + limit;
    json last;
    while (Clock::now() < until) {
        auto [code, body] = get_json(url, "/api/v1/status");
        if (code == 200) {
            last = body;
            if (done(body)) return body;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
}

/// The test devnet's deployment file (the node's own CREDENCE_HOME is a fresh directory).
std::string deployment_of(const Devnet& devnet) {
    return (devnet.home() / "deployments" / (std::to_string(devnet.chain_id()) + ".json")).string();
}

std::vector<std::string> node_args(const fs::path& home, std::vector<std::string> extra) {
    std::vector<std::string> args{"--port",      "0",         "--data-dir", home.string(),
                                  "--no-verify", "--poll-ms", "100"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
}

TEST(node_cli, bad_config_is_one_line_naming_the_key) {
    const fs::path home = fresh_dir("node_badcfg");
    const fs::path config = home / "node.toml";
    std::ofstream(config) << "[http]\nport = 70000\n";
    const auto start = Clock::now();
    const CommandResult r = run_command(CREDENCE_BIN, {"node", "--config", config.string()},
                                        {{"CREDENCE_HOME", home.string()}});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "error: node.toml: http.port: must be an integer in 0..65535\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(5));  // no devnet started first

    std::ofstream(config) << "[trust]\ntrusted = [\"0x12\"]\n";
    const CommandResult bad_address = run_command(
        CREDENCE_BIN, {"node", "--config", config.string()}, {{"CREDENCE_HOME", home.string()}});
    EXPECT_EQ(bad_address.exit_code, 1);
    EXPECT_NE(bad_address.err.find("trust.trusted"), std::string::npos) << bad_address.err;
}

TEST(node_cli, embedded_devnet_serves_and_sigint_exits_zero) {
    const fs::path home = fresh_dir("node_embedded");
    NodeChild node(home, node_args(home, {}));
    const auto url = node.wait_serving(std::chrono::seconds(30));
    ASSERT_TRUE(url) << node.err();
    // The embedded devnet is announced through the same files `credence devnet` writes.
    EXPECT_TRUE(fs::exists(home / "devnet.json"));
    auto [health_code, health] = get_json(*url, "/healthz");
    EXPECT_EQ(health_code, 200) << health.dump();
    const json status = wait_status(*url, std::chrono::seconds(5), [](const json& s) {
        return s.contains("node") && s["node"]["components"]["trust"]["full_passes"] >= 1;
    });
    EXPECT_EQ(status["chain_id"], 31337) << status.dump();
    EXPECT_EQ(status["node"]["embedded_devnet"], true) << status.dump();
    EXPECT_GE(status["node"]["components"]["trust"]["full_passes"].get<int>(), 1) << status.dump();
    EXPECT_EQ(status["node"]["components"]["verifier"]["state"], "disabled");

    const auto before = Clock::now();
    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(15)), 0) << node.err();
    EXPECT_LT(Clock::now() - before, std::chrono::seconds(15));
    EXPECT_FALSE(fs::exists(home / "devnet.json"));  // removed with the devnet
    EXPECT_NE(node.err().find("credence node: stopped"), std::string::npos) << node.err();
}

TEST(node_cli, port_taken_is_one_line) {
    // A plain listening socket (no SO_REUSEPORT), so nobody else can bind the port.
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    ASSERT_EQ(::listen(fd, 4), 0);
    socklen_t len = sizeof addr;
    ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
    const int port = ntohs(addr.sin_port);
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    const fs::path home = fresh_dir("node_port");
    // A child, not run_command: should the bind wrongly succeed, the test still ends.
    NodeChild node(home,
                   {"--rpc", (*dev)->rpc_url(), "--deployment", deployment_of(**dev), "--port",
                    std::to_string(port), "--data-dir", home.string(), "--no-verify"});
    EXPECT_EQ(node.wait_exit(std::chrono::seconds(20)), 1);
    const std::string err = node.err();
    EXPECT_EQ(err.rfind("error: http: cannot serve on 127.0.0.1:" + std::to_string(port), 0), 0u)
        << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    ::close(fd);
}

// Activity for the indexer: agents, feedback and many empty blocks.
std::vector<std::string> make_activity(Devnet& devnet, int agents) {
    std::vector<std::string> ids;
    using namespace credence::testing::erc8004;
    for (int i = 0; i < agents; ++i) {
        const std::string id =
            cast_register(devnet, 0, "https://agent" + std::to_string(i) + ".test/");
        const CommandResult fb =
            run_command(CREDENCE_BIN,
                        {"feedback", "give", id, std::to_string(60 + 10 * i), "--tag1", "starred",
                         "--private-key", devnet.dev_key(1)},
                        devnet.env());
        EXPECT_EQ(fb.exit_code, 0) << fb.err;
        ids.push_back(id);
    }
    return ids;
}

TEST(node_cli, sigint_during_indexing_then_restart_matches_a_fresh_index) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    make_activity(devnet, 2);
    // Empty blocks after the activity, so indexing takes several batches.
    auto rpc = devnet.rpc();
    auto mined = rpc.request("anvil_mine", json::array({"0xbb8"}));  // 3,000 blocks
    ASSERT_TRUE(mined) << "anvil_mine failed";
    const auto head = rpc.block_number();
    ASSERT_TRUE(head);

    const fs::path home = fresh_dir("node_restart");
    const std::string db = (home / "node.sqlite").string();
    const auto args = node_args(
        home, {"--rpc", devnet.rpc_url(), "--deployment", deployment_of(devnet), "--database", db});
    {
        NodeChild node(home, args);
        const auto url = node.wait_serving(std::chrono::seconds(20));
        ASSERT_TRUE(url) << node.err();
        EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
    }
    {
        NodeChild node(home, args);
        const auto url = node.wait_serving(std::chrono::seconds(20));
        ASSERT_TRUE(url) << node.err();
        const json status = wait_status(*url, std::chrono::seconds(30), [&](const json& s) {
            return s["indexed_block_num"].is_number() && s["indexed_block_num"] == *head;
        });
        EXPECT_EQ(status["indexed_block_num"], *head) << status.dump();
        EXPECT_EQ(status["counts"]["agents"], 2) << status.dump();
        EXPECT_EQ(status["counts"]["feedback"], 2) << status.dump();
        EXPECT_EQ(node.stop(SIGTERM, std::chrono::seconds(10)), 0) << node.err();
    }
    // The same data as one uninterrupted `credence index --once` into a fresh file.
    const std::string fresh = (home / "fresh.sqlite").string();
    const CommandResult once = run_command(
        CREDENCE_BIN, {"index", "--rpc", devnet.rpc_url(), "--database", fresh, "--once"},
        devnet.env());
    ASSERT_EQ(once.exit_code, 0) << once.err;
    const std::array<std::string_view, 6> tables{"raw_logs",      "agents", "feedback",
                                                 "agent_history", "tools",  "workflow_runs"};
    auto a = credence::index::open_database(db);
    auto b = credence::index::open_database(fresh);
    ASSERT_TRUE(a && b);
    auto dump_a = credence::index::canonical_dump(**a, tables);
    auto dump_b = credence::index::canonical_dump(**b, tables);
    ASSERT_TRUE(dump_a && dump_b);
    EXPECT_EQ(*dump_a, *dump_b);
    EXPECT_NE(dump_a->find("# feedback"), std::string::npos);
}

TEST(node_cli, scores_are_served_and_a_real_mcp_client_uses_every_tool) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    const auto ids = make_activity(devnet, 2);
    ASSERT_EQ(ids.size(), 2u);
    const fs::path home = fresh_dir("node_mcp");
    NodeChild node(
        home, node_args(home, {"--rpc", devnet.rpc_url(), "--deployment", deployment_of(devnet)}));
    const auto url = node.wait_serving(std::chrono::seconds(20));
    ASSERT_TRUE(url) << node.err();

    // The trust engine's score for agent 1 reaches the REST API (agent_scores).
    json agent;
    const auto until = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < until) {
        auto [code, body] = get_json(*url, "/api/v1/agents/" + ids[0]);
        if (code == 200 && body["score"].is_object()) {
            agent = body;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(agent["score"].is_object()) << agent.dump();
    EXPECT_GT(agent["score"]["score"].get<double>(), 0.5);  // a 60/100 rating from a reviewer
    EXPECT_EQ(agent["score"]["reviews"], 1);

    // Incremental: new feedback moves agent 2's score without waiting for a full pass.
    auto [code2, before] = get_json(*url, "/api/v1/agents/" + ids[1]);
    ASSERT_EQ(code2, 200);
    const CommandResult fb = run_command(
        CREDENCE_BIN,
        {"feedback", "give", ids[1], "5", "--tag1", "starred", "--private-key", devnet.dev_key(2)},
        devnet.env());
    ASSERT_EQ(fb.exit_code, 0) << fb.err;
    json after;
    const auto until2 = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < until2) {
        auto [code, body] = get_json(*url, "/api/v1/agents/" + ids[1]);
        if (code == 200 && body["score"].is_object() && body["score"]["reviews"] == 2) {
            after = body;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(after["score"].is_object()) << after.dump();
    EXPECT_LT(after["score"]["score"].get<double>(), before["score"]["score"].get<double>());

    // The MCP client from npm, run with node.
    const fs::path script =
        credence::testing::erc8004::source_dir() / "tests" / "mcp" / "mcp_client_test.mjs";
    const auto started = Clock::now();
    const CommandResult mcp = run_command("/usr/bin/env", {"node", script.string(), *url, ids[0]});
    EXPECT_EQ(mcp.exit_code, 0) << mcp.out << mcp.err;
    EXPECT_NE(mcp.out.find("ok: 6 tools"), std::string::npos) << mcp.out << mcp.err;
    EXPECT_LT(Clock::now() - started, std::chrono::seconds(20));

    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
}

}  // namespace
