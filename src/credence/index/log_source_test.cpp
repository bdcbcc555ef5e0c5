// LogSource against a real faulty JSON-RPC server on 127.0.0.1 (tests/support/fault_rpc_server):
// adaptive ranges, refusals and splits, skipped logs, retries, timeouts, malformed bodies; and
// against a real anvil, cross-checked with the client's nlohmann path (chain::RpcClient::get_logs).
#include <atomic>
#include <chrono>
#include <optional>
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

core::Address source_addr(uint8_t b) {
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
    p.max_growth = 2;
    p.max_body_bytes = 0;
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
    logs.fill(0, 99, 1, source_addr(1));
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    auto source = source_for(server, doubling(4, 16));
    const std::vector<core::Address> wanted{source_addr(1)};
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
    node.logs.fill(1'000, 1'999, 10, source_addr(1));  // 10 logs per block
    node.max_results = 250;                            // so at most 25 blocks per request
    auto source = source_for(node.server, doubling(200));
    const std::vector<core::Address> wanted{source_addr(1)};
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

// A server that answers eth_getLogs with `result` (whatever the filter), recording the ranges.
struct FixedNode {
    json result = json::array();
    std::atomic<int> hits{0};
    FaultRpcServer server{[this](const json& req, httplib::Response& res) {
        ++hits;
        res.set_content(ok_body(req["id"], result), "application/json");
    }};
};

// The reasons of a chunk's skipped logs, in order.
std::vector<std::string> reasons(const LogChunk& chunk) {
    std::vector<std::string> out;
    for (const auto& s : chunk.skipped) out.push_back(s.reason);
    return out;
}

TEST(index_log_source, bad_logs_are_skipped_with_a_reason_and_the_rest_kept_sorted) {
    FixedNode node;
    json& r = node.result;
    r.push_back(make_log(12, 3, source_addr(1)));
    r.push_back(make_log(11, 0, source_addr(1)));
    r.push_back(make_log(11, 1, source_addr(9)));     // a contract we did not ask for
    r.push_back(make_log(11, 2, source_addr(1), 5));  // LOG5 does not exist
    r.push_back(make_log(9, 0, source_addr(1)));      // below the range
    r.push_back(make_log(21, 0, source_addr(1)));     // above the range
    json removed = make_log(12, 4, source_addr(2));
    removed["removed"] = true;  // a reorg-dropped log
    r.push_back(removed);
    r.push_back(make_log(12, 3, source_addr(2)));        // the same (block, log index) twice
    r.push_back(make_log(12, 0, source_addr(2), 0, 0));  // LOG0, no data: fine
    auto source = source_for(node.server, doubling(10));
    const std::vector<core::Address> wanted{source_addr(2), source_addr(1)};
    auto chunk = source.next_chunk(10, 100, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    EXPECT_EQ(chunk->from_block, 10u);
    EXPECT_EQ(chunk->to_block, 19u);
    ASSERT_EQ(chunk->logs.size(), 3u);
    EXPECT_EQ(std::pair(chunk->logs[0].block_num, chunk->logs[0].log_index), std::pair(11UL, 0UL));
    EXPECT_EQ(std::pair(chunk->logs[1].block_num, chunk->logs[1].log_index), std::pair(12UL, 0UL));
    EXPECT_EQ(std::pair(chunk->logs[2].block_num, chunk->logs[2].log_index), std::pair(12UL, 3UL));
    EXPECT_EQ(chunk->logs[2].address, source_addr(1));  // of the two (12, 3): the lower address
    // Skipped in (block, log index) order.
    const std::vector<std::string> expected{"block outside range",
                                            "address not requested",
                                            "5 topics",
                                            "duplicate log index",
                                            "removed",
                                            "block outside range"};
    EXPECT_EQ(reasons(*chunk), expected);
    EXPECT_EQ(chunk->skipped[2].log.topics.size(), 5u);
    EXPECT_EQ(chunk->skipped[1].log.address, source_addr(9));
}

TEST(index_log_source, malformed_bodies_fail_the_chunk_and_the_source_recovers) {
    std::atomic<int> mode{0};
    std::atomic<int> hits{0};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        ++hits;
        std::string good = ok_body(req["id"], json::array({make_log(5, 0, source_addr(1))}));
        switch (mode.load()) {
            case 0:
                res.set_content("<html>502 Bad Gateway</html>", "text/html");
                break;
            case 1:
                res.set_content(good.substr(0, good.size() / 2), "application/json");
                break;
            case 2:
                res.set_content(ok_body(req["id"].get<uint64_t>() + 1, json::array()),
                                "application/json");
                break;
            case 3: {
                json log = make_log(5, 0, source_addr(1));
                log["topics"][1] = "0x12zz";
                res.set_content(ok_body(req["id"], json::array({log})), "application/json");
                break;
            }
            default:
                res.set_content(good, "application/json");
        }
    });
    auto source = source_for(server, doubling(8));
    const std::vector<core::Address> wanted{source_addr(1)};
    struct Case {
        RpcErrorKind kind;
        std::string message;
    };
    const std::vector<Case> cases{
        {RpcErrorKind::bad_json, "eth_getLogs blocks 0..7: response is not JSON: "},
        {RpcErrorKind::bad_json, "eth_getLogs blocks 0..7: response is not JSON: "},
        {RpcErrorKind::bad_response,
         "eth_getLogs blocks 0..7: response id does not match request id"},
        {RpcErrorKind::bad_response,
         "eth_getLogs blocks 0..7: log 0: topics: hash must be 0x + 64 hex"},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        mode = static_cast<int>(i);
        hits = 0;
        auto chunk = source.next_chunk(0, 100, wanted);
        ASSERT_FALSE(chunk) << i;
        EXPECT_EQ(chunk.error().kind, cases[i].kind) << i;
        EXPECT_EQ(chunk.error().message.substr(0, cases[i].message.size()), cases[i].message)
            << chunk.error().message;
        EXPECT_EQ(hits.load(), 1) << "an answer, even a bad one, is not retried";
        EXPECT_EQ(source.range_blocks(), 8u) << "a bad body is not a refusal";
    }
    mode = 9;
    auto chunk = source.next_chunk(0, 100, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    EXPECT_EQ(chunk->logs.size(), 1u);
}

TEST(index_log_source, status_429_is_retried_with_backoff) {
    std::atomic<int> hits{0};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        if (hits++ < 2) {
            res.status = 429;
            res.set_header("Retry-After", "1");  // capped to max_retry_after (20 ms)
            return;
        }
        res.set_content(ok_body(req["id"], json::array({make_log(3, 0, source_addr(1))})),
                        "application/json");
    });
    auto source = source_for(server, doubling(8));
    const std::vector<core::Address> wanted{source_addr(1)};
    const auto start = Clock::now();
    auto chunk = source.next_chunk(0, 100, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    EXPECT_EQ(hits.load(), 3);
    EXPECT_EQ(chunk->requests, 1u) << "retries are the client's, not splits";
    EXPECT_EQ(chunk->to_block, 7u);
    EXPECT_EQ(chunk->logs.size(), 1u);
    EXPECT_LT(Clock::now() - start, std::chrono::seconds(2));
    // 429 forever: the client gives up after max_attempts, and the error says so.
    hits = -100;
    auto failed = source.next_chunk(8, 100, wanted);
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().kind, RpcErrorKind::http_status);
    EXPECT_EQ(failed.error().http_status, 429);
    EXPECT_EQ(failed.error().attempts, 4);
}

TEST(index_log_source, slow_responses_are_bounded_by_the_http_timeout) {
    std::atomic<int> delay_ms{1'500};
    std::atomic<int> hits{0};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        ++hits;
        std::this_thread::sleep_for(milliseconds(delay_ms.load()));
        res.set_content(ok_body(req["id"], json::array()), "application/json");
    });
    chain::HttpOptions http;
    http.total_timeout = milliseconds(300);
    auto source = source_for(server, doubling(8), http, 2);
    const std::vector<core::Address> wanted{source_addr(1)};
    const auto start = Clock::now();
    auto chunk = source.next_chunk(0, 100, wanted);
    ASSERT_FALSE(chunk);
    EXPECT_EQ(chunk.error().kind, RpcErrorKind::timeout);
    EXPECT_EQ(chunk.error().attempts, 2);
    EXPECT_EQ(hits.load(), 2);
    EXPECT_LT(Clock::now() - start, milliseconds(1'400)) << "2 x 300 ms plus backoff";
    // Slow but within the bound: fine.
    delay_ms = 50;
    auto ok = source.next_chunk(0, 100, wanted);
    ASSERT_TRUE(ok) << ok.error().to_string();
    EXPECT_EQ(ok->to_block, 7u);
}

TEST(index_log_source, refusals_of_each_provider_split_the_range) {
    // (code, message) as geth, Infura, erigon, Alchemy, QuickNode, Ankr/BSC, Base, Nethermind and
    // reth word them.
    const std::vector<std::pair<int64_t, std::string>> refusals{
        {-32000, "query returned more than 10000 results"},
        {-32005, "query returned more than 10000 results"},
        {-32005, "limit exceeded"},
        {-32000, "query exceeds max results 20000"},
        {-32000, "query exceeds max block range 1000000"},
        {-32602,
         "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block "
         "range and no limit on the response size, or you can request any block range with a cap "
         "of 10K logs in the response."},
        {-32614, "eth_getLogs is limited to a 10,000 range"},
        {-32062, "block range is too wide"},
        {-32000, "exceed maximum block range: 50000"},
        {-32000, "ranges over 10000 blocks are not supported"},
        {-32000, "Too many logs requested, max is 10000"},
        {-32603, "query timeout exceeded"},
        {-32000, "response size should not greater than 10000000 bytes"},
    };
    for (const auto& [code, message] : refusals) {
        LimitedNode node;
        node.logs.fill(0, 99, 1, source_addr(1));
        node.max_results = 50;
        node.code = code;
        node.message = message;
        auto source = source_for(node.server, doubling(100));
        const std::vector<core::Address> wanted{source_addr(1)};
        auto chunk = source.next_chunk(0, 99, wanted);
        ASSERT_TRUE(chunk) << message << ": " << chunk.error().to_string();
        EXPECT_EQ(chunk->requests, 2u) << message;
        EXPECT_EQ(chunk->to_block, 49u) << message;
    }
    // Errors that are not about size are returned at once, without splitting.
    for (const auto& [code, message] : std::vector<std::pair<int64_t, std::string>>{
             {-32601, "the method eth_getLogs does not exist/is not available"},
             {-32602, "invalid argument 0: hex string without 0x prefix"},
             {-32000, "unknown block"}}) {
        LimitedNode node;
        node.max_results = 0;
        node.logs.add(make_log(1, 0, source_addr(1)));
        node.code = code;
        node.message = message;
        auto source = source_for(node.server, doubling(100));
        const std::vector<core::Address> wanted{source_addr(1)};
        auto chunk = source.next_chunk(0, 99, wanted);
        ASSERT_FALSE(chunk) << message;
        EXPECT_EQ(chunk.error().kind, RpcErrorKind::rpc_error);
        EXPECT_EQ(chunk.error().code, code);
        EXPECT_EQ(node.refused.load(), 1) << message;
        EXPECT_EQ(source.range_blocks(), 100u);
    }
}

TEST(index_log_source, oversized_bodies_and_http_413_split_the_range) {
    SyntheticLogs logs;
    logs.fill(0, 63, 4, source_addr(1));  // about 800 bytes per log
    std::atomic<int> status_413{0};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        json result = logs.select(req);
        if (status_413.load() != 0 && result.size() > 8) {
            res.status = 413;
            res.set_content("Request Entity Too Large", "text/plain");
            return;
        }
        res.set_content(ok_body(req["id"], result), "application/json");
    });
    chain::HttpOptions http;
    http.max_response_bytes = 16 * 1024;  // ~20 logs: at most 4 blocks of 4 logs
    auto source = source_for(server, doubling(32), http);
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.next_chunk(0, 63, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    EXPECT_EQ(chunk->requests, 4u);  // 32 -> 16 -> 8 -> 4 blocks
    EXPECT_EQ(chunk->to_block, 3u);
    EXPECT_EQ(chunk->logs.size(), 16u);
    const std::vector<Range> asked{{0, 31}, {0, 15}, {0, 7}, {0, 3}};
    EXPECT_EQ(logs.calls(), asked);

    status_413 = 1;
    auto other = source_for(server, doubling(32));
    auto c413 = other.next_chunk(0, 63, wanted);
    ASSERT_TRUE(c413) << c413.error().to_string();
    EXPECT_EQ(c413->requests, 5u);  // 32 -> 16 -> 8 -> 4 -> 2 blocks: 8 logs pass
    EXPECT_EQ(c413->to_block, 1u);
    EXPECT_EQ(c413->logs.size(), 8u);
}

TEST(index_log_source, a_refused_single_block_is_an_error) {
    LimitedNode node;
    node.logs.fill(7, 7, 20, source_addr(1));  // one block with 20 logs; the node allows 10
    node.max_results = 10;
    auto source = source_for(node.server, doubling(8));
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.next_chunk(7, 100, wanted);
    ASSERT_FALSE(chunk);
    EXPECT_EQ(chunk.error().kind, RpcErrorKind::rpc_error);
    EXPECT_EQ(chunk.error().code, -32005);
    EXPECT_EQ(chunk.error().message,
              "eth_getLogs blocks 7..7: query returned more than 10000 results");
    const std::vector<Range> asked{{7, 14}, {7, 10}, {7, 8}, {7, 7}};
    EXPECT_EQ(node.logs.calls(), asked);
    EXPECT_EQ(source.range_blocks(), 1u);
    // The blocks before it are fine.
    auto before = source.next_chunk(0, 6, wanted);
    ASSERT_TRUE(before) << before.error().to_string();
    EXPECT_EQ(before->to_block, 0u);
}

TEST(index_log_source, target_logs_scales_the_range_to_the_density) {
    SyntheticLogs logs;
    logs.fill(0, 299, 20, source_addr(1));  // 20 logs per block
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    RangePolicy policy;
    policy.initial_blocks = 100;
    policy.target_logs = 200;  // 10 blocks' worth
    auto source = source_for(server, policy);
    const std::vector<core::Address> wanted{source_addr(1)};
    std::vector<uint64_t> spans;
    uint64_t from = 0;
    for (int i = 0; i < 6; ++i) {
        auto chunk = source.next_chunk(from, 299, wanted);
        ASSERT_TRUE(chunk) << chunk.error().to_string();
        EXPECT_EQ(chunk->logs.size(), (chunk->to_block - from + 1) * 20);
        spans.push_back(chunk->to_block - from + 1);
        from = chunk->to_block + 1;
    }
    // Halving at most per step (100 -> 50 -> 25 -> 12), then steady at the target's 10 blocks.
    EXPECT_EQ(spans, (std::vector<uint64_t>{100, 50, 25, 12, 10, 10}));
    EXPECT_EQ(source.range_blocks(), 10u);
}

TEST(index_log_source, density_is_measured_over_the_span_fetched_not_the_range) {
    // Near the head the caller's limit cuts the range short: one block of 50 logs says 50 logs per
    // block, so a 1,000-block range would hold 50,000 logs, far over the target: halve, not grow.
    SyntheticLogs logs;
    logs.fill(0, 0, 50, source_addr(1));
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    RangePolicy policy;
    policy.initial_blocks = 1'000;
    policy.target_logs = 100;
    auto source = source_for(server, policy);
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.next_chunk(0, 0, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    EXPECT_EQ(chunk->logs.size(), 50u);
    EXPECT_EQ(source.range_blocks(), 500u);
    // An empty head block: a sparse stretch, so the range grows by max_growth.
    auto empty = source.next_chunk(1, 1, wanted);
    ASSERT_TRUE(empty) << empty.error().to_string();
    EXPECT_EQ(source.range_blocks(), 4'000u);
}

// The first request is a probe: on a dense chain (80 logs a block) it asks for a few blocks, not
// for 2,000 blocks' 160,000 logs in one body; the next ranges aim at target_logs at once.
TEST(index_log_source, the_first_range_is_a_small_probe_of_the_density) {
    SyntheticLogs logs;
    logs.fill(0, 499, 80, source_addr(1));
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    auto source = source_for(server, RangePolicy{});
    const std::vector<core::Address> wanted{source_addr(1)};
    std::vector<uint64_t> sizes;
    uint64_t from = 0;
    for (int i = 0; i < 4; ++i) {
        auto chunk = source.next_chunk(from, 499, wanted);
        ASSERT_TRUE(chunk) << chunk.error().to_string();
        sizes.push_back(chunk->logs.size());
        from = chunk->to_block + 1;
    }
    EXPECT_EQ(sizes[0], RangePolicy{}.initial_blocks * 80);
    EXPECT_LE(sizes[0], 2 * RangePolicy{}.target_logs);  // a probe, not 160,000 logs
    for (size_t i = 1; i < sizes.size(); ++i) {
        EXPECT_LE(sizes[i], RangePolicy{}.target_logs) << i;
        EXPECT_GE(sizes[i], RangePolicy{}.target_logs - 80) << i;  // within a block of the aim
    }
}

// A sparse chain: the probe grows by max_growth per empty chunk, so a long empty history costs a
// handful of requests, not one per doubling.
TEST(index_log_source, a_sparse_chain_reaches_the_largest_range_in_a_few_requests) {
    SyntheticLogs logs;
    logs.fill(900'000, 900'000, 1, source_addr(1));
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    auto source = source_for(server, RangePolicy{});
    const std::vector<core::Address> wanted{source_addr(1)};
    uint64_t from = 0;
    int requests = 0;
    size_t found = 0;
    while (from <= 1'000'000) {
        auto chunk = source.next_chunk(from, 1'000'000, wanted);
        ASSERT_TRUE(chunk) << chunk.error().to_string();
        found += chunk->logs.size();
        requests += static_cast<int>(chunk->requests);
        from = chunk->to_block + 1;
    }
    EXPECT_EQ(found, 1U);
    EXPECT_LE(requests, 16);  // 32, 256, 2,048, 16,384, then 100,000-block ranges
}

// A provider that rate-limits is asked the same range again after a pause, not a smaller one
// (a "limit exceeded" -32005 that says "rate limit" is not a range refusal).
TEST(index_log_source, a_rate_limit_waits_and_asks_the_same_range_again) {
    SyntheticLogs logs;
    logs.fill(0, 99, 1, source_addr(1));
    std::atomic<int> limited{2};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        if (limited-- > 0) {
            res.set_content(error_body(req["id"], -32005, "project ID request rate limit exceeded"),
                            "application/json");
            return;
        }
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    RangePolicy policy = doubling(64);
    policy.rate_limit_backoff = milliseconds(1);
    auto source = source_for(server, policy);
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.next_chunk(0, 99, wanted);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    EXPECT_EQ(chunk->requests, 3u);
    EXPECT_EQ(chunk->to_block, 63u);  // the first range, never halved
    EXPECT_EQ(logs.calls(), (std::vector<Range>{{0, 63}}));

    // A provider that never lets up: an error after rate_limit_retries pauses, not a hang.
    limited = 1'000;
    policy.rate_limit_retries = 3;
    auto stubborn = source_for(server, policy);
    auto failed = stubborn.next_chunk(0, 99, wanted);
    ASSERT_FALSE(failed);
    EXPECT_NE(failed.error().message.find("rate limit"), std::string::npos)
        << failed.error().message;
}

// Big logs lower the aim: the next body stays near max_body_bytes however many logs that is.
TEST(index_log_source, big_logs_lower_the_range_to_the_byte_budget) {
    SyntheticLogs logs;
    for (uint64_t b = 0; b <= 199; ++b) {  // 10 logs a block, 4,000 data bytes each
        for (uint64_t i = 0; i < 10; ++i) logs.add(make_log(b, i, source_addr(1), 2, 4'000));
    }
    std::atomic<size_t> largest{0};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        const std::string body = ok_body(req["id"], logs.select(req));
        largest = std::max(largest.load(), body.size());
        res.set_content(body, "application/json");
    });
    RangePolicy policy;
    policy.initial_blocks = 4;
    policy.max_body_bytes = 200'000;  // about 24 logs of ~8 KB of JSON
    auto source = source_for(server, policy);
    const std::vector<core::Address> wanted{source_addr(1)};
    uint64_t from = 0;
    while (from <= 199) {
        auto chunk = source.next_chunk(from, 199, wanted);
        ASSERT_TRUE(chunk) << chunk.error().to_string();
        from = chunk->to_block + 1;
    }
    EXPECT_LE(largest.load(), 2 * policy.max_body_bytes);  // the probe included
    EXPECT_LE(source.range_blocks(), 3U);
}

// A node whose eth_getBlockByNumber answers from a made-up chain of blocks 0..head, in batches.
struct HeaderNode {
    uint64_t head = 0;
    std::atomic<int> batches{0};
    std::atomic<size_t> largest_batch{0};
    uint64_t wrong_number_at = UINT64_MAX;  // answer block n+1 for block n here
    FaultRpcServer server{[this](const json& req, httplib::Response& res) {
        ++batches;
        largest_batch = std::max(largest_batch.load(), req.size());
        json out = json::array();
        for (const auto& call : req) {
            const uint64_t n = testing::param_u64(call["params"][0]);
            json block = nullptr;
            if (n <= head) {
                const uint64_t shown = n == wrong_number_at ? n + 1 : n;
                block = {{"number", testing::quantity(shown)},
                         {"hash", testing::word_hex(n, 0xb0)},
                         {"parentHash", testing::word_hex(n - 1, 0xb0)},
                         {"timestamp", testing::quantity(1'700'000'000 + n * 12)},
                         {"transactions", json::array()}};
            }
            out.push_back({{"jsonrpc", "2.0"}, {"id", call["id"]}, {"result", block}});
        }
        res.set_content(out.dump(), "application/json");
    }};
};

TEST(index_log_source, headers_come_in_batches_in_order) {
    HeaderNode node;
    node.head = 2'600;
    auto source = source_for(node.server, doubling(8));
    auto headers = source.headers(100, 2'599);
    ASSERT_TRUE(headers) << headers.error().to_string();
    ASSERT_EQ(headers->size(), 2'500u);
    EXPECT_EQ(node.batches.load(), 3);  // at most 1,000 calls per batch (geth's default limit)
    EXPECT_EQ(node.largest_batch.load(), 1'000u);
    for (size_t i = 0; i < headers->size(); ++i) {
        const auto& h = (*headers)[i];
        ASSERT_EQ(h.block_num, 100 + i);
        EXPECT_EQ(core::to_hex(h.hash), testing::word_hex(h.block_num, 0xb0));
        EXPECT_EQ(core::to_hex(h.parent_hash), testing::word_hex(h.block_num - 1, 0xb0));
        EXPECT_EQ(h.timestamp, 1'700'000'000 + h.block_num * 12);
    }
    const std::vector<uint64_t> some{7, 3, 2'600, 3};
    auto picked = source.headers_of(some);
    ASSERT_TRUE(picked) << picked.error().to_string();
    ASSERT_EQ(picked->size(), 4u);
    EXPECT_EQ((*picked)[0].block_num, 7u);
    EXPECT_EQ((*picked)[2].block_num, 2'600u);
    EXPECT_EQ((*picked)[3], (*picked)[1]);
    auto none = source.headers_of({});
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
}

TEST(index_log_source, a_missing_or_wrong_header_fails) {
    HeaderNode node;
    node.head = 50;
    auto source = source_for(node.server, doubling(8));
    auto beyond = source.headers(45, 55);
    ASSERT_FALSE(beyond);
    EXPECT_EQ(beyond.error().kind, RpcErrorKind::bad_response);
    EXPECT_EQ(beyond.error().message, "block 51 not found");
    node.wrong_number_at = 47;
    auto wrong = source.headers(45, 50);
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().message, "asked for block 47, got block 48");
    EXPECT_FALSE(source.headers(5, 4));
}

// Init code that emits LOG0..LOG4 (each with `salt`-derived topics and 32 bytes of data) and
// deploys nothing: 5 logs per transaction from a fresh contract address.
std::string log_emitter_init_code(uint8_t salt) {
    core::Bytes code;
    auto push32 = [&](uint8_t fill) {
        code.push_back(0x7f);  // PUSH32
        for (int i = 0; i < 32; ++i) code.push_back(static_cast<uint8_t>(fill + i));
    };
    push32(salt);                                 // the data word
    code.insert(code.end(), {0x60, 0x00, 0x52});  // PUSH1 0 MSTORE
    for (uint8_t n = 0; n <= 4; ++n) {
        for (uint8_t t = n; t > 0; --t) push32(static_cast<uint8_t>(salt * 16 + n * 4 + t));
        code.insert(code.end(), {0x60, 0x20, 0x60, 0x00, static_cast<uint8_t>(0xa0 + n)});
    }
    code.push_back(0x00);  // STOP: empty runtime code
    return core::to_hex(code);
}

TEST(index_log_source, anvil_logs_equal_the_nlohmann_path) {
    auto anvil = testing::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    auto rpc = chain::RpcClient::make_http((*anvil)->url());
    const auto& accounts = (*anvil)->dev_accounts();
    ASSERT_GE(accounts.size(), 2u);
    std::vector<core::Address> emitters;
    std::vector<core::Hash32> txns;
    for (uint8_t i = 0; i < 12; ++i) {
        const auto& sender = accounts[i % 2].address;
        auto sent =
            rpc.request("eth_sendTransaction", json::array({{{"from", sender.to_lower_hex()},
                                                             {"data", log_emitter_init_code(i)},
                                                             {"gas", "0x100000"}}}));
        ASSERT_TRUE(sent && sent->is_string()) << sent.error().to_string();
        auto hash = core::from_hex_fixed<32>(sent->get<std::string>());
        ASSERT_TRUE(hash);
        txns.push_back(*hash);
    }
    // eth_sendTransaction may return before anvil has mined the block: wait for every receipt.
    uint64_t last_block = 0;
    for (const auto& txn : txns) {
        std::optional<chain::Receipt> receipt;
        for (int attempt = 0; attempt < 200 && !receipt; ++attempt) {
            auto r = rpc.get_transaction_receipt(txn);
            ASSERT_TRUE(r) << r.error().to_string();
            receipt = *r;
            if (!receipt) std::this_thread::sleep_for(milliseconds(25));
        }
        ASSERT_TRUE(receipt);
        ASSERT_TRUE(receipt->status);
        ASSERT_TRUE(receipt->contract_address);
        emitters.push_back(*receipt->contract_address);
        last_block = std::max(last_block, receipt->block_num);
    }
    auto head = rpc.block_number();
    ASSERT_TRUE(head) << head.error().to_string();
    ASSERT_GE(*head, last_block);
    ASSERT_GE(*head, 6u);  // automine: about one block per transaction

    // Ask for 10 of the 12 emitters, in chunks of a few blocks.
    const std::vector<core::Address> wanted(emitters.begin() + 1, emitters.end() - 1);
    LogSource source(chain::RpcClient::make_http((*anvil)->url()), doubling(2));
    std::vector<RawLog> ours;
    size_t chunks = 0;
    for (uint64_t from = 0; from <= *head; ++chunks) {
        auto chunk = source.next_chunk(from, *head, wanted);
        ASSERT_TRUE(chunk) << chunk.error().to_string();
        EXPECT_TRUE(chunk->skipped.empty());
        ours.insert(ours.end(), chunk->logs.begin(), chunk->logs.end());
        from = chunk->to_block + 1;
    }
    EXPECT_GE(chunks, 3u);

    chain::LogFilter filter;
    filter.from_block = 0;
    filter.to_block = *head;
    filter.addresses = wanted;
    auto theirs = rpc.get_logs(filter);
    ASSERT_TRUE(theirs) << theirs.error().to_string();
    ASSERT_EQ(theirs->size(), 50u);  // 10 emitters x LOG0..LOG4
    ASSERT_EQ(ours.size(), theirs->size());
    for (size_t i = 0; i < ours.size(); ++i) {
        const chain::Log& l = (*theirs)[i];
        const RawLog expected{l.block_num, l.block_hash, l.txn_hash, l.txn_index, l.log_index,
                              l.address,   l.topics,     l.data,     l.removed, l.block_timestamp};
        EXPECT_EQ(ours[i], expected) << i;
        EXPECT_EQ(ours[i].topics.size(), i % 5);
    }

    // Headers: the batched path equals eth_getBlockByNumber one by one.
    auto headers = source.headers(0, *head);
    ASSERT_TRUE(headers) << headers.error().to_string();
    ASSERT_EQ(headers->size(), *head + 1);
    for (uint64_t n = 0; n <= *head; ++n) {
        auto block = rpc.get_block_by_number(n);
        ASSERT_TRUE(block && *block);
        const BlockHeader expected{(*block)->number, (*block)->hash, (*block)->parent_hash,
                                   (*block)->timestamp};
        EXPECT_EQ((*headers)[n], expected);
    }
}

}  // namespace

// sweep(): several ranges in flight, each on its own connection, merged strictly in chain order.
namespace {

RangePolicy fixed_ranges(uint64_t blocks, unsigned in_flight) {
    RangePolicy p;
    p.initial_blocks = blocks;
    p.max_blocks = blocks;
    // One log per block below, and the aim shared among the lanes: every range is on its aim.
    p.target_logs = blocks * in_flight;
    p.max_body_bytes = 0;
    p.in_flight = in_flight;
    p.rate_limit_backoff = milliseconds(1);
    return p;
}

// Counts eth_getLogs requests in flight at once; each answer waits `delay` first.
struct SlowNode {
    explicit SlowNode(milliseconds d) : delay(d) {}
    SyntheticLogs logs;
    milliseconds delay;
    std::atomic<int> in_flight{0};
    std::atomic<int> most{0};
    FaultRpcServer server{[this](const json& req, httplib::Response& res) {
        const int now = ++in_flight;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {
        }
        std::this_thread::sleep_for(delay);
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
        --in_flight;
    }};
};

void expect_contiguous(const LogChunk& chunk, uint64_t from, uint64_t to) {
    ASSERT_EQ(chunk.from_block, from);
    ASSERT_EQ(chunk.to_block, to);
    ASSERT_EQ(chunk.logs.size(), to - from + 1);  // one log per block
    for (size_t i = 0; i < chunk.logs.size(); ++i) EXPECT_EQ(chunk.logs[i].block_num, from + i);
}

TEST(index_log_source, sweep_keeps_ranges_in_flight_and_returns_them_in_chain_order) {
    SlowNode node(milliseconds(60));
    node.logs.fill(0, 399, 1, source_addr(1));
    auto source = source_for(node.server, fixed_ranges(16, 4));
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.sweep(0, 399, wanted, 1'000'000);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    expect_contiguous(*chunk, 0, 399);
    EXPECT_EQ(chunk->requests, 25U);
    EXPECT_EQ(node.most.load(), 4);  // never more than in_flight, and that many at once
}

TEST(index_log_source, sweep_with_one_in_flight_asks_one_range_at_a_time) {
    SlowNode node(milliseconds(5));
    node.logs.fill(0, 99, 1, source_addr(1));
    auto source = source_for(node.server, fixed_ranges(16, 1));
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.sweep(0, 99, wanted, 1'000'000);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    expect_contiguous(*chunk, 0, 99);
    EXPECT_EQ(node.most.load(), 1);
}

// Ranges are launched only while the logs in hand plus the aim of those in flight stay under the
// caller's batch: with 16-log ranges and a 100-log batch, the seventh range is the last.
TEST(index_log_source, sweep_stops_launching_once_the_batch_is_full) {
    SlowNode node(milliseconds(1));
    node.logs.fill(0, 999, 1, source_addr(1));
    auto source = source_for(node.server, fixed_ranges(16, 4));
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.sweep(0, 999, wanted, 100);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    expect_contiguous(*chunk, 0, 111);
    EXPECT_EQ(node.logs.calls().size(), 7U);
}

// A range that fails for good ends the sweep after the ranges before it; the ranges after it are
// dropped, and the next sweep meets the error.
TEST(index_log_source, a_failed_range_ends_the_sweep_after_the_ranges_before_it) {
    SyntheticLogs logs;
    logs.fill(0, 399, 1, source_addr(1));
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        const uint64_t from =
            std::stoull(req["params"][0]["fromBlock"].get<std::string>(), nullptr, 16);
        if (from >= 64 && from < 80) {
            res.set_content(error_body(req["id"], -32000, "header not found"), "application/json");
            return;
        }
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    auto source = source_for(server, fixed_ranges(16, 4));
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.sweep(0, 399, wanted, 1'000'000);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    expect_contiguous(*chunk, 0, 63);
    auto next = source.sweep(64, 399, wanted, 1'000'000);
    ASSERT_FALSE(next);
    EXPECT_NE(next.error().message.find("header not found"), std::string::npos)
        << next.error().message;
}

// A rate-limited range waits and is asked again by its lane; the sweep still returns every block.
TEST(index_log_source, sweep_survives_a_rate_limit_and_counts_it) {
    SyntheticLogs logs;
    logs.fill(0, 199, 1, source_addr(1));
    std::atomic<int> limited{1};
    FaultRpcServer server([&](const json& req, httplib::Response& res) {
        if (limited.fetch_sub(1) > 0) {
            res.set_content(error_body(req["id"], -32005, "rate limit exceeded"),
                            "application/json");
            return;
        }
        res.set_content(ok_body(req["id"], logs.select(req)), "application/json");
    });
    auto source = source_for(server, fixed_ranges(16, 4));
    const std::vector<core::Address> wanted{source_addr(1)};
    auto chunk = source.sweep(0, 199, wanted, 1'000'000);
    ASSERT_TRUE(chunk) << chunk.error().to_string();
    expect_contiguous(*chunk, 0, 199);
    EXPECT_EQ(chunk->rate_limited, 1U);
}

}  // namespace
}  // namespace credence::index
