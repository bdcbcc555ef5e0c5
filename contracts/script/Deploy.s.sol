// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Script} from "forge-std/Script.sol";
import {IdentityRegistry} from "../src/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../src/erc8004/ReputationRegistry.sol";
import {ValidationRegistry} from "../src/erc8004/ValidationRegistry.sol";
import {ToolRegistry} from "../src/erc8257/ToolRegistry.sol";
import {ERC721HoldingPredicate} from "../src/erc8257/predicates/ERC721HoldingPredicate.sol";
import {ERC1155HoldingPredicate} from "../src/erc8257/predicates/ERC1155HoldingPredicate.sol";
import {SubscriptionPredicate} from "../src/erc8257/predicates/SubscriptionPredicate.sol";
import {AllowlistPredicate} from "../src/erc8257/predicates/AllowlistPredicate.sol";
import {AccessProofPredicate} from "../src/erc8257/predicates/AccessProofPredicate.sol";
import {CompositePredicate} from "../src/erc8257/predicates/CompositePredicate.sol";
import {RequirementLogic} from "../src/interfaces/IAccessPredicate.sol";
import {ECDSAAttestationVerifier} from "../src/erc8301/verifiers/ECDSAAttestationVerifier.sol";
import {SingleStageWorkflow} from "../src/erc8301/workflows/SingleStageWorkflow.sol";
import {InputProvenanceWorkflow} from "../src/erc8301/workflows/InputProvenanceWorkflow.sol";
import {CompetitiveBidWorkflow} from "../src/erc8301/workflows/CompetitiveBidWorkflow.sol";
import {SequentialPipelineWorkflow} from "../src/erc8301/workflows/SequentialPipelineWorkflow.sol";
import {BFTCommitRevealWorkflow} from "../src/erc8301/workflows/BFTCommitRevealWorkflow.sol";
import {ParallelAuditWorkflow} from "../src/erc8301/workflows/ParallelAuditWorkflow.sol";
import {PermissionedSingleStageWorkflow} from "../src/erc8301/workflows/PermissionedSingleStageWorkflow.sol";
import {DevnetERC1155} from "../src/devnet/DevnetERC1155.sol";
import {DevnetSubscriptions} from "../src/devnet/DevnetSubscriptions.sol";

/// @notice Deterministic deployment of every Credence contract through the CREATE2 deployer
///         0x4e59b44847b379578588920cA78FbF26c0B4956C, then writes deployments/<chainId>.json:
///         {"chainId":N,"create2Deployer":"0x..","salt":"0x..","deployer":"0x..",
///          "contracts":{"Name":{"address":"0x..","abi":"contracts/out/Name.sol/Name.json"},...}}
///         Re-running is idempotent: contracts already at their CREATE2 address are not redeployed.
/// @dev Env: ATTESTER (optional; default the broadcasting account) is the initial ECDSA attester.
contract Deploy is Script {
    address internal constant FACTORY = 0x4e59b44847b379578588920cA78FbF26c0B4956C;
    bytes32 internal constant SALT = keccak256("credence.v1");
    uint256 internal constant BID_QUORUM = 3;
    uint256 internal constant BFT_QUORUM = 3;

    string internal _json;
    bool internal _first = true;

    function run() external {
        vm.startBroadcast();
        (, address deployer,) = vm.readCallers();
        address attester = vm.envOr("ATTESTER", deployer);

        address identity = _deploy("IdentityRegistry", type(IdentityRegistry).creationCode, "");
        _deploy("ReputationRegistry", type(ReputationRegistry).creationCode, abi.encode(identity));
        _deploy("ValidationRegistry", type(ValidationRegistry).creationCode, abi.encode(identity));

        _deploy("ToolRegistry", type(ToolRegistry).creationCode, "");
        address erc1155 = _deploy("DevnetERC1155", type(DevnetERC1155).creationCode, abi.encode(deployer));
        address subs = _deploy("DevnetSubscriptions", type(DevnetSubscriptions).creationCode, abi.encode(deployer));
        address holdAgent =
            _deploy("ERC721HoldingPredicate", type(ERC721HoldingPredicate).creationCode, abi.encode(identity));
        _deploy("ERC1155HoldingPredicate", type(ERC1155HoldingPredicate).creationCode, abi.encode(erc1155, 1));
        _deploy("SubscriptionPredicate", type(SubscriptionPredicate).creationCode, abi.encode(subs, uint8(1)));
        _deploy("AllowlistPredicate", type(AllowlistPredicate).creationCode, abi.encode(deployer));
        address proof = _deploy("AccessProofPredicate", type(AccessProofPredicate).creationCode, "");
        address[] memory children = new address[](2);
        children[0] = proof;
        children[1] = holdAgent;
        _deploy("CompositePredicate", type(CompositePredicate).creationCode, abi.encode(children, RequirementLogic.AND));

        address[] memory attesters = new address[](1);
        attesters[0] = attester;
        address v = _deploy(
            "ECDSAAttestationVerifier",
            type(ECDSAAttestationVerifier).creationCode,
            abi.encode(deployer, attesters, keccak256("credence.ecdsa.v1"))
        );
        bytes memory wfArgs = abi.encode(v, true, bytes(""));
        _deploy("SingleStageWorkflow", type(SingleStageWorkflow).creationCode, wfArgs);
        _deploy("InputProvenanceWorkflow", type(InputProvenanceWorkflow).creationCode, wfArgs);
        _deploy(
            "CompetitiveBidWorkflow",
            type(CompetitiveBidWorkflow).creationCode,
            abi.encode(v, true, bytes(""), BID_QUORUM)
        );
        _deploy("SequentialPipelineWorkflow", type(SequentialPipelineWorkflow).creationCode, wfArgs);
        _deploy(
            "BFTCommitRevealWorkflow",
            type(BFTCommitRevealWorkflow).creationCode,
            abi.encode(v, true, bytes(""), BFT_QUORUM)
        );
        _deploy("ParallelAuditWorkflow", type(ParallelAuditWorkflow).creationCode, wfArgs);
        _deploy(
            "PermissionedSingleStageWorkflow",
            type(PermissionedSingleStageWorkflow).creationCode,
            abi.encode(v, true, bytes(""), identity)
        );
        vm.stopBroadcast();

        string memory out = string.concat(
            "{\"chainId\":",
            vm.toString(block.chainid),
            ",\"create2Deployer\":\"",
            vm.toString(FACTORY),
            "\",\"salt\":\"",
            vm.toString(SALT),
            "\",\"deployer\":\"",
            vm.toString(deployer),
            "\",\"contracts\":{",
            _json,
            "}}\n"
        );
        string memory path = string.concat("deployments/", vm.toString(block.chainid), ".json");
        vm.writeFile(path, out);
    }

    function _deploy(string memory name, bytes memory creationCode, bytes memory args) internal returns (address a) {
        bytes memory initCode = abi.encodePacked(creationCode, args);
        a = vm.computeCreate2Address(SALT, keccak256(initCode), FACTORY);
        if (a.code.length == 0) {
            (bool ok,) = FACTORY.call(abi.encodePacked(SALT, initCode));
            require(ok && a.code.length != 0, string.concat("CREATE2 failed: ", name));
        }
        _json = string.concat(
            _json,
            _first ? "" : ",",
            "\"",
            name,
            "\":{\"address\":\"",
            vm.toString(a),
            "\",\"abi\":\"contracts/out/",
            name,
            ".sol/",
            name,
            ".json\"}"
        );
        _first = false;
    }
}
