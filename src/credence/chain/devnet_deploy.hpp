// Deploys every Credence contract exactly as contracts/script/Deploy.s.sol does, from C++: same
// order, same constructor arguments, same salt, through the same CREATE2 deployer, so a chain set
// up by `credence devnet` and one set up by `forge script Deploy` hold the contracts at the same
// addresses.
//
// Each contract goes to create2_address(kCreate2Deployer, deploy_salt(), keccak256(init_code))
// (EIP-1014), by a transaction to the deployer whose calldata is salt ++ init_code (the
// deterministic-deployment-proxy convention, which anvil predeploys at kCreate2Deployer). The init
// code is the committed creation bytecode plus the ABI-encoded constructor arguments, both from the
// generated bindings (contracts/bytecode/, scripts/export-abis.sh), so no forge runs here.
// Idempotent: a contract whose address already holds code is skipped, as in Deploy.s.sol.
//
// With DeployRevisions::all, the registries of the two earlier ERC-8004 revisions follow the
// Deploy.s.sol set, through the same deployer and salt (contracts/src/erc8004-legacy; Deploy.s.sol
// does not deploy them): ScoreIdentityRegistry, ScoreReputationRegistry and
// ScoreValidationRegistry (the score revision, bound to ScoreIdentityRegistry), then
// DraftIdentityRegistry, DraftReputationRegistry and DraftValidationRegistry (the first draft,
// requests pending for kDraftValidationTtlSeconds). The deployment records each one's revision.
//
// Thread-safety: plan_deployment() is pure; deploy_all() is not thread-safe (it drives one
// RpcClient and one TxnSender). Ownership: borrows the client and the key for the call only.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <vector>

#include <credence/chain/deployment.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/chain/txn_sender.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::chain {

/// The deterministic-deployment proxy (github.com/Arachnid/deterministic-deployment-proxy).
inline constexpr std::string_view kCreate2DeployerHex =
    "0x4e59b44847b379578588920cA78FbF26c0B4956C";
[[nodiscard]] core::Address create2_deployer();
/// keccak256("credence.v1"): Deploy.s.sol's SALT.
[[nodiscard]] core::Hash32 deploy_salt();

/// Which ERC-8004 revisions a deployment holds (`credence devnet --revisions`).
enum class DeployRevisions {
    current,  ///< Deploy.s.sol's set: the current ERC-8004 registries only (the default)
    all,      ///< also the score revision's and the first draft's registries
};

/// X of the first draft's Validation Registry (ERC-8004 first draft §Validation Registry: requests
/// are kept "for X seconds"): one day on the devnet.
inline constexpr uint64_t kDraftValidationTtlSeconds = 86'400;

/// One contract of the deployment, in Deploy.s.sol order.
struct PlannedContract {
    std::string name;       // e.g. "IdentityRegistry"
    core::Bytes init_code;  // creation bytecode ++ constructor arguments
    core::Address address;  // its CREATE2 address
};

/// The contracts Deploy.s.sol deploys, with their init code and addresses, for a deployer (the
/// owner of the owned contracts) and the initial ECDSA attester (Deploy.s.sol: $ATTESTER, default
/// the deployer). The error names the contract whose constructor arguments failed to encode.
[[nodiscard]] std::expected<std::vector<PlannedContract>, std::string> plan_deployment(
    const core::Address& deployer, const core::Address& attester,
    DeployRevisions revisions = DeployRevisions::current);

struct DeployOptions {
    /// The initial ECDSA attester; nullopt: the deployer (as Deploy.s.sol without $ATTESTER).
    std::optional<core::Address> attester;
    DeployRevisions revisions = DeployRevisions::current;
    SenderOptions sender;
};

struct DeployResult {
    Deployment deployment;  // chain id, factory, salt, deployer and every address
    unsigned sent = 0;      // transactions sent (contracts deployed now)
    unsigned skipped = 0;   // contracts that already had code
};

/// Deploys what is missing, signing with `key` (the deployer), and returns the deployment
/// (rpc_url unset). The error is one line: the contract and the RPC or revert detail.
[[nodiscard]] std::expected<DeployResult, std::string> deploy_all(
    RpcClient& rpc, const core::SecretKey& key, const DeployOptions& options = {});

}  // namespace credence::chain
