// ERC-8301 evidence-chain verification from the index (docs/benchmarks.md: a 10,000-step chain
// verified from the index in under 1 s).
//
// Setup (not timed): a synthetic sequential run of N steps (task -> reply -> task ... -> final
// task, every reply proven by a valid ERC-8274 record) written with the index schema into a SQLite
// file in the per-process scratch directory (verify/verifiers/evidence_synthetic.hpp), with correct
// hashes. Timed: opening the offline source and verify_run() from result() back to the initial task
// — every row read by its hash index, every hash recomputed, every link, time and proof checked.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>

#include <credence/index/database.hpp>
#include <credence/verify/verifiers/evidence.hpp>
#include <credence/verify/verifiers/evidence_source.hpp>
#include <credence/verify/verifiers/evidence_synthetic.hpp>
#include <support/scratch.hpp>

namespace {

namespace verify = credence::verify;

void BM_verify_run_from_index(benchmark::State& state) {
    const auto steps = static_cast<uint64_t>(state.range(0));
    // Google Benchmark may call this function more than once: a fresh file each time.
    static int counter = 0;
    const auto path =
        credence::testing::scratch_dir() /
        ("evidence_" + std::to_string(steps) + "_" + std::to_string(counter++) + ".sqlite");
    auto db = credence::index::open_sqlite(path);
    if (!db) {
        state.SkipWithError(db.error().to_string().c_str());
        return;
    }
    verify::SyntheticRunOptions options;
    options.steps = steps;
    auto run = verify::write_synthetic_run(**db, options);
    if (!run) {
        state.SkipWithError(run.error().to_string().c_str());
        return;
    }
    for (auto _ : state) {
        auto source =
            verify::make_index_evidence_source(**db, run->run_id, std::nullopt, std::nullopt);
        if (!source) {
            state.SkipWithError(source.error().message.c_str());
            return;
        }
        auto report = verify::verify_run(**source, run->run_id);
        if (!report || !report->valid) {
            state.SkipWithError("the synthetic chain did not verify");
            return;
        }
        benchmark::DoNotOptimize(report->tasks.size());
    }
    state.counters["steps/s"] = benchmark::Counter(static_cast<double>(steps),
                                                   benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_verify_run_from_index)->Arg(1'000)->Arg(10'000)->Unit(benchmark::kMillisecond);

}  // namespace
