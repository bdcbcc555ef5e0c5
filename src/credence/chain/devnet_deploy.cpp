#include <credence/chain/devnet_deploy.hpp>

#include <array>
#include <utility>

#include <credence/chain/bindings/access_proof_predicate.hpp>
#include <credence/chain/bindings/allowlist_predicate.hpp>
#include <credence/chain/bindings/bft_commit_reveal_workflow.hpp>
#include <credence/chain/bindings/competitive_bid_workflow.hpp>
#include <credence/chain/bindings/composite_predicate.hpp>
#include <credence/chain/bindings/devnet_erc1155.hpp>
#include <credence/chain/bindings/devnet_subscriptions.hpp>
#include <credence/chain/bindings/draft_identity_registry.hpp>
#include <credence/chain/bindings/draft_reputation_registry.hpp>
#include <credence/chain/bindings/draft_validation_registry.hpp>
#include <credence/chain/bindings/ecdsa_attestation_verifier.hpp>
#include <credence/chain/bindings/erc1155_holding_predicate.hpp>
#include <credence/chain/bindings/erc721_holding_predicate.hpp>
#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/input_provenance_workflow.hpp>
#include <credence/chain/bindings/parallel_audit_workflow.hpp>
#include <credence/chain/bindings/permissioned_single_stage_workflow.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/score_identity_registry.hpp>
#include <credence/chain/bindings/score_reputation_registry.hpp>
#include <credence/chain/bindings/score_validation_registry.hpp>
#include <credence/chain/bindings/sequential_pipeline_workflow.hpp>
#include <credence/chain/bindings/single_stage_workflow.hpp>
#include <credence/chain/bindings/subscription_predicate.hpp>
#include <credence/chain/bindings/tool_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/core/keccak.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::chain {
namespace {

namespace b = bindings;

// Deploy.s.sol's constants.
constexpr uint64_t kBidQuorum = 3;
constexpr uint64_t kBftQuorum = 3;
constexpr uint64_t kErc1155TokenId = 1;
constexpr uint64_t kSubscriptionMinTier = 1;
constexpr uint64_t kRequirementLogicAnd = 0;  // enum RequirementLogic { AND, OR }

// Collects the plan; the first encoding failure sticks and names its contract.
class Planner {
public:
    Planner() : factory_(create2_deployer()), salt_(deploy_salt()) {}

    core::Address add(std::string_view name, core::Result<core::Bytes, core::AbiError> init) {
        if (!init) {
            if (error_.empty()) {
                error_ = std::string(name) +
                         ": cannot encode constructor arguments: " + init.error().detail;
            }
            return {};
        }
        // EIP-1014: keccak256(0xff ++ deployer ++ salt ++ keccak256(init_code))[12:].
        const core::Address address = core::create2_address(factory_, salt_, *init);
        plan_.push_back({std::string(name), std::move(*init), address});
        return address;
    }

    std::expected<std::vector<PlannedContract>, std::string> finish() && {
        if (!error_.empty()) return std::unexpected(error_);
        return std::move(plan_);
    }

private:
    core::Address factory_;
    core::Hash32 salt_;
    std::vector<PlannedContract> plan_;
    std::string error_;
};

}  // namespace

core::Address create2_deployer() {
    // A valid EIP-55 literal: cannot fail.
    return *core::Address::from_hex(kCreate2DeployerHex);
}

core::Hash32 deploy_salt() { return core::keccak256(std::string_view("credence.v1")); }

std::expected<std::vector<PlannedContract>, std::string> plan_deployment(
    const core::Address& deployer, const core::Address& attester, DeployRevisions revisions) {
    Planner p;
    const core::ByteView no_metadata{};
    // Same order and arguments as contracts/script/Deploy.s.sol run().
    const auto identity = p.add("IdentityRegistry", b::identity_registry::init_code());
    p.add("ReputationRegistry", b::reputation_registry::init_code(identity));
    p.add("ValidationRegistry", b::validation_registry::init_code(identity));

    p.add("ToolRegistry", b::tool_registry::init_code());
    const auto erc1155 = p.add("DevnetERC1155", b::devnet_erc1155::init_code(deployer));
    const auto subs = p.add("DevnetSubscriptions", b::devnet_subscriptions::init_code(deployer));
    const auto hold_agent =
        p.add("ERC721HoldingPredicate", b::erc721_holding_predicate::init_code(identity));
    p.add("ERC1155HoldingPredicate",
          b::erc1155_holding_predicate::init_code(erc1155, core::Uint256{kErc1155TokenId}));
    p.add("SubscriptionPredicate",
          b::subscription_predicate::init_code(subs, kSubscriptionMinTier));
    p.add("AllowlistPredicate", b::allowlist_predicate::init_code(deployer));
    const auto proof = p.add("AccessProofPredicate", b::access_proof_predicate::init_code());
    const std::array<core::Address, 2> children{proof, hold_agent};
    p.add("CompositePredicate", b::composite_predicate::init_code(children, kRequirementLogicAnd));

    const std::array<core::Address, 1> attesters{attester};
    const auto verifier =
        p.add("ECDSAAttestationVerifier",
              b::ecdsa_attestation_verifier::init_code(
                  deployer, attesters, core::keccak256(std::string_view("credence.ecdsa.v1"))));
    p.add("SingleStageWorkflow", b::single_stage_workflow::init_code(verifier, true, no_metadata));
    p.add("InputProvenanceWorkflow",
          b::input_provenance_workflow::init_code(verifier, true, no_metadata));
    p.add("CompetitiveBidWorkflow", b::competitive_bid_workflow::init_code(
                                        verifier, true, no_metadata, core::Uint256{kBidQuorum}));
    p.add("SequentialPipelineWorkflow",
          b::sequential_pipeline_workflow::init_code(verifier, true, no_metadata));
    p.add("BFTCommitRevealWorkflow", b::bft_commit_reveal_workflow::init_code(
                                         verifier, true, no_metadata, core::Uint256{kBftQuorum}));
    p.add("ParallelAuditWorkflow",
          b::parallel_audit_workflow::init_code(verifier, true, no_metadata));
    p.add("PermissionedSingleStageWorkflow",
          b::permissioned_single_stage_workflow::init_code(verifier, true, no_metadata, identity));

    if (revisions == DeployRevisions::all) {
        // ERC-8004 intermediate §Reputation Registry / §Validation Registry: the identity registry
        // is passed to the constructor.
        const auto score_identity =
            p.add("ScoreIdentityRegistry", b::score_identity_registry::init_code());
        p.add("ScoreReputationRegistry", b::score_reputation_registry::init_code(score_identity));
        p.add("ScoreValidationRegistry", b::score_validation_registry::init_code(score_identity));
        const auto draft_identity =
            p.add("DraftIdentityRegistry", b::draft_identity_registry::init_code());
        p.add("DraftReputationRegistry", b::draft_reputation_registry::init_code(draft_identity));
        p.add("DraftValidationRegistry",
              b::draft_validation_registry::init_code(draft_identity,
                                                      core::Uint256{kDraftValidationTtlSeconds}));
    }
    return std::move(p).finish();
}

std::expected<DeployResult, std::string> deploy_all(RpcClient& rpc, const core::SecretKey& key,
                                                    const DeployOptions& options) {
    const core::Address deployer = core::address_of(key);
    auto plan = plan_deployment(deployer, options.attester.value_or(deployer), options.revisions);
    if (!plan) return std::unexpected(plan.error());

    auto chain_id = rpc.chain_id();
    if (!chain_id) return std::unexpected("eth_chainId: " + chain_id.error().to_string());
    const core::Address factory = create2_deployer();
    auto factory_code = rpc.get_code(factory);
    if (!factory_code) return std::unexpected("eth_getCode: " + factory_code.error().to_string());
    if (factory_code->empty()) {
        return std::unexpected("no CREATE2 deployer at " + std::string(kCreate2DeployerHex) +
                               " on chain " + std::to_string(*chain_id));
    }

    DeployResult result;
    result.deployment.chain_id = *chain_id;
    result.deployment.create2_deployer = factory;
    result.deployment.salt = deploy_salt();
    result.deployment.deployer = deployer;

    SenderOptions sender_options = options.sender;
    if (!sender_options.chain_id) sender_options.chain_id = *chain_id;
    TxnSender sender(rpc, key, sender_options);
    for (auto& contract : *plan) {
        auto code = rpc.get_code(contract.address);
        if (!code) {
            return std::unexpected(contract.name + ": eth_getCode: " + code.error().to_string());
        }
        if (code->empty()) {
            // Calldata of the deterministic-deployment proxy: salt ++ init code.
            TxnRequest request;
            request.to = factory;
            request.data = core::concat({result.deployment.salt, contract.init_code});
            auto receipt = sender.send(request);
            if (!receipt) {
                return std::unexpected("deploying " + contract.name + ": " +
                                       std::string(to_string(receipt.error().code)) + ": " +
                                       receipt.error().detail);
            }
            ++result.sent;
            code = rpc.get_code(contract.address);
            if (!code || code->empty()) {
                return std::unexpected("CREATE2 failed: " + contract.name + " has no code at " +
                                       contract.address.to_checksum_hex());
            }
        } else {
            ++result.skipped;
        }
        result.deployment.contracts.emplace(contract.name, contract.address);
        if (const auto revision = legacy_registry_revision(contract.name)) {
            result.deployment.revisions.emplace(contract.name, *revision);
        }
    }
    return result;
}

}  // namespace credence::chain
