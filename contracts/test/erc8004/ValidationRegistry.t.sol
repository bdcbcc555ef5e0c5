// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {RegistryFixture} from "../utils/RegistryFixture.sol";
import {ValidationRegistry} from "../../src/erc8004/ValidationRegistry.sol";
import {IValidationRegistry} from "../../src/interfaces/IValidationRegistry.sol";

contract ValidationRegistryTest is RegistryFixture {
    uint256 internal agent;
    bytes32 internal constant REQ = keccak256("req-1");

    function setUp() public override {
        super.setUp();
        agent = _registerAs(owner, URI1);
    }

    function _request(bytes32 h) internal {
        vm.prank(owner);
        validation.validationRequest(validator, agent, "https://agents.example.com/validation/req-1.json", h);
    }

    // ERC-8004 compat: selectors and event topics equal vectors/erc8004.json.
    function test_Selectors_MatchVector() public pure {
        assertEq(IValidationRegistry.validationRequest.selector, bytes4(0xaaf400c4));
        assertEq(IValidationRegistry.validationResponse.selector, bytes4(0x3d659a96));
        assertEq(IValidationRegistry.getValidationStatus.selector, bytes4(0xff2febfc));
        assertEq(IValidationRegistry.getSummary.selector, bytes4(0x1b7cabd6));
        assertEq(IValidationRegistry.getAgentValidations.selector, bytes4(0x8d5d0c2d));
        assertEq(IValidationRegistry.getValidatorRequests.selector, bytes4(0x4bf3158c));
        assertEq(
            IValidationRegistry.ValidationRequest.selector,
            0x530436c3634a98e1e626b0898be2f1e9980cc1bd2a78c07a0aba52d0a48a5059
        );
        assertEq(
            IValidationRegistry.ValidationResponse.selector,
            0xafddf629e874ccc3963b6a888c477bd464a6c8525024fc88759ea3b2326349ae
        );
    }

    // ERC-8004 §Validation Request: emits ValidationRequest and records the request.
    function test_ValidationRequest_Records() public {
        vm.expectEmit(true, true, true, true, address(validation));
        emit IValidationRegistry.ValidationRequest(validator, agent, "u", REQ);
        vm.prank(owner);
        validation.validationRequest(validator, agent, "u", REQ);
        (address val, uint256 id, uint8 resp, bytes32 rh, string memory tag, uint256 last) =
            validation.getValidationStatus(REQ);
        assertEq(val, validator);
        assertEq(id, agent);
        assertEq(resp, 0);
        assertEq(rh, bytes32(0));
        assertEq(tag, "");
        assertEq(last, vm.getBlockTimestamp());
        assertEq(validation.getAgentValidations(agent)[0], REQ);
        assertEq(validation.getValidatorRequests(validator)[0], REQ);
    }

    // ERC-8004 §Validation Request: MUST be called by the owner or operator of agentId.
    function test_ValidationRequest_NotOwnerReverts() public {
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.NotAuthorized.selector, agent, stranger));
        validation.validationRequest(validator, agent, "u", REQ);
        vm.prank(owner);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        validation.validationRequest(validator, agent, "u", REQ);
    }

    // ERC-8004 compat: requestHash is unique; validator must be non-zero.
    function test_ValidationRequest_DuplicateAndZeroValidatorRevert() public {
        _request(REQ);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.RequestExists.selector, REQ));
        validation.validationRequest(validator, agent, "u", REQ);
        vm.prank(owner);
        vm.expectRevert(ValidationRegistry.InvalidValidator.selector);
        validation.validationRequest(address(0), agent, "u", keccak256("other"));
    }

    // ERC-8004 §Validation Response: only the named validator; repeatable; event has all parameters.
    function test_ValidationResponse_OnlyValidatorRepeatable() public {
        _request(REQ);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.NotValidator.selector, REQ, stranger));
        validation.validationResponse(REQ, 100, "", 0, "");
        vm.warp(vm.getBlockTimestamp() + 10);
        vm.expectEmit(true, true, true, true, address(validation));
        emit IValidationRegistry.ValidationResponse(validator, agent, REQ, 50, "r", keccak256("a"), "soft-finality");
        vm.prank(validator);
        validation.validationResponse(REQ, 50, "r", keccak256("a"), "soft-finality");
        vm.prank(validator);
        validation.validationResponse(REQ, 100, "r2", keccak256("b"), "hard-finality");
        (,, uint8 resp, bytes32 rh, string memory tag, uint256 last) = validation.getValidationStatus(REQ);
        assertEq(resp, 100);
        assertEq(rh, keccak256("b"));
        assertEq(tag, "hard-finality");
        assertEq(last, vm.getBlockTimestamp());
    }

    // ERC-8004 §Validation Response: response is a value between 0 and 100.
    function testFuzz_ValidationResponse_Range(uint8 r) public {
        _request(REQ);
        vm.prank(validator);
        if (r > 100) vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.ResponseOutOfRange.selector, r));
        validation.validationResponse(REQ, r, "", 0, "");
    }

    // ERC-8004 compat: unknown requests revert on status and response.
    function test_GetValidationStatus_UnknownReverts() public {
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.UnknownRequest.selector, REQ));
        validation.getValidationStatus(REQ);
        vm.expectRevert(abi.encodeWithSelector(ValidationRegistry.UnknownRequest.selector, REQ));
        validation.validationResponse(REQ, 1, "", 0, "");
    }

    // ERC-8004 §Read Functions: getSummary with optional validator and tag filters, responded only.
    function test_GetSummary_Filters() public {
        _request(keccak256("a"));
        _request(keccak256("b"));
        _request(keccak256("c"));
        vm.startPrank(validator);
        validation.validationResponse(keccak256("a"), 100, "", 0, "hard");
        validation.validationResponse(keccak256("b"), 51, "", 0, "soft");
        vm.stopPrank();
        (uint64 c, uint8 avg) = validation.getSummary(agent, new address[](0), "");
        assertEq(c, 2);
        assertEq(avg, 75);
        (c, avg) = validation.getSummary(agent, new address[](0), "soft");
        assertEq(c, 1);
        assertEq(avg, 51);
        address[] memory l = new address[](1);
        l[0] = stranger;
        (c,) = validation.getSummary(agent, l, "");
        assertEq(c, 0);
        (bytes32[] memory page, uint256 total) = validation.getAgentValidationsPage(agent, 1, 10);
        assertEq(total, 3);
        assertEq(page.length, 2);
        assertEq(page[0], keccak256("b"));
    }
}
