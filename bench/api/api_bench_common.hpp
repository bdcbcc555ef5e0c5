// The scope both bench binaries agree on: the chain and the registries the generator writes
// under and the server answers for.
#pragma once

#include <cstdint>

#include <credence/api/rest_api.hpp>

namespace credence::bench {

inline constexpr uint64_t kBenchChainId = 31337;

inline core::Address bench_address(uint8_t last) {
    core::Address a;
    a.bytes[19] = last;
    return a;
}

inline api::ApiScope bench_scope() {
    api::ApiScope scope;
    scope.chain_id = kBenchChainId;
    scope.identity_registry = bench_address(1);
    scope.reputation_registry = bench_address(2);
    scope.validation_registry = bench_address(3);
    return scope;
}

}  // namespace credence::bench
