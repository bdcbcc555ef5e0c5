// A real anvil node for integration tests: the production launcher (chain/anvil_process.hpp, which
// `credence devnet` uses too) under the names the tests have always used, plus the well-known dev
// keys of anvil's default mnemonic.
#pragma once

#include <string_view>

#include <credence/chain/anvil_process.hpp>

namespace credence::testing {

using chain::AnvilOptions;
using chain::AnvilProcess;
using chain::DevAccount;
using chain::pick_free_port;

/// The first dev accounts of anvil's default mnemonic ("test test ... junk"), index 0..2.
inline constexpr std::string_view kAnvilDevKeys[] = {
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
};
inline constexpr std::string_view kAnvilDevAddresses[] = {
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
};

}  // namespace credence::testing
