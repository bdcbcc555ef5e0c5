// End-to-end tests of `credence index` (docs/architecture.md §index/): the real binary against a
// devnet with every contract, traffic sent through the real CLI and read back with the real `cast`,
// indexes in real SQLite files and a real PostgreSQL server. The properties under test are the
// issue's: the index is complete (it matches the chain), identical on both backends, reorg-safe at
// depths 1 to 64 (equal to a fresh index of the final chain) and crash-safe (SIGKILL at 20+ random
// points, then a restart, equals an uninterrupted run).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/index/database.hpp>
#include <credence/index/store.hpp>

#include "cli/erc8004_cli_helpers.hpp"
#include "support/devnet.hpp"
#include "support/postgres.hpp"

namespace {

namespace fs = std::filesystem;
using namespace credence;
using namespace credence::testing;
using namespace credence::testing::erc8004;
using Json = nlohmann::json;

class IndexCli : public DevnetFixture {
protected:
    void SetUp() override {
        DevnetFixture::SetUp();
        if (HasFatalFailure()) return;
        files_ = devnet().home() / "files";
        fs::create_directories(files_);
    }

    std::string file(const std::string& name, const std::string& content) {
        const fs::path p = files_ / name;
        std::ofstream(p, std::ios::binary) << content;
        return p.string();
    }
    std::string sqlite_path(const std::string& name) { return (files_ / name).string(); }

    /// `credence <args> --private-key <dev key>` with --json; expects success.
    Json send(std::vector<std::string> args, size_t key) {
        args.emplace_back("--private-key");
        args.push_back(devnet().dev_key(key));
        return credence_json(devnet(), std::move(args));
    }

    /// An id printed as a JSON number or (beyond 64 bits) a decimal string.
    static std::string text_of(const Json& id) {
        return id.is_string() ? id.get<std::string>() : id.dump();
    }

    /// One round of traffic touching every registry: agents (register, URI, metadata, transfer),
    /// feedback (give, revoke, respond), a validation request and response, a tool registered and
    /// updated, and a SingleStageWorkflow run replied to and proven.
    void traffic(int round) {
        const std::string tag = "r" + std::to_string(round);
        const std::string a1 =
            text_of(send({"agent", "register", "--uri", "ipfs://agent-a-" + tag}, 1)["agentId"]);
        const std::string a2 =
            text_of(send({"agent", "register", "--uri", "ipfs://agent-b-" + tag}, 2)["agentId"]);
        send({"agent", "set-uri", a1, "https://agents.example/" + tag + ".json"}, 1);
        send({"agent", "set-metadata", a1, "skill", "summarize-" + tag}, 1);
        send({"feedback", "give", a1, "87.5", "--tag1", "quality", "--tag2", tag}, 3);
        send({"feedback", "give", a1, "-2", "--tag1", "latency"}, 4);
        send({"feedback", "give", a2, "60", "--tag1", "quality"}, 3);
        send({"feedback", "revoke", a1, "1"}, 4);
        send({"feedback", "respond", a1, devnet().dev_address(3).to_checksum_hex(), "1",
              "ipfs://response-" + tag},
             1);
        const Json req =
            send({"validation", "request", devnet().dev_address(5).to_checksum_hex(), a1, "--file",
                  file("request-" + tag + ".json", "{\"job\":\"" + tag + "\"}"), "--uri",
                  "ipfs://request-" + tag},
                 1);
        send({"validation", "respond", req["requestHash"], "90", "--uri", "ipfs://vr-" + tag,
              "--tag", "hard"},
             5);
        send({"agent", "transfer", a2, devnet().dev_address(6).to_checksum_hex()}, 2);

        const std::string creator = lower(devnet().dev_address(7).to_checksum_hex());
        Json manifest{{"type", "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1"},
                      {"name", "oracle-" + tag},
                      {"description", "Returns estimated floor price."},
                      {"endpoint", "https://tools.example.com/oracle"},
                      {"inputs", {{"type", "object"}}},
                      {"outputs", {{"type", "object"}}},
                      {"version", "1.0.0"},
                      {"tags", {"nft", "pricing"}},
                      {"creatorAddress", creator}};
        const std::string tool = text_of(send(
            {"tool", "register", file("tool-" + tag + ".json", manifest.dump())}, 7)["toolId"]);
        manifest["version"] = "1.0.1";
        send({"tool", "update", tool, file("tool2-" + tag + ".json", manifest.dump())}, 7);

        const Json run = send({"workflow", "run", file("in-" + tag + ".txt", "input " + tag)}, 0);
        const std::string task = run["tasks"][0]["taskHash"];
        const Json reply =
            send({"workflow", "reply", task, "--output-file", file("out-" + tag, "out " + tag)}, 0);
        send({"workflow", "prove", reply["replyHash"]}, 0);
    }

    /// `credence index --once --json --database <db> <extra>`.
    CommandResult index(const std::string& db, std::vector<std::string> extra = {}) {
        std::vector<std::string> args{"index", "--once", "--json", "--database", db};
        args.insert(args.end(), extra.begin(), extra.end());
        return run_cli(devnet(), args);
    }
    /// The summary line of a successful `index --once --json`.
    Json index_ok(const std::string& db, std::vector<std::string> extra = {}) {
        const CommandResult r = index(db, std::move(extra));
        EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
        const auto lines_out = lines(r.out);
        if (lines_out.empty()) return Json::object();
        return Json::parse(lines_out.back(), nullptr, false);
    }

    /// The canonical dump of the data tables plus the chain's cursor.
    static std::string dump(const std::string& location, uint64_t chain_id) {
        auto db = index::open_database(location);
        EXPECT_TRUE(db) << db.error().to_string();
        if (!db) return {};
        auto store = index::IndexStore::open(**db);
        EXPECT_TRUE(store) << store.error().to_string();
        if (!store) return {};
        auto text = index::canonical_dump(**db, index::IndexStore::data_tables());
        EXPECT_TRUE(text) << text.error().to_string();
        auto cursor = store->cursor(chain_id);
        EXPECT_TRUE(cursor);
        return (text ? *text : std::string()) + "# cursor " +
               (cursor && *cursor ? std::to_string(**cursor) : "none") + "\n";
    }

    /// The names of a SQLite file's indexes, sorted.
    static std::string index_names(const std::string& path) {
        auto db = index::open_database(path);
        EXPECT_TRUE(db) << db.error().to_string();
        if (!db) return {};
        auto rows =
            (*db)->query("SELECT name FROM sqlite_master WHERE type = 'index' ORDER BY name");
        EXPECT_TRUE(rows) << rows.error().to_string();
        std::string out;
        if (!rows) return out;
        for (const auto& row : *rows) out += std::get<std::string>(row.at(0)) + "\n";
        return out;
    }

    /// Rows of one table in the dump (lines after "# table" up to the next "#").
    static size_t rows_of(const std::string& dump_text, const std::string& table) {
        size_t n = 0;
        bool in = false;
        for (const auto& line : lines(dump_text)) {
            if (line.starts_with("# ")) {
                in = line == "# " + table;
                continue;
            }
            if (in) ++n;
        }
        return n;
    }

    uint64_t head() { return must(devnet().rpc().block_number()); }

    template <typename T>
    static T must(chain::RpcResult<T>&& r) {
        EXPECT_TRUE(r) << r.error().to_string();
        return r ? std::move(*r) : T{};
    }

    /// A NewFeedback from dev account `client` to `agent_id`, sent in-process (fast: the reorg
    /// loop sends hundreds).
    void quick_feedback(chain::RpcClient& rpc, size_t client, uint64_t agent_id, int64_t value,
                        const std::string& tag) {
        const auto key = devnet().secret_key(client);
        chain::SenderOptions opts;
        opts.poll_interval = std::chrono::milliseconds(5);
        chain::TxnSender sender(rpc, key, opts);
        auto data = chain::bindings::reputation_registry::give_feedback(
            core::Uint256{agent_id}, core::Int256{value}, 0, tag, "", "", "", core::Hash32{});
        ASSERT_TRUE(data);
        auto sent = sender.send({devnet().address("ReputationRegistry"), *data, {}, {}, {}});
        ASSERT_TRUE(sent) << sent.error().detail;
    }

    void mine(chain::RpcClient& rpc, uint64_t blocks) {
        if (blocks == 0) return;
        auto r = rpc.request("anvil_mine", Json::array({chain::to_quantity(blocks)}));
        ASSERT_TRUE(r) << r.error().to_string();
    }

    fs::path files_;
};

TEST_F(IndexCli, sync_indexes_every_registry_and_matches_the_chain) {
    traffic(1);
    const std::string db = sqlite_path("index.sqlite");
    const Json summary = index_ok(db);
    ASSERT_EQ(summary["summary"], true) << summary.dump();
    EXPECT_EQ(summary["cursor"], head());

    // Every log of every Credence contract, counted by cast, is stored.
    size_t chain_logs = 0;
    for (const auto& [name, address] : devnet().deployment().contracts) {
        const Json logs = Json::parse(cast(devnet(), {"logs", "--json", "--from-block", "0",
                                                      "--address", address.to_checksum_hex()}),
                                      nullptr, false);
        ASSERT_TRUE(logs.is_array());
        const bool indexed = name.ends_with("Registry") || name.ends_with("Workflow") ||
                             name.ends_with("AttestationVerifier");
        if (indexed) chain_logs += logs.size();
    }
    EXPECT_EQ(summary["events"], chain_logs);
    const std::string text = dump(db, devnet().chain_id());
    EXPECT_EQ(rows_of(text, "raw_logs"), chain_logs) << text.substr(0, 2000);

    // status: the cursor, no lag, and row counts.
    const CommandResult st = run_cli(devnet(), {"index", "status", "--database", db, "--json"});
    ASSERT_EQ(st.exit_code, 0) << st.err;
    const Json status = Json::parse(st.out, nullptr, false);
    EXPECT_EQ(status["cursor"], head());
    EXPECT_EQ(status["lag"], 0);
    EXPECT_EQ(status["counts"]["raw_logs"], chain_logs);
    // status only reads the index: with no node at --rpc it still answers, from the one chain
    // the index holds, with no head.
    const CommandResult offline =
        run_cli(devnet(), {"index", "status", "--database", db, "--json", "--rpc",
                           credence::testing::closed_loopback_url()});
    ASSERT_EQ(offline.exit_code, 0) << offline.err;
    const Json offline_status = Json::parse(offline.out, nullptr, false);
    EXPECT_EQ(offline_status["chainId"], devnet().chain_id());
    EXPECT_EQ(offline_status["cursor"], head());
    EXPECT_TRUE(offline_status["head"].is_null()) << offline.out;
    EXPECT_EQ(offline_status["counts"]["raw_logs"], chain_logs);

    // A second run finds nothing new and changes nothing.
    const Json again = index_ok(db);
    EXPECT_EQ(again["events"], 0);
    EXPECT_EQ(dump(db, devnet().chain_id()), text);
}

TEST_F(IndexCli, sqlite_and_postgres_hold_identical_indexes) {
    traffic(1);
    traffic(2);
    const std::string sqlite = sqlite_path("same.sqlite");
    auto pg = postgres_test_url();
    ASSERT_TRUE(pg) << pg.error();
    index_ok(sqlite);
    index_ok(*pg);
    const std::string a = dump(sqlite, devnet().chain_id());
    const std::string b = dump(*pg, devnet().chain_id());
    EXPECT_GT(rows_of(a, "raw_logs"), 40U);
    EXPECT_EQ(a, b);
}

// One or more chains, each by RPC URL, into one database ("rows carry their chain
// id"). Two chains' indexers write one SQLite file at the same time, from the first migration on;
// each chain's rows equal an index of that chain alone.
TEST_F(IndexCli, two_chains_share_one_database_written_at_once) {
    DevnetOptions options;
    options.chain_id = 31338;
    auto started = Devnet::start(options);
    ASSERT_TRUE(started) << started.error();
    const Devnet& second = **started;
    traffic(1);
    for (int i = 0; i < 3; ++i) {
        const auto on_second = [&](std::vector<std::string> args, size_t key) {
            args.emplace_back("--private-key");
            args.push_back(second.dev_key(key));
            return credence_json(second, std::move(args));
        };
        const std::string agent = text_of(on_second(
            {"agent", "register", "--uri", "ipfs://second-" + std::to_string(i)}, 1)["agentId"]);
        on_second({"feedback", "give", agent, std::to_string(40 + i), "--tag1", "quality"}, 3);
    }
    const auto index_args = [](const std::string& db) {
        return std::vector<std::string>{"index", "--once", "--json", "--database", db};
    };

    const std::string shared = sqlite_path("two-chains.sqlite");
    auto first_run =
        std::async(std::launch::async, [&] { return run_cli(devnet(), index_args(shared)); });
    const CommandResult second_run = run_cli(second, index_args(shared));
    const CommandResult first_result = first_run.get();
    ASSERT_EQ(first_result.exit_code, 0) << first_result.err;
    ASSERT_EQ(second_run.exit_code, 0) << second_run.err;

    const std::string first_alone = sqlite_path("first-alone.sqlite");
    const std::string second_alone = sqlite_path("second-alone.sqlite");
    ASSERT_EQ(run_cli(devnet(), index_args(first_alone)).exit_code, 0);
    ASSERT_EQ(run_cli(second, index_args(second_alone)).exit_code, 0);
    // The dump orders rows by every column, chain_id first: table by table, the first chain's rows
    // (31337) and then the second's (31338).
    const auto tables_of = [](const std::string& text) {
        std::map<std::string, std::vector<std::string>> out;
        std::string table;
        for (const auto& line : lines(text)) {
            if (line.starts_with("# cursor")) continue;
            if (line.starts_with("# ")) {
                table = line;
                out[table];
            } else {
                out[table].push_back(line);
            }
        }
        return out;
    };
    auto expected = tables_of(dump(first_alone, devnet().chain_id()));
    for (const auto& [table, rows] : tables_of(dump(second_alone, second.chain_id()))) {
        expected[table].insert(expected[table].end(), rows.begin(), rows.end());
    }
    EXPECT_EQ(tables_of(dump(shared, devnet().chain_id())), expected);
    EXPECT_EQ(rows_of(dump(second_alone, second.chain_id()), "feedback"), 3U);
    // Each chain keeps its own cursor.
    const auto cursor_of = [&](const std::string& db, uint64_t chain_id) {
        const std::string text = dump(db, chain_id);
        return text.substr(text.rfind("# cursor"));
    };
    EXPECT_EQ(cursor_of(shared, devnet().chain_id()), cursor_of(first_alone, devnet().chain_id()));
    EXPECT_EQ(cursor_of(shared, second.chain_id()), cursor_of(second_alone, second.chain_id()));
    EXPECT_NE(cursor_of(shared, second.chain_id()), "# cursor none\n");
}

// SIGKILL at any moment, then restart, gives a database identical to an
// uninterrupted run.
TEST_F(IndexCli, sigkill_at_random_points_then_restart_equals_an_uninterrupted_run) {
    traffic(1);
    traffic(2);
    chain::RpcClient rpc = devnet().rpc();
    mine(rpc, 200);  // empty blocks between the traffic make many small batches
    traffic(3);
    // Small ranges: many batches, so kills land in fetches and in commits alike. The reference
    // keeps its indexes and merges its final blocks into one batch. The victim bulk-loads in
    // batches of a few logs: it drops the indexes before its first batch and builds them only at
    // the first block that is not final (all but the last 8), so kills also land between those
    // steps.
    const std::vector<std::string> small{"--max-range", "3", "--finality-depth", "8",
                                         "--no-bulk-load"};

    const std::string reference = sqlite_path("reference.sqlite");
    const auto t0 = std::chrono::steady_clock::now();
    index_ok(reference, small);
    const auto full = std::chrono::steady_clock::now() - t0;
    const std::string expected = dump(reference, devnet().chain_id());

    const std::string victim = sqlite_path("victim.sqlite");
    const auto victim_args = [&](const std::string& file) {
        return std::vector<std::string>{"index", "--once",       "--json", "--database",
                                        file,    "--max-range",  "3",      "--bulk-min-logs",
                                        "1",     "--batch-logs", "4",      "--finality-depth",
                                        "8"};
    };
    // Kill times cover a whole uninterrupted life of the victim (a quarter more, so that lives
    // resuming near the end also finish now and then).
    const auto v0 = std::chrono::steady_clock::now();
    const CommandResult whole = run_cli(devnet(), victim_args(sqlite_path("whole.sqlite")));
    ASSERT_EQ(whole.exit_code, 0) << whole.err;
    const auto victim_full = std::chrono::steady_clock::now() - v0;
    ASSERT_EQ(dump(sqlite_path("whole.sqlite"), devnet().chain_id()), expected);
    std::mt19937_64 rng(20261130);
    const auto span_us =
        std::chrono::duration_cast<std::chrono::microseconds>(std::max(full, victim_full)).count() *
        5 / 4;
    const auto remove_victim = [&] {
        for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(victim + suffix);
    };
    // One life: `credence index` on the victim file, its JSON lines on a pipe.
    const auto start_life = [&](int& out_fd) {
        int fds[2];
        EXPECT_EQ(::pipe(fds), 0);
        const pid_t pid = ::fork();
        EXPECT_GE(pid, 0);
        if (pid == 0) {
            for (const auto& [k, v] : devnet().env()) ::setenv(k.c_str(), v.c_str(), 1);
            const int devnull = ::open("/dev/null", O_WRONLY);
            ::dup2(fds[1], 1);
            ::dup2(devnull, 2);
            ::close(fds[0]);
            std::vector<std::string> args = victim_args(victim);
            args.insert(args.begin(), CREDENCE_BIN);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(CREDENCE_BIN, argv.data());
            ::_exit(127);
        }
        ::close(fds[1]);
        out_fd = fds[0];
        return pid;
    };
    // Reads the life's output until `needle` appears (when not empty), the life closes it (ends)
    // or `deadline` passes.
    enum class Seen { line, end, deadline };
    const auto watch = [](int fd, std::string_view needle,
                          std::chrono::steady_clock::time_point deadline) {
        std::string seen;
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::microseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0) return Seen::deadline;
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, static_cast<int>(left.count() / 1000) + 1) <= 0) continue;
            char buf[4096];
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n <= 0) return Seen::end;
            seen.append(buf, static_cast<size_t>(n));
            if (!needle.empty() && seen.find(needle) != std::string::npos) return Seen::line;
        }
    };
    int kills = 0;
    int completed = 0;
    bool progressed = false;  // some life committed a batch before it was killed
    int mid_bulk_load = 0;    // lives that died with the secondary indexes dropped
    for (int attempt = 0; attempt < 120 && kills < 24; ++attempt) {
        // Most lives last a random part of an uninterrupted run, so they die while starting,
        // fetching, projecting or committing. Progress carries over between lives; when a life
        // finishes the sync, its result is checked and the next life starts from an empty file.
        // Every second life that starts from an empty file dies instead within 2 ms of reporting
        // that it dropped the indexes: whatever the timing of this machine, some kills land
        // during a bulk load.
        const bool targeted = attempt % 2 == 0 && !fs::exists(victim);
        int out_fd = -1;
        const pid_t pid = start_life(out_fd);
        ASSERT_GT(pid, 0);
        Seen seen = Seen::end;
        if (targeted) {
            seen = watch(out_fd, "secondary indexes dropped",
                         std::chrono::steady_clock::now() + std::chrono::seconds(30));
            std::uniform_int_distribution<int64_t> soon(0, 2000);
            std::this_thread::sleep_for(std::chrono::microseconds(soon(rng)));
        } else {
            std::uniform_int_distribution<int64_t> when(0, span_us);
            seen = watch(out_fd, "",
                         std::chrono::steady_clock::now() + std::chrono::microseconds(when(rng)));
        }
        if (seen != Seen::end) ::kill(pid, SIGKILL);
        ::close(out_fd);
        int status = 0;
        ::waitpid(pid, &status, 0);
        if (WIFSIGNALED(status)) {
            ++kills;
            if (!progressed && fs::exists(victim)) {
                progressed =
                    dump(victim, devnet().chain_id()).find("# cursor none") == std::string::npos;
            }
            if (fs::exists(victim) && index_names(victim) != index_names(reference))
                ++mid_bulk_load;
            continue;
        }
        ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
        ++completed;
        EXPECT_EQ(dump(victim, devnet().chain_id()), expected) << "after " << kills << " kills";
        EXPECT_EQ(index_names(victim), index_names(reference)) << "a bulk load did not end";
        remove_victim();
    }
    EXPECT_GE(kills, 20);
    EXPECT_TRUE(progressed) << "no killed life had committed a batch";
    EXPECT_GE(mid_bulk_load, 3) << "lives that died during a bulk load, of " << kills;
    EXPECT_GE(completed, 1) << "no life finished the sync";
    index_ok(victim, small);  // the restart that completes
    EXPECT_EQ(dump(victim, devnet().chain_id()), expected);
    EXPECT_EQ(index_names(victim), index_names(reference));
}

// Reorgs of depth 1 to 64 (evm_snapshot / evm_revert); after each, the database equals
// a fresh index of the final chain.
TEST_F(IndexCli, reorgs_of_depth_1_to_64_leave_an_index_equal_to_a_fresh_one) {
    chain::RpcClient rpc = devnet().rpc();
    const std::string agent = cast_register(devnet(), 1, "ipfs://reorged-agent");
    const uint64_t agent_id = std::stoull(agent);
    const std::string db = sqlite_path("followed.sqlite");
    index_ok(db);

    for (uint64_t depth = 1; depth <= 64; ++depth) {
        SCOPED_TRACE("depth " + std::to_string(depth));
        auto snapshot = rpc.request("evm_snapshot");
        ASSERT_TRUE(snapshot) << snapshot.error().to_string();
        const uint64_t fork = head();
        // The abandoned branch: `depth` blocks, with logs in its first and last block.
        quick_feedback(rpc, 2, agent_id, static_cast<int64_t>(depth), "old");
        if (depth >= 2) {
            mine(rpc, depth - 2);
            quick_feedback(rpc, 3, agent_id, -static_cast<int64_t>(depth), "old");
        }
        ASSERT_EQ(head(), fork + depth);
        index_ok(db);

        auto reverted = rpc.request("evm_revert", Json::array({*snapshot}));
        ASSERT_TRUE(reverted && *reverted == true) << (reverted ? reverted->dump() : "");
        // The new branch is one block longer and carries other logs.
        mine(rpc, depth);
        quick_feedback(rpc, 4, agent_id, 1000 + static_cast<int64_t>(depth), "new");
        ASSERT_EQ(head(), fork + depth + 1);

        const Json followed = index_ok(db);
        EXPECT_EQ(followed["cursor"], fork + depth + 1);
        const std::string fresh = sqlite_path("fresh-" + std::to_string(depth) + ".sqlite");
        index_ok(fresh);
        const std::string want = dump(fresh, devnet().chain_id());
        ASSERT_EQ(dump(db, devnet().chain_id()), want);
        fs::remove(fresh);
    }
}

TEST_F(IndexCli, follower_serves_metrics_and_stops_cleanly_on_sigterm) {
    traffic(1);
    const std::string db = sqlite_path("follow.sqlite");
    const int port = credence::testing::free_loopback_port();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    const fs::path out = files_ / "follow.out";
    if (pid == 0) {
        for (const auto& [k, v] : devnet().env()) ::setenv(k.c_str(), v.c_str(), 1);
        const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ::dup2(fd, 1);
        std::vector<std::string> args{CREDENCE_BIN,        "index", "--json",
                                      "--database",        db,      "--metrics-port",
                                      std::to_string(port)};
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        ::execv(CREDENCE_BIN, argv.data());
        ::_exit(127);
    }
    httplib::Client metrics("127.0.0.1", port);
    const auto scrape = [&]() -> std::string {
        auto res = metrics.Get("/metrics");
        return res && res->status == 200 ? res->body : std::string();
    };
    const auto wait_for = [&](auto&& pred) {
        for (int i = 0; i < 200 && !pred(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        return pred();
    };
    const std::string at_head = "credence_index_head_lag_blocks{chain_id=\"31337\"} 0";
    EXPECT_TRUE(wait_for([&] { return scrape().find(at_head) != std::string::npos; })) << scrape();
    // New traffic while following: the follower picks it up.
    send({"feedback", "give", "1", "42", "--tag1", "late"}, 8);
    const uint64_t target = head();
    EXPECT_TRUE(wait_for([&] {
        return scrape().find("credence_index_cursor_block{chain_id=\"31337\"} " +
                             std::to_string(target)) != std::string::npos;
    })) << scrape();
    const std::string text = scrape();
    EXPECT_NE(text.find("# TYPE credence_index_events_total counter"), std::string::npos);
    EXPECT_NE(text.find("credence_index_batch_seconds_count"), std::string::npos);

    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by a signal instead of a clean exit";
    EXPECT_EQ(WEXITSTATUS(status), 0);
    const auto printed = lines(read_file(out));
    ASSERT_FALSE(printed.empty());
    const Json summary = Json::parse(printed.back(), nullptr, false);
    EXPECT_EQ(summary["summary"], true) << printed.back();
    EXPECT_EQ(summary["cursor"], target);
}

// Logs a registry does not know (here the ReputationRegistry's, indexed as an identity registry)
// are counted, one line per contract and event with the count, never one line per log.
TEST_F(IndexCli, rejected_logs_are_one_line_per_contract_and_event) {
    const std::string agent = cast_register(devnet(), 1, "https://agent.test/a.json");
    for (const size_t client : {size_t{2}, size_t{3}, size_t{4}}) {
        const CommandResult fb = run_cli(
            devnet(), {"feedback", "give", agent, "5", "--private-key", devnet().dev_key(client)});
        ASSERT_EQ(fb.exit_code, 0) << fb.err;
    }
    const std::string reputation = devnet().address("ReputationRegistry").to_checksum_hex();
    const CommandResult r =
        run_cli(devnet(), {"index", "--once", "--registry", "identity=" + reputation, "--database",
                           sqlite_path("rejected.sqlite")});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    size_t rejected_lines = 0;
    for (const auto& line : lines(r.err))
        if (line.find("rejected") != std::string::npos &&
            line.find("msg=\"batch\"") == std::string::npos)
            ++rejected_lines;
    EXPECT_EQ(rejected_lines, 1U) << r.err;
    EXPECT_NE(r.err.find("rejected 3 logs of " + reputation + " (topic0 "), std::string::npos)
        << r.err;
}

// One address followed as two kinds: each log goes to the kind whose events include its topic0, so
// the reputation registry followed as both identity and reputation indexes exactly what it does
// as reputation alone, and nothing is rejected.
TEST_F(IndexCli, one_address_as_two_kinds_routes_each_log_by_its_event) {
    const std::string agent = cast_register(devnet(), 1, "https://agent.test/a.json");
    for (const size_t client : {size_t{2}, size_t{3}}) {
        const CommandResult fb = run_cli(
            devnet(), {"feedback", "give", agent, "7", "--private-key", devnet().dev_key(client)});
        ASSERT_EQ(fb.exit_code, 0) << fb.err;
    }
    const std::string reputation = devnet().address("ReputationRegistry").to_checksum_hex();
    const std::string both = sqlite_path("both-kinds.sqlite");
    const std::string one = sqlite_path("one-kind.sqlite");
    const CommandResult r =
        run_cli(devnet(), {"index", "--once", "--registry", "identity=" + reputation, "--registry",
                           "reputation=" + reputation, "--database", both});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& line : lines(r.err))  // the batch line says rejected=0; no warning line
        EXPECT_TRUE(line.find("rejected") == std::string::npos ||
                    line.find("msg=\"batch\"") != std::string::npos)
            << line;
    EXPECT_NE(r.err.find("rejected=0"), std::string::npos) << r.err;
    const CommandResult alone = run_cli(
        devnet(), {"index", "--once", "--registry", "reputation=" + reputation, "--database", one});
    ASSERT_EQ(alone.exit_code, 0) << alone.err;
    const std::string dumped = dump(both, devnet().chain_id());
    EXPECT_NE(dumped.find("feedback"), std::string::npos);
    EXPECT_EQ(dumped, dump(one, devnet().chain_id()));
}

// docs/cli.md §index: a registry added to an index that already follows the chain gets its whole
// history. As an operator would: the IdentityRegistry alone first, then the ReputationRegistry
// given with @0; `trust summary` must then answer what the contract's getSummary does.
TEST_F(IndexCli, a_registry_added_later_is_backfilled_and_trust_summary_matches_the_chain) {
    const std::string agent = cast_register(devnet(), 1, "https://agent.test/a.json");
    for (const size_t client : {size_t{2}, size_t{3}}) {
        const CommandResult fb = run_cli(
            devnet(), {"feedback", "give", agent, "7", "--private-key", devnet().dev_key(client)});
        ASSERT_EQ(fb.exit_code, 0) << fb.err;
    }
    const std::string identity = devnet().address("IdentityRegistry").to_checksum_hex();
    const std::string reputation = devnet().address("ReputationRegistry").to_checksum_hex();
    const std::string db = sqlite_path("added-later.sqlite");
    const CommandResult first = run_cli(
        devnet(), {"index", "--once", "--registry", "identity=" + identity, "--database", db});
    ASSERT_EQ(first.exit_code, 0) << first.err;
    const CommandResult added =
        run_cli(devnet(), {"index", "--once", "--registry", "identity=" + identity, "--registry",
                           "reputation=" + reputation + "@0", "--database", db});
    ASSERT_EQ(added.exit_code, 0) << added.err;
    EXPECT_NE(added.err.find("backfilling it from block 0"), std::string::npos) << added.err;
    EXPECT_NE(added.err.find("backfill done"), std::string::npos) << added.err;
    std::vector<std::string> summary{"trust",  "summary",      agent,      "--database",
                                     db,       "--reputation", reputation, "--identity",
                                     identity, "--rules",      "credence"};
    std::string list = "[";
    for (const size_t client : {size_t{2}, size_t{3}}) {
        const std::string c = devnet().dev_address(client).to_checksum_hex();
        summary.insert(summary.end(), {"--client", c});
        list += (list.size() > 1 ? "," : "") + c;
    }
    list += "]";
    const Json mirrored = credence_json(devnet(), summary);
    const auto onchain = lines(cast_call(
        devnet(), devnet().address("ReputationRegistry"),
        "getSummary(uint256,address[],string,string)(uint64,int128,uint8)", {agent, list, "", ""}));
    ASSERT_EQ(onchain.size(), 3U);
    EXPECT_EQ(std::to_string(mirrored["count"].get<uint64_t>()), first_word(onchain[0]));
    EXPECT_EQ(mirrored["count"], 2);
    EXPECT_EQ(mirrored["summaryValue"].get<std::string>(), first_word(onchain[1]));
}

TEST_F(IndexCli, bad_arguments_are_one_line_errors) {
    const auto one_line_error = [&](std::vector<std::string> args, const std::string& needle) {
        const CommandResult r = run_cli(devnet(), args);
        EXPECT_EQ(r.exit_code, 1) << r.out;
        const std::string err = trim(r.err);
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
        EXPECT_NE(err.find(needle), std::string::npos) << err;
    };
    one_line_error(
        {"index", "--once", "--registry", "bogus=0x00", "--database", sqlite_path("x.sqlite")},
        "unknown kind");
    one_line_error(
        {"index", "--once", "--registry", "identity=0x1234", "--database", sqlite_path("x.sqlite")},
        "--registry");
    one_line_error({"index", "--once", "--database", "postgresql://nobody@127.0.0.1:1/none"},
                   "database");
    one_line_error({"index", "--once", "--chain-id", "5", "--database", sqlite_path("y.sqlite")},
                   "chain");
    // One contract given as one kind twice names both flags.
    const std::string reputation = devnet().address("ReputationRegistry").to_checksum_hex();
    one_line_error({"index", "--once", "--registry", "reputation=" + reputation, "--registry",
                    "reputation=" + reputation, "--database", sqlite_path("w.sqlite")},
                   "--registry reputation=" + reputation + " and --registry reputation=" +
                       reputation + " name one contract as one kind twice");
    // Out-of-range numbers are CLI11's usage errors (their own exit code), naming the flag.
    const CommandResult r = run_cli(
        devnet(), {"index", "--once", "--batch-logs", "0", "--database", sqlite_path("z.sqlite")});
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("--batch-logs"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(sqlite_path("z.sqlite")));
}

}  // namespace
