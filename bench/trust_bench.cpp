// Issue 7 §2: a full recompute of the trust score over 1,000,000 feedback entries in under 10 s.
// The graph is synthetic and seeded: 20,000 agents, 100,000 reviewers (a tenth of them paying),
// ratings of mixed tags and decimals, timestamps over two years, plus a 5,000-address Sybil ring.
#include <benchmark/benchmark.h>

#include <random>

#include <credence/trust/score.hpp>

namespace {

using credence::core::Address;
using credence::core::Int256;
using credence::trust::TrustInputs;

Address address_of(uint32_t n, uint8_t tag) {
    Address a;
    a.bytes[0] = tag;
    for (size_t i = 0; i < 4; ++i) a.bytes[19 - i] = static_cast<uint8_t>(n >> (8 * i));
    a.bytes[10] = static_cast<uint8_t>(n * 2654435761U >> 24);  // spread the hash bits
    return a;
}

TrustInputs make_inputs(size_t reviews) {
    constexpr uint32_t kAgents = 20'000;
    constexpr uint32_t kReviewers = 100'000;
    constexpr uint32_t kSybils = 5'000;
    constexpr int64_t kNow = 1'800'000'000;
    std::mt19937_64 rng(8004);
    TrustInputs in;
    in.agents.resize(kAgents);
    for (uint32_t a = 0; a < kAgents; ++a) {
        in.agents[a].agent_id = credence::core::Bytes(32, 0);
        in.agents[a].owner = address_of(a, 0xA0);
        if (a % 10 == 0) in.agents[a].validations.emplace_back(address_of(a, 0xB0), 80);
    }
    const char* tags[] = {"starred", "uptime", "", "responseTime", "reachable"};
    in.reviews.reserve(reviews);
    for (size_t i = 0; i < reviews; ++i) {
        credence::trust::Review r;
        const bool sybil = i % 50 == 0;
        r.agent = sybil ? 7 : static_cast<uint32_t>(rng() % kAgents);
        const auto reviewer = static_cast<uint32_t>(rng() % (sybil ? kSybils : kReviewers));
        r.client = address_of(reviewer, sybil ? 0x5B : 0xC0);
        const size_t t = rng() % 5;
        r.tag1 = tags[t];
        r.value_decimals = t == 1 ? 2 : 0;
        r.value = Int256(static_cast<int64_t>(t == 1 ? rng() % 10'001 : rng() % 101));
        r.timestamp = kNow - static_cast<int64_t>(rng() % (2 * 365 * 86'400));
        r.payment_verified = !sybil && reviewer % 10 == 0;
        r.revoked = rng() % 100 == 0;
        in.reviews.push_back(std::move(r));
    }
    return in;
}

void trust_full_recompute(benchmark::State& state) {
    const TrustInputs in = make_inputs(static_cast<size_t>(state.range(0)));
    credence::trust::TrustConfig config;
    config.now = 1'800'000'000;
    for (auto _ : state) {
        auto result = credence::trust::compute_trust(in, config);
        benchmark::DoNotOptimize(result.agents.data());
    }
    state.counters["feedback/s"] = benchmark::Counter(
        static_cast<double>(state.range(0)) * static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate);
}
BENCHMARK(trust_full_recompute)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(3);

}  // namespace
