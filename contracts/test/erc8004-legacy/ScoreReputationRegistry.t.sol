// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";
import {ScoreReputationRegistry} from "../../src/erc8004-legacy/ScoreReputationRegistry.sol";
import {IScoreReputationRegistry} from "../../src/erc8004-legacy/interfaces/IScoreReputationRegistry.sol";

/// @dev Runs on the current IdentityRegistry; ScoreIdentityRegistry.t.sol runs it on ScoreIdentityRegistry.
contract ScoreReputationRegistryTest is Test {
    IdentityRegistry internal identity;
    ScoreReputationRegistry internal reputation;
    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal client1 = makeAddr("client1");
    address internal client2 = makeAddr("client2");
    address internal responder = makeAddr("responder");
    uint256 internal agent;

    function setUp() public {
        identity = new IdentityRegistry();
        reputation = new ScoreReputationRegistry(address(identity));
        vm.prank(owner);
        agent = identity.register("ipfs://agent");
    }

    function _give(address who, uint8 score, string memory tag1, string memory tag2) internal {
        vm.prank(who);
        reputation.giveFeedback(agent, score, tag1, tag2, "", "", bytes32(0));
    }

    function test_Constructor_ZeroIdentityReverts() public {
        vm.expectRevert(ScoreReputationRegistry.InvalidIdentityRegistry.selector);
        new ScoreReputationRegistry(address(0));
        // ERC-8004 intermediate §Reputation Registry: the identity registry is publicly visible.
        assertEq(reputation.getIdentityRegistry(), address(identity));
    }

    // ERC-8004 intermediate §Giving Feedback: the event carries every field; feedbackIndex counts from 1.
    function test_GiveFeedback_EmitsAndStores() public {
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IScoreReputationRegistry.NewFeedback(
            agent, client1, 1, 87, "starred", "week", "https://agent.example/GetPrice", "ipfs://fb", keccak256("fb")
        );
        vm.prank(client1);
        reputation.giveFeedback(
            agent, 87, "starred", "week", "https://agent.example/GetPrice", "ipfs://fb", keccak256("fb")
        );
        (uint8 score, string memory t1, string memory t2, bool revoked) = reputation.readFeedback(agent, client1, 1);
        assertEq(score, 87);
        assertEq(t1, "starred");
        assertEq(t2, "week");
        assertFalse(revoked);
        assertEq(reputation.getLastIndex(agent, client1), 1);
        _give(client1, 10, "", "");
        assertEq(reputation.getLastIndex(agent, client1), 2);
        assertEq(reputation.getClients(agent).length, 1);
        _give(client2, 10, "", "");
        address[] memory clients = reputation.getClients(agent);
        assertEq(clients.length, 2);
        assertEq(clients[1], client2);
    }

    // ERC-8004 intermediate §Giving Feedback: tag1 is an indexed string, so topic3 is keccak256(tag1).
    function test_GiveFeedback_IndexedTag1Topic() public {
        vm.recordLogs();
        _give(client1, 50, "reachable", "");
        bytes32[] memory topics = vm.getRecordedLogs()[0].topics;
        assertEq(topics[0], IScoreReputationRegistry.NewFeedback.selector);
        assertEq(topics[1], bytes32(agent));
        assertEq(topics[2], bytes32(uint256(uint160(client1))));
        assertEq(topics[3], keccak256("reachable"));
    }

    // ERC-8004 intermediate §Giving Feedback: the score MUST be between 0 and 100.
    function test_GiveFeedback_ScoreOver100Reverts() public {
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.ScoreOutOfRange.selector, uint8(101)));
        reputation.giveFeedback(agent, 101, "", "", "", "", bytes32(0));
        _give(client1, 0, "", "");
        _give(client1, 100, "", "");
    }

    // ERC-8004 intermediate §Giving Feedback: agentId must be a validly registered agent.
    function test_GiveFeedback_UnknownAgentReverts() public {
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.AgentNotFound.selector, uint256(77)));
        reputation.giveFeedback(77, 50, "", "", "", "", bytes32(0));
    }

    // As the revision's official contracts: the owner and its operators cannot rate their own agent.
    function test_GiveFeedback_OwnerOrOperatorReverts() public {
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.SelfFeedbackNotAllowed.selector, agent, owner));
        reputation.giveFeedback(agent, 100, "", "", "", "", bytes32(0));
        vm.prank(owner);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        vm.expectRevert(
            abi.encodeWithSelector(ScoreReputationRegistry.SelfFeedbackNotAllowed.selector, agent, operator)
        );
        reputation.giveFeedback(agent, 100, "", "", "", "", bytes32(0));
        vm.prank(owner);
        identity.approve(client2, agent);
        vm.prank(client2);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.SelfFeedbackNotAllowed.selector, agent, client2));
        reputation.giveFeedback(agent, 100, "", "", "", "", bytes32(0));
    }

    // ERC-8004 intermediate §Revoking Feedback: the clientAddress revokes; emits FeedbackRevoked.
    function test_RevokeFeedback_EmitsAndMarks() public {
        _give(client1, 40, "", "");
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IScoreReputationRegistry.FeedbackRevoked(agent, client1, 1);
        vm.prank(client1);
        reputation.revokeFeedback(agent, 1);
        (,,, bool revoked) = reputation.readFeedback(agent, client1, 1);
        assertTrue(revoked);
    }

    function test_RevokeFeedback_OthersOrTwiceReverts() public {
        _give(client1, 40, "", "");
        // client2 has no feedback 1: it cannot revoke client1's.
        vm.prank(client2);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.FeedbackNotFound.selector, agent, client2, 1));
        reputation.revokeFeedback(agent, 1);
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.FeedbackNotFound.selector, agent, client1, 0));
        reputation.revokeFeedback(agent, 0);
        vm.prank(client1);
        reputation.revokeFeedback(agent, 1);
        vm.prank(client1);
        vm.expectRevert(
            abi.encodeWithSelector(ScoreReputationRegistry.FeedbackAlreadyRevoked.selector, agent, client1, 1)
        );
        reputation.revokeFeedback(agent, 1);
    }

    // ERC-8004 intermediate §Appending Responses: anyone can respond; the event has no responseHash.
    function test_AppendResponse_EmitsAndCounts() public {
        _give(client1, 40, "", "");
        _give(client1, 60, "", "");
        _give(client2, 80, "", "");
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IScoreReputationRegistry.ResponseAppended(agent, client1, 1, responder, "ipfs://refund");
        vm.prank(responder);
        reputation.appendResponse(agent, client1, 1, "ipfs://refund", keccak256("refund"));
        vm.prank(responder);
        reputation.appendResponse(agent, client1, 1, "ipfs://refund2", bytes32(0));
        vm.prank(owner);
        reputation.appendResponse(agent, client1, 2, "ipfs://spam", bytes32(0));
        vm.prank(owner);
        reputation.appendResponse(agent, client2, 1, "ipfs://x", bytes32(0));

        address[] memory none = new address[](0);
        address[] memory onlyResponder = new address[](1);
        onlyResponder[0] = responder;
        // ERC-8004 intermediate §Read Functions: agentId is the only mandatory parameter.
        assertEq(reputation.getResponseCount(agent, address(0), 0, none), 4);
        assertEq(reputation.getResponseCount(agent, client1, 0, none), 3);
        assertEq(reputation.getResponseCount(agent, client1, 1, none), 2);
        assertEq(reputation.getResponseCount(agent, client1, 0, onlyResponder), 2);
        assertEq(reputation.getResponseCount(agent, address(0), 0, onlyResponder), 2);
        assertEq(reputation.getResponseCount(agent, client2, 1, onlyResponder), 0);
        assertEq(reputation.getResponseCount(agent, address(0), 1, none), 3);
    }

    function test_AppendResponse_UnknownFeedbackOrEmptyURIReverts() public {
        vm.prank(responder);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.FeedbackNotFound.selector, agent, client1, 1));
        reputation.appendResponse(agent, client1, 1, "ipfs://r", bytes32(0));
        _give(client1, 40, "", "");
        vm.prank(responder);
        vm.expectRevert(ScoreReputationRegistry.EmptyResponseURI.selector);
        reputation.appendResponse(agent, client1, 1, "", bytes32(0));
    }

    // ERC-8004 intermediate §Read Functions: getSummary filters by clients and tags; revoked feedback is left out.
    function test_GetSummary_Filters() public {
        _give(client1, 90, "starred", "day");
        _give(client1, 70, "starred", "week");
        _give(client2, 20, "reachable", "day");
        _give(client2, 40, "starred", "day");
        address[] memory all = new address[](0);
        (uint64 count, uint8 avg) = reputation.getSummary(agent, all, "", "");
        assertEq(count, 4);
        assertEq(avg, 55);
        (count, avg) = reputation.getSummary(agent, all, "starred", "");
        assertEq(count, 3);
        assertEq(avg, 66);
        (count, avg) = reputation.getSummary(agent, all, "", "day");
        assertEq(count, 3);
        assertEq(avg, 50);
        address[] memory only2 = new address[](1);
        only2[0] = client2;
        (count, avg) = reputation.getSummary(agent, only2, "starred", "day");
        assertEq(count, 1);
        assertEq(avg, 40);
        vm.prank(client1);
        reputation.revokeFeedback(agent, 1);
        (count, avg) = reputation.getSummary(agent, all, "starred", "");
        assertEq(count, 2);
        assertEq(avg, 55);
        (count, avg) = reputation.getSummary(agent, all, "none", "");
        assertEq(count, 0);
        assertEq(avg, 0);
    }

    function test_ReadFeedback_UnknownIndexReverts() public {
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.FeedbackNotFound.selector, agent, client1, 1));
        reputation.readFeedback(agent, client1, 1);
    }

    // ERC-8004 intermediate §Read Functions: readAllFeedback omits revoked feedback unless asked.
    function test_ReadAllFeedback_FiltersAndRevoked() public {
        _give(client1, 90, "starred", "");
        _give(client2, 20, "reachable", "x");
        _give(client1, 70, "starred", "y");
        vm.prank(client1);
        reputation.revokeFeedback(agent, 1);
        address[] memory all = new address[](0);
        (
            address[] memory clients,
            uint64[] memory idx,
            uint8[] memory scores,
            string[] memory t1,
            string[] memory t2,
            bool[] memory rev
        ) = reputation.readAllFeedback(agent, all, "", "", false);
        assertEq(clients.length, 2);
        assertEq(clients[0], client1);
        assertEq(idx[0], 2);
        assertEq(scores[0], 70);
        assertEq(t2[0], "y");
        assertEq(clients[1], client2);
        assertEq(t1[1], "reachable");
        assertFalse(rev[0]);

        (clients, idx, scores,,, rev) = reputation.readAllFeedback(agent, all, "starred", "", true);
        assertEq(clients.length, 2);
        assertEq(idx[0], 1);
        assertTrue(rev[0]);
        assertEq(scores[1], 70);

        address[] memory only2 = new address[](1);
        only2[0] = client2;
        (clients,,,,,) = reputation.readAllFeedback(agent, only2, "", "x", true);
        assertEq(clients.length, 1);
        assertEq(clients[0], client2);
    }

    // Fuzz: the summary is the integer mean of the scores given.
    function testFuzz_GetSummary_IsMean(uint8[8] memory raw, uint8 n) public {
        uint256 count = bound(n, 1, 8);
        uint256 total;
        for (uint256 i; i < count; ++i) {
            uint8 s = uint8(bound(raw[i], 0, 100));
            total += s;
            _give(i % 2 == 0 ? client1 : client2, s, "", "");
        }
        (uint64 c, uint8 avg) = reputation.getSummary(agent, new address[](0), "", "");
        assertEq(c, count);
        assertEq(avg, total / count);
    }

    // Fuzz: any score above 100 is rejected.
    function testFuzz_GiveFeedback_ScoreAbove100Reverts(uint8 score) public {
        score = uint8(bound(score, 101, 255));
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.ScoreOutOfRange.selector, score));
        reputation.giveFeedback(agent, score, "", "", "", "", bytes32(0));
    }
}
