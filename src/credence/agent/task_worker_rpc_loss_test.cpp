// TaskWorker::run() across a lost RPC, on a real anvil behind a TCP proxy (agent/
// worker_test_support.hpp) that the test takes down and brings back: run() backs off
// poll_interval, 2x, 4x, ... up to max_backoff while the node is unreachable (observed through the
// injected PollSleep, so nothing is timed), resets after a success, and the pending task ends with
// exactly one reply, even when the node accepted the reply's transaction and the answer was lost.
#include <credence/agent/poll_loop.hpp>
#include <credence/agent/task_worker.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <credence/agent/worker_test_support.hpp>
#include <credence/chain/rpc_client.hpp>
#include <support/process.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file
using agent::TaskOutcome;
using agent::testing::RpcProxy;
using agent::testing::WorkerDevnet;
using std::chrono::milliseconds;

TEST(agent_poll_loop, pause_doubles_after_each_failure_up_to_the_cap) {
    const agent::PollTiming t{milliseconds(100), milliseconds(800)};
    EXPECT_EQ(agent::poll_pause(t, 0), milliseconds(100));
    EXPECT_EQ(agent::poll_pause(t, 1), milliseconds(100));
    EXPECT_EQ(agent::poll_pause(t, 2), milliseconds(200));
    EXPECT_EQ(agent::poll_pause(t, 3), milliseconds(400));
    EXPECT_EQ(agent::poll_pause(t, 4), milliseconds(800));
    EXPECT_EQ(agent::poll_pause(t, 40), milliseconds(800));
    // A cap below the interval never shortens the normal pause.
    EXPECT_EQ(agent::poll_pause({milliseconds(300), milliseconds(100)}, 5), milliseconds(300));
}

/// What run() asked to wait, and whether the step before it had failed.
struct Pause {
    bool after_failure = false;
    milliseconds pause{0};
};

class AgentRpcLoss : public WorkerDevnet {};

TEST_F(AgentRpcLoss, run_backs_off_while_the_rpc_is_gone_and_replies_once_when_it_returns) {
    const core::Address wf = devnet().address("SingleStageWorkflow");
    const core::Address me = devnet().dev_address(1);
    RpcProxy proxy(credence::testing::port_of_url(devnet().rpc_url()));
    // One HTTP attempt per call: the worker's own backoff is under test, not the client's.
    chain::RetryPolicy retry;
    retry.max_attempts = 1;
    auto rpc = chain::RpcClient::make_http(proxy.url(), {}, retry);

    std::mutex mutex;
    std::vector<Pause> pauses;
    bool failed = false;            // the last step failed (set by on_error)
    size_t failures_since_cut = 0;  // failed steps after the proxy cut the reply's answer
    std::atomic<bool> finished{false};
    std::optional<agent::TaskReport> final_report;

    agent::WorkerConfig config;
    config.poll_interval = milliseconds(100);
    config.max_backoff = milliseconds(800);
    config.sleep = [&](const std::stop_token& stop, milliseconds pause) {
        {
            std::lock_guard lock(mutex);
            pauses.push_back({failed, pause});
            if (failed && pauses.size() == 5 && !proxy.is_up()) {
                // The node comes back, but will lose the answer to the reply's transaction.
                proxy.cut_after("eth_sendRawTransaction");
                proxy.up();
            }
            if (failed && proxy.cuts() == 1 && ++failures_since_cut == 3) proxy.up();
            failed = false;
        }
        if (finished) return false;
        std::this_thread::sleep_for(std::min(pause, milliseconds(20)));
        return !stop.stop_requested();
    };
    auto worker = make_worker(1, wf, config, std::move(rpc));
    ASSERT_NE(worker, nullptr);

    proxy.down();
    const auto [run_id, task] = start_run(wf, "answer me once the node is back");

    std::vector<agent::TaskReport> reports;
    std::jthread runner([&](const std::stop_token& stop) {
        worker->run(
            stop,
            [&](const agent::TaskReport& rep) {
                std::lock_guard lock(mutex);
                reports.push_back(rep);
                if (rep.task_hash == task && rep.outcome != TaskOutcome::deferred) {
                    final_report = rep;
                    finished = true;
                }
            },
            [&](const agent::AgentFailure&) {
                std::lock_guard lock(mutex);
                failed = true;
            });
    });
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!finished && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(milliseconds(20));
    runner.request_stop();
    runner.join();

    std::lock_guard lock(mutex);
    ASSERT_TRUE(finished) << "the task was never answered after the RPC came back";
    // Each run of consecutive failures pauses 100, 200, 400, 800, 800, ... ms (doubling, capped
    // at max_backoff); every pause after a success is the poll interval, so a success resets the
    // schedule. The node was gone from the start (a first run of at least 5 failures); it was lost
    // again when it took the reply, which either follows a success (a second run from 100 ms) or
    // directly extends the first run (when the first step after the return already replied).
    EXPECT_EQ(proxy.cuts(), 1U);
    ASSERT_FALSE(pauses.empty());
    EXPECT_FALSE(pauses.back().after_failure) << "the last step (the answer) succeeded";
    const agent::PollTiming timing{milliseconds(100), milliseconds(800)};
    std::vector<size_t> runs;
    unsigned failures = 0;
    for (size_t i = 0; i < pauses.size(); ++i) {
        if (pauses[i].after_failure) {
            ++failures;
        } else {
            if (failures > 0) runs.push_back(failures);
            failures = 0;
        }
        EXPECT_EQ(pauses[i].pause, agent::poll_pause(timing, failures)) << "pause " << i;
    }
    ASSERT_FALSE(runs.empty());
    EXPECT_GE(runs.front(), 5U);
    size_t total = 0;
    for (const size_t r : runs) total += r;
    EXPECT_GE(total, 8U) << "5 failures while gone, 3 after the lost answer";
    EXPECT_EQ(agent::poll_pause(timing, 5), milliseconds(800));

    // The transaction whose answer was lost had been mined: after the outage the journal's
    // operation resolves to it, and nothing is sent again (ERC-8301 §onAgentReply step 1).
    ASSERT_TRUE(final_report);
    // The stage is sync, so the worker then proves the reply it found (outcome proven).
    EXPECT_TRUE(final_report->outcome == TaskOutcome::already_replied ||
                final_report->outcome == TaskOutcome::proven)
        << agent::to_string(final_report->outcome) << " " << final_report->detail;
    ASSERT_TRUE(final_report->operation_id && final_report->reply_hash);
    EXPECT_EQ(canonical_reply(wf, run_id, me, *final_report->operation_id),
              *final_report->reply_hash);
    EXPECT_EQ(anchored_replies(wf, run_id, me), 1U);
    for (const auto& rep : reports) {
        if (rep.task_hash == task) {
            EXPECT_NE(rep.outcome, TaskOutcome::replied);
        }
    }
}

}  // namespace
