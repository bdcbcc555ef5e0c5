// devnet_deploy (chain/devnet_deploy.hpp): the plan against the real cast's CREATE2 arithmetic,
// and the deployment against a real anvil (every contract has code; a second run sends nothing).
#include <credence/chain/devnet_deploy.hpp>

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/contract_call.hpp>
#include <credence/core/keccak.hpp>

#include "support/anvil.hpp"
#include "support/process.hpp"

namespace {

using credence::testing::cast_output;

namespace chain = credence::chain;
namespace core = credence::core;
namespace fs = std::filesystem;

// Runs the real cast and returns its trimmed stdout.

core::Address dev_address(size_t i) {
    return *core::Address::from_hex(credence::testing::kAnvilDevAddresses[i]);
}

const chain::PlannedContract& find(const std::vector<chain::PlannedContract>& plan,
                                   std::string_view name) {
    for (const auto& c : plan) {
        if (c.name == name) return c;
    }
    ADD_FAILURE() << "no " << name << " in the plan";
    return plan.front();
}

}  // namespace

TEST(chain_devnet_deploy, salt_is_keccak_of_credence_v1) {
    // contracts/script/Deploy.s.sol: SALT = keccak256("credence.v1").
    EXPECT_EQ(core::to_hex(chain::deploy_salt()), cast_output({"keccak", "credence.v1"}));
    EXPECT_EQ(chain::create2_deployer().to_checksum_hex(), chain::kCreate2DeployerHex);
}

TEST(chain_devnet_deploy, plan_has_deploy_script_order_and_cast_create2_addresses) {
    auto plan = chain::plan_deployment(dev_address(0), dev_address(0));
    ASSERT_TRUE(plan) << plan.error();
    const std::vector<std::string> expected_order = {"IdentityRegistry",
                                                     "ReputationRegistry",
                                                     "ValidationRegistry",
                                                     "ToolRegistry",
                                                     "DevnetERC1155",
                                                     "DevnetSubscriptions",
                                                     "ERC721HoldingPredicate",
                                                     "ERC1155HoldingPredicate",
                                                     "SubscriptionPredicate",
                                                     "AllowlistPredicate",
                                                     "AccessProofPredicate",
                                                     "CompositePredicate",
                                                     "ECDSAAttestationVerifier",
                                                     "SingleStageWorkflow",
                                                     "InputProvenanceWorkflow",
                                                     "CompetitiveBidWorkflow",
                                                     "SequentialPipelineWorkflow",
                                                     "BFTCommitRevealWorkflow",
                                                     "ParallelAuditWorkflow",
                                                     "PermissionedSingleStageWorkflow"};
    ASSERT_EQ(plan->size(), expected_order.size());
    for (size_t i = 0; i < expected_order.size(); ++i)
        EXPECT_EQ((*plan)[i].name, expected_order[i]);

    // The real cast computes the same EIP-1014 addresses from the same init code.
    const std::string salt = core::to_hex(chain::deploy_salt());
    for (const char* name : {"IdentityRegistry", "ReputationRegistry", "CompositePredicate",
                             "PermissionedSingleStageWorkflow"}) {
        const auto& c = find(*plan, name);
        const std::string hash = core::to_hex(core::keccak256(c.init_code));
        EXPECT_EQ(cast_output({"compute-address", std::string(chain::kCreate2DeployerHex), "--salt",
                               salt, "--init-code-hash", hash}),
                  "Computed Address: " + c.address.to_checksum_hex())
            << name;
    }
    // Constructor arguments are appended to the creation code: ReputationRegistry(identity).
    const auto& identity = find(*plan, "IdentityRegistry");
    const auto& reputation = find(*plan, "ReputationRegistry");
    auto creation =
        core::from_prefixed_hex(credence::chain::bindings::reputation_registry::kCreationCodeHex);
    ASSERT_TRUE(creation);
    ASSERT_EQ(reputation.init_code.size(), creation->size() + 32);
    EXPECT_TRUE(std::equal(identity.address.bytes.begin(), identity.address.bytes.end(),
                           reputation.init_code.end() - 20));
    EXPECT_EQ(cast_output({"abi-encode", "f(address)", identity.address.to_checksum_hex()}),
              core::to_hex(core::ByteView(reputation.init_code).last(32)));
}

TEST(chain_devnet_deploy, plan_depends_on_deployer_and_attester) {
    auto a = chain::plan_deployment(dev_address(0), dev_address(0));
    auto b = chain::plan_deployment(dev_address(1), dev_address(0));
    auto c = chain::plan_deployment(dev_address(0), dev_address(2));
    ASSERT_TRUE(a && b && c);
    // IdentityRegistry has no constructor arguments: the same address for every deployer.
    EXPECT_EQ(find(*a, "IdentityRegistry").address, find(*b, "IdentityRegistry").address);
    // DevnetERC1155(owner) does depend on it; the verifier depends on the attester.
    EXPECT_NE(find(*a, "DevnetERC1155").address, find(*b, "DevnetERC1155").address);
    EXPECT_EQ(find(*a, "DevnetERC1155").address, find(*c, "DevnetERC1155").address);
    EXPECT_NE(find(*a, "ECDSAAttestationVerifier").address,
              find(*c, "ECDSAAttestationVerifier").address);
}

TEST(chain_devnet_deploy, deploys_everything_on_anvil_and_is_idempotent) {
    auto anvil = credence::testing::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    auto rpc = chain::RpcClient::make_http((*anvil)->url());
    auto key = core::SecretKey::from_hex((*anvil)->dev_accounts().at(0).private_key_hex);
    ASSERT_TRUE(key);

    auto first = chain::deploy_all(rpc, *key);
    ASSERT_TRUE(first) << first.error();
    EXPECT_EQ(first->sent, 20U);
    EXPECT_EQ(first->skipped, 0U);
    const auto& d = first->deployment;
    EXPECT_EQ(d.chain_id, 31337U);
    EXPECT_EQ(d.deployer, dev_address(0));
    ASSERT_EQ(d.contracts.size(), 20U);
    auto plan = chain::plan_deployment(dev_address(0), dev_address(0));
    ASSERT_TRUE(plan);
    for (const auto& c : *plan) {
        ASSERT_TRUE(d.contracts.contains(c.name)) << c.name;
        EXPECT_EQ(d.contracts.at(c.name), c.address) << c.name;
        auto code = rpc.get_code(c.address);
        ASSERT_TRUE(code) << c.name;
        EXPECT_FALSE(code->empty()) << c.name << " has no code";
    }
    // The deployed registry answers through its bindings: ReputationRegistry knows the identity
    // registry it was constructed with.
    const auto identity = d.contracts.at("IdentityRegistry");
    chain::ContractCaller caller(rpc);
    auto bound = credence::chain::bindings::reputation_registry::call::get_identity_registry(
        caller, d.contracts.at("ReputationRegistry"));
    ASSERT_TRUE(bound) << bound.error().message();
    EXPECT_EQ(*bound, identity);

    // Second run: everything is already there; no transaction, no new block.
    auto block_before = rpc.block_number();
    ASSERT_TRUE(block_before);
    auto second = chain::deploy_all(rpc, *key);
    ASSERT_TRUE(second) << second.error();
    EXPECT_EQ(second->sent, 0U);
    EXPECT_EQ(second->skipped, 20U);
    EXPECT_EQ(second->deployment.contracts, d.contracts);
    auto block_after = rpc.block_number();
    ASSERT_TRUE(block_after);
    EXPECT_EQ(*block_after, *block_before);
    auto nonce = rpc.get_transaction_count(dev_address(0));
    ASSERT_TRUE(nonce);
    EXPECT_EQ(*nonce, 20U);
}

// --revisions all: the Deploy.s.sol set keeps its addresses, the six earlier-revision registries
// follow, each recorded with its revision and bound to its own revision's identity registry.
TEST(chain_devnet_deploy, all_revisions_add_the_legacy_registries_after_the_script_set) {
    using core::Erc8004Revision;
    auto current = chain::plan_deployment(dev_address(0), dev_address(0));
    auto all = chain::plan_deployment(dev_address(0), dev_address(0), chain::DeployRevisions::all);
    ASSERT_TRUE(current && all);
    ASSERT_EQ(all->size(), current->size() + 6);
    for (size_t i = 0; i < current->size(); ++i) {
        EXPECT_EQ((*all)[i].name, (*current)[i].name);
        EXPECT_EQ((*all)[i].address, (*current)[i].address);
    }
    const std::vector<std::string> legacy = {"ScoreIdentityRegistry",   "ScoreReputationRegistry",
                                             "ScoreValidationRegistry", "DraftIdentityRegistry",
                                             "DraftReputationRegistry", "DraftValidationRegistry"};
    for (size_t i = 0; i < legacy.size(); ++i)
        EXPECT_EQ((*all)[current->size() + i].name, legacy[i]);

    auto anvil = credence::testing::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    auto rpc = chain::RpcClient::make_http((*anvil)->url());
    auto key = core::SecretKey::from_hex((*anvil)->dev_accounts().at(0).private_key_hex);
    ASSERT_TRUE(key);
    chain::DeployOptions options;
    options.revisions = chain::DeployRevisions::all;
    auto deployed = chain::deploy_all(rpc, *key, options);
    ASSERT_TRUE(deployed) << deployed.error();
    EXPECT_EQ(deployed->sent, 26U);
    const auto& d = deployed->deployment;
    EXPECT_EQ(d.revisions.size(), 6U);
    EXPECT_EQ(d.revision_of("ScoreValidationRegistry"), Erc8004Revision::score);
    EXPECT_EQ(d.revision_of("DraftIdentityRegistry"), Erc8004Revision::draft);
    EXPECT_EQ(d.revision_of("IdentityRegistry"), Erc8004Revision::current);

    chain::ContractCaller caller(rpc);
    namespace b = credence::chain::bindings;
    auto score_bound = b::score_reputation_registry::call::get_identity_registry(
        caller, d.contracts.at("ScoreReputationRegistry"));
    ASSERT_TRUE(score_bound) << score_bound.error().message();
    EXPECT_EQ(*score_bound, d.contracts.at("ScoreIdentityRegistry"));
    auto draft_bound = b::draft_reputation_registry::call::get_identity_registry(
        caller, d.contracts.at("DraftReputationRegistry"));
    ASSERT_TRUE(draft_bound) << draft_bound.error().message();
    EXPECT_EQ(*draft_bound, d.contracts.at("DraftIdentityRegistry"));
    auto ttl = b::draft_validation_registry::call::get_expiration_slots(
        caller, d.contracts.at("DraftValidationRegistry"));
    ASSERT_TRUE(ttl) << ttl.error().message();
    EXPECT_EQ(*ttl, core::Uint256{chain::kDraftValidationTtlSeconds});
}

TEST(chain_devnet_deploy, fails_clearly_without_the_create2_deployer) {
    auto anvil = credence::testing::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    auto rpc = chain::RpcClient::make_http((*anvil)->url());
    // Remove the predeployed proxy.
    auto cleared = rpc.request(
        "anvil_setCode", nlohmann::json::array({std::string(chain::kCreate2DeployerHex), "0x"}));
    ASSERT_TRUE(cleared) << cleared.error().to_string();
    auto key = core::SecretKey::from_hex((*anvil)->dev_accounts().at(0).private_key_hex);
    ASSERT_TRUE(key);
    auto r = chain::deploy_all(rpc, *key);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("no CREATE2 deployer"), std::string::npos) << r.error();
}

TEST(chain_devnet_deploy, anvil_state_file_keeps_the_contracts_across_restarts) {
    const fs::path dir =
        fs::temp_directory_path() / ("credence-anvil-state-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    chain::AnvilOptions options;
    options.state_file = dir / "state.json";
    chain::Deployment deployed;
    {
        auto anvil = chain::AnvilProcess::start(options);
        ASSERT_TRUE(anvil) << anvil.error();
        auto rpc = chain::RpcClient::make_http((*anvil)->url());
        auto key = core::SecretKey::from_hex((*anvil)->dev_accounts().at(0).private_key_hex);
        ASSERT_TRUE(key);
        auto r = chain::deploy_all(rpc, *key);
        ASSERT_TRUE(r) << r.error();
        EXPECT_EQ(r->sent, 20U);
        deployed = r->deployment;
        (*anvil)->stop();  // SIGTERM: anvil writes its state
    }
    ASSERT_TRUE(fs::exists(options.state_file.value())) << "anvil wrote no state file";
    auto anvil = chain::AnvilProcess::start(options);
    ASSERT_TRUE(anvil) << anvil.error();
    auto rpc = chain::RpcClient::make_http((*anvil)->url());
    auto code = rpc.get_code(deployed.contracts.at("IdentityRegistry"));
    ASSERT_TRUE(code);
    EXPECT_FALSE(code->empty());
    auto key = core::SecretKey::from_hex((*anvil)->dev_accounts().at(0).private_key_hex);
    ASSERT_TRUE(key);
    auto again = chain::deploy_all(rpc, *key);
    ASSERT_TRUE(again) << again.error();
    EXPECT_EQ(again->sent, 0U);
    EXPECT_EQ(again->deployment.contracts, deployed.contracts);
    anvil->reset();
    fs::remove_all(dir);
}
