// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {DraftRegistryFixture} from "./DraftRegistryFixture.sol";
import {DraftIdentityRegistry} from "../../src/erc8004-legacy/DraftIdentityRegistry.sol";
import {DraftReputationRegistry} from "../../src/erc8004-legacy/DraftReputationRegistry.sol";
import {IDraftReputationRegistry} from "../../src/erc8004-legacy/interfaces/IDraftReputationRegistry.sol";

contract DraftReputationRegistryTest is DraftRegistryFixture {
    function _authId(uint256 c, uint256 s, uint64 n) internal view returns (bytes32) {
        return keccak256(abi.encode(block.chainid, address(reputation), c, s, n));
    }

    function test_Constructor_ZeroIdentityReverts() public {
        vm.expectRevert(DraftReputationRegistry.InvalidIdentityRegistry.selector);
        new DraftReputationRegistry(address(0));
        assertEq(reputation.getIdentityRegistry(), address(identity));
    }

    // ERC-8004 first draft §Reputation Registry: AcceptFeedback emits AuthFeedback(client, server, FeedbackAuthID).
    function test_AcceptFeedback_EmitsAuthFeedback() public {
        bytes32 expected = _authId(clientId, serverId, 1);
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IDraftReputationRegistry.AuthFeedback(clientId, serverId, expected);
        vm.prank(server);
        reputation.acceptFeedback(clientId, serverId);

        (bool ok, bytes32 id) = reputation.isFeedbackAuthorized(clientId, serverId);
        assertTrue(ok);
        assertEq(id, expected);
        assertEq(reputation.getFeedbackAuthId(clientId, serverId), expected);
        (uint256 c, uint256 s) = reputation.getFeedbackAuth(expected);
        assertEq(c, clientId);
        assertEq(s, serverId);
        assertEq(reputation.getFeedbackAuthCount(clientId, serverId), 1);
    }

    // ERC-8004 first draft §Feedback Data Structure: one FeedbackAuthID per task, so each task gets a new one.
    function test_AcceptFeedback_EachTaskNewId() public {
        vm.startPrank(server);
        reputation.acceptFeedback(clientId, serverId);
        reputation.acceptFeedback(clientId, serverId);
        vm.stopPrank();
        bytes32 first = _authId(clientId, serverId, 1);
        bytes32 second = _authId(clientId, serverId, 2);
        assertTrue(first != second);
        assertEq(reputation.getFeedbackAuthId(clientId, serverId), second);
        assertEq(reputation.getFeedbackAuthCount(clientId, serverId), 2);
        (uint256 c,) = reputation.getFeedbackAuth(first);
        assertEq(c, clientId);
    }

    // ERC-8004 first draft §Reputation Registry, Authorization Flow: the Server Agent pre-authorizes the client.
    function test_AcceptFeedback_NotServerReverts() public {
        vm.prank(client);
        vm.expectRevert(abi.encodeWithSelector(DraftReputationRegistry.UnauthorizedCaller.selector, client, server));
        reputation.acceptFeedback(clientId, serverId);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(DraftReputationRegistry.UnauthorizedCaller.selector, stranger, server));
        reputation.acceptFeedback(clientId, serverId);
        (bool ok, bytes32 id) = reputation.isFeedbackAuthorized(clientId, serverId);
        assertFalse(ok);
        assertEq(id, bytes32(0));
    }

    // The server's authority follows its AgentAddress through Update.
    function test_AcceptFeedback_FollowsUpdatedServerAddress() public {
        vm.prank(server);
        identity.updateAgent(serverId, "", stranger);
        vm.prank(server);
        vm.expectRevert(abi.encodeWithSelector(DraftReputationRegistry.UnauthorizedCaller.selector, server, stranger));
        reputation.acceptFeedback(clientId, serverId);
        vm.prank(stranger);
        reputation.acceptFeedback(clientId, serverId);
    }

    // ERC-8004 first draft §Participants: client and server are registered agents.
    function test_AcceptFeedback_UnknownAgentReverts() public {
        vm.prank(server);
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        reputation.acceptFeedback(99, serverId);
        vm.prank(server);
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        reputation.acceptFeedback(clientId, 99);
    }

    // Credence rule (as the reference implementation): a server cannot authorize feedback on itself.
    function test_AcceptFeedback_SelfReverts() public {
        vm.prank(server);
        vm.expectRevert(abi.encodeWithSelector(DraftReputationRegistry.SelfFeedbackNotAllowed.selector, serverId));
        reputation.acceptFeedback(serverId, serverId);
    }

    function test_GetFeedbackAuth_UnknownReverts() public {
        vm.expectRevert(abi.encodeWithSelector(DraftReputationRegistry.UnknownFeedbackAuth.selector, bytes32(uint256(1))));
        reputation.getFeedbackAuth(bytes32(uint256(1)));
    }

    // Fuzz: FeedbackAuthIDs of distinct tasks never collide, and each maps back to its pair.
    function testFuzz_AcceptFeedback_UniqueIds(uint8 tasks) public {
        uint256 n = bound(tasks, 1, 20);
        bytes32 prev;
        for (uint256 i = 1; i <= n; ++i) {
            vm.prank(server);
            reputation.acceptFeedback(clientId, serverId);
            bytes32 id = reputation.getFeedbackAuthId(clientId, serverId);
            assertTrue(id != prev);
            assertEq(id, _authId(clientId, serverId, uint64(i)));
            prev = id;
        }
        assertEq(reputation.getFeedbackAuthCount(clientId, serverId), n);
    }
}
