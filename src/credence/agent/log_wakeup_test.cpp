// eth_subscribe as the workers' wake-up (agent/log_wakeup.hpp), on a real devnet.
//
// The poll interval is 30 s in the tests that check the wake-up: an answer within a few seconds
// can then only come from a notification ending the pause. The fallbacks run on real servers: an
// HTTP-only JSON-RPC node in front of anvil (the upgrade is refused: the worker polls), and a TCP
// proxy for the WebSocket only, taken down mid-run (the subscription drops: the worker polls,
// reconnects, and a task emitted during the outage is answered when the subscription returns).
#include <credence/chain/log_wakeup.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>

#include <credence/agent/task_worker.hpp>
#include <credence/agent/validator.hpp>
#include <credence/agent/worker_test_support.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/websocket_handshake.hpp>
#include <credence/core/data_uri.hpp>
#include <credence/core/keccak.hpp>
#include <support/fault_rpc_server.hpp>
#include <support/process.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file
namespace vr = chain::bindings::validation_registry;
namespace ir = chain::bindings::identity_registry;
using agent::TaskOutcome;
using agent::testing::RpcProxy;
using agent::testing::WorkerDevnet;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

/// The info lines of a LogWakeup, and the worker's reports, collected across threads.
struct Observed {
    std::mutex mutex;
    std::vector<std::string> info;
    std::vector<agent::TaskReport> reports;

    std::function<void(std::string_view)> sink() {
        return [this](std::string_view line) {
            const std::lock_guard lock(mutex);
            info.emplace_back(line);
        };
    }
    size_t lines_with(std::string_view text) {
        const std::lock_guard lock(mutex);
        size_t n = 0;
        for (const auto& l : info)
            if (l.find(text) != std::string::npos) ++n;
        return n;
    }
    bool wait_for_line(std::string_view text, size_t count = 1, seconds limit = seconds(10)) {
        const auto deadline = Clock::now() + limit;
        while (Clock::now() < deadline) {
            if (lines_with(text) >= count) return true;
            std::this_thread::sleep_for(milliseconds(10));
        }
        return false;
    }
    std::optional<agent::TaskReport> answer(const core::Hash32& task) {
        const std::lock_guard lock(mutex);
        for (const auto& r : reports)
            if (r.task_hash == task && r.outcome != TaskOutcome::deferred) return r;
        return std::nullopt;
    }
    /// Waits up to `limit` for the task's final report; how long it took.
    std::optional<Clock::duration> wait_for_answer(const core::Hash32& task, seconds limit) {
        const auto t0 = Clock::now();
        while (Clock::now() - t0 < limit) {
            if (answer(task)) return Clock::now() - t0;
            std::this_thread::sleep_for(milliseconds(10));
        }
        return std::nullopt;
    }
    std::string dump() {
        const std::lock_guard lock(mutex);
        std::string out;
        for (const auto& l : info) out += l + "\n";
        return out;
    }
};

class AgentLogWakeup : public WorkerDevnet {
protected:
    chain::SubscribeConfig subscribe(const std::string& ws_url, Observed& seen) {
        chain::SubscribeConfig s;
        s.ws_url = ws_url;
        s.retry_min = milliseconds(100);
        s.retry_max = milliseconds(400);
        s.on_info = seen.sink();
        return s;
    }

    std::jthread run(agent::TaskWorker& worker, Observed& seen) {
        return std::jthread([&worker, &seen](const std::stop_token& stop) {
            worker.run(stop, [&seen](const agent::TaskReport& r) {
                const std::lock_guard lock(seen.mutex);
                seen.reports.push_back(r);
            });
        });
    }
};
// Suites are snake_case (the style guide); gtest takes the suite name from the fixture type.
using agent_log_wakeup = AgentLogWakeup;  // NOLINT(readability-identifier-naming)

TEST_F(agent_log_wakeup, new_task_wakes_a_worker_with_a_30_s_poll_interval) {
    const core::Address wf = devnet().address("SingleStageWorkflow");
    Observed seen;
    agent::WorkerConfig config;
    config.poll_interval = seconds(30);
    config.subscribe = subscribe(*chain::websocket_url_for(devnet().rpc_url()), seen);
    auto worker = make_worker(1, wf, config);
    ASSERT_NE(worker, nullptr);
    auto runner = run(*worker, seen);
    ASSERT_TRUE(seen.wait_for_line("subscribed to NewAgentTask logs")) << seen.dump();
    // Let the wake-up of the new subscription be consumed, so the worker is in its 30 s pause.
    std::this_thread::sleep_for(milliseconds(300));

    const auto [run_id, task] = start_run(wf, "wake me up");
    const auto took = seen.wait_for_answer(task, seconds(10));
    runner.request_stop();
    runner.join();
    ASSERT_TRUE(took) << "not answered within 10 s: the pause was not cut short\n" << seen.dump();
    EXPECT_EQ(seen.answer(task)->outcome, TaskOutcome::replied);
    EXPECT_EQ(anchored_replies(wf, run_id, devnet().dev_address(1)), 1U);
    EXPECT_EQ(seen.lines_with("lost"), 0U) << seen.dump();
}

TEST_F(agent_log_wakeup, node_without_websocket_falls_back_to_polling) {
    // A JSON-RPC node over HTTP only: every POST goes to anvil, a WebSocket upgrade gets 404.
    const uint16_t anvil_port = credence::testing::port_of_url(devnet().rpc_url());
    credence::testing::FaultRpcServer http_only(
        [anvil_port](const nlohmann::json& req, httplib::Response& res) {
            httplib::Client anvil("127.0.0.1", anvil_port);
            auto r = anvil.Post("/", req.dump(), "application/json");
            if (!r) {
                res.status = 502;
                return;
            }
            res.status = r->status;
            res.set_content(r->body, "application/json");
        });
    const core::Address wf = devnet().address("SingleStageWorkflow");
    Observed seen;
    agent::WorkerConfig config;
    config.poll_interval = milliseconds(200);
    config.subscribe = subscribe(*chain::websocket_url_for(http_only.url()), seen);
    auto worker = make_worker(1, wf, config, chain::RpcClient::make_http(http_only.url()));
    ASSERT_NE(worker, nullptr);
    auto runner = run(*worker, seen);
    ASSERT_TRUE(seen.wait_for_line("not offered")) << seen.dump();

    const auto [run_id, task] = start_run(wf, "poll for me");
    const auto took = seen.wait_for_answer(task, seconds(20));
    runner.request_stop();
    runner.join();
    ASSERT_TRUE(took) << seen.dump();
    EXPECT_EQ(seen.answer(task)->outcome, TaskOutcome::replied);
    // Said once, never retried: the node does not offer it.
    EXPECT_EQ(seen.info.size(), 1U) << seen.dump();
    EXPECT_NE(seen.info[0].find("refused the upgrade"), std::string::npos) << seen.dump();
}

TEST_F(agent_log_wakeup, dropped_socket_falls_back_to_polling_and_the_worker_still_answers) {
    // Only the WebSocket goes through the proxy; eth_getLogs goes to anvil directly.
    RpcProxy ws_proxy(credence::testing::port_of_url(devnet().rpc_url()));
    const core::Address wf = devnet().address("SingleStageWorkflow");
    Observed seen;
    agent::WorkerConfig config;
    config.poll_interval = milliseconds(300);
    config.subscribe = subscribe(*chain::websocket_url_for(ws_proxy.url()), seen);
    auto worker = make_worker(1, wf, config);
    ASSERT_NE(worker, nullptr);
    auto runner = run(*worker, seen);
    ASSERT_TRUE(seen.wait_for_line("subscribed to")) << seen.dump();

    ws_proxy.down();  // cuts the open WebSocket
    ASSERT_TRUE(seen.wait_for_line("subscription lost")) << seen.dump();
    const auto [run_id, task] = start_run(wf, "answered while the socket is down");
    const auto took = seen.wait_for_answer(task, seconds(20));
    const bool still_down = !ws_proxy.is_up();
    runner.request_stop();
    runner.join();
    ASSERT_TRUE(took) << seen.dump();
    EXPECT_TRUE(still_down);
    EXPECT_EQ(seen.answer(task)->outcome, TaskOutcome::replied);
    EXPECT_EQ(seen.lines_with("resubscribed"), 0U) << seen.dump();
    // One line for the outage, not one per reconnection attempt.
    EXPECT_EQ(seen.lines_with("unreachable"), 0U) << seen.dump();
}

TEST_F(agent_log_wakeup, resubscribing_wakes_the_worker_for_what_the_outage_hid) {
    RpcProxy ws_proxy(credence::testing::port_of_url(devnet().rpc_url()));
    const core::Address wf = devnet().address("SingleStageWorkflow");
    Observed seen;
    agent::WorkerConfig config;
    config.poll_interval = seconds(30);
    config.subscribe = subscribe(*chain::websocket_url_for(ws_proxy.url()), seen);
    auto worker = make_worker(1, wf, config);
    ASSERT_NE(worker, nullptr);
    auto runner = run(*worker, seen);
    ASSERT_TRUE(seen.wait_for_line("subscribed to")) << seen.dump();
    // Let the wake-up of the first subscription be consumed, so the worker is in its 30 s pause.
    std::this_thread::sleep_for(milliseconds(300));

    ws_proxy.down();
    ASSERT_TRUE(seen.wait_for_line("subscription lost")) << seen.dump();
    // Emitted while no subscription is open: no notification will ever carry it.
    const auto [run_a, task_a] = start_run(wf, "emitted during the outage");
    std::this_thread::sleep_for(milliseconds(300));
    EXPECT_FALSE(seen.answer(task_a)) << "answered before the subscription returned";
    ws_proxy.up();
    ASSERT_TRUE(seen.wait_for_line("resubscribed to")) << seen.dump();
    // The new subscription wakes the worker once; its eth_getLogs finds the task.
    const auto took_a = seen.wait_for_answer(task_a, seconds(10));
    // And notifications flow again.
    const auto [run_b, task_b] = start_run(wf, "emitted after the return");
    const auto took_b = seen.wait_for_answer(task_b, seconds(10));
    runner.request_stop();
    runner.join();
    ASSERT_TRUE(took_a) << seen.dump();
    ASSERT_TRUE(took_b) << seen.dump();
    EXPECT_EQ(seen.answer(task_a)->outcome, TaskOutcome::replied);
    EXPECT_EQ(seen.answer(task_b)->outcome, TaskOutcome::replied);
    EXPECT_EQ(anchored_replies(wf, run_a, devnet().dev_address(1)), 1U);
    EXPECT_EQ(anchored_replies(wf, run_b, devnet().dev_address(1)), 1U);
}

TEST_F(agent_log_wakeup, validation_request_wakes_a_validator_with_a_30_s_poll_interval) {
    const core::Address identity = devnet().address("IdentityRegistry");
    const core::Address registry = devnet().address("ValidationRegistry");
    Observed seen;
    agent::ValidatorConfig config;
    config.registry = registry;
    config.state_dir = agent::testing::fresh_state_dir("validator-wakeup");
    config.poll_interval = seconds(30);
    config.subscribe = subscribe(*chain::websocket_url_for(devnet().rpc_url()), seen);
    auto handler = agent::make_handler("builtin:score");
    ASSERT_TRUE(handler);
    auto v = agent::Validator::create(devnet().rpc(), devnet().secret_key(4), std::move(*handler),
                                      nullptr, nullptr, config);
    ASSERT_TRUE(v) << v.error().detail;
    std::mutex mutex;
    std::vector<agent::ValidationReport> reports;
    std::jthread runner([&](const std::stop_token& stop) {
        (*v)->run(stop, [&](const agent::ValidationReport& rep) {
            const std::lock_guard lock(mutex);
            reports.push_back(rep);
        });
    });
    ASSERT_TRUE(seen.wait_for_line("subscribed to ValidationRequest logs")) << seen.dump();
    std::this_thread::sleep_for(milliseconds(300));  // into the 30 s pause

    const auto reg =
        devnet().send(1, identity, *ir::register_1("https://agent.example/agent.json"));
    core::Uint256 agent_id;
    for (const auto& log : reg.logs)
        if (auto e = ir::decode_registered_event(log.topics, log.data)) agent_id = e->agent_id;
    const std::string content = R"({"job":"classify","input":"hi","output":"greeting"})";
    const auto uri = *core::encode_base64_data_uri("application/json",
                                                   core::as_bytes(std::string_view(content)));
    const core::Hash32 request_hash = core::keccak256(content);
    devnet().send(1, registry,
                  *vr::validation_request(devnet().dev_address(4), agent_id, uri, request_hash));
    bool answered = false;
    const auto deadline = Clock::now() + seconds(10);
    while (!answered && Clock::now() < deadline) {
        {
            const std::lock_guard lock(mutex);
            for (const auto& r : reports) answered = answered || r.request_hash == request_hash;
        }
        std::this_thread::sleep_for(milliseconds(10));
    }
    runner.request_stop();
    runner.join();
    ASSERT_TRUE(answered) << "not answered within 10 s\n" << seen.dump();
    const std::lock_guard lock(mutex);
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_TRUE(reports[0].answered) << reports[0].detail;
}

}  // namespace
