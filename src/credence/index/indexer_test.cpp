// The indexer against a real devnet, directly and through a faulty JSON-RPC proxy on loopback
// (bad input, docs/architecture.md §index/): garbage, truncated JSON, HTTP 429, timeouts, "too many
// results", logs of unknown contracts and logs with the wrong topic count. The indexer must never
// die, never commit a partial batch, and end with the same database as a clean run.
#include <credence/index/indexer.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/txn_sender.hpp>

#include "support/devnet.hpp"
#include "support/scratch.hpp"
#include "support/vectors.hpp"

namespace credence::index {
namespace {

using Json = nlohmann::json;
namespace ir = chain::bindings::identity_registry;
namespace rr = chain::bindings::reputation_registry;

// A JSON-RPC proxy in front of anvil that spoils chosen responses. Faults are consumed in order,
// one per matching request, so each is met exactly once and the run must then recover.
class FaultyProxy {
public:
    enum class Fault {
        garbage,            // a 200 body that is not JSON
        truncated,          // the real answer cut in half
        http_429,           // Too Many Requests with Retry-After: 0
        slow,               // no answer within the client's timeout
        too_many_results,   // the geth "query returned more than 10000 results" error
        unknown_contract,   // an extra log from an address nobody asked for
        wrong_topic_count,  // a registry log with one topic dropped
    };

    // `older_node`: every eth_getLogs answer loses its logs' blockTimestamp, as from a node that
    // predates it.
    FaultyProxy(std::string upstream, std::vector<Fault> get_logs_faults, bool older_node = false)
        : upstream_(std::move(upstream)),
          faults_(std::move(get_logs_faults)),
          older_node_(older_node) {
        server_.Post(
            "/", [this](const httplib::Request& req, httplib::Response& res) { handle(req, res); });
        port_ = server_.bind_to_any_port("127.0.0.1");
        thread_ = std::thread([this] { server_.listen_after_bind(); });
        // bind_to_any_port() already listens: connections queue until the thread accepts them.
    }
    ~FaultyProxy() {
        server_.stop();
        thread_.join();
    }
    FaultyProxy(const FaultyProxy&) = delete;
    FaultyProxy& operator=(const FaultyProxy&) = delete;

    [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
    [[nodiscard]] size_t faults_left() {
        std::lock_guard lock(mutex_);
        return faults_.size() - next_;
    }

private:
    void handle(const httplib::Request& req, httplib::Response& res) {
        httplib::Client up(upstream_);
        auto answer = up.Post("/", req.body, "application/json");
        if (!answer) {
            res.status = 502;
            return;
        }
        std::optional<Fault> fault;
        const Json request = Json::parse(req.body, nullptr, false);
        if (request.is_object() && request.value("method", "") == "eth_getLogs") {
            std::lock_guard lock(mutex_);
            if (next_ < faults_.size()) fault = faults_[next_++];
        }
        std::string body = answer->body;
        if (older_node_ && request.is_object() && request.value("method", "") == "eth_getLogs") {
            Json doc = Json::parse(body, nullptr, false);
            if (doc.is_object() && doc["result"].is_array()) {
                for (auto& log : doc["result"]) log.erase("blockTimestamp");
                body = doc.dump();
            }
        }
        if (fault) {
            switch (*fault) {
                case Fault::garbage:
                    body = "<html>bad gateway</html>";
                    break;
                case Fault::truncated:
                    body = body.substr(0, body.size() / 2);
                    break;
                case Fault::http_429:
                    res.status = 429;
                    res.set_header("Retry-After", "0");
                    return;
                case Fault::slow:
                    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
                    break;
                case Fault::too_many_results:
                    body = Json{{"jsonrpc", "2.0"},
                                {"id", request["id"]},
                                {"error",
                                 {{"code", -32005},
                                  {"message", "query returned more than 10000 results"}}}}
                               .dump();
                    break;
                case Fault::unknown_contract:
                case Fault::wrong_topic_count: {
                    std::string spoiled = spoil_logs(body, *fault);
                    if (spoiled == body) {  // no log to spoil here: keep the fault for later
                        std::lock_guard lock(mutex_);
                        --next_;
                    }
                    body = std::move(spoiled);
                    break;
                }
            }
        }
        res.set_content(body, "application/json");
    }

    static std::string spoil_logs(const std::string& body, Fault fault) {
        Json doc = Json::parse(body, nullptr, false);
        if (!doc.is_object() || !doc["result"].is_array() || doc["result"].empty()) return body;
        Json copy = doc["result"][0];
        if (fault == Fault::unknown_contract) {
            copy["address"] = "0x00000000000000000000000000000000deadbeef";
        } else {
            copy["topics"].erase(copy["topics"].size() - 1);
            if (copy["topics"].empty()) copy["topics"].push_back(std::string(66, '0'));
        }
        copy["logIndex"] = "0x7777";
        doc["result"].push_back(copy);
        return doc.dump();
    }

    std::string upstream_;
    std::mutex mutex_;
    std::vector<Fault> faults_;
    bool older_node_ = false;
    size_t next_ = 0;
    httplib::Server server_;
    int port_ = 0;
    std::thread thread_;
};

class IndexerDevnet : public testing::DevnetFixture {
protected:
    // Traffic of the ERC-8004 registries, sent in-process.
    void traffic(unsigned agents, unsigned feedback_per_agent) {
        chain::RpcClient rpc = devnet().rpc();
        chain::SenderOptions options;
        options.poll_interval = std::chrono::milliseconds(5);
        const auto owner_key = devnet().secret_key(1);
        chain::TxnSender owner(rpc, owner_key, options);
        const auto client_key = devnet().secret_key(2);
        chain::TxnSender client(rpc, client_key, options);
        for (unsigned a = 0; a < agents; ++a) {
            auto reg = owner.send({devnet().address("IdentityRegistry"),
                                   ir::register_1("ipfs://agent-" + std::to_string(a)).value(),
                                   {},
                                   {},
                                   {}});
            ASSERT_TRUE(reg) << reg.error().detail;
            const uint64_t agent_id = agent_count_++;  // the registry numbers agents from 0
            for (unsigned f = 0; f < feedback_per_agent; ++f) {
                auto fb = client.send(
                    {devnet().address("ReputationRegistry"),
                     rr::give_feedback(core::Uint256{agent_id}, core::Int256{int64_t{f} + 1}, 1,
                                       "quality", "", "", "", core::Hash32{})
                         .value(),
                     {},
                     {},
                     {}});
                ASSERT_TRUE(fb) << fb.error().detail;
            }
        }
    }

    IndexerOptions options() {
        IndexerOptions o;
        o.chain_id = devnet().chain_id();
        o.sources = sources_from_deployment(devnet().deployment());
        o.finality_depth = 64;
        o.range.initial_blocks = 4;
        o.range.max_blocks = 8;
        return o;
    }

    static chain::RpcClient client_for(const std::string& url) {
        chain::HttpOptions http;
        http.total_timeout = std::chrono::milliseconds(1000);
        chain::RetryPolicy retry;
        retry.max_attempts = 3;
        retry.base_delay = std::chrono::milliseconds(10);
        return chain::RpcClient::make_http(url, http, retry);
    }

    // Syncs to the head through `url`; returns the warnings printed on the way.
    std::vector<std::string> sync(Database& db, const std::string& url) {
        Indexer indexer(options(), client_for(url), db);
        auto started = indexer.start();
        EXPECT_TRUE(started) << started.error().message;
        std::vector<std::string> warnings;
        std::stop_source stop;
        auto done = indexer.run(
            stop.get_token(), false, std::chrono::milliseconds(10), [&](const StepReport& r) {
                warnings.insert(warnings.end(), r.warnings.begin(), r.warnings.end());
            });
        EXPECT_TRUE(done) << done.error().message;
        return warnings;
    }

    static std::string dump(Database& db) {
        auto text = canonical_dump(db, IndexStore::data_tables());
        EXPECT_TRUE(text) << text.error().to_string();
        return text ? *text : std::string();
    }

    std::unique_ptr<Database> fresh_sqlite(const std::string& name) {
        const auto path = testing::scratch_dir() / (name + "-" + std::to_string(::getpid()) + "-" +
                                                    std::to_string(counter_++) + ".sqlite");
        auto db = open_sqlite(path);
        EXPECT_TRUE(db) << db.error().to_string();
        return db ? std::move(*db) : nullptr;
    }

    uint64_t agent_count_ = 0;
    int counter_ = 0;
};

TEST_F(IndexerDevnet, bad_rpc_data_is_skipped_or_retried_and_the_index_equals_a_clean_one) {
    traffic(6, 3);
    auto clean = fresh_sqlite("clean");
    ASSERT_TRUE(clean);
    EXPECT_TRUE(sync(*clean, devnet().rpc_url()).empty());
    const std::string expected = dump(*clean);
    ASSERT_NE(expected.find("0x"), std::string::npos);

    using F = FaultyProxy::Fault;
    FaultyProxy proxy(devnet().rpc_url(),
                      {F::garbage, F::truncated, F::http_429, F::unknown_contract, F::slow,
                       F::wrong_topic_count, F::too_many_results, F::garbage});
    auto faulty = fresh_sqlite("faulty");
    ASSERT_TRUE(faulty);
    const auto warnings = sync(*faulty, proxy.url());
    EXPECT_EQ(proxy.faults_left(), 0U);
    EXPECT_EQ(dump(*faulty), expected);

    // The spoiled logs were reported, not stored.
    const auto mentions = [&](std::string_view needle) {
        return std::any_of(warnings.begin(), warnings.end(), [&](const std::string& w) {
            return w.find(needle) != std::string::npos;
        });
    };
    EXPECT_TRUE(mentions("0x7777") || mentions("30583"))
        << "no warning names the injected log index: " << ::testing::PrintToString(warnings);
    EXPECT_TRUE(mentions("retrying")) << "a failed step was not reported";
}

// block_times (schema.cpp) from the logs' blockTimestamp, or from the headers of a node that does
// not send it: both equal the chain's own block timestamps.
TEST_F(IndexerDevnet, block_times_come_from_the_logs_or_else_the_headers) {
    traffic(3, 2);
    FaultyProxy older(devnet().rpc_url(), {}, true);
    for (const std::string& url : {devnet().rpc_url(), older.url()}) {
        auto db = fresh_sqlite("times");
        ASSERT_TRUE(db);
        EXPECT_TRUE(sync(*db, url).empty());
        auto rows = db->query(
            "SELECT t.block_num, t.timestamp, (SELECT COUNT(*) FROM raw_logs r WHERE "
            "r.block_num = t.block_num) FROM block_times t ORDER BY t.block_num",
            {});
        ASSERT_TRUE(rows) << rows.error().to_string();
        auto blocks = db->query("SELECT COUNT(DISTINCT block_num) FROM raw_logs", {});
        ASSERT_TRUE(blocks);
        ASSERT_EQ(static_cast<int64_t>(rows->size()), std::get<int64_t>(blocks->front()[0]));
        ASSERT_GT(rows->size(), 6U);
        chain::RpcClient rpc = devnet().rpc();
        for (const auto& row : *rows) {
            const auto num = static_cast<uint64_t>(std::get<int64_t>(row[0]));
            auto block = rpc.get_block_by_number(chain::BlockId(num));
            ASSERT_TRUE(block && *block) << num;
            EXPECT_EQ(static_cast<uint64_t>(std::get<int64_t>(row[1])), (*block)->timestamp) << url;
            EXPECT_GT(std::get<int64_t>(row[2]), 0);
        }
    }
}

TEST_F(IndexerDevnet, a_node_on_another_chain_is_refused) {
    auto db = fresh_sqlite("wrong-chain");
    ASSERT_TRUE(db);
    IndexerOptions o = options();
    o.chain_id = 1;
    Indexer indexer(o, client_for(devnet().rpc_url()), *db);
    auto started = indexer.start();
    ASSERT_FALSE(started);
    EXPECT_EQ(started.error().kind, IndexErrorKind::wrong_chain);
}

TEST_F(IndexerDevnet, a_node_that_switches_chains_while_followed_is_refused) {
    // A devnet of its own: the shared one must keep its chain id.
    auto own = testing::Devnet::start();
    ASSERT_TRUE(own) << own.error();
    auto db = fresh_sqlite("switched-chain");
    ASSERT_TRUE(db);
    IndexerOptions o = options();
    o.sources = sources_from_deployment((*own)->deployment());
    o.chain_id = (*own)->chain_id();
    o.chain_check_interval = std::chrono::milliseconds(0);
    Indexer indexer(o, client_for((*own)->rpc_url()), *db);
    ASSERT_TRUE(indexer.start());
    ASSERT_TRUE(indexer.step());
    auto rpc = (*own)->rpc();
    ASSERT_TRUE(rpc.request("anvil_setChainId", nlohmann::json::array({5})));
    auto step = indexer.step();
    ASSERT_FALSE(step);
    EXPECT_EQ(step.error().kind, IndexErrorKind::wrong_chain);
    EXPECT_NE(step.error().message.find("now serves chain 5"), std::string::npos)
        << step.error().message;
    // run() ends on it rather than retrying.
    std::stop_source stop;
    auto ran = indexer.run(stop.get_token(), true, std::chrono::milliseconds(10), nullptr);
    ASSERT_FALSE(ran);
    EXPECT_EQ(ran.error().kind, IndexErrorKind::wrong_chain);
}

TEST(indexer_metrics, several_chains_write_each_family_once) {
    IndexerMetrics a, b;
    a.cursor_block = 7;
    b.cursor_block = 9;
    const std::vector<std::pair<uint64_t, const IndexerMetrics*>> chains{{1, &a}, {8453, &b}};
    const std::string text = to_prometheus(chains);
    size_t helps = 0;
    for (size_t at = 0;
         (at = text.find("# HELP credence_index_cursor_block ", at)) != std::string::npos; ++at) {
        ++helps;
    }
    EXPECT_EQ(helps, 1u) << text;
    EXPECT_NE(text.find("credence_index_cursor_block{chain_id=\"1\"} 7\n"), std::string::npos);
    EXPECT_NE(text.find("credence_index_cursor_block{chain_id=\"8453\"} 9\n"), std::string::npos);
    EXPECT_NE(text.find("credence_index_batch_seconds_count{chain_id=\"8453\"} 0\n"),
              std::string::npos);
}

TEST_F(IndexerDevnet, metrics_count_events_batches_and_lag) {
    traffic(2, 2);
    auto db = fresh_sqlite("metrics");
    ASSERT_TRUE(db);
    Indexer indexer(options(), client_for(devnet().rpc_url()), *db);
    ASSERT_TRUE(indexer.start());
    std::stop_source stop;
    ASSERT_TRUE(indexer.run(stop.get_token(), false, std::chrono::milliseconds(10), nullptr));
    const std::string text = indexer.metrics().to_prometheus(devnet().chain_id());
    // 2 agents: Registered + Transfer each; 4 NewFeedback.
    EXPECT_NE(text.find("credence_index_events_total{chain_id=\"31337\"} "), std::string::npos);
    EXPECT_GE(indexer.metrics().events_total.load(), 8U);
    EXPECT_EQ(indexer.metrics().cursor_block.load(), indexer.metrics().head_block.load());
    EXPECT_NE(text.find("credence_index_head_lag_blocks{chain_id=\"31337\"} 0\n"),
              std::string::npos)
        << text;
    EXPECT_GT(indexer.metrics().batches_total.load(), 1U);
}

// Far behind the head (finality depth 0: every block final) step() merges chunks into batches of
// batch_logs and fetches the next batch while the current one commits (docs/benchmarks.md); the
// result must equal a sync that commits one chunk per step (depth 64: nothing final, no merge).
TEST_F(IndexerDevnet, merged_and_fetched_ahead_batches_equal_one_chunk_per_batch) {
    traffic(5, 3);
    auto plain = fresh_sqlite("plain");
    ASSERT_TRUE(plain);
    Indexer one(options(), client_for(devnet().rpc_url()), *plain);
    ASSERT_TRUE(one.start());
    std::stop_source stop;
    ASSERT_TRUE(one.run(stop.get_token(), false, std::chrono::milliseconds(10), nullptr));
    const std::string expected = dump(*plain);
    ASSERT_GE(one.metrics().events_total.load(), 25U);  // 5 x (Registered, Transfer, 3 feedback)

    auto merged = fresh_sqlite("merged");
    ASSERT_TRUE(merged);
    IndexerOptions o = options();
    o.finality_depth = 0;
    o.range.initial_blocks = 1;
    o.range.max_blocks = 1;  // one block per chunk: every batch of 4+ logs merges chunks
    o.batch_logs = 4;
    Indexer many(o, client_for(devnet().rpc_url()), *merged);
    ASSERT_TRUE(many.start());
    uint64_t widest = 0;
    ASSERT_TRUE(
        many.run(stop.get_token(), false, std::chrono::milliseconds(10), [&](const StepReport& r) {
            if (r.stored > 0) widest = std::max(widest, r.to_block - r.from_block);
        }));
    EXPECT_EQ(dump(*merged), expected);
    EXPECT_EQ(many.metrics().events_total.load(), one.metrics().events_total.load());
    EXPECT_GT(widest, 0U) << "no batch merged two one-block chunks";
    EXPECT_LT(many.metrics().batches_total.load(), many.metrics().cursor_block.load());
}

// Bulk load (IndexerOptions::bulk_load): far behind the head the secondary indexes are dropped and
// built again before the first batch that is not final. Rows equal a sync that kept them.
TEST_F(IndexerDevnet, a_bulk_load_drops_and_rebuilds_the_indexes_and_changes_no_row) {
    traffic(4, 2);
    auto kept = fresh_sqlite("kept");
    ASSERT_TRUE(kept);
    IndexerOptions o = options();
    o.finality_depth = 0;
    o.range.initial_blocks = 1;
    o.range.max_blocks = 1;
    o.batch_logs = 3;
    o.bulk_load = false;
    Indexer plain(o, client_for(devnet().rpc_url()), *kept);
    ASSERT_TRUE(plain.start());
    std::stop_source stop;
    bool touched = false;
    ASSERT_TRUE(plain.run(
        stop.get_token(), false, std::chrono::milliseconds(10),
        [&](const StepReport& r) { touched = touched || r.indexes_dropped || r.indexes_built; }));
    EXPECT_FALSE(touched) << "bulk_load = false dropped or built indexes";

    auto bulk = fresh_sqlite("bulk");
    ASSERT_TRUE(bulk);
    o.bulk_load = true;
    o.bulk_min_logs = 1;
    Indexer loader(o, client_for(devnet().rpc_url()), *bulk);
    ASSERT_TRUE(loader.start());
    std::vector<char> events;  // 'd' dropped, 'b' built, 's' a batch stored
    ASSERT_TRUE(loader.run(stop.get_token(), false, std::chrono::milliseconds(10),
                           [&](const StepReport& r) {
                               if (r.indexes_dropped) events.push_back('d');
                               if (r.indexes_built) events.push_back('b');
                               if (r.stored > 0) events.push_back('s');
                           }));
    const std::string order(events.begin(), events.end());
    // Dropped before the first batch, built once before the last (not final) batch.
    EXPECT_EQ(order.substr(0, 2), "ds") << order;
    EXPECT_EQ(std::count(order.begin(), order.end(), 'd'), 1) << order;
    EXPECT_EQ(std::count(order.begin(), order.end(), 'b'), 1) << order;
    EXPECT_GT(std::count(order.begin(), order.end(), 's'), 2) << order;
    EXPECT_EQ(dump(*bulk), dump(*kept));
    auto built = loader.store().secondary_indexes_built();
    ASSERT_TRUE(built);
    EXPECT_TRUE(*built);
}

// A chain added to a database that other chains already fill is no bulk load: dropping the
// secondary indexes would slow every chain's API, and building them again sorts every row.
TEST_F(IndexerDevnet, a_chain_added_to_a_full_database_keeps_the_indexes) {
    traffic(4, 2);
    auto db = fresh_sqlite("shared");
    ASSERT_TRUE(db);
    IndexerOptions o = options();
    o.finality_depth = 0;
    o.range.initial_blocks = 1;
    o.range.max_blocks = 1;
    o.batch_logs = 3;
    o.bulk_min_logs = 1;
    {
        Indexer first(o, client_for(devnet().rpc_url()), *db);
        ASSERT_TRUE(first.start());
        std::stop_source stop;
        ASSERT_TRUE(first.run(stop.get_token(), false, std::chrono::milliseconds(10), {}));
        // Its raw logs copied as twenty other chains' (as if they were followed too), then this
        // chain rolled back to its start.
        for (int other = 80; other < 100; ++other) {
            ASSERT_TRUE(db->exec_script(fmt::format(
                "INSERT INTO raw_logs SELECT {}, block_num, log_index, block_hash, txn_hash, "
                "txn_index, address, kind, topic0, topic1, topic2, topic3, data, detail, entity "
                "FROM raw_logs WHERE chain_id = {}",
                other, o.chain_id)));
        }
        ASSERT_TRUE(first.store().rollback_to(o.chain_id, 0));
    }
    const std::array<DbValue, 1> own{static_cast<int64_t>(o.chain_id)};
    const auto others = db->query("SELECT COUNT(*) FROM raw_logs WHERE chain_id <> $1", own);
    ASSERT_TRUE(others && !others->empty());
    // More than a bulk load allows even if every log of this chain came in one batch.
    ASSERT_GT(std::get<int64_t>(others->front()[0]),
              std::get<int64_t>(others->front()[0]) / 20 * int64_t{kBulkLoadRatio});

    Indexer added(o, client_for(devnet().rpc_url()), *db);
    ASSERT_TRUE(added.start());
    std::stop_source stop;
    bool dropped = false;
    uint64_t stored = 0;
    ASSERT_TRUE(
        added.run(stop.get_token(), false, std::chrono::milliseconds(10), [&](const StepReport& r) {
            dropped = dropped || r.indexes_dropped;
            stored += r.stored;
        }));
    EXPECT_GT(stored, 0U);
    EXPECT_FALSE(dropped) << "a chain added to a full database dropped the indexes";
}

// The built-in addresses are the deployed ones listed in the external vectors (erc8004.json).
TEST(index_defaults, erc8004_registries_follow_the_chain_class) {
    const auto vectors = testing::read_vector_json("erc8004.json")["deployed"];
    const auto check = [&](uint64_t chain_id, const std::string& set) {
        SCOPED_TRACE(chain_id);
        const auto sources = default_erc8004_sources(chain_id);
        ASSERT_EQ(sources.size(), 3U);
        EXPECT_EQ(sources[0].kind, ContractKind::identity_registry);
        EXPECT_EQ(sources[0].address.to_checksum_hex(), vectors[set]["identity"]);
        EXPECT_EQ(sources[1].address.to_checksum_hex(), vectors[set]["reputation"]);
        EXPECT_EQ(sources[2].address.to_checksum_hex(), vectors[set]["validation"]);
    };
    for (uint64_t id : std::initializer_list<uint64_t>{1, 8453, 10, 42161, 137})
        check(id, "mainnets");
    for (uint64_t id : std::initializer_list<uint64_t>{11155111, 84532, 421614, 11155420, 80002})
        check(id, "testnets");
    EXPECT_TRUE(default_erc8004_sources(999999).empty());
}

// `credence index` and `credence node` follow the same registries when none is named: the
// deployment's, then the deployed ERC-8004 ones not already among them.
TEST(index_defaults, default_sources_add_the_deployed_registries_once) {
    const auto deployed = default_erc8004_sources(11155111);
    ASSERT_EQ(deployed.size(), 3U);
    chain::Deployment d;
    d.contracts.emplace("IdentityRegistry", deployed[0].address);  // the same address as deployed
    d.contracts.emplace(
        "ToolRegistry",
        core::Address::from_hex("0x1111111111111111111111111111111111111111").value());
    const auto sources = default_sources(&d, 11155111);
    ASSERT_EQ(sources.size(), 4U);
    EXPECT_EQ(std::count_if(sources.begin(), sources.end(),
                            [&](const auto& s) { return s.address == deployed[0].address; }),
              1);
    EXPECT_EQ(default_sources(nullptr, 11155111).size(), 3U);
    EXPECT_TRUE(default_sources(nullptr, 999999).empty());
}

}  // namespace
}  // namespace credence::index
