// Validator::run() across a lost RPC (the loop it shares with TaskWorker, agent/poll_loop): behind
// a TCP proxy in front of anvil that is down when the request arrives, run() backs off 100, 200,
// 400 ms (observed through the injected PollSleep), and once the node is back the request is
// answered exactly once.
#include <credence/agent/validator.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <credence/agent/worker_test_support.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/data_uri.hpp>

namespace {

using namespace credence;  // NOLINT(google-build-using-namespace): test file
namespace vr = chain::bindings::validation_registry;
namespace ir = chain::bindings::identity_registry;
using agent::testing::RpcProxy;
using agent::testing::WorkerDevnet;
using std::chrono::milliseconds;

class AgentValidatorRpcLoss : public WorkerDevnet {};

TEST_F(AgentValidatorRpcLoss, run_backs_off_while_the_rpc_is_gone_and_answers_once) {
    const core::Address identity = devnet().address("IdentityRegistry");
    const core::Address registry = devnet().address("ValidationRegistry");
    const std::string url = devnet().rpc_url();
    RpcProxy proxy(static_cast<uint16_t>(std::stoi(url.substr(url.rfind(':') + 1))));
    chain::RetryPolicy retry;
    retry.max_attempts = 1;

    std::mutex mutex;
    std::vector<std::pair<bool, milliseconds>> pauses;  // (after a failure, pause)
    bool failed = false;
    std::atomic<bool> finished{false};
    std::vector<agent::ValidationReport> reports;

    agent::ValidatorConfig config;
    config.registry = registry;
    config.state_dir = agent::testing::fresh_state_dir("validator-rpc-loss");
    config.tag = "hard-finality";
    config.poll_interval = milliseconds(100);
    config.max_backoff = milliseconds(800);
    config.sleep = [&](const std::stop_token& stop, milliseconds pause) {
        {
            std::lock_guard lock(mutex);
            pauses.emplace_back(failed, pause);
            if (failed && pauses.size() == 3) proxy.up();
            failed = false;
        }
        if (finished) return false;
        std::this_thread::sleep_for(std::min(pause, milliseconds(20)));
        return !stop.stop_requested();
    };
    auto handler = agent::make_handler("builtin:score");
    ASSERT_TRUE(handler);
    auto v = agent::Validator::create(chain::RpcClient::make_http(proxy.url(), {}, retry),
                                      devnet().secret_key(4), std::move(*handler), nullptr, nullptr,
                                      config);
    ASSERT_TRUE(v) << v.error().detail;

    proxy.down();
    const auto reg =
        devnet().send(1, identity, *ir::register_1("https://agent.example/agent.json"));
    core::Uint256 agent_id;
    for (const auto& log : reg.logs)
        if (auto e = ir::decode_registered_event(log.topics, log.data)) agent_id = e->agent_id;
    const std::string content = R"({"job":"classify","input":"hello","output":"greeting"})";
    const auto uri = *core::encode_base64_data_uri("application/json",
                                                   core::as_bytes(std::string_view(content)));
    const core::Hash32 request_hash = core::keccak256(content);
    devnet().send(1, registry,
                  *vr::validation_request(devnet().dev_address(4), agent_id, uri, request_hash));

    std::jthread runner([&](const std::stop_token& stop) {
        (*v)->run(
            stop,
            [&](const agent::ValidationReport& rep) {
                std::lock_guard lock(mutex);
                reports.push_back(rep);
                if (rep.request_hash == request_hash) finished = true;
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
    ASSERT_TRUE(finished) << "the request was never answered after the RPC came back";
    ASSERT_GE(pauses.size(), 3U);
    EXPECT_EQ(pauses[0], std::make_pair(true, milliseconds(100)));
    EXPECT_EQ(pauses[1], std::make_pair(true, milliseconds(200)));
    EXPECT_EQ(pauses[2], std::make_pair(true, milliseconds(400)));
    for (size_t i = 3; i < pauses.size(); ++i)
        EXPECT_EQ(pauses[i], std::make_pair(false, milliseconds(100))) << i;
    ASSERT_EQ(reports.size(), 1U);
    EXPECT_TRUE(reports[0].answered) << reports[0].detail;

    // Exactly one ValidationResponse for the request on chain.
    auto rpc = devnet().rpc();
    chain::LogFilter filter;
    filter.from_block = chain::BlockId(0);
    filter.to_block = chain::BlockId::latest();
    filter.addresses = {registry};
    filter.topics = {std::vector<core::Hash32>{vr::kValidationResponseTopic}};
    auto logs = rpc.get_logs(filter);
    ASSERT_TRUE(logs);
    size_t responses = 0;
    for (const auto& log : *logs) {
        auto e = vr::decode_validation_response_event(log.topics, log.data);
        if (e && e->request_hash == request_hash) ++responses;
    }
    EXPECT_EQ(responses, 1U);
}

}  // namespace
