// A full recompute of the trust score over 1,000,000 feedback entries in under 10 s,
// and "updates are incremental as events arrive": the in-memory engine's pass for 1, 100 and
// 10,000 new feedback on top of 1,000,000.
// The graph is synthetic and seeded: 20,000 agents, 100,000 reviewers (a tenth of them paying),
// ratings of mixed tags and decimals, timestamps over two years, plus a 5,000-address Sybil ring.
#include <benchmark/benchmark.h>

#include <memory>
#include <random>

#include <credence/trust/score.hpp>
#include <credence/trust/score_incremental.hpp>

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

constexpr uint32_t kAgents = 20'000;
constexpr uint32_t kReviewers = 100'000;
constexpr uint32_t kSybils = 5'000;
constexpr int64_t kNow = 1'800'000'000;

credence::core::Bytes agent_id(uint32_t a) {
    credence::core::Bytes id(32, 0);
    for (size_t i = 0; i < 4; ++i) id[31 - i] = static_cast<uint8_t>(a >> (8 * i));
    return id;
}

/// The i-th synthetic feedback (the same generator for the base graph and the new feedback).
credence::trust::Review make_review(std::mt19937_64& rng, size_t i) {
    static const char* const kTags[] = {"starred", "uptime", "", "responseTime", "reachable"};
    credence::trust::Review r;
    const bool sybil = i % 50 == 0;
    r.agent = sybil ? 7 : static_cast<uint32_t>(rng() % kAgents);
    const auto reviewer = static_cast<uint32_t>(rng() % (sybil ? kSybils : kReviewers));
    r.client = address_of(reviewer, sybil ? 0x5B : 0xC0);
    r.feedback_index = i + 1;
    const size_t t = rng() % 5;
    r.tag1 = kTags[t];
    r.value_decimals = t == 1 ? 2 : 0;
    r.value = Int256(static_cast<int64_t>(t == 1 ? rng() % 10'001 : rng() % 101));
    r.timestamp = kNow - static_cast<int64_t>(rng() % (2 * 365 * 86'400));
    r.payment_verified = !sybil && reviewer % 10 == 0;
    r.revoked = rng() % 100 == 0;
    return r;
}

TrustInputs make_inputs(size_t reviews) {
    std::mt19937_64 rng(8004);
    TrustInputs in;
    in.agents.resize(kAgents);
    for (uint32_t a = 0; a < kAgents; ++a) {
        in.agents[a].agent_id = agent_id(a);
        in.agents[a].owner = address_of(a, 0xA0);
        if (a % 10 == 0) in.agents[a].validations.emplace_back(address_of(a, 0xB0), 80);
    }
    in.reviews.reserve(reviews);
    for (size_t i = 0; i < reviews; ++i) in.reviews.push_back(make_review(rng, i));
    // Funding evidence (trust/funding_clusters.hpp): honest reviewers withdraw from one of 50
    // exchanges (hubs), the Sybils are funded by 10 operators who were funded from one root.
    in.fundings.reserve(kReviewers + kSybils + 10);
    for (uint32_t r = 0; r < kReviewers; ++r)
        in.fundings.push_back({address_of(r, 0xC0), address_of(r % 50, 0xE0)});
    for (uint32_t r = 0; r < kSybils; ++r)
        in.fundings.push_back({address_of(r, 0x5B), address_of(r % 10, 0xF0)});
    for (uint32_t f = 0; f < 10; ++f)
        in.fundings.push_back({address_of(f, 0xF0), address_of(0, 0xF1)});
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

/// One engine over the 1,000,000-feedback graph, loaded once and shared by the runs below (each
/// run adds its feedback on top of the previous runs').
struct Engine {
    credence::trust::IncrementalTrust trust;
    std::mt19937_64 rng{8257};
    size_t next = 1'000'000;
    unsigned cold_iterations = 0;

    static Engine& get() {
        static std::unique_ptr<Engine> engine = [] {
            credence::trust::TrustConfig config;
            config.now = kNow;
            auto e = std::make_unique<Engine>(Engine{credence::trust::IncrementalTrust(config)});
            e->trust.reset(make_inputs(1'000'000));
            const auto first = e->trust.refresh();
            e->cold_iterations = first.iterations;
            return e;
        }();
        return *engine;
    }
};

// One incremental pass as ScoreUpdater runs it, after the rows are read: apply N new feedback,
// refresh the reviewer weights (PageRank warm-started), rescore the agents refresh() returns.
void trust_incremental_pass(benchmark::State& state) {
    Engine& e = Engine::get();
    const auto n = static_cast<size_t>(state.range(0));
    double rescored = 0, iterations = 0;
    for (auto _ : state) {
        for (size_t i = 0; i < n; ++i) {
            credence::trust::Review r = make_review(e.rng, e.next++);
            r.timestamp = kNow;  // arrives now
            r.revoked = false;
            const credence::core::Bytes id = agent_id(r.agent);
            if (!e.trust.upsert_review(id, std::move(r))) state.SkipWithError("unknown agent");
        }
        const auto refresh = e.trust.refresh();
        for (uint32_t g : refresh.agents) {
            auto score = e.trust.score(g);
            benchmark::DoNotOptimize(score.score);
        }
        rescored += static_cast<double>(refresh.agents.size());
        iterations += refresh.iterations;
    }
    const auto runs = static_cast<double>(state.iterations());
    state.counters["agents_rescored"] = rescored / runs;
    state.counters["pagerank_steps"] = iterations / runs;
    state.counters["cold_steps"] = e.cold_iterations;
}
BENCHMARK(trust_incremental_pass)
    ->Arg(1)
    ->Arg(100)
    ->Arg(10'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(5);

}  // namespace
