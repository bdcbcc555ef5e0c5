// keccak256 throughput, ours side by side with Crypto++'s Keccak_256 (the goal: >= 1.0x
// Crypto++ at 32 B, 1 KiB and 1 MiB). Crypto++ is linked into this benchmark only.
#include <credence/core/keccak.hpp>

#include <benchmark/benchmark.h>

#ifdef CREDENCE_HAVE_CRYPTOPP
#include <cryptopp/keccak.h>
#endif

namespace {

credence::core::Bytes make_input(size_t n) {
    credence::core::Bytes data(n);
    for (size_t i = 0; i < n; ++i) data[i] = static_cast<uint8_t>(i * 131 + 7);
    return data;
}

void BM_keccak256_credence(benchmark::State& state) {
    const auto data = make_input(static_cast<size_t>(state.range(0)));
    for (auto _ : state) benchmark::DoNotOptimize(credence::core::keccak256(data));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_keccak256_credence)->Arg(32)->Arg(1024)->Arg(1 << 20);

#ifdef CREDENCE_HAVE_CRYPTOPP
void BM_keccak256_cryptopp(benchmark::State& state) {
    const auto data = make_input(static_cast<size_t>(state.range(0)));
    CryptoPP::Keccak_256 h;
    uint8_t out[32];
    for (auto _ : state) {
        h.CalculateDigest(out, data.data(), data.size());
        benchmark::DoNotOptimize(out);
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_keccak256_cryptopp)->Arg(32)->Arg(1024)->Arg(1 << 20);
#endif

}  // namespace
