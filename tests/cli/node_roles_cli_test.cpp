// Scale-out on PostgreSQL (docs/scale.md), end to end with the real binary, a real anvil devnet
// and the real PostgreSQL server `make test` starts (and a streaming-replication standby of it):
// two writer-capable nodes of one chain elect exactly one writer; SIGKILL of the writer mid-sync
// hands the chain to the standby within 10 s, and the final index equals an uninterrupted one; an
// API node on the standby answers the primary's documents and reports its replication lag.
#include <gtest/gtest.h>

#include <signal.h>

#include <array>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/index/database.hpp>

#include "erc8004_cli_helpers.hpp"
#include "node_child.hpp"
#include "support/devnet.hpp"
#include "support/postgres.hpp"
#include "support/postgres_standby.hpp"
#include "support/scratch.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using credence::testing::CommandResult;
using credence::testing::Devnet;
using credence::testing::run_command;
using credence::testing::node_cli::deployment_of;
using credence::testing::node_cli::get_json;
using credence::testing::node_cli::head_of;
using credence::testing::node_cli::NodeChild;
using credence::testing::node_cli::wait_status;
using nlohmann::json;

fs::path roles_dir(const std::string& name) {
    static int counter = 0;
    const fs::path dir =
        credence::testing::scratch_dir() / (name + "_" + std::to_string(counter++));
    fs::create_directories(dir);
    return dir;
}

/// The node's only chain's status entry (null until the node answers).
json only_chain(const json& status) {
    if (!status.contains("node") || !status["node"].contains("chains")) return nullptr;
    return status["node"]["chains"][0];
}

/// Starts a writer-capable node; its URL once serving.
std::optional<std::string> start(NodeChild& node) {
    return node.wait_serving(std::chrono::seconds(30));
}

/// Registers agents and feedback, then mines empty blocks so a sync takes many batches.
void make_history(Devnet& devnet, int agents, int empty_blocks) {
    using namespace credence::testing::erc8004;
    for (int i = 0; i < agents; ++i) {
        const std::string id = cast_register(devnet, 0, fmt::format("https://r{}.test/", i));
        const CommandResult fb = run_command(
            CREDENCE_BIN, {"feedback", "give", id, "70", "--private-key", devnet.dev_key(1)},
            devnet.env());
        EXPECT_EQ(fb.exit_code, 0) << fb.err;
        auto rpc = devnet.rpc();
        EXPECT_TRUE(rpc.request("anvil_mine", json::array({fmt::format("0x{:x}", empty_blocks)})));
    }
}

/// The canonical dump of the index tables of `location` (docs/architecture.md §index/).
std::string dump_of(const std::string& location) {
    static constexpr std::array<std::string_view, 6> kTables{
        "raw_logs", "agents", "feedback", "agent_history", "agent_transfers", "cursors"};
    auto db = credence::index::open_database(location);
    EXPECT_TRUE(db);
    if (!db) return {};
    auto dump = credence::index::canonical_dump(**db, kTables);
    EXPECT_TRUE(dump);
    return dump.value_or("");
}

/// What one uninterrupted `credence index --once` of the devnet writes.
std::string fresh_index_dump(const Devnet& devnet, const fs::path& dir) {
    const std::string fresh = (dir / "fresh.sqlite").string();
    const CommandResult once = run_command(
        CREDENCE_BIN, {"index", "--rpc", devnet.rpc_url(), "--database", fresh, "--once"},
        devnet.env());
    EXPECT_EQ(once.exit_code, 0) << once.err;
    return dump_of(fresh);
}

/// A node of the devnet's chain on `database`, in its own CREDENCE_HOME.
std::vector<std::string> args_for(const Devnet& devnet, const std::string& database,
                                  const std::string& role) {
    return {"--role",       role,
            "--rpc",        devnet.rpc_url(),
            "--deployment", deployment_of(devnet),
            "--database",   database,
            "--port",       "0",
            "--no-verify",  "--poll-ms",
            "100"};
}

/// A fresh CREDENCE_HOME for one node.
fs::path node_home(const fs::path& dir, const std::string& name) {
    fs::create_directories(dir / name);
    return dir / name;
}

TEST(node_roles_cli, two_writers_of_one_chain_elect_exactly_one) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    make_history(devnet, 3, 50);
    CREDENCE_POSTGRES_URL(pg);
    const fs::path home = roles_dir("roles_two");
    NodeChild a(node_home(home, "a"), args_for(devnet, pg, "writer"));
    NodeChild b(node_home(home, "b"), args_for(devnet, pg, "writer"));
    const auto url_a = start(a);
    const auto url_b = start(b);
    ASSERT_TRUE(url_a && url_b) << a.err() << b.err();
    const uint64_t head = head_of(devnet);
    const auto at_head = [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["indexed_block_num"] == head;
    };
    const json status_a = wait_status(*url_a, std::chrono::seconds(30), [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["state"] != "starting";
    });
    const json status_b = wait_status(*url_b, std::chrono::seconds(30), [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["state"] != "starting";
    });
    const std::array<std::string, 2> roles{only_chain(status_a)["role"].get<std::string>(),
                                           only_chain(status_b)["role"].get<std::string>()};
    EXPECT_TRUE((roles == std::array<std::string, 2>{"writer", "standby"}) ||
                (roles == std::array<std::string, 2>{"standby", "writer"}))
        << status_a.dump() << status_b.dump();
    const std::string& writer_url = roles[0] == "writer" ? *url_a : *url_b;
    const std::string& standby_url = roles[0] == "writer" ? *url_b : *url_a;
    EXPECT_TRUE(at_head(wait_status(writer_url, std::chrono::seconds(30), at_head)));
    // The standby never wrote: it stays a standby with no term begun, and its status still
    // reads the chain as not indexed by it.
    std::this_thread::sleep_for(std::chrono::seconds(1));
    const auto [code, standby] = get_json(standby_url, "/api/v1/status");
    ASSERT_EQ(code, 200);
    EXPECT_EQ(only_chain(standby)["role"], "standby") << standby.dump();
    EXPECT_EQ(only_chain(standby)["takeovers"], 0) << standby.dump();
    EXPECT_TRUE(only_chain(standby)["indexed_block_num"].is_null()) << standby.dump();
    // A writer serves its operators only.
    const auto [agents_code, agents] = get_json(writer_url, "/api/v1/agents");
    EXPECT_EQ(agents_code, 404) << agents.dump();
    EXPECT_EQ(agents["code"], "not_served") << agents.dump();
    EXPECT_EQ(a.stop(SIGTERM, std::chrono::seconds(15)), 0) << a.err();
    EXPECT_EQ(b.stop(SIGTERM, std::chrono::seconds(15)), 0) << b.err();
    EXPECT_EQ(dump_of(pg), fresh_index_dump(devnet, home));
}

// docs/scale.md §Failover: a writer whose connection (and so its lock) is cut stands by and,
// with no other node, is elected again and goes on, each time with a new connection; its old
// indexer and connection are freed, and /metrics follows the current one. Nothing is lost.
TEST(node_roles_cli, a_writer_that_loses_its_lock_again_and_again_goes_on) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    make_history(devnet, 2, 5);
    CREDENCE_POSTGRES_URL(pg);
    const fs::path home = roles_dir("roles_flap");
    NodeChild node(node_home(home, "a"), args_for(devnet, pg, "writer"));
    const auto url = start(node);
    ASSERT_TRUE(url) << node.err();
    auto admin = credence::index::open_database(pg);
    ASSERT_TRUE(admin) << admin.error().to_string();
    for (int term = 1; term <= 3; ++term) {
        SCOPED_TRACE(term);
        const uint64_t head = head_of(devnet);
        const json writing = wait_status(*url, std::chrono::seconds(30), [&](const json& s) {
            return only_chain(s).is_object() && only_chain(s)["role"] == "writer" &&
                   only_chain(s)["takeovers"] == term && only_chain(s)["indexed_block_num"] == head;
        });
        ASSERT_EQ(only_chain(writing)["takeovers"], term) << writing.dump() << node.err();
        ASSERT_EQ(only_chain(writing)["indexed_block_num"], head) << writing.dump();
        const auto [metrics_code, metrics] = [&] {
            httplib::Client client(*url);
            auto res = client.Get("/metrics");
            return res ? std::pair{res->status, res->body} : std::pair{0, std::string()};
        }();
        EXPECT_EQ(metrics_code, 200);
        EXPECT_NE(metrics.find(fmt::format("credence_index_cursor_block{{chain_id=\"{}\"}} {}\n",
                                           devnet.chain_id(), head)),
                  std::string::npos)
            << metrics;
        // Cut the connection that holds the writer lock, then give the chain something new.
        auto cut = (*admin)->query(
            "SELECT pg_terminate_backend(l.pid) FROM pg_locks l WHERE l.locktype = 'advisory' "
            "AND l.granted AND l.database = (SELECT oid FROM pg_database WHERE datname = "
            "current_database())");
        ASSERT_TRUE(cut) << cut.error().to_string();
        ASSERT_EQ(cut->size(), 1U);
        make_history(devnet, 1, 2);
    }
    const uint64_t head = head_of(devnet);
    const json last = wait_status(*url, std::chrono::seconds(30), [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["takeovers"] == 4 &&
               only_chain(s)["indexed_block_num"] == head;
    });
    EXPECT_EQ(only_chain(last)["takeovers"], 4) << last.dump() << node.err();
    EXPECT_EQ(node.stop(SIGTERM, std::chrono::seconds(15)), 0) << node.err();
    size_t lost = 0;
    for (size_t at = 0; (at = node.err().find("lost the writer lock", at)) != std::string::npos;
         ++at) {
        ++lost;
    }
    EXPECT_EQ(lost, 3U) << node.err();
    EXPECT_EQ(dump_of(pg), fresh_index_dump(devnet, home));
}

TEST(node_roles_cli, sigkill_of_the_writer_mid_sync_hands_the_chain_to_the_standby) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    // Activity spread over many blocks, none of them final to the nodes, so the sync reads every
    // header and takes many batches.
    make_history(devnet, 4, 1500);
    CREDENCE_POSTGRES_URL(pg);
    const fs::path home = roles_dir("roles_kill");
    const uint64_t head = head_of(devnet);
    std::vector<std::string> args = args_for(devnet, pg, "all");
    args.insert(args.end(), {"--finality-depth", "100000"});
    NodeChild a(node_home(home, "a"), args);
    NodeChild b(node_home(home, "b"), args);
    const auto url_a = start(a);
    const auto url_b = start(b);
    ASSERT_TRUE(url_a && url_b) << a.err() << b.err();
    // Whichever was elected, killed once it has committed a batch and before it is done.
    const auto writing = [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["role"] == "writer" &&
               only_chain(s)["indexed_block_num"].is_number();
    };
    std::optional<std::string> url_first, url_second;
    NodeChild* first = nullptr;
    NodeChild* second = nullptr;
    json before;
    for (const auto until = Clock::now() + std::chrono::seconds(30);
         !first && Clock::now() < until;) {
        for (auto [node, url, other, other_url] :
             {std::tuple{&a, url_a, &b, url_b}, std::tuple{&b, url_b, &a, url_a}}) {
            const auto [code, status] = get_json(*url, "/api/v1/status");
            if (code == 200 && writing(status)) {
                first = node, second = other, url_first = url, url_second = other_url;
                before = status;
                break;
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_NE(first, nullptr) << a.err() << b.err();
    ASSERT_LT(only_chain(before)["indexed_block_num"].get<uint64_t>(), head)
        << "the sync ended before the kill";
    const auto killed_at = Clock::now();
    ::kill(first->pid(), SIGKILL);
    EXPECT_EQ(first->wait_exit(std::chrono::seconds(5)), -1);
    const json after = wait_status(*url_second, std::chrono::seconds(20), [](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["role"] == "writer" &&
               only_chain(s)["state"] == "following";
    });
    const auto takeover = Clock::now() - killed_at;
    ASSERT_EQ(only_chain(after)["role"], "writer") << after.dump() << second->err();
    EXPECT_LE(takeover, std::chrono::seconds(10));
    std::cout << "takeover after SIGKILL: "
              << std::chrono::duration_cast<std::chrono::milliseconds>(takeover).count()
              << " ms (killed at block " << only_chain(before)["indexed_block_num"] << " of "
              << head << ")\n";
    const json done = wait_status(*url_second, std::chrono::seconds(60), [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["indexed_block_num"] == head;
    });
    ASSERT_EQ(only_chain(done)["indexed_block_num"], head) << done.dump();
    EXPECT_EQ(only_chain(done)["takeovers"], 1);
    EXPECT_EQ(second->stop(SIGTERM, std::chrono::seconds(15)), 0) << second->err();
    // Nothing lost, nothing twice: the index equals one uninterrupted sync.
    EXPECT_EQ(dump_of(pg), fresh_index_dump(devnet, home));
}

TEST(node_roles_cli, an_api_node_on_a_streaming_standby_serves_the_primarys_documents) {
    auto dev = Devnet::start();
    ASSERT_TRUE(dev) << dev.error();
    Devnet& devnet = **dev;
    make_history(devnet, 3, 5);
    CREDENCE_POSTGRES_URL(pg);
    auto standby = credence::testing::postgres_standby_url(pg);
    ASSERT_TRUE(standby) << standby.error();
    const fs::path home = roles_dir("roles_replica");
    NodeChild primary(node_home(home, "a"), args_for(devnet, pg, "all"));
    const auto url_primary = start(primary);
    ASSERT_TRUE(url_primary) << primary.err();
    const uint64_t head = head_of(devnet);
    ASSERT_EQ(only_chain(wait_status(*url_primary, std::chrono::seconds(30),
                                     [&](const json& s) {
                                         return only_chain(s).is_object() &&
                                                only_chain(s)["indexed_block_num"] == head;
                                     }))["indexed_block_num"],
              head);
    NodeChild api(
        node_home(home, "api"),
        {"--role", "api", "--chain-id", std::to_string(devnet.chain_id()), "--deployment",
         deployment_of(devnet), "--database", *standby, "--port", "0", "--poll-ms", "100"});
    const auto url_api = start(api);
    ASSERT_TRUE(url_api) << api.err();
    // The same documents, within the replication lag.
    for (const std::string path :
         {"/api/v1/agents", "/api/v1/agents/1", "/api/v1/agents/2/feedback"}) {
        const auto [code, want] = get_json(*url_primary, path);
        ASSERT_EQ(code, 200) << path;
        json got;
        const auto until = Clock::now() + std::chrono::seconds(10);
        while (Clock::now() < until) {
            got = get_json(*url_api, path).second;
            if (got == want) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        EXPECT_EQ(got, want) << path;
    }
    const json status = wait_status(*url_api, std::chrono::seconds(10), [&](const json& s) {
        return only_chain(s).is_object() && only_chain(s)["indexed_block_num"] == head;
    });
    const json chain = only_chain(status);
    EXPECT_EQ(chain["role"], "reader") << status.dump();
    EXPECT_EQ(chain["replication"]["standby"], true) << status.dump();
    EXPECT_TRUE(chain["replication"]["lag_seconds"].is_number()) << status.dump();
    EXPECT_EQ(status["node"]["role"], "api");
    EXPECT_EQ(api.stop(SIGTERM, std::chrono::seconds(15)), 0) << api.err();
    EXPECT_EQ(primary.stop(SIGTERM, std::chrono::seconds(15)), 0) << primary.err();
}

}  // namespace
