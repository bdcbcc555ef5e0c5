// secp256k1 through libsecp256k1: public-key and address recovery (the ecrecover precompile and
// transaction sender recovery), signing, and full raw-transaction decode + sender recovery.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <string>

#include <credence/core/keccak.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/txn.hpp>

using namespace credence::core;

namespace {

struct Fixture {
    SecretKey key;
    Hash32 digest;
    Signature sig;
};

// A real signature over a real digest, made once (the key is a fixed test key, never printed).
Fixture make_fixture() {
    auto key =
        SecretKey::from_hex("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
    if (!key) std::abort();
    const Hash32 digest = keccak256(std::string_view("credence ecrecover benchmark"));
    auto sig = sign_digest(*key, digest);
    if (!sig) std::abort();
    return Fixture{std::move(*key), digest, *sig};
}

const Fixture& fixture() {
    static const Fixture kFixture = make_fixture();
    return kFixture;
}

void BM_recover_public_key(benchmark::State& state) {
    const Fixture& f = fixture();
    for (auto _ : state) {
        auto pub = recover_public_key(f.digest, f.sig);
        benchmark::DoNotOptimize(pub);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_recover_public_key);

void BM_recover_address(benchmark::State& state) {
    const Fixture& f = fixture();
    for (auto _ : state) {
        auto addr = recover_address(f.digest, f.sig);
        benchmark::DoNotOptimize(addr);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_recover_address);

void BM_sign_digest(benchmark::State& state) {
    const Fixture& f = fixture();
    for (auto _ : state) {
        auto sig = sign_digest(f.key, f.digest);
        benchmark::DoNotOptimize(sig);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_sign_digest);

void BM_verify(benchmark::State& state) {
    const Fixture& f = fixture();
    const PublicKey pub = public_key(f.key);
    for (auto _ : state) {
        bool ok = verify(pub, f.digest, f.sig);
        benchmark::DoNotOptimize(ok);
    }
    state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_verify);

void BM_decode_and_recover_sender_eip1559(benchmark::State& state) {
    const Fixture& f = fixture();
    Txn t;
    t.type = TxnType::dynamic_fee;
    t.chain_id = 8453;
    t.nonce = 42;
    t.max_priority_fee_per_gas = 1'000'000;
    t.max_fee_per_gas = 2'000'000'000;
    t.gas_limit = 100'000;
    t.to = *Address::from_hex("0x8004a169fb4a3325136eb29fa0ceb6d2e539a432");
    t.data = Bytes(68, 0xab);
    auto signed_txn = sign_txn(t, f.key);
    if (!signed_txn) std::abort();
    const Bytes raw = encode_signed(*signed_txn);
    for (auto _ : state) {
        auto d = decode_signed(raw);
        auto from = recover_sender(*d);
        benchmark::DoNotOptimize(from);
    }
    state.SetItemsProcessed(state.iterations());
    state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(raw.size()));
}
BENCHMARK(BM_decode_and_recover_sender_eip1559);

}  // namespace
