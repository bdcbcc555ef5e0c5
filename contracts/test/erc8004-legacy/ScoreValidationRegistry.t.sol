// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";
import {ScoreValidationRegistry} from "../../src/erc8004-legacy/ScoreValidationRegistry.sol";
import {IScoreValidationRegistry} from "../../src/erc8004-legacy/interfaces/IScoreValidationRegistry.sol";

contract ScoreValidationRegistryTest is Test {
    IdentityRegistry internal identity;
    ScoreValidationRegistry internal validation;
    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal validator = makeAddr("validator");
    address internal validator2 = makeAddr("validator2");
    address internal stranger = makeAddr("stranger");
    uint256 internal agent;
    bytes32 internal constant REQ = keccak256("request payload");

    function setUp() public {
        identity = new IdentityRegistry();
        validation = new ScoreValidationRegistry(address(identity));
        vm.prank(owner);
        agent = identity.register("ipfs://agent");
    }

    function _request(address val, bytes32 h) internal {
        vm.prank(owner);
        validation.validationRequest(val, agent, "ipfs://req", h);
    }

    function _respond(address val, bytes32 h, uint8 r, string memory tag) internal {
        vm.prank(val);
        validation.validationResponse(h, r, "", bytes32(0), tag);
    }

    function test_Constructor_ZeroIdentityReverts() public {
        vm.expectRevert(ScoreValidationRegistry.InvalidIdentityRegistry.selector);
        new ScoreValidationRegistry(address(0));
        // ERC-8004 intermediate §Validation Registry: visible through getIdentityRegistry().
        assertEq(validation.getIdentityRegistry(), address(identity));
    }

    // ERC-8004 intermediate §Validation Request: emits ValidationRequest; the request is stored and listed.
    function test_ValidationRequest_EmitsAndStores() public {
        vm.expectEmit(true, true, true, true, address(validation));
        emit IScoreValidationRegistry.ValidationRequest(validator, agent, "ipfs://req", REQ);
        _request(validator, REQ);
        (address val, uint256 id, uint8 resp, string memory tag, uint256 last) = validation.getValidationStatus(REQ);
        assertEq(val, validator);
        assertEq(id, agent);
        assertEq(resp, 0);
        assertEq(tag, "");
        assertEq(last, vm.getBlockTimestamp());
        assertEq(validation.getAgentValidations(agent)[0], REQ);
        assertEq(validation.getValidatorRequests(validator)[0], REQ);
    }

    // ERC-8004 intermediate §Validation Request: MUST be called by the owner or operator of agentId.
    function test_ValidationRequest_OwnerOrOperatorOnly() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.NotAuthorized.selector, agent, stranger));
        validation.validationRequest(validator, agent, "u", REQ);
        vm.prank(owner);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        validation.validationRequest(validator, agent, "u", REQ);
        vm.prank(owner);
        identity.approve(stranger, agent);
        vm.prank(stranger);
        validation.validationRequest(validator, agent, "u", keccak256("second"));
        assertEq(validation.getAgentValidations(agent).length, 2);
    }

    function test_ValidationRequest_UnknownAgentReverts() public {
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.AgentNotFound.selector, uint256(5)));
        validation.validationRequest(validator, 5, "u", REQ);
    }

    // ERC-8004 intermediate §Validation Request: requestHash identifies the request; all fields are mandatory.
    function test_ValidationRequest_DuplicateOrZeroValidatorReverts() public {
        _request(validator, REQ);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.RequestExists.selector, REQ));
        validation.validationRequest(validator2, agent, "u", REQ);
        vm.prank(owner);
        vm.expectRevert(ScoreValidationRegistry.InvalidValidator.selector);
        validation.validationRequest(address(0), agent, "u", keccak256("other"));
    }

    // ERC-8004 intermediate §Validation Response: the event carries all function parameters.
    function test_ValidationResponse_EmitsAndStores() public {
        _request(validator, REQ);
        vm.warp(vm.getBlockTimestamp() + 60);
        vm.expectEmit(true, true, true, true, address(validation));
        emit IScoreValidationRegistry.ValidationResponse(
            validator, agent, REQ, 100, "ipfs://evidence", keccak256("evidence"), "hard-finality"
        );
        vm.prank(validator);
        validation.validationResponse(REQ, 100, "ipfs://evidence", keccak256("evidence"), "hard-finality");
        (, uint256 id, uint8 resp, string memory tag, uint256 last) = validation.getValidationStatus(REQ);
        assertEq(id, agent);
        assertEq(resp, 100);
        assertEq(tag, "hard-finality");
        assertEq(last, vm.getBlockTimestamp());
    }

    // ERC-8004 intermediate §Validation Response: MUST be called by the request's validatorAddress.
    function test_ValidationResponse_WrongValidatorReverts() public {
        _request(validator, REQ);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.NotValidator.selector, REQ, owner));
        validation.validationResponse(REQ, 50, "", bytes32(0), "");
        vm.prank(validator2);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.NotValidator.selector, REQ, validator2));
        validation.validationResponse(REQ, 50, "", bytes32(0), "");
    }

    // ERC-8004 intermediate §Validation Response: the response is a value between 0 and 100.
    function test_ValidationResponse_Over100Reverts() public {
        _request(validator, REQ);
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.ResponseOutOfRange.selector, uint8(101)));
        validation.validationResponse(REQ, 101, "", bytes32(0), "");
    }

    function test_ValidationResponse_UnknownRequestReverts() public {
        vm.prank(validator);
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.UnknownRequest.selector, REQ));
        validation.validationResponse(REQ, 1, "", bytes32(0), "");
        vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.UnknownRequest.selector, REQ));
        validation.getValidationStatus(REQ);
    }

    // ERC-8004 intermediate §Validation Response: can be called many times (soft then hard finality).
    function test_ValidationResponse_Repeatable() public {
        _request(validator, REQ);
        _respond(validator, REQ, 60, "soft-finality");
        _respond(validator, REQ, 0, "hard-finality");
        (,, uint8 resp, string memory tag,) = validation.getValidationStatus(REQ);
        assertEq(resp, 0);
        assertEq(tag, "hard-finality");
        (uint64 count, uint8 avg) = validation.getSummary(agent, new address[](0), "");
        assertEq(count, 1);
        assertEq(avg, 0);
    }

    // ERC-8004 intermediate §Read Functions: getSummary filters by validators and tag; unanswered requests don't count.
    function test_GetSummary_Filters() public {
        bytes32 a = keccak256("a");
        bytes32 b = keccak256("b");
        bytes32 c = keccak256("c");
        _request(validator, a);
        _request(validator2, b);
        _request(validator2, c);
        _respond(validator, a, 90, "zkml");
        _respond(validator2, b, 30, "tee");
        (uint64 count, uint8 avg) = validation.getSummary(agent, new address[](0), "");
        assertEq(count, 2);
        assertEq(avg, 60);
        address[] memory only2 = new address[](1);
        only2[0] = validator2;
        (count, avg) = validation.getSummary(agent, only2, "");
        assertEq(count, 1);
        assertEq(avg, 30);
        (count, avg) = validation.getSummary(agent, new address[](0), "zkml");
        assertEq(count, 1);
        assertEq(avg, 90);
        (count, avg) = validation.getSummary(agent, only2, "zkml");
        assertEq(count, 0);
        assertEq(avg, 0);
        assertEq(validation.getValidatorRequests(validator2).length, 2);
        assertEq(validation.getAgentValidations(agent).length, 3);
    }

    // Fuzz: responses 0..100 are stored as given; above 100 revert.
    function testFuzz_ValidationResponse_Range(uint8 response) public {
        _request(validator, REQ);
        vm.prank(validator);
        if (response > 100) {
            vm.expectRevert(abi.encodeWithSelector(ScoreValidationRegistry.ResponseOutOfRange.selector, response));
            validation.validationResponse(REQ, response, "", bytes32(0), "");
            return;
        }
        validation.validationResponse(REQ, response, "", bytes32(0), "");
        (,, uint8 got,,) = validation.getValidationStatus(REQ);
        assertEq(got, response);
    }
}
