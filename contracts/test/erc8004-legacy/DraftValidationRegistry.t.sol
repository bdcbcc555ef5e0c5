// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {DraftRegistryFixture} from "./DraftRegistryFixture.sol";
import {DraftIdentityRegistry} from "../../src/erc8004-legacy/DraftIdentityRegistry.sol";
import {DraftValidationRegistry} from "../../src/erc8004-legacy/DraftValidationRegistry.sol";
import {IDraftValidationRegistry} from "../../src/erc8004-legacy/interfaces/IDraftValidationRegistry.sol";

contract DraftValidationRegistryTest is DraftRegistryFixture {
    bytes32 internal constant DATA = keccak256("job input+output");

    function _request(bytes32 h) internal {
        vm.prank(server);
        validation.validationRequest(validatorId, serverId, h);
    }

    function test_Constructor_InvalidConfigurationReverts() public {
        vm.expectRevert(DraftValidationRegistry.InvalidConfiguration.selector);
        new DraftValidationRegistry(address(0), TTL);
        vm.expectRevert(DraftValidationRegistry.InvalidConfiguration.selector);
        new DraftValidationRegistry(address(identity), 0);
        assertEq(validation.getIdentityRegistry(), address(identity));
        assertEq(validation.getExpirationSlots(), TTL);
    }

    // ERC-8004 first draft §Validation Registry: the request emits (AgentValidatorID, AgentServerID, DataHash)
    // and stores the tuple.
    function test_ValidationRequest_EmitsAndStores() public {
        vm.expectEmit(true, true, true, true, address(validation));
        emit IDraftValidationRegistry.ValidationRequest(validatorId, serverId, DATA);
        _request(DATA);
        IDraftValidationRegistry.Request memory r = validation.getValidationRequest(DATA);
        assertEq(r.agentValidatorId, validatorId);
        assertEq(r.agentServerId, serverId);
        assertEq(r.dataHash, DATA);
        assertEq(r.timestamp, block.timestamp);
        assertFalse(r.responded);
        (bool exists, bool pending) = validation.isValidationPending(DATA);
        assertTrue(exists);
        assertTrue(pending);
        (bool has,) = validation.getValidationResponse(DATA);
        assertFalse(has);
    }

    function test_ValidationRequest_UnknownAgentReverts() public {
        vm.startPrank(server);
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        validation.validationRequest(99, serverId, DATA);
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        validation.validationRequest(validatorId, 99, DATA);
        vm.stopPrank();
    }

    // Credence rule: only the Server Agent whose work is validated can request; no self-validation; no zero hash.
    function test_ValidationRequest_CallerAndArgumentRules() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.UnauthorizedCaller.selector, stranger, server));
        validation.validationRequest(validatorId, serverId, DATA);
        vm.prank(server);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.SelfValidationNotAllowed.selector, serverId));
        validation.validationRequest(serverId, serverId, DATA);
        vm.prank(server);
        vm.expectRevert(DraftValidationRegistry.InvalidDataHash.selector);
        validation.validationRequest(validatorId, serverId, bytes32(0));
    }

    // A pending DataHash cannot be taken over; after X seconds it can be requested again.
    function test_ValidationRequest_PendingDuplicateReverts() public {
        _request(DATA);
        vm.prank(server);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.RequestPending.selector, DATA));
        validation.validationRequest(validatorId, serverId, DATA);
        vm.warp(vm.getBlockTimestamp() + TTL);
        _request(DATA);
        assertEq(validation.getValidationRequest(DATA).timestamp, vm.getBlockTimestamp());
    }

    // ERC-8004 first draft §Validation Responses: emits (AgentValidatorID, AgentServerID, DataHash, Response).
    function test_ValidationResponse_EmitsAndRecords() public {
        _request(DATA);
        vm.expectEmit(true, true, true, true, address(validation));
        emit IDraftValidationRegistry.ValidationResponse(validatorId, serverId, DATA, 100);
        vm.prank(validator);
        validation.validationResponse(DATA, 100);
        (bool has, uint8 resp) = validation.getValidationResponse(DATA);
        assertTrue(has);
        assertEq(resp, 100);
        (bool exists, bool pending) = validation.isValidationPending(DATA);
        assertTrue(exists);
        assertFalse(pending);
        assertTrue(validation.getValidationRequest(DATA).responded);
    }

    // ERC-8004 first draft §Validation Responses: Response is 0 ≤ x ≤ 100.
    function test_ValidationResponse_Over100Reverts() public {
        _request(DATA);
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.ResponseOutOfRange.selector, uint8(101)));
        validation.validationResponse(DATA, 101);
        vm.prank(validator);
        validation.validationResponse(DATA, 0);
        (bool has, uint8 resp) = validation.getValidationResponse(DATA);
        assertTrue(has);
        assertEq(resp, 0);
    }

    // ERC-8004 first draft §Validation Responses: AgentValidatorAddress calls ValidationResponse.
    function test_ValidationResponse_WrongValidatorReverts() public {
        _request(DATA);
        vm.prank(server);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.UnauthorizedCaller.selector, server, validator));
        validation.validationResponse(DATA, 50);
    }

    // ERC-8004 first draft §Validation Responses: fails if DataHash is no longer in memory (never, expired, answered).
    function test_ValidationResponse_NotInMemoryReverts() public {
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.RequestNotPending.selector, DATA));
        validation.validationResponse(DATA, 50);

        // vm.getBlockTimestamp, not block.timestamp: via-IR may reuse an earlier block.timestamp read.
        uint256 t0 = vm.getBlockTimestamp();
        _request(DATA);
        vm.warp(t0 + TTL - 1);
        vm.prank(validator);
        validation.validationResponse(DATA, 50);
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.RequestNotPending.selector, DATA));
        validation.validationResponse(DATA, 60);

        bytes32 other = keccak256("other");
        _request(other);
        vm.warp(t0 + TTL - 1 + TTL);
        (bool exists, bool pending) = validation.isValidationPending(other);
        assertTrue(exists);
        assertFalse(pending);
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.RequestNotPending.selector, other));
        validation.validationResponse(other, 50);
    }

    // A re-request after a response replaces the tuple and clears the old response.
    function test_ValidationRequest_AfterResponseStartsFresh() public {
        _request(DATA);
        vm.prank(validator);
        validation.validationResponse(DATA, 70);
        _request(DATA);
        (bool has,) = validation.getValidationResponse(DATA);
        assertFalse(has);
        (, bool pending) = validation.isValidationPending(DATA);
        assertTrue(pending);
    }

    function test_GetValidationRequest_UnknownReverts() public {
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.RequestNotFound.selector, DATA));
        validation.getValidationRequest(DATA);
        (bool exists, bool pending) = validation.isValidationPending(DATA);
        assertFalse(exists);
        assertFalse(pending);
    }

    // ERC-8004 first draft §Validation Responses: a validator contract may subcall; its own AgentAddress counts.
    function test_ValidationResponse_ValidatorAddressFollowsUpdate() public {
        _request(DATA);
        vm.prank(validator);
        identity.updateAgent(validatorId, "", stranger);
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.UnauthorizedCaller.selector, validator, stranger));
        validation.validationResponse(DATA, 1);
        vm.prank(stranger);
        validation.validationResponse(DATA, 1);
    }

    // Fuzz: responses in range are accepted within X seconds and recorded; out of range always revert.
    function testFuzz_ValidationResponse_Range(uint8 response, uint256 delay) public {
        delay = bound(delay, 0, TTL - 1);
        _request(DATA);
        vm.warp(vm.getBlockTimestamp() + delay);
        vm.prank(validator);
        if (response > 100) {
            vm.expectRevert(abi.encodeWithSelector(DraftValidationRegistry.ResponseOutOfRange.selector, response));
            validation.validationResponse(DATA, response);
            return;
        }
        validation.validationResponse(DATA, response);
        (bool has, uint8 got) = validation.getValidationResponse(DATA);
        assertTrue(has);
        assertEq(got, response);
    }
}
