// The agent runtime on a real devnet (docs/benchmarks.md):
//   BM_worker_overhead_per_task   the worker's own time per replied task: total - handler - the
//                                 transaction's submission and receipt wait (RPC reads included)
//   BM_sequential_pipeline_run    run() -> WorkflowCompleted of Scenario 3 with three workers
//                                 (one per stage) running in threads
//   BM_100_runs_3_workers         100 concurrent Scenario 3 runs, three workers: every run
//                                 completes, each task gets exactly one reply (no loss, no dup)
// Needs CREDENCE_ANVIL (or the checkout's node_modules anvil). Each benchmark runs once
// (Iterations(1)): the devnet, not the CPU, sets the time.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <stop_token>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>

#include <credence/agent/task_worker.hpp>
#include <credence/chain/bindings/i_agent_workflow.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/keccak.hpp>
#include <support/devnet.hpp>
#include <support/scratch.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): bench file
namespace iw = chain::bindings::i_agent_workflow;
using Clock = std::chrono::steady_clock;

std::filesystem::path fresh_dir(const std::string& name) {
    static std::atomic<int> n{0};
    auto p = credence::testing::scratch_dir() / (name + std::to_string(++n));
    std::filesystem::remove_all(p);
    return p;
}

std::unique_ptr<agent::TaskWorker> make_worker(credence::testing::Devnet& d, size_t key,
                                               const core::Address& wf,
                                               std::optional<uint8_t> stage,
                                               agent::ProofMode mode) {
    auto h = agent::make_handler("builtin:echo");
    agent::WorkerConfig c;
    c.workflow = wf;
    c.stage = stage;
    c.state_dir = fresh_dir("bench-worker");
    c.proof_mode = mode;
    c.poll_interval = std::chrono::milliseconds(20);
    auto w =
        agent::TaskWorker::create(d.rpc(), d.secret_key(key), d.secret_key(0), std::move(*h), c);
    if (!w) std::abort();
    return std::move(*w);
}

/// run() from dev account 9 (nonces managed by one sender); the run ids.
std::vector<core::Hash32> start_runs(credence::testing::Devnet& d, const core::Address& wf,
                                     size_t n) {
    auto rpc = d.rpc();
    auto key = d.secret_key(9);
    chain::TxnSender sender(rpc, key);
    std::vector<core::Hash32> ids;
    for (size_t i = 0; i < n; ++i) {
        const std::string input = "run " + std::to_string(i);
        chain::TxnRequest req;
        req.to = wf;
        req.data = *iw::run(core::keccak256(input), core::as_bytes(std::string_view(input)),
                            core::Uint256{0});
        auto r = sender.send(req);
        if (!r) std::abort();
        for (const auto& log : r->logs)
            if (auto e = iw::decode_new_agent_task_event(log.topics, log.data)) {
                ids.push_back(e->workflow_run_id);
                break;
            }
    }
    return ids;
}

double thread_cpu_ms() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

uint64_t status_of(chain::RpcClient& rpc, const core::Address& wf, const core::Hash32& id) {
    chain::ContractCaller caller(rpc);
    auto r = iw::call::result(caller, wf, id);
    return r ? r->status : 0;
}

void BM_worker_overhead_per_task(benchmark::State& state) {
    auto d = credence::testing::Devnet::start();
    if (!d) {
        state.SkipWithError(d.error().c_str());
        return;
    }
    const auto wf = (*d)->address("SingleStageWorkflow");
    auto worker = make_worker(**d, 1, wf, std::nullopt, agent::ProofMode::never);
    const size_t runs = 50;
    std::vector<double> overhead_ms;
    double cpu_ms = 0;  // the worker thread's CPU in step(), handler and signing included
    for (auto _ : state) {
        start_runs(**d, wf, runs);
        const auto deadline = Clock::now() + std::chrono::seconds(60);
        while (overhead_ms.size() < runs && Clock::now() < deadline) {
            const double c0 = thread_cpu_ms();
            auto r = worker->step();
            cpu_ms += thread_cpu_ms() - c0;
            if (!r) continue;
            for (const auto& rep : *r) {
                if (rep.outcome != agent::TaskOutcome::replied) continue;
                const auto own = rep.total_time - rep.handler_time - rep.chain_time;
                overhead_ms.push_back(std::chrono::duration<double, std::milli>(own).count());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    std::sort(overhead_ms.begin(), overhead_ms.end());
    if (overhead_ms.empty()) {
        state.SkipWithError("no task replied");
        return;
    }
    double sum = 0;
    for (double v : overhead_ms) sum += v;
    state.counters["tasks"] = static_cast<double>(overhead_ms.size());
    state.counters["cpu_per_task_ms"] = cpu_ms / static_cast<double>(overhead_ms.size());
    state.counters["overhead_mean_ms"] = sum / static_cast<double>(overhead_ms.size());
    state.counters["overhead_p50_ms"] = overhead_ms[overhead_ms.size() / 2];
    state.counters["overhead_p95_ms"] = overhead_ms[overhead_ms.size() * 95 / 100];
}
BENCHMARK(BM_worker_overhead_per_task)->Iterations(1)->Unit(benchmark::kMillisecond);

/// Three stage workers in threads on SequentialPipelineWorkflow; runs `n` runs and waits for all.
void pipeline(benchmark::State& state, size_t n) {
    auto d = credence::testing::Devnet::start();
    if (!d) {
        state.SkipWithError(d.error().c_str());
        return;
    }
    const auto wf = (*d)->address("SequentialPipelineWorkflow");
    std::vector<std::unique_ptr<agent::TaskWorker>> workers;
    for (uint8_t s = 0; s < 3; ++s)
        workers.push_back(make_worker(**d, 1 + s, wf, s, agent::ProofMode::auto_));
    std::atomic<size_t> anomalies{0};
    std::stop_source stop;
    std::vector<std::jthread> threads;
    for (auto& w : workers) {
        threads.emplace_back([&w, &anomalies, token = stop.get_token()] {
            w->run(token, [&](const agent::TaskReport& r) {
                if (r.outcome != agent::TaskOutcome::replied &&
                    r.outcome != agent::TaskOutcome::deferred)
                    ++anomalies;
            });
        });
    }
    auto rpc = (*d)->rpc();
    double seconds = 0;
    size_t completed = 0;
    std::vector<core::Hash32> ids;
    for (auto _ : state) {
        const auto t0 = Clock::now();
        ids = start_runs(**d, wf, n);
        const auto deadline = t0 + std::chrono::seconds(120);
        while (Clock::now() < deadline) {
            completed = 0;
            for (const auto& id : ids)
                completed += status_of(rpc, wf, id) == 1 ? size_t{1} : size_t{0};
            if (completed == ids.size()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        seconds = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    stop.request_stop();
    threads.clear();
    // No lost or duplicated reply: exactly 3 AgentReplyAnchored per run (one per stage).
    chain::LogFilter f;
    f.from_block = chain::BlockId(0);
    f.addresses = {wf};
    f.topics = {std::vector<core::Hash32>{iw::kAgentReplyAnchoredTopic}};
    auto logs = rpc.get_logs(f);
    std::map<core::Hash32, size_t> per_run;
    if (logs)
        for (const auto& l : *logs) ++per_run[l.topics[1]];
    size_t exact = 0;
    for (const auto& id : ids) exact += per_run[id] == 3 ? size_t{1} : size_t{0};
    state.counters["runs"] = static_cast<double>(n);
    state.counters["completed"] = static_cast<double>(completed);
    state.counters["runs_with_exactly_3_replies"] = static_cast<double>(exact);
    state.counters["anomalous_reports"] = static_cast<double>(anomalies.load());
    state.counters["wall_s"] = seconds;
    state.counters["s_per_run"] = seconds / static_cast<double>(n);
}

void BM_sequential_pipeline_run(benchmark::State& state) { pipeline(state, 1); }
BENCHMARK(BM_sequential_pipeline_run)->Iterations(1)->Unit(benchmark::kMillisecond);

void BM_100_runs_3_workers(benchmark::State& state) { pipeline(state, 100); }
BENCHMARK(BM_100_runs_3_workers)->Iterations(1)->Unit(benchmark::kMillisecond);

}  // namespace
