// EIP-712 digest of the ERC-8004 AgentWalletSet authorisation (what `setAgentWallet` signers
// sign), through the fixed C++ helper and through the generic typed-data JSON path (parse text,
// build types, encode, hash), plus the JSON path from an already parsed document.
#include <credence/core/eip712.hpp>

#include <benchmark/benchmark.h>

namespace {

using namespace credence::core;

// Inputs of erc8004.json's first published case (Base mainnet registry).
constexpr std::string_view kDocument = R"({
  "types": {
    "EIP712Domain": [
      {"name": "name", "type": "string"}, {"name": "version", "type": "string"},
      {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
    "AgentWalletSet": [
      {"name": "agentId", "type": "uint256"}, {"name": "newWallet", "type": "address"},
      {"name": "owner", "type": "address"}, {"name": "deadline", "type": "uint256"}]
  },
  "primaryType": "AgentWalletSet",
  "domain": {"name": "ERC8004IdentityRegistry", "version": "1", "chainId": 8453,
             "verifyingContract": "0x8004A169FB4a3325136EB29fA0ceB6D2e539a432"},
  "message": {"agentId": 42, "newWallet": "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
              "owner": "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "deadline": 1893456000}
})";

Eip712Address address(std::string_view hex) { return from_hex_fixed<20>(hex).value(); }

void BM_agent_wallet_set_digest_cpp(benchmark::State& state) {
    const Uint256 chain_id{8453};
    const auto registry = address("0x8004A169FB4a3325136EB29fA0ceB6D2e539a432");
    const auto new_wallet = address("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    const auto owner = address("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
    const Uint256 agent_id{42};
    const Uint256 deadline{1893456000};
    for (auto _ : state)
        benchmark::DoNotOptimize(
            agent_wallet_set_digest(chain_id, registry, agent_id, new_wallet, owner, deadline));
}
BENCHMARK(BM_agent_wallet_set_digest_cpp);

void BM_agent_wallet_set_digest_json_text(benchmark::State& state) {
    for (auto _ : state) {
        auto digest = typed_data_digest(kDocument);
        if (!digest) state.SkipWithError("typed-data digest failed");
        benchmark::DoNotOptimize(digest);
    }
}
BENCHMARK(BM_agent_wallet_set_digest_json_text);

void BM_agent_wallet_set_digest_json_parsed(benchmark::State& state) {
    const auto td = parse_typed_data(kDocument);
    if (!td) {
        state.SkipWithError("typed-data parse failed");
        return;
    }
    for (auto _ : state) {
        auto digest = typed_data_digest(*td);
        benchmark::DoNotOptimize(digest);
    }
}
BENCHMARK(BM_agent_wallet_set_digest_json_parsed);

}  // namespace
