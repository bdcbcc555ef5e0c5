// ABI benchmarks: the indexer's hot path (decoding ERC-8004 NewFeedback logs) and building a
// giveFeedback call.
#include <benchmark/benchmark.h>

#include <cstdlib>

#include <credence/core/abi.hpp>
#include <credence/core/abi_event.hpp>
#include <credence/core/abi_signature.hpp>
#include <credence/core/keccak.hpp>

using namespace credence::core;

namespace {

// ERC-8004 §Reputation Registry, as declared in the ERC.
constexpr std::string_view kNewFeedback =
    "event NewFeedback(uint256 indexed agentId, address indexed clientAddress, uint64 "
    "feedbackIndex, "
    "int128 value, uint8 valueDecimals, string indexed indexedTag1, string tag1, string tag2, "
    "string endpoint, string feedbackURI, bytes32 feedbackHash)";
constexpr std::string_view kGiveFeedback =
    "function giveFeedback(uint256 agentId, int128 value, uint8 valueDecimals, string calldata "
    "tag1, "
    "string calldata tag2, string calldata endpoint, string calldata feedbackURI, bytes32 "
    "feedbackHash) external";

template <typename T>
T must(Result<T, AbiError> r) {
    if (!r) std::abort();
    return std::move(*r);
}

AbiValue::Address client_address() {
    return *from_hex_fixed<20>("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
}

/// The non-indexed values of a realistic feedback: a 0..100 score, short tags, an HTTPS endpoint
/// and an IPFS feedback URI.
std::vector<AbiValue> feedback_data_values() {
    return {Uint256(7),
            Int256(87),
            Uint256(0),
            std::string("starred"),
            std::string("uptime"),
            std::string("https://agent.example.com/mcp"),
            std::string("ipfs://bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku"),
            FixedBytes(keccak256(std::string_view("feedback file")))};
}

struct Log {
    std::vector<Hash32> topics;
    Bytes data;
};

Log new_feedback_log(const AbiEvent& event) {
    std::vector<AbiType> data_types;
    for (const auto& p : event.inputs)
        if (!p.indexed) data_types.push_back(p.type);
    Log log;
    log.data = must(encode(data_types, feedback_data_values()));
    Hash32 agent{};
    agent[30] = 0x04;
    agent[31] = 0xd2;  // agentId 1234
    Hash32 client{};
    const auto a = client_address();
    std::copy(a.begin(), a.end(), client.begin() + 12);
    log.topics = {event.topic0(), agent, client, keccak256(std::string_view("starred"))};
    return log;
}

void BM_abi_decode_new_feedback_log(benchmark::State& state) {
    const LogDecoder decoder(must(parse_event_signature(kNewFeedback)));
    const Log log = new_feedback_log(decoder.event());
    for (auto _ : state) {
        auto values = decoder.decode(log.topics, log.data);
        benchmark::DoNotOptimize(values);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(log.data.size()));
}
BENCHMARK(BM_abi_decode_new_feedback_log);

void BM_abi_decode_new_feedback_log_canonical(benchmark::State& state) {
    const LogDecoder decoder(must(parse_event_signature(kNewFeedback)));
    const Log log = new_feedback_log(decoder.event());
    for (auto _ : state) {
        auto values = decoder.decode(log.topics, log.data, {.canonical = true});
        benchmark::DoNotOptimize(values);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(log.data.size()));
}
BENCHMARK(BM_abi_decode_new_feedback_log_canonical);

// Without the precomputed decoder: topic0 is hashed on every call.
void BM_abi_decode_log_uncached(benchmark::State& state) {
    const AbiEvent event = must(parse_event_signature(kNewFeedback));
    const Log log = new_feedback_log(event);
    for (auto _ : state) {
        auto values = decode_log(event, log.topics, log.data);
        benchmark::DoNotOptimize(values);
    }
}
BENCHMARK(BM_abi_decode_log_uncached);

std::vector<AbiValue> give_feedback_values() {
    auto data = feedback_data_values();
    // giveFeedback(agentId, value, valueDecimals, tag1, tag2, endpoint, feedbackURI, feedbackHash)
    std::vector<AbiValue> v = {Uint256(1234)};
    v.insert(v.end(), data.begin() + 1, data.end());
    return v;
}

void BM_abi_encode_give_feedback_call(benchmark::State& state) {
    const AbiFunction f = must(parse_function_signature(kGiveFeedback));
    const auto types = types_of(f.inputs);
    const Selector selector = f.selector();
    const auto values = give_feedback_values();
    size_t bytes = 0;
    for (auto _ : state) {
        auto calldata = encode_call(selector, types, values);
        bytes = calldata->size();
        benchmark::DoNotOptimize(calldata);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
}
BENCHMARK(BM_abi_encode_give_feedback_call);

void BM_abi_decode_give_feedback_call(benchmark::State& state) {
    const AbiFunction f = must(parse_function_signature(kGiveFeedback));
    const auto types = types_of(f.inputs);
    const Bytes calldata = must(encode_call(f.selector(), types, give_feedback_values()));
    const ByteView params = ByteView(calldata).subspan(4);
    for (auto _ : state) {
        auto values = decode(types, params);
        benchmark::DoNotOptimize(values);
    }
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(params.size()));
}
BENCHMARK(BM_abi_decode_give_feedback_call);

void BM_abi_parse_event_signature(benchmark::State& state) {
    for (auto _ : state) {
        auto e = parse_event_signature(kNewFeedback);
        benchmark::DoNotOptimize(e);
    }
}
BENCHMARK(BM_abi_parse_event_signature);

}  // namespace
