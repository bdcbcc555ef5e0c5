// LogSource against a real faulty JSON-RPC server on 127.0.0.1 (tests/support/fault_rpc_server):
// adaptive ranges, refusals and splits, skipped logs, retries, timeouts, malformed bodies; and
// against a real anvil, cross-checked with the client's nlohmann path (chain::RpcClient::get_logs).
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/index/log_source.hpp>

#include "support/anvil.hpp"
#include "support/fault_rpc_server.hpp"

namespace credence::index {
namespace {

using chain::RpcErrorKind;
using nlohmann::json;
using std::chrono::milliseconds;
using testing::error_body;
using testing::FaultRpcServer;
using testing::make_log;
using testing::ok_body;
using testing::SyntheticLogs;
using Range = SyntheticLogs::Range;
using Clock = std::chrono::steady_clock;

core::Address addr(uint8_t b) {
    core::Address a;
    a.bytes.fill(b);
    return a;
}

chain::RetryPolicy fast_retry(int attempts = 4) {
    chain::RetryPolicy p;
    p.max_attempts = attempts;
    p.base_delay = milliseconds(1);
    p.max_delay = milliseconds(5);
    p.max_retry_after = milliseconds(20);
    return p;
}

LogSource source_for(const FaultRpcServer& server, RangePolicy policy, chain::HttpOptions http = {},
                     int attempts = 4) {
    return LogSource(chain::RpcClient::make_http(server.url(), http, fast_retry(attempts)), policy);
}

RangePolicy doubling(uint64_t initial, uint64_t max_blocks = 1'000'000) {
    RangePolicy p;
    p.initial_blocks = initial;
    p.max_blocks = max_blocks;
    p.target_logs = 1'000'000'000;  // pure doubling: the log count never limits the growth
    return p;
}

// A server for `logs` that refuses any range holding more than `max_results` logs with `refusal`
// (a JSON-RPC error body) and counts the requests.
struct LimitedNode {
    SyntheticLogs logs;
    size_t max_results = 0;
    int64_t code = -32005;
    std::string message = "query returned more than 10000 results";
    std::atomic<int> refused{0};
    FaultRpcServer server{[this](const json& req, httplib::Response& res) {
        json result = logs.select(req);
        if (result.size() > max_results) {
            ++refused;
            res.set_content(error_body(req["id"], code, message), "application/json");
            return;
        }
        res.set_content(ok_body(req["id"], result), "application/json");
    }};
};

TEST(index_log_source, range_doubles_after_each_success_up_to_max) {
    SyntheticLogs logs;
    logs.fill(0, 99, 1, addr(1));
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    auto source = source_for(server, doubling(4, 16));
    const std::vector<core::Address> wanted{addr(1)};
    std::vector<Range> chunks;
    uint64_t from = 0;
    while (from <= 99) {
        auto chunk = source.next_chunk(from, 99, wanted);
        ASSERT_TRUE(chunk) << chunk.error().to_string();
        EXPECT_EQ(chunk->from_block, from);
        EXPECT_EQ(chunk->requests, 1u);
        EXPECT_EQ(chunk->logs.size(), chunk->to_block - from + 1);  // one log per block
        EXPECT_TRUE(chunk->skipped.empty());
        chunks.push_back({chunk->from_block, chunk->to_block});
        from = chunk->to_block + 1;
    }
    const std::vector<Range> expected{{0, 3},   {4, 11},  {12, 27}, {28, 43},
                                      {44, 59}, {60, 75}, {76, 91}, {92, 99}};
    EXPECT_EQ(chunks, expected);
    EXPECT_EQ(logs.calls(), expected);
    EXPECT_EQ(source.range_blocks(), 16u);
}

TEST(index_log_source, too_many_results_splits_down_to_a_range_that_fits) {
    LimitedNode node;
    node.logs.fill(1'000, 1'999, 10, addr(1));  // 10 logs per block
    node.max_results = 250;                     // so at most 25 blocks per request
    auto source = source_for(node.server, doubling(200));
    const std::vector<core::Address> wanted{addr(1)};
    auto chunk = source.next_chunk(1'000, 1'999, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    // 200 -> 100 -> 50 -> 25 blocks: three refusals, then [1000, 1024] fits.
    EXPECT_EQ(chunk->requests, 4u);
    EXPECT_EQ(chunk->to_block, 1'024u);
    EXPECT_EQ(chunk->logs.size(), 250u);
    const std::vector<Range> asked{{1'000, 1'199}, {1'000, 1'099}, {1'000, 1'049}, {1'000, 1'024}};
    EXPECT_EQ(node.logs.calls(), asked);
    EXPECT_EQ(node.refused.load(), 3);
    // The next chunk starts from the doubled range and is split once more.
    auto next = source.next_chunk(1'025, 1'999, wanted);
    ASSERT_TRUE(next) << next.error().to_string();
    EXPECT_EQ(next->requests, 2u);
    EXPECT_EQ(next->from_block, 1'025u);
    EXPECT_EQ(next->to_block, 1'049u);
    // Logs come sorted by (block_num, log_index).
    for (size_t i = 1; i < chunk->logs.size(); ++i) {
        const auto& a = chunk->logs[i - 1];
        const auto& b = chunk->logs[i];
        EXPECT_LT(std::pair(a.block_num, a.log_index), std::pair(b.block_num, b.log_index));
    }
}

}  // namespace
}  // namespace credence::index
