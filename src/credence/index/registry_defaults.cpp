// Built-in sources and finality depths (docs/architecture.md §index/).
#include <algorithm>
#include <array>
#include <string_view>

#include <credence/chain/deployment.hpp>
#include <credence/core/erc8004_revision.hpp>
#include <credence/index/indexer.hpp>

namespace credence::index {
namespace {

// The ERC-8004 registries are CREATE2 singletons with the same vanity addresses on every chain of
// a class (tests/vectors/erc8004.json `deployed`).
struct RegistrySet {
    std::string_view identity;
    std::string_view reputation;
    std::string_view validation;
};
constexpr RegistrySet kMainnetSet{"0x8004A169FB4a3325136EB29fA0ceB6D2e539a432",
                                  "0x8004BAa17C55a88189AE136b182e5fdA19dE9b63",
                                  "0x8004Cc8439f36fd5F9F049D9fF86523Df6dAAB58"};
constexpr RegistrySet kTestnetSet{"0x8004A818BFB912233c491871b3d84c89A494BD9e",
                                  "0x8004B663056A597Dffe9eCcC1965A193B7388713",
                                  "0x8004Cb1BF31DAf7788923b405b754f57acEB4272"};

// EVM mainnets: Ethereum, OP, BNB, Gnosis, Polygon, Mantle, Base, Arbitrum One, Celo, Avalanche,
// Linea, Scroll.
constexpr std::array<uint64_t, 12> kMainnets{1,    10,    56,    100,   137,   5000,
                                             8453, 42161, 42220, 43114, 59144, 534352};
// Their testnets: Sepolia, Holesky, Hoodi, BNB testnet, Chiado, Amoy, Mantle Sepolia, Base Sepolia,
// Arbitrum Sepolia, Alfajores, Fuji, Linea Sepolia, Scroll Sepolia, OP Sepolia.
constexpr std::array<uint64_t, 14> kTestnets{11155111, 17000, 560048, 97,      10200,
                                             80002,    5003,  84532,  421614,  44787,
                                             43113,    59141, 534351, 11155420};

bool contains(std::span<const uint64_t> ids, uint64_t id) {
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

RegistrySource source(ContractKind kind, std::string_view hex, std::string name) {
    // The constants above are valid checksummed addresses; value() cannot fail.
    return {kind, core::Address::from_hex(hex).value(), 0, std::move(name)};
}

}  // namespace

uint64_t default_finality_depth(uint64_t chain_id) noexcept {
    // Polygon PoS reorged up to ~150 blocks before its fast-finality upgrade: keep a wide window.
    if (chain_id == 137 || chain_id == 80002) return 256;
    // Ethereum finalizes after two epochs (64 slots); its rollups inherit that bound. A local
    // devnet never reorgs by itself, but tests reorg it on purpose (anvil_reorg), so the same 64.
    if (contains(kMainnets, chain_id) || contains(kTestnets, chain_id) || chain_id == 31337 ||
        chain_id == 1337) {
        return 64;
    }
    return 128;
}

std::vector<RegistrySource> default_erc8004_sources(uint64_t chain_id) {
    const RegistrySet* set = nullptr;
    if (contains(kMainnets, chain_id)) set = &kMainnetSet;
    if (contains(kTestnets, chain_id)) set = &kTestnetSet;
    if (set == nullptr) return {};
    return {source(ContractKind::identity_registry, set->identity, "IdentityRegistry"),
            source(ContractKind::reputation_registry, set->reputation, "ReputationRegistry"),
            source(ContractKind::validation_registry, set->validation, "ValidationRegistry")};
}

std::vector<RegistrySource> sources_from_deployment(const chain::Deployment& d) {
    std::vector<RegistrySource> out;
    for (const auto& [name, address] : d.contracts) {
        std::optional<ContractKind> kind;
        if (name == "IdentityRegistry") kind = ContractKind::identity_registry;
        if (name == "ReputationRegistry") kind = ContractKind::reputation_registry;
        if (name == "ValidationRegistry") kind = ContractKind::validation_registry;
        if (name == "ToolRegistry") kind = ContractKind::tool_registry;
        if (name.ends_with("Workflow")) kind = ContractKind::workflow;
        if (name.ends_with("AttestationVerifier")) kind = ContractKind::agent_verifier;
        // The earlier ERC-8004 revisions' registries (`credence devnet --revisions all`): the name
        // says the registry and the revision (the file records the revision too).
        if (const auto revision = chain::legacy_registry_revision(name)) {
            for (const auto registry :
                 {core::Erc8004Registry::identity, core::Erc8004Registry::reputation,
                  core::Erc8004Registry::validation}) {
                if (core::registry_contract_name(*revision, registry) == name) {
                    kind = erc8004_contract_kind(registry, *revision);
                }
            }
        }
        // Predicates, tokens and mocks emit nothing the registries' readers need.
        if (kind) out.push_back({*kind, address, 0, name});
    }
    return out;
}

std::vector<RegistrySource> default_sources(const chain::Deployment* deployment,
                                            uint64_t chain_id) {
    std::vector<RegistrySource> out;
    if (deployment != nullptr) out = sources_from_deployment(*deployment);
    for (auto& s : default_erc8004_sources(chain_id)) {
        const bool known = std::any_of(out.begin(), out.end(),
                                       [&](const auto& have) { return have.address == s.address; });
        if (!known) out.push_back(std::move(s));
    }
    return out;
}

}  // namespace credence::index
