// Write throughput of the index database layer (docs/benchmarks.md goal: SQLite >= 50,000 events/s,
// PostgreSQL >= 20,000 events/s with about three statements per event).
//
// Each iteration is one transaction of kRowsPerTx inserts of a 3-column row (BIGINT key, 32-byte
// {{BLOB}}, TEXT) through the same prepared statement, the shape of the indexer's batches. The
// "rows/s" counter is the raw statement rate; BM_*_event_mix runs the indexer's shape (three
// statements per event: raw log insert, projection upsert, counter update) and reports events/s,
// the figure to compare with the goals. SQLite writes a WAL file in the
// per-process scratch directory; PostgreSQL is the tests' real server (tests/support/postgres),
// started once for the process.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <credence/index/database.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace {

using credence::index::Database;
using credence::index::DbValue;
using credence::index::Dialect;

constexpr int64_t kRowsPerTx = 10000;

std::unique_ptr<Database> open_for(Dialect dialect, benchmark::State& state) {
    static int counter = 0;
    std::string location;
    if (dialect == Dialect::sqlite) {
        location = "sqlite:" + (credence::testing::scratch_dir() /
                                ("bench_" + std::to_string(counter++) + ".sqlite"))
                                   .string();
    } else {
        auto url = credence::testing::postgres_test_url();
        if (!url) {
            state.SkipWithError(("PostgreSQL test server: " + url.error()).c_str());
            return nullptr;
        }
        location = *url;
    }
    auto db = credence::index::open_database(location);
    if (!db) {
        state.SkipWithError(db.error().to_string().c_str());
        return nullptr;
    }
    const auto schema = credence::index::apply_dialect(
        "CREATE TABLE rows3 (k BIGINT PRIMARY KEY, h {{BLOB}} NOT NULL, s TEXT NOT NULL)",
        (*db)->dialect());
    if (auto r = (*db)->exec_script(schema); !r) {
        state.SkipWithError(r.error().to_string().c_str());
        return nullptr;
    }
    return std::move(*db);
}

void insert_rows(benchmark::State& state, Dialect dialect) {
    auto db = open_for(dialect, state);
    if (!db) return;
    int64_t key = 0;
    std::vector<DbValue> params(3);
    for (auto _ : state) {
        if (auto r = db->begin(); !r) {
            state.SkipWithError(r.error().to_string().c_str());
            return;
        }
        for (int64_t i = 0; i < kRowsPerTx; ++i, ++key) {
            params[0] = key;
            params[1] = credence::core::Bytes(32, static_cast<uint8_t>(key));
            params[2] = "agent-" + std::to_string(key);
            if (auto r = db->exec("INSERT INTO rows3 (k, h, s) VALUES ($1, $2, $3)", params); !r) {
                state.SkipWithError(r.error().to_string().c_str());
                return;
            }
        }
        if (auto r = db->commit(); !r) {
            state.SkipWithError(r.error().to_string().c_str());
            return;
        }
    }
    state.counters["rows/s"] = benchmark::Counter(
        static_cast<double>(state.iterations() * kRowsPerTx), benchmark::Counter::kIsRate);
}

// The indexer's shape: per event, an insert of the raw log, an upsert of a projection row and an
// insert into a history table (three statements), kRowsPerTx events per transaction, and the
// cursor updated once per transaction. (Updating one row per event is a PostgreSQL anti-pattern:
// every update in a transaction leaves a row version the next one must skip, so the cost grows
// quadratically; measured at under 5,000 events/s here. Keep per-batch counters in memory.)
void event_mix(benchmark::State& state, Dialect dialect) {
    auto db = open_for(dialect, state);
    if (!db) return;
    const auto schema = credence::index::apply_dialect(
        "CREATE TABLE logs (block_num BIGINT, log_index BIGINT, topic0 {{BLOB}}, data {{BLOB}}, "
        "PRIMARY KEY (block_num, log_index));"
        "CREATE TABLE agents (agent_id BIGINT PRIMARY KEY, owner {{BLOB}}, uri TEXT, "
        "updates BIGINT NOT NULL);"
        "CREATE TABLE history (agent_id BIGINT, block_num BIGINT, log_index BIGINT, uri TEXT);"
        "CREATE TABLE cursors (name TEXT PRIMARY KEY, block_num BIGINT NOT NULL);"
        "INSERT INTO cursors VALUES ('events', 0);",
        db->dialect());
    if (auto r = db->exec_script(schema); !r) {
        state.SkipWithError(r.error().to_string().c_str());
        return;
    }
    int64_t event = 0;
    std::vector<DbValue> log(4);
    std::vector<DbValue> agent(3);
    std::vector<DbValue> history(4);
    std::vector<DbValue> cursor{std::string("events"), int64_t{0}};
    for (auto _ : state) {
        if (auto r = db->begin(); !r) {
            state.SkipWithError(r.error().to_string().c_str());
            return;
        }
        for (int64_t i = 0; i < kRowsPerTx; ++i, ++event) {
            log[0] = event / 8;
            log[1] = event % 8;
            log[2] = credence::core::Bytes(32, 0xaa);
            log[3] = credence::core::Bytes(96, static_cast<uint8_t>(event));
            agent[0] = event % 50000;
            agent[1] = credence::core::Bytes(20, static_cast<uint8_t>(event));
            agent[2] = "ipfs://agent/" + std::to_string(event);
            history = {agent[0], log[0], log[1], agent[2]};
            auto r = db->exec("INSERT INTO logs VALUES ($1, $2, $3, $4)", log);
            if (r)
                r = db->exec(
                    "INSERT INTO agents VALUES ($1, $2, $3, 1) ON CONFLICT (agent_id) DO UPDATE "
                    "SET owner = excluded.owner, uri = excluded.uri, updates = agents.updates + 1",
                    agent);
            if (r) r = db->exec("INSERT INTO history VALUES ($1, $2, $3, $4)", history);
            if (!r) {
                state.SkipWithError(r.error().to_string().c_str());
                return;
            }
        }
        cursor[1] = event / 8;
        auto r = db->exec("UPDATE cursors SET block_num = $2 WHERE name = $1", cursor);
        if (r) r = db->commit();
        if (!r) {
            state.SkipWithError(r.error().to_string().c_str());
            return;
        }
    }
    state.counters["events/s"] = benchmark::Counter(
        static_cast<double>(state.iterations() * kRowsPerTx), benchmark::Counter::kIsRate);
}

void BM_sqlite_insert_3col(benchmark::State& state) { insert_rows(state, Dialect::sqlite); }
void BM_postgres_insert_3col(benchmark::State& state) { insert_rows(state, Dialect::postgres); }

// Wall-clock time: PostgreSQL does its work in another process.
void BM_sqlite_event_mix(benchmark::State& state) { event_mix(state, Dialect::sqlite); }
void BM_postgres_event_mix(benchmark::State& state) { event_mix(state, Dialect::postgres); }

BENCHMARK(BM_sqlite_insert_3col)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_postgres_insert_3col)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_sqlite_event_mix)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_postgres_event_mix)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
