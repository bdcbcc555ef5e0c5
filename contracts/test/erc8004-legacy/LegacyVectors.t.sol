// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../src/interfaces/IIdentityRegistry.sol";
import {IDraftIdentityRegistry} from "../../src/erc8004-legacy/interfaces/IDraftIdentityRegistry.sol";
import {IDraftReputationRegistry} from "../../src/erc8004-legacy/interfaces/IDraftReputationRegistry.sol";
import {IDraftValidationRegistry} from "../../src/erc8004-legacy/interfaces/IDraftValidationRegistry.sol";
import {IScoreReputationRegistry} from "../../src/erc8004-legacy/interfaces/IScoreReputationRegistry.sol";
import {IScoreValidationRegistry} from "../../src/erc8004-legacy/interfaces/IScoreValidationRegistry.sol";
import {DraftReputationRegistry} from "../../src/erc8004-legacy/DraftReputationRegistry.sol";
import {ScoreReputationRegistry} from "../../src/erc8004-legacy/ScoreReputationRegistry.sol";
import {ScoreIdentityRegistry} from "../../src/erc8004-legacy/ScoreIdentityRegistry.sol";

/// @notice The contracts' selectors and event topics equal tests/vectors/erc8004-legacy.json, whose
///         values were computed by cast from the signatures of the cited revision texts.
contract LegacyVectorsTest is Test {
    string internal json;

    function setUp() public {
        json = vm.readFile(string.concat(vm.projectRoot(), "/../tests/vectors/erc8004-legacy.json"));
    }

    /// @dev The vector's selector; also checks it is the selector of the vector's own signature text.
    function _sel(string memory base, string memory fn) internal view returns (bytes4 sel) {
        string memory path = string.concat(base, ".functions.", fn);
        sel = bytes4(vm.parseJsonBytes(json, string.concat(path, ".selector")));
        string memory sig = vm.parseJsonString(json, string.concat(path, ".signature"));
        assertEq(sel, bytes4(keccak256(bytes(sig))), sig);
    }

    function _topic(string memory base, string memory ev) internal view returns (bytes32 topic) {
        string memory path = string.concat(base, ".events.", ev);
        topic = vm.parseJsonBytes32(json, string.concat(path, ".topic0"));
        string memory sig = vm.parseJsonString(json, string.concat(path, ".signature"));
        assertEq(topic, keccak256(bytes(sig)), sig);
    }

    // ERC-8004 first draft §Identity Registry: New / Update / Get / ResolveByDomain / ResolveByAddress.
    function test_FirstDraftIdentity_MatchesVector() public view {
        string memory b = ".firstDraft.DraftIdentityRegistry";
        assertEq(IDraftIdentityRegistry.newAgent.selector, _sel(b, "newAgent"));
        assertEq(IDraftIdentityRegistry.updateAgent.selector, _sel(b, "updateAgent"));
        assertEq(IDraftIdentityRegistry.getAgent.selector, _sel(b, "getAgent"));
        assertEq(IDraftIdentityRegistry.resolveByDomain.selector, _sel(b, "resolveByDomain"));
        assertEq(IDraftIdentityRegistry.resolveByAddress.selector, _sel(b, "resolveByAddress"));
        assertEq(IDraftIdentityRegistry.getAgentCount.selector, _sel(b, "getAgentCount"));
        assertEq(IDraftIdentityRegistry.agentExists.selector, _sel(b, "agentExists"));
        assertEq(IDraftIdentityRegistry.AgentRegistered.selector, _topic(b, "AgentRegistered"));
        assertEq(IDraftIdentityRegistry.AgentUpdated.selector, _topic(b, "AgentUpdated"));
    }

    // ERC-8004 first draft §Reputation Registry: AcceptFeedback → AuthFeedback.
    function test_FirstDraftReputation_MatchesVector() public view {
        string memory b = ".firstDraft.DraftReputationRegistry";
        assertEq(IDraftReputationRegistry.acceptFeedback.selector, _sel(b, "acceptFeedback"));
        assertEq(IDraftReputationRegistry.isFeedbackAuthorized.selector, _sel(b, "isFeedbackAuthorized"));
        assertEq(IDraftReputationRegistry.getFeedbackAuthId.selector, _sel(b, "getFeedbackAuthId"));
        assertEq(IDraftReputationRegistry.getFeedbackAuth.selector, _sel(b, "getFeedbackAuth"));
        assertEq(IDraftReputationRegistry.getFeedbackAuthCount.selector, _sel(b, "getFeedbackAuthCount"));
        assertEq(IDraftReputationRegistry.AuthFeedback.selector, _topic(b, "AuthFeedback"));
        assertEq(DraftReputationRegistry.acceptFeedback.selector, _sel(b, "acceptFeedback"));
    }

    // ERC-8004 first draft §Validation Registry: ValidationRequest / ValidationResponse.
    function test_FirstDraftValidation_MatchesVector() public view {
        string memory b = ".firstDraft.DraftValidationRegistry";
        assertEq(IDraftValidationRegistry.validationRequest.selector, _sel(b, "validationRequest"));
        assertEq(IDraftValidationRegistry.validationResponse.selector, _sel(b, "validationResponse"));
        assertEq(IDraftValidationRegistry.getValidationRequest.selector, _sel(b, "getValidationRequest"));
        assertEq(IDraftValidationRegistry.isValidationPending.selector, _sel(b, "isValidationPending"));
        assertEq(IDraftValidationRegistry.getValidationResponse.selector, _sel(b, "getValidationResponse"));
        assertEq(IDraftValidationRegistry.getExpirationSlots.selector, _sel(b, "getExpirationSlots"));
        assertEq(IDraftValidationRegistry.ValidationRequest.selector, _topic(b, "ValidationRequest"));
        assertEq(IDraftValidationRegistry.ValidationResponse.selector, _topic(b, "ValidationResponse"));
    }

    // ERC-8004 intermediate §Reputation Registry: every code block.
    function test_IntermediateReputation_MatchesVector() public view {
        string memory b = ".intermediate.ScoreReputationRegistry";
        assertEq(IScoreReputationRegistry.getIdentityRegistry.selector, _sel(b, "getIdentityRegistry"));
        assertEq(IScoreReputationRegistry.giveFeedback.selector, _sel(b, "giveFeedback"));
        assertEq(IScoreReputationRegistry.revokeFeedback.selector, _sel(b, "revokeFeedback"));
        assertEq(IScoreReputationRegistry.appendResponse.selector, _sel(b, "appendResponse"));
        assertEq(IScoreReputationRegistry.getSummary.selector, _sel(b, "getSummary"));
        assertEq(IScoreReputationRegistry.readFeedback.selector, _sel(b, "readFeedback"));
        assertEq(IScoreReputationRegistry.readAllFeedback.selector, _sel(b, "readAllFeedback"));
        assertEq(IScoreReputationRegistry.getResponseCount.selector, _sel(b, "getResponseCount"));
        assertEq(IScoreReputationRegistry.getClients.selector, _sel(b, "getClients"));
        assertEq(IScoreReputationRegistry.getLastIndex.selector, _sel(b, "getLastIndex"));
        assertEq(IScoreReputationRegistry.NewFeedback.selector, _topic(b, "NewFeedback"));
        assertEq(IScoreReputationRegistry.FeedbackRevoked.selector, _topic(b, "FeedbackRevoked"));
        assertEq(IScoreReputationRegistry.ResponseAppended.selector, _topic(b, "ResponseAppended"));
        assertEq(ScoreReputationRegistry.giveFeedback.selector, _sel(b, "giveFeedback"));
    }

    // ERC-8004 intermediate §Validation Registry: every code block.
    function test_IntermediateValidation_MatchesVector() public view {
        string memory b = ".intermediate.ScoreValidationRegistry";
        assertEq(IScoreValidationRegistry.getIdentityRegistry.selector, _sel(b, "getIdentityRegistry"));
        assertEq(IScoreValidationRegistry.validationRequest.selector, _sel(b, "validationRequest"));
        assertEq(IScoreValidationRegistry.validationResponse.selector, _sel(b, "validationResponse"));
        assertEq(IScoreValidationRegistry.getValidationStatus.selector, _sel(b, "getValidationStatus"));
        assertEq(IScoreValidationRegistry.getSummary.selector, _sel(b, "getSummary"));
        assertEq(IScoreValidationRegistry.getAgentValidations.selector, _sel(b, "getAgentValidations"));
        assertEq(IScoreValidationRegistry.getValidatorRequests.selector, _sel(b, "getValidatorRequests"));
        assertEq(IScoreValidationRegistry.ValidationRequest.selector, _topic(b, "ValidationRequest"));
        assertEq(IScoreValidationRegistry.ValidationResponse.selector, _topic(b, "ValidationResponse"));
    }

    // ERC-8004 intermediate §Identity Registry: ScoreIdentityRegistry, and the current IdentityRegistry
    // (ABI superset). Overloaded register has no `.selector`, so each vector selector is called live.
    function test_IntermediateIdentity_MatchesVector() public {
        _checkIdentity(address(new IdentityRegistry()));
        _checkIdentity(address(new ScoreIdentityRegistry()));
        string memory b = ".intermediate.IdentityRegistry";
        assertEq(ScoreIdentityRegistry.setAgentURI.selector, _sel(b, "setAgentURI"));
        assertEq(ScoreIdentityRegistry.getMetadata.selector, _sel(b, "getMetadata"));
        assertEq(ScoreIdentityRegistry.setMetadata.selector, _sel(b, "setMetadata"));
        assertEq(ScoreIdentityRegistry.setAgentWallet.selector, _sel(b, "setAgentWallet"));
        assertEq(ScoreIdentityRegistry.MetadataSet.selector, _topic(b, "MetadataSet"));
        assertEq(ScoreIdentityRegistry.Registered.selector, _topic(b, "Registered"));
        assertEq(ScoreIdentityRegistry.URIUpdated.selector, _topic(b, "URIUpdated"));
    }

    function _checkIdentity(address registry) internal {
        string memory b = ".intermediate.IdentityRegistry";
        IdentityRegistry identity = IdentityRegistry(registry);
        bytes4 r0 = _sel(b, "register");
        bytes4 r1 = _sel(b, "registerURI");
        bytes4 r2 = _sel(b, "registerMetadata");
        // An EOA registers: the test contract is no ERC-721 receiver.
        address eoa = makeAddr("eoa");
        vm.startPrank(eoa);
        bool ok;
        (ok,) = address(identity).call(abi.encodeWithSelector(r0));
        assertTrue(ok, "register()");
        (ok,) = address(identity).call(abi.encodeWithSelector(r1, "ipfs://a"));
        assertTrue(ok, "register(string)");
        (ok,) = address(identity).call(
            abi.encodeWithSelector(r2, "ipfs://b", new IIdentityRegistry.MetadataEntry[](0))
        );
        assertTrue(ok, "register(string,(string,bytes)[])");
        vm.stopPrank();
        assertEq(identity.balanceOf(eoa), 3);

        assertEq(IIdentityRegistry.setAgentURI.selector, _sel(b, "setAgentURI"));
        assertEq(IIdentityRegistry.getMetadata.selector, _sel(b, "getMetadata"));
        assertEq(IIdentityRegistry.setMetadata.selector, _sel(b, "setMetadata"));
        assertEq(IIdentityRegistry.setAgentWallet.selector, _sel(b, "setAgentWallet"));
        assertEq(IIdentityRegistry.MetadataSet.selector, _topic(b, "MetadataSet"));
        assertEq(IIdentityRegistry.Registered.selector, _topic(b, "Registered"));
        assertEq(IIdentityRegistry.URIUpdated.selector, _topic(b, "URIUpdated"));

        // EIP-712 wallet proof of the revision's official contracts.
        assertEq(identity.AGENT_WALLET_SET_TYPEHASH(), vm.parseJsonBytes32(json, string.concat(b, ".eip712.typehash")));
        assertEq(
            keccak256(bytes(vm.parseJsonString(json, string.concat(b, ".eip712.typeString")))),
            identity.AGENT_WALLET_SET_TYPEHASH()
        );
        (, string memory name, string memory version,,,,) = identity.eip712Domain();
        assertEq(name, vm.parseJsonString(json, string.concat(b, ".eip712.domain.name")));
        assertEq(version, vm.parseJsonString(json, string.concat(b, ".eip712.domain.version")));
    }
}
