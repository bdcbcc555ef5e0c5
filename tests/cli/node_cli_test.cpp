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
#include <tuple>
#include <utility>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/chain/anvil_process.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/devnet_deploy.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/index/database.hpp>

#include "erc8004_cli_helpers.hpp"
#include "node_child.hpp"
#include "support/child_process.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using credence::testing::CommandResult;
using credence::testing::Devnet;
using credence::testing::run_command;
using credence::testing::node_cli::deployment_of;
using credence::testing::node_cli::get_json;
using credence::testing::node_cli::NodeChild;
using credence::testing::node_cli::wait_status;
using nlohmann::json;

fs::path fresh_dir(const std::string& name) {
    static int counter = 0;
    const fs::path dir =
        credence::testing::scratch_dir() / (name + "_" + std::to_string(counter++));
    fs::create_directories(dir);
    return dir;
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

TEST(node_cli, without_rpc_it_follows_the_running_devnet_and_leaves_its_file) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    const fs::path data = fresh_dir("node_running_devnet");
    // The devnet's home is the node's CREDENCE_HOME: its devnet.json names the running chain.
    NodeChild node(devnet.home(), node_args(data, {}));
    const auto url = node.wait_serving(std::chrono::seconds(30));
    ASSERT_TRUE(url) << node.err();
    const json status = wait_status(*url, std::chrono::seconds(5),
                                    [](const json& s) { return s.contains("node"); });
    EXPECT_EQ(status["node"]["embedded_devnet"], false) << status.dump();
    EXPECT_NE(node.err().find("following the running devnet at " + devnet.rpc_url()),
              std::string::npos)
        << node.err();
    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(15)), 0) << node.err();
    EXPECT_TRUE(fs::exists(devnet.home() / "devnet.json"));  // still the running devnet's
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

// docs/node.md §One index, one writer: a second node on the first one's port or index file is
// refused in one line and the first one keeps serving; `credence index` on that file likewise.
TEST(node_cli, a_second_node_on_the_same_port_or_index_is_refused_in_one_line) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    const fs::path home = fresh_dir("node_first");
    const std::vector<std::string> chain{"--rpc", (*dev)->rpc_url(), "--deployment",
                                         deployment_of(**dev)};
    auto with_chain = [&chain](std::vector<std::string> args) {
        args.insert(args.begin(), chain.begin(), chain.end());
        return args;
    };
    NodeChild first(home, with_chain(node_args(home, {})));
    const auto url = first.wait_serving(std::chrono::seconds(30));
    ASSERT_TRUE(url) << first.err();
    const std::string port = url->substr(url->rfind(':') + 1);

    const fs::path other = fresh_dir("node_second");
    NodeChild same_port(other,
                        with_chain({"--port", port, "--data-dir", other.string(), "--no-verify"}));
    EXPECT_EQ(same_port.wait_exit(std::chrono::seconds(20)), 1);
    const std::string port_error = same_port.err();
    EXPECT_EQ(port_error.rfind("error: http: cannot serve on 127.0.0.1:" + port, 0), 0u)
        << port_error;
    EXPECT_EQ(std::count(port_error.begin(), port_error.end(), '\n'), 1) << port_error;

    const std::string index_file = (home / "index.sqlite").string();
    const std::string busy = "another credence process (pid " + std::to_string(first.pid()) +
                             ") is indexing chain 31337 into " + index_file +
                             ": stop it, or give this one its own --database\n";
    NodeChild same_index(other, with_chain(node_args(home, {})));
    EXPECT_EQ(same_index.wait_exit(std::chrono::seconds(20)), 1);
    EXPECT_EQ(same_index.err(), "error: indexer: " + busy);

    const CommandResult index =
        run_command(CREDENCE_BIN,
                    {"index", "--once", "--database", index_file, "--rpc", (*dev)->rpc_url(),
                     "--deployment", deployment_of(**dev)},
                    (*dev)->env());
    EXPECT_EQ(index.exit_code, 1);
    EXPECT_EQ(index.err, "error: " + busy);

    EXPECT_EQ(get_json(*url, "/api/v1/status").first, 200);
    EXPECT_EQ(first.stop(SIGINT, std::chrono::seconds(15)), 0) << first.err();
    // The lock dies with its holder: the file is free again.
    NodeChild again(home, with_chain(node_args(home, {})));
    EXPECT_TRUE(again.wait_serving(std::chrono::seconds(30))) << again.err();
    EXPECT_EQ(again.stop(SIGINT, std::chrono::seconds(15)), 0) << again.err();
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
        credence::testing::source_dir() / "tests" / "mcp" / "mcp_client_test.mjs";
    const auto started = Clock::now();
    const CommandResult mcp = run_command("/usr/bin/env", {"node", script.string(), *url, ids[0]});
    EXPECT_EQ(mcp.exit_code, 0) << mcp.out << mcp.err;
    EXPECT_NE(mcp.out.find("ok: 6 tools"), std::string::npos) << mcp.out << mcp.err;
    EXPECT_LT(Clock::now() - started, std::chrono::seconds(20));

    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
}

/// GET `path` until `done(status, body)` or `limit`; the last answer.
template <typename Pred>
std::pair<int, json> wait_get(const std::string& url, const std::string& path,
                              std::chrono::milliseconds limit, Pred done) {
    const auto until = Clock::now() + limit;
    std::pair<int, json> last;
    while (Clock::now() < until) {
        last = get_json(url, path);
        if (done(last.first, last.second)) return last;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return last;
}

// docs/node.md §Health: /healthz is 200 while the node follows the chain, 503 "degraded" while
// its JSON-RPC node is down (here a real anvil, stopped), and 200 again once it is back, with
// the indexer's last error cleared.
TEST(node_cli, healthz_is_degraded_while_the_chain_rpc_is_down_then_recovers) {
    const fs::path home = fresh_dir("node_health");
    credence::chain::AnvilOptions options;
    options.state_file = home / "anvil-state.json";  // kept across the restart: same blocks
    auto anvil = credence::chain::AnvilProcess::start(options);
    ASSERT_TRUE(anvil) << anvil.error();
    options.port = (*anvil)->port();
    auto rpc = credence::chain::RpcClient::make_http((*anvil)->url());
    auto key =
        credence::core::SecretKey::from_hex((*anvil)->dev_accounts().front().private_key_hex);
    ASSERT_TRUE(key);
    credence::chain::DeployOptions deploy;
    deploy.sender.chain_id = (*anvil)->chain_id();
    deploy.sender.poll_interval = std::chrono::milliseconds(10);
    auto deployed = credence::chain::deploy_all(rpc, *key, deploy);
    ASSERT_TRUE(deployed) << deployed.error();
    const fs::path deployment = home / "deployment.json";
    ASSERT_TRUE(credence::chain::save_deployment(deployment, deployed->deployment));

    NodeChild node(
        home, node_args(home, {"--rpc", (*anvil)->url(), "--deployment", deployment.string()}));
    const auto url = node.wait_serving(std::chrono::seconds(20));
    ASSERT_TRUE(url) << node.err();
    const auto healthy = [](int code, const json& body) {
        return code == 200 && body["status"] == "ok";
    };
    auto [code, body] = wait_get(*url, "/healthz", std::chrono::seconds(10), healthy);
    ASSERT_EQ(code, 200) << body.dump();

    (*anvil)->stop();
    std::tie(code, body) =
        wait_get(*url, "/healthz", std::chrono::seconds(30),
                 [](int c, const json& b) { return c == 503 && b["status"] == "degraded"; });
    ASSERT_EQ(code, 503) << body.dump();
    EXPECT_EQ(body["status"], "degraded");
    ASSERT_TRUE(body["reasons"].is_array()) << body.dump();
    EXPECT_NE(body["reasons"][0].get<std::string>().find("chain RPC unreachable"),
              std::string::npos)
        << body.dump();
    auto [status_code, status] = get_json(*url, "/api/v1/status");
    ASSERT_EQ(status_code, 200);
    EXPECT_TRUE(status["node"]["components"]["indexer"]["last_error"].is_string()) << status.dump();

    anvil = credence::chain::AnvilProcess::start(options);
    ASSERT_TRUE(anvil) << anvil.error();
    std::tie(code, body) = wait_get(*url, "/healthz", std::chrono::seconds(60), healthy);
    EXPECT_EQ(code, 200) << body.dump();
    const json recovered = wait_status(*url, std::chrono::seconds(10), [](const json& s) {
        return s["node"]["components"]["indexer"]["last_error"].is_null();
    });
    EXPECT_TRUE(recovered["node"]["components"]["indexer"]["last_error"].is_null())
        << recovered.dump();
    EXPECT_EQ(recovered["node"]["components"]["indexer"]["state"], "running");
    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(15)), 0) << node.err();
}

/// Flips bytes of every page but the first (the file header) of a SQLite file: 16 bytes of each
/// page's B-tree header and 64 in its middle, as a disk that lost sectors would.
void damage_pages(const fs::path& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f);
    std::array<unsigned char, 2> raw{};
    f.seekg(16);  // the page size, big-endian (1 means 65536)
    f.read(reinterpret_cast<char*>(raw.data()), 2);
    const unsigned stored = (unsigned{raw[0]} << 8) | raw[1];
    const std::streamoff page = stored == 1 ? 65536 : stored;
    ASSERT_GE(page, 512);
    const auto size = static_cast<std::streamoff>(fs::file_size(path));
    for (std::streamoff at = page; at < size; at += page) {
        for (const auto& [offset, count] :
             {std::pair<std::streamoff, int>{0, 16}, {page / 2, 64}}) {
            std::string bytes(static_cast<size_t>(count), '\0');
            f.seekg(at + offset);
            f.read(bytes.data(), count);
            for (char& c : bytes) c = static_cast<char>(~static_cast<unsigned char>(c));
            f.seekp(at + offset);
            f.write(bytes.data(), count);
        }
    }
    ASSERT_TRUE(f);
}

// docs/node.md §Integrity: a node started on a damaged index refuses in one line naming the file
// and what to do (PRAGMA quick_check at start; integrity_check with --check-index full).
TEST(node_cli, a_damaged_index_is_refused_at_start_in_one_line) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    make_activity(devnet, 2);
    const fs::path home = fresh_dir("node_damaged");
    const fs::path db = home / "node.sqlite";
    const auto args = [&](const fs::path& file, std::vector<std::string> extra) {
        std::vector<std::string> all{"--rpc",        devnet.rpc_url(),
                                     "--deployment", deployment_of(devnet),
                                     "--database",   file.string()};
        all.insert(all.end(), extra.begin(), extra.end());
        return node_args(home, all);
    };
    {
        NodeChild node(home, args(db, {}));
        const auto url = node.wait_serving(std::chrono::seconds(20));
        ASSERT_TRUE(url) << node.err();
        const json status = wait_status(*url, std::chrono::seconds(20),
                                        [](const json& s) { return s["counts"]["feedback"] == 2; });
        ASSERT_EQ(status["counts"]["feedback"], 2) << status.dump();
        EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
    }
    const fs::path damaged = home / "damaged.sqlite";
    fs::copy_file(db, damaged);
    damage_pages(damaged);
    for (const std::string check : {"quick", "full"}) {
        NodeChild node(home, args(damaged, {"--check-index", check}));
        EXPECT_EQ(node.wait_exit(std::chrono::seconds(20)), 1) << node.out();
        const std::string err = node.err();
        const std::string pragma = check == "full" ? "integrity_check" : "quick_check";
        EXPECT_EQ(err.rfind("error: database: " + damaged.string() + " is damaged (" + pragma, 0),
                  0U)
            << err;
        EXPECT_NE(err.find("re-index"), std::string::npos) << err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    }
    // The undamaged original still starts.
    NodeChild node(home, args(db, {"--check-index", "full"}));
    EXPECT_TRUE(node.wait_serving(std::chrono::seconds(20))) << node.err();
    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
}

// docs/node.md §Integrity: a damaged byte in an index key is no error to SQLite: a lookup through
// it finds nothing, so the feedback of an agent answered an empty list. quick_check cannot see it
// (the pages are well formed); the background integrity_check matches every index against its
// table, and from then on the API answers 503 index_corrupt instead.
TEST(node_cli, a_damaged_index_key_is_503_index_corrupt_never_an_empty_list) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    const auto ids = make_activity(devnet, 2);
    ASSERT_EQ(ids.size(), 2U);
    const fs::path home = fresh_dir("node_key_damage");
    const fs::path db = home / "node.sqlite";
    const auto args = [&](const fs::path& file) {
        return node_args(home, {"--rpc", devnet.rpc_url(), "--deployment", deployment_of(devnet),
                                "--database", file.string()});
    };
    const std::string feedback = "/api/v1/agents/" + ids[0] + "/feedback";
    {
        NodeChild node(home, args(db));
        const auto url = node.wait_serving(std::chrono::seconds(20));
        ASSERT_TRUE(url) << node.err();
        auto [code, page] =
            wait_get(*url, feedback, std::chrono::seconds(20),
                     [](int c, const json& b) { return c == 200 && b["items"].size() == 1; });
        ASSERT_EQ(page["items"].size(), 1U) << page.dump();
        EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
    }
    const fs::path damaged = home / "key-damaged.sqlite";
    fs::copy_file(db, damaged);
    // The pages of the feedback table's indexes (not the table's own), from SQLite's dbstat.
    std::vector<int64_t> pages;
    int64_t page_size = 0;
    {
        auto opened = credence::index::open_database(damaged.string());
        ASSERT_TRUE(opened) << opened.error().to_string();
        auto rows = (*opened)->query(
            "SELECT pageno FROM dbstat WHERE name IN (SELECT name FROM sqlite_master WHERE "
            "type = 'index' AND tbl_name = 'feedback')");
        ASSERT_TRUE(rows) << rows.error().to_string();
        for (const auto& r : *rows) pages.push_back(std::get<int64_t>(r[0]));
        auto size = (*opened)->query("PRAGMA page_size");
        ASSERT_TRUE(size);
        page_size = std::get<int64_t>(size->front()[0]);
    }
    ASSERT_FALSE(pages.empty());
    // Each index entry of agent ids[0] holds registry (20 bytes) then agent_id (32 bytes,
    // big-endian): flip the agent id's last bit in every one.
    std::string key;
    for (const uint8_t b : devnet.address("ReputationRegistry").bytes) key += static_cast<char>(b);
    std::string id(32, '\0');
    uint64_t n = std::stoull(ids[0]);
    for (size_t i = 0; i < 8; ++i) id[31 - i] = static_cast<char>((n >> (8 * i)) & 0xff);
    key += id;
    size_t flipped = 0;
    {
        std::fstream f(damaged, std::ios::in | std::ios::out | std::ios::binary);
        ASSERT_TRUE(f);
        for (const int64_t page : pages) {
            std::string bytes(static_cast<size_t>(page_size), '\0');
            f.seekg((page - 1) * page_size);
            f.read(bytes.data(), page_size);
            for (size_t at = bytes.find(key); at != std::string::npos;
                 at = bytes.find(key, at + 1)) {
                bytes[at + key.size() - 1] ^= 1;
                ++flipped;
            }
            f.seekp((page - 1) * page_size);
            f.write(bytes.data(), page_size);
        }
        ASSERT_TRUE(f);
    }
    ASSERT_GE(flipped, 1U);

    NodeChild node(home, args(damaged));  // quick_check passes: the pages are well formed
    const auto url = node.wait_serving(std::chrono::seconds(20));
    ASSERT_TRUE(url) << node.err();
    auto [code, body] = wait_get(*url, feedback, std::chrono::seconds(20),
                                 [](int c, const json&) { return c == 503; });
    EXPECT_EQ(code, 503) << body.dump();
    EXPECT_EQ(body["code"], "index_corrupt") << body.dump();
    auto [health_code, health] = get_json(*url, "/healthz");
    EXPECT_EQ(health_code, 503);
    EXPECT_EQ(health["status"], "corrupt") << health.dump();
    // Every data route, not just the damaged one.
    EXPECT_EQ(get_json(*url, "/api/v1/agents").first, 503);
    EXPECT_EQ(node.stop(SIGINT, std::chrono::seconds(10)), 0) << node.err();
    EXPECT_NE(node.err().find("the index is damaged"), std::string::npos) << node.err();
}

}  // namespace
