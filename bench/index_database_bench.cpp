// Write throughput of the index database layer (issue #5 §Performance: SQLite >= 50,000 events/s,
// PostgreSQL >= 20,000 events/s with about three statements per event).
//
// Each iteration is one transaction of kRowsPerTx inserts of a 3-column row (BIGINT key, 32-byte
// {{BLOB}}, TEXT) through the same prepared statement, the shape of the indexer's batches. The
// "rows/s" counter is the figure to compare with the goals. SQLite writes a WAL file in the
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

void BM_sqlite_insert_3col(benchmark::State& state) { insert_rows(state, Dialect::sqlite); }
void BM_postgres_insert_3col(benchmark::State& state) { insert_rows(state, Dialect::postgres); }

// Wall-clock time: PostgreSQL does its work in another process.
BENCHMARK(BM_sqlite_insert_3col)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_postgres_insert_3col)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace
