// eth_getLogs response parsing, side by side: index/log_json (simdjson DOM, straight into RawLog)
// against the JSON-RPC client's nlohmann path (chain::decode_response + chain::read_logs), on a
// synthetic ~10 MB body of 12,000 logs shaped like registry events (1-4 topics, 0-352 bytes of
// ABI data). Reports MB/s (bytes_per_second) and logs/s (items_per_second).
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>
#include <simdjson.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>
#include <credence/chain/rpc_jsonrpc.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/log_json.hpp>

namespace {

using nlohmann::json;
namespace chain = credence::chain;
namespace core = credence::core;

constexpr uint64_t kId = 42;
constexpr size_t kLogs = 12'000;

std::string quantity(uint64_t v) { return core::Uint256(v).to_hex(); }

core::Hash32 word(uint64_t seed) {
    core::Hash32 h{};
    for (size_t i = 0; i < 32; ++i) {
        seed = (seed * 6364136223846793005ULL) + 1442695040888963407ULL;
        h[i] = static_cast<uint8_t>(seed >> 56U);
    }
    return h;
}

// A deterministic eth_getLogs body: five registry addresses, ~4 logs per block, topics and data
// sizes varying like NewFeedback / Registered / Transfer / MetadataSet events.
const std::string& body() {
    static const std::string text = [] {
        json logs = json::array();
        for (size_t i = 0; i < kLogs; ++i) {
            const uint64_t block_num = 18'000'000 + (i / 4);
            json topics = json::array();
            for (size_t t = 0; t < 1 + (i % 4); ++t)
                topics.push_back(core::to_hex(word(i * 8 + t)));
            core::Bytes data(32 * ((i * 7) % 12));  // 0..352 bytes of ABI words
            for (size_t b = 0; b < data.size(); ++b) data[b] = static_cast<uint8_t>(i + b);
            core::Address address;
            address.bytes.fill(static_cast<uint8_t>(0x10 + (i % 5)));
            logs.push_back({{"address", address.to_lower_hex()},
                            {"topics", std::move(topics)},
                            {"data", core::to_hex(data)},
                            {"blockNumber", quantity(block_num)},
                            {"blockHash", core::to_hex(word(block_num))},
                            {"blockTimestamp", quantity(1'700'000'000 + block_num)},
                            {"transactionHash", core::to_hex(word(i * 31))},
                            {"transactionIndex", quantity(i % 4)},
                            {"logIndex", quantity(i % 4)},
                            {"removed", false}});
        }
        return json{{"jsonrpc", "2.0"}, {"id", kId}, {"result", std::move(logs)}}.dump();
    }();
    return text;
}

void report(benchmark::State& state) {
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(body().size()));
    state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(kLogs));
    state.counters["body_MB"] = static_cast<double>(body().size()) / 1e6;
}

// simdjson's kernel for this CPU (haswell = AVX2), chosen at run time.
std::string simdjson_kernel() {
    return "simdjson " + simdjson::get_active_implementation()->name();
}

// LogSource's path: one long-lived parser, the body parsed where it lies.
void BM_log_json_simdjson_in_place(benchmark::State& state) {
    credence::index::LogJsonParser parser;
    std::string text = body();
    for (auto _ : state) {
        auto logs = parser.parse_in_place(text, kId);
        if (!logs || logs->size() != kLogs) state.SkipWithError("parse failed");
        benchmark::DoNotOptimize(logs);
    }
    report(state);
    state.SetLabel(simdjson_kernel());
}
BENCHMARK(BM_log_json_simdjson_in_place)->Unit(benchmark::kMillisecond);

// The same with a copy of the body into the parser's padded buffer.
void BM_log_json_simdjson_copy(benchmark::State& state) {
    credence::index::LogJsonParser parser;
    for (auto _ : state) {
        auto logs = parser.parse(body(), kId);
        if (!logs || logs->size() != kLogs) state.SkipWithError("parse failed");
        benchmark::DoNotOptimize(logs);
    }
    report(state);
    state.SetLabel(simdjson_kernel());
}
BENCHMARK(BM_log_json_simdjson_copy)->Unit(benchmark::kMillisecond);

// The client's path for RpcClient::get_logs: a nlohmann DOM, then the strict typed readers.
void BM_log_json_nlohmann(benchmark::State& state) {
    for (auto _ : state) {
        auto result = chain::decode_response(body(), kId);
        if (!result) state.SkipWithError("parse failed");
        auto logs = chain::read_logs(*result);
        if (!logs || logs->size() != kLogs) state.SkipWithError("read failed");
        benchmark::DoNotOptimize(logs);
    }
    report(state);
}
BENCHMARK(BM_log_json_nlohmann)->Unit(benchmark::kMillisecond);

// nlohmann's parse alone, without the conversion to typed logs.
void BM_log_json_nlohmann_parse_only(benchmark::State& state) {
    for (auto _ : state) {
        auto j = json::parse(body());
        benchmark::DoNotOptimize(j);
    }
    report(state);
}
BENCHMARK(BM_log_json_nlohmann_parse_only)->Unit(benchmark::kMillisecond);

}  // namespace
