// `credence node` following several chains ([[chains]], docs/node.md §Many chains), end to end:
// the real binary, real anvil devnets with different chain ids, one SQLite index. Each chain's
// rows equal what `credence index` writes for that chain alone; a chain whose RPC names another
// chain id, or switches to one while followed, is refused alone; an unreachable RPC is retried
// without holding up the others; status, /healthz and /metrics name each chain.
#include <gtest/gtest.h>

#include <signal.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/index/database.hpp>

#include "erc8004_cli_helpers.hpp"
#include "node_child.hpp"
#include "support/devnet.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using credence::testing::CommandResult;
using credence::testing::Devnet;
using credence::testing::DevnetOptions;
using credence::testing::run_command;
using credence::testing::node_cli::deployment_of;
using credence::testing::node_cli::head_of;
using credence::testing::node_cli::NodeChild;
using credence::testing::node_cli::wait_status;
using nlohmann::json;

fs::path chains_dir(const std::string& name) {
    static int counter = 0;
    const fs::path dir =
        credence::testing::scratch_dir() / (name + "_" + std::to_string(counter++));
    fs::create_directories(dir);
    return dir;
}

std::pair<int, std::string> get_text(const std::string& url, const std::string& path) {
    httplib::Client client(url);
    client.set_connection_timeout(std::chrono::seconds(2));
    client.set_read_timeout(std::chrono::seconds(3));
    auto res = client.Get(path);
    if (!res) return {0, ""};
    return {res->status, res->body};
}

/// The status entry of chain `id`, or null.
json chain_entry(const json& status, uint64_t id) {
    if (!status.contains("node") || !status["node"].contains("chains")) return nullptr;
    for (const auto& c : status["node"]["chains"]) {
        if (c["chain_id"] == id) return c;
    }
    return nullptr;
}

std::string chain_entry_toml(const Devnet& devnet) {
    return fmt::format(
        "[[chains]]\nrpc = \"{}\"\nchain_id = {}\ndeployment = \"{}\"\npoll_ms = 100\n",
        devnet.rpc_url(), devnet.chain_id(), deployment_of(devnet));
}

/// Registers `agents` agents with one feedback each (cast and the CLI, not the node).
void register_with_feedback(Devnet& devnet, int agents) {
    using namespace credence::testing::erc8004;
    for (int i = 0; i < agents; ++i) {
        const std::string id = cast_register(devnet, 0, fmt::format("https://a{}.test/", i));
        const CommandResult fb = run_command(
            CREDENCE_BIN, {"feedback", "give", id, "80", "--private-key", devnet.dev_key(1)},
            devnet.env());
        EXPECT_EQ(fb.exit_code, 0) << fb.err;
    }
}

bool indexed_to(const json& status, uint64_t id, uint64_t block) {
    const json c = chain_entry(status, id);
    return c.is_object() && c["indexed_block_num"].is_number() && c["indexed_block_num"] == block;
}

TEST(node_chains_cli, two_chains_into_one_index_and_a_lying_and_a_dead_rpc_refused_alone) {
    DevnetOptions a_options, b_options;
    a_options.chain_id = 31337;
    b_options.chain_id = 84532;  // Base Sepolia's id, so default registries differ by class
    auto a = Devnet::start(a_options);
    ASSERT_TRUE(a) << a.error();
    auto b = Devnet::start(b_options);
    ASSERT_TRUE(b) << b.error();
    register_with_feedback(**a, 2);
    register_with_feedback(**b, 3);
    const uint64_t head_a = head_of(**a), head_b = head_of(**b);

    const fs::path home = chains_dir("node_chains");
    const std::string db = (home / "index.sqlite").string();
    // Chain 77's RPC is chain 31337's node: it lies about its id. Chain 78's RPC answers nothing.
    std::ofstream(home / "node.toml")
        << chain_entry_toml(**a) << chain_entry_toml(**b)
        << fmt::format(
               "[[chains]]\nrpc = \"{}\"\nchain_id = 77\n[[chains.registries]]\nkind = "
               "\"identity\"\naddress = \"{}\"\n",
               (*a)->rpc_url(), (*a)->address("IdentityRegistry").to_checksum_hex())
        << "[[chains]]\nrpc = \"http://127.0.0.1:9\"\nchain_id = 78\n[[chains.registries]]\n"
           "kind = \"identity\"\naddress = \"0x8004A169FB4a3325136EB29fA0ceB6D2e539a432\"\n";
    NodeChild node(home, {"--config", (home / "node.toml").string(), "--port", "0", "--database",
                          db, "--no-verify"});
    const auto url = node.wait_serving(std::chrono::seconds(30));
    ASSERT_TRUE(url) << node.err();

    const json status = wait_status(*url, std::chrono::seconds(60), [&](const json& s) {
        return indexed_to(s, 31337, head_a) && indexed_to(s, 84532, head_b) &&
               chain_entry(s, 77)["state"] == "refused" &&
               chain_entry(s, 78)["last_error"].is_string();
    });
    ASSERT_TRUE(indexed_to(status, 31337, head_a)) << status.dump();
    ASSERT_TRUE(indexed_to(status, 84532, head_b)) << status.dump();
    EXPECT_EQ(status["node"]["chain_id"], 31337) << "the first chain is the default";
    const json lying = chain_entry(status, 77);
    EXPECT_EQ(lying["state"], "refused") << status.dump();
    EXPECT_EQ(lying["last_error"], "chain.chain_id: 77 but the RPC is chain 31337") << lying.dump();
    const json dead = chain_entry(status, 78);
    EXPECT_EQ(dead["state"], "starting") << status.dump();
    EXPECT_EQ(dead["last_error"], "chain.rpc: the RPC does not answer eth_chainId") << dead.dump();
    // The log names the URL; the public status does not.
    EXPECT_NE(node.err().find("chain 78: chain.rpc: http://127.0.0.1:9 does not answer"),
              std::string::npos)
        << node.err();
    EXPECT_EQ(chain_entry(status, 84532)["state"], "following");
    EXPECT_EQ(chain_entry(status, 84532)["components"]["indexer"]["state"], "running");

    // /healthz names each sick chain; /metrics has one sample per chain under one HELP line.
    const auto [health_code, health_body] = get_text(*url, "/healthz");
    EXPECT_EQ(health_code, 503);
    const json health = json::parse(health_body, nullptr, false);
    ASSERT_TRUE(health.is_object()) << health_body;
    EXPECT_EQ(
        health["reasons"],
        json::array({"chain 77: refused: the index is not following the chain",
                     "chain 78: chain RPC unreachable: the index is not following the chain"}))
        << health_body;
    const auto [metrics_code, metrics] = get_text(*url, "/metrics");
    EXPECT_EQ(metrics_code, 200);
    EXPECT_NE(
        metrics.find(fmt::format("credence_index_cursor_block{{chain_id=\"31337\"}} {}\n", head_a)),
        std::string::npos)
        << metrics;
    EXPECT_NE(
        metrics.find(fmt::format("credence_index_cursor_block{{chain_id=\"84532\"}} {}\n", head_b)),
        std::string::npos);
    EXPECT_EQ(metrics.find("# HELP credence_index_cursor_block"),
              metrics.rfind("# HELP credence_index_cursor_block"));
    EXPECT_NE(metrics.find("credence_trust_full_passes_total{chain_id=\"84532\"}"),
              std::string::npos);
    // The API spans the chains it follows (docs/api.md §Chains).
    const auto [all_code, all_body] = get_text(*url, "/api/v1/agents?limit=100");
    ASSERT_EQ(all_code, 200) << all_body;
    const json all = json::parse(all_body);
    ASSERT_EQ(all["items"].size(), 5u) << all_body;
    const auto [base_code, base_body] = get_text(*url, "/api/v1/agents?chain=84532");
    ASSERT_EQ(base_code, 200) << base_body;
    EXPECT_EQ(json::parse(base_body)["items"].size(), 3u) << base_body;
    const auto [one_code, one_body] = get_text(*url, "/api/v1/chains/84532/agents/2");
    ASSERT_EQ(one_code, 200) << one_body;
    EXPECT_EQ(json::parse(one_body)["agent_registry"],
              "eip155:84532:" + (*b)->address("IdentityRegistry").to_checksum_hex());
    EXPECT_EQ(get_text(*url, "/api/v1/chains/31337/agents/2").first, 404);
    // A chain listed but refused is followed by nobody: its agents are simply absent.
    EXPECT_EQ(get_text(*url, "/api/v1/agents?chain=5").first, 404);
    // Each chain's status and home (docs/api.md §Chains); the unprefixed ones are the default's.
    const auto home_of = [&](const std::string& path) {
        const auto [code, body] = get_text(*url, path);
        EXPECT_EQ(code, 200) << path << ": " << body;
        return json::parse(body, nullptr, false);
    };
    const json home_b = home_of("/api/v1/chains/84532/home");
    EXPECT_EQ(home_b["status"]["chain_id"], 84532) << home_b.dump();
    EXPECT_EQ(home_b["status"]["counts"]["agents"], 3) << home_b.dump();
    EXPECT_EQ(home_b["status"]["counts"]["feedback"], 3) << home_b.dump();
    EXPECT_EQ(home_b["status"]["indexed_block_num"], head_b);
    ASSERT_FALSE(home_b["recent"].empty());
    EXPECT_EQ(home_b["recent"][0]["block_num"], head_b) << home_b.dump();
    EXPECT_EQ(home_of("/api/v1/home")["status"]["counts"]["agents"], 2);
    EXPECT_EQ(home_of("/api/v1/chains/31337/home")["status"]["counts"]["agents"], 2);
    EXPECT_EQ(home_of("/api/v1/chains/84532/status")["registries"]["identity"],
              (*b)->address("IdentityRegistry").to_checksum_hex());
    EXPECT_EQ(get_text(*url, "/api/v1/chains/5/home").first, 404);
    EXPECT_EQ(get_text(*url, "/api/v1/chains/x/status").first, 400);
    // One agent0 subgraph per chain (docs/graphql.md §Chains): the default chain's at the
    // subgraph path, each chain's under its id.
    const auto graph_ids = [&](const std::string& path) {
        httplib::Client client(*url);
        client.set_read_timeout(std::chrono::seconds(10));
        auto res = client.Post(path, R"({"query":"{ agents(first: 10) { id chainId } }"})",
                               "application/json");
        std::vector<std::string> ids;
        if (!res || res->status != 200) return ids;
        const json doc = json::parse(res->body, nullptr, false);
        if (!doc.is_object() || !doc.contains("data")) return ids;
        for (const auto& agent : doc["data"]["agents"]) {
            ids.push_back(agent["id"].get<std::string>() + "@" +
                          agent["chainId"].get<std::string>());
        }
        return ids;
    };
    EXPECT_EQ(graph_ids("/subgraphs/agent0"),
              (std::vector<std::string>{"31337:0@31337", "31337:1@31337"}));
    EXPECT_EQ(graph_ids("/subgraphs/agent0/31337"), graph_ids("/subgraphs/agent0"));
    EXPECT_EQ(graph_ids("/subgraphs/agent0/84532"),
              (std::vector<std::string>{"84532:0@84532", "84532:1@84532", "84532:2@84532"}));
    {
        httplib::Client client(*url);
        auto res = client.Post("/subgraphs/agent0/5", R"({"query":"{ agents { id } }"})",
                               "application/json");
        ASSERT_TRUE(res);
        EXPECT_EQ(res->status, 404) << res->body;
        EXPECT_NE(res->body.find("does not follow that chain"), std::string::npos) << res->body;
    }
    EXPECT_EQ(node.stop(SIGTERM, std::chrono::seconds(15)), 0) << node.err();

    // Each chain's rows are what `credence index` writes for it alone.
    const std::string alone = (home / "alone.sqlite").string();
    for (Devnet* d : {a->get(), b->get()}) {
        const CommandResult once =
            run_command(CREDENCE_BIN,
                        {"index", "--rpc", d->rpc_url(), "--database", alone, "--once"}, d->env());
        ASSERT_EQ(once.exit_code, 0) << once.err;
    }
    const std::array<std::string_view, 5> tables{"raw_logs", "agents", "feedback", "agent_history",
                                                 "cursors"};
    auto multi = credence::index::open_database(db);
    auto single = credence::index::open_database(alone);
    ASSERT_TRUE(multi && single);
    auto dump_multi = credence::index::canonical_dump(**multi, tables);
    auto dump_single = credence::index::canonical_dump(**single, tables);
    ASSERT_TRUE(dump_multi && dump_single);
    EXPECT_EQ(*dump_multi, *dump_single);
    auto agents = (*multi)->query(
        "SELECT chain_id, COUNT(*) FROM agents GROUP BY chain_id "
        "ORDER BY chain_id",
        {});
    ASSERT_TRUE(agents);
    ASSERT_EQ(agents->size(), 2u);
    EXPECT_EQ(std::get<int64_t>((*agents)[0][1]), 2);
    EXPECT_EQ(std::get<int64_t>((*agents)[1][1]), 3);
}

TEST(node_chains_cli, a_chain_whose_rpc_switches_chains_is_refused_and_the_other_goes_on) {
    DevnetOptions a_options, b_options;
    a_options.chain_id = 31337;
    b_options.chain_id = 84532;
    auto a = Devnet::start(a_options);
    ASSERT_TRUE(a) << a.error();
    auto b = Devnet::start(b_options);
    ASSERT_TRUE(b) << b.error();
    const fs::path home = chains_dir("node_switch");
    std::ofstream(home / "node.toml") << chain_entry_toml(**a) << chain_entry_toml(**b);
    NodeChild node(home, {"--config", (home / "node.toml").string(), "--port", "0", "--data-dir",
                          home.string(), "--no-verify"});
    const auto url = node.wait_serving(std::chrono::seconds(30));
    ASSERT_TRUE(url) << node.err();
    json status = wait_status(*url, std::chrono::seconds(30), [&](const json& s) {
        return indexed_to(s, 31337, head_of(**a)) && indexed_to(s, 84532, head_of(**b));
    });
    ASSERT_TRUE(indexed_to(status, 84532, head_of(**b))) << status.dump();

    auto rpc = (*a)->rpc();
    ASSERT_TRUE(rpc.request("anvil_setChainId", json::array({5})));
    // The indexer checks eth_chainId every 10 s while following (index/indexer.hpp).
    status = wait_status(*url, std::chrono::seconds(30),
                         [&](const json& s) { return chain_entry(s, 31337)["state"] == "failed"; });
    const json switched = chain_entry(status, 31337);
    ASSERT_EQ(switched["state"], "failed") << status.dump();
    EXPECT_NE(switched["last_error"].get<std::string>().find("now serves chain 5"),
              std::string::npos)
        << switched.dump();

    // The other chain goes on: new activity there is indexed.
    register_with_feedback(**b, 1);
    const uint64_t head_b = head_of(**b);
    status = wait_status(*url, std::chrono::seconds(30),
                         [&](const json& s) { return indexed_to(s, 84532, head_b); });
    EXPECT_TRUE(indexed_to(status, 84532, head_b)) << status.dump();
    EXPECT_NE(node.err().find("chain 31337: indexer:"), std::string::npos) << node.err();
    EXPECT_EQ(node.stop(SIGTERM, std::chrono::seconds(15)), 0) << node.err();
}

TEST(node_chains_cli, new_heads_over_ws_wake_the_indexer_before_its_poll) {
    auto a = Devnet::start();
    ASSERT_TRUE(a) << a.error();
    const fs::path home = chains_dir("node_ws");
    // A 60 s poll: only the newHeads subscription can bring a new block in within the wait below.
    std::string ws = (*a)->rpc_url();
    ws.replace(0, 4, "ws");
    std::ofstream(home / "node.toml") << fmt::format(
        "[[chains]]\nrpc = \"{}\"\nws = \"{}\"\nchain_id = {}\ndeployment = \"{}\"\n"
        "poll_ms = 60000\n",
        (*a)->rpc_url(), ws, (*a)->chain_id(), deployment_of(**a));
    NodeChild node(home, {"--config", (home / "node.toml").string(), "--port", "0", "--data-dir",
                          home.string(), "--no-verify"});
    const auto url = node.wait_serving(std::chrono::seconds(30));
    ASSERT_TRUE(url) << node.err();
    json status = wait_status(*url, std::chrono::seconds(20), [&](const json& s) {
        return indexed_to(s, (*a)->chain_id(), head_of(**a));
    });
    ASSERT_TRUE(indexed_to(status, (*a)->chain_id(), head_of(**a))) << status.dump();
    // Let the indexer settle into its 60 s wait, then make a block.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    register_with_feedback(**a, 1);
    const uint64_t head = head_of(**a);
    const auto sent = Clock::now();
    status = wait_status(*url, std::chrono::seconds(15),
                         [&](const json& s) { return indexed_to(s, (*a)->chain_id(), head); });
    EXPECT_TRUE(indexed_to(status, (*a)->chain_id(), head)) << status.dump() << node.err();
    EXPECT_LT(Clock::now() - sent, std::chrono::seconds(15));
    EXPECT_EQ(node.stop(SIGTERM, std::chrono::seconds(15)), 0) << node.err();
}

}  // namespace
