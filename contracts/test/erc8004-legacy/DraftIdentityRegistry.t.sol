// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {DraftIdentityRegistry} from "../../src/erc8004-legacy/DraftIdentityRegistry.sol";
import {IDraftIdentityRegistry} from "../../src/erc8004-legacy/interfaces/IDraftIdentityRegistry.sol";

contract DraftIdentityRegistryTest is Test {
    DraftIdentityRegistry internal identity;
    address internal alice = makeAddr("alice");
    address internal bob = makeAddr("bob");
    address internal carol = makeAddr("carol");

    function setUp() public {
        identity = new DraftIdentityRegistry();
    }

    function _new(address who, string memory domain) internal returns (uint256 id) {
        vm.prank(who);
        id = identity.newAgent(domain, who);
    }

    function _assertAgent(IDraftIdentityRegistry.AgentInfo memory a, uint256 id, string memory d, address addr)
        internal
        pure
    {
        assertEq(a.agentId, id);
        assertEq(a.agentDomain, d);
        assertEq(a.agentAddress, addr);
    }

    // ERC-8004 first draft §Identity Registry: New → AgentID, assigned incrementally; emits AgentRegistered.
    function test_NewAgent_AssignsIncrementalIdsAndEmits() public {
        vm.expectEmit(true, false, false, true, address(identity));
        emit IDraftIdentityRegistry.AgentRegistered(1, "alice.example", alice);
        assertEq(_new(alice, "alice.example"), 1);
        assertEq(_new(bob, "bob.example"), 2);
        assertEq(identity.getAgentCount(), 2);
        assertTrue(identity.agentExists(2));
        assertFalse(identity.agentExists(3));
        assertFalse(identity.agentExists(0));
    }

    // ERC-8004 first draft §Identity Registry: all write operations require the sender to be AgentAddress.
    function test_NewAgent_SenderNotAgentAddressReverts() public {
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(DraftIdentityRegistry.UnauthorizedCaller.selector, bob, alice));
        identity.newAgent("alice.example", alice);
    }

    // ERC-8004 first draft §Identity Registry: AgentDomain names the Agent Card host, so it cannot be empty.
    function test_NewAgent_EmptyDomainOrZeroAddressReverts() public {
        vm.prank(alice);
        vm.expectRevert(DraftIdentityRegistry.InvalidDomain.selector);
        identity.newAgent("", alice);
        vm.prank(address(0));
        vm.expectRevert(DraftIdentityRegistry.InvalidAddress.selector);
        identity.newAgent("zero.example", address(0));
    }

    // ERC-8004 first draft §Public Resolvers: ResolveByDomain / ResolveByAddress return one agent, so both are unique.
    function test_NewAgent_DuplicateDomainReverts() public {
        _new(alice, "shared.example");
        vm.prank(bob);
        vm.expectRevert(
            abi.encodeWithSelector(DraftIdentityRegistry.DomainAlreadyRegistered.selector, "SHARED.example")
        );
        identity.newAgent("SHARED.example", bob);
    }

    function test_NewAgent_DuplicateAddressReverts() public {
        _new(alice, "alice.example");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(DraftIdentityRegistry.AddressAlreadyRegistered.selector, alice));
        identity.newAgent("alice2.example", alice);
    }

    // ERC-8004 first draft §Public Resolvers: Get / ResolveByDomain / ResolveByAddress → (AgentID, AgentDomain, AgentAddress).
    function test_Resolvers_ReturnTheTuple() public {
        uint256 id = _new(alice, "Alice.Example");
        _assertAgent(identity.getAgent(id), id, "Alice.Example", alice);
        _assertAgent(identity.resolveByDomain("Alice.Example"), id, "Alice.Example", alice);
        _assertAgent(identity.resolveByDomain("alice.example"), id, "Alice.Example", alice);
        _assertAgent(identity.resolveByAddress(alice), id, "Alice.Example", alice);
    }

    function test_Resolvers_UnknownReverts() public {
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        identity.getAgent(1);
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        identity.resolveByDomain("nobody.example");
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        identity.resolveByAddress(carol);
    }

    // ERC-8004 first draft §Identity Registry: Update with both optional arguments; returns true; emits AgentUpdated.
    function test_UpdateAgent_DomainAndAddress() public {
        uint256 id = _new(alice, "alice.example");
        vm.expectEmit(true, false, false, true, address(identity));
        emit IDraftIdentityRegistry.AgentUpdated(id, "new.example", carol);
        vm.prank(alice);
        assertTrue(identity.updateAgent(id, "new.example", carol));
        _assertAgent(identity.getAgent(id), id, "new.example", carol);
        _assertAgent(identity.resolveByDomain("new.example"), id, "new.example", carol);
        _assertAgent(identity.resolveByAddress(carol), id, "new.example", carol);
        // The old domain and address are released.
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        identity.resolveByDomain("alice.example");
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        identity.resolveByAddress(alice);
        assertEq(_new(alice, "alice.example"), 2);
    }

    // ERC-8004 first draft §Identity Registry: NewAgentDomain and NewAgentAddress are optional.
    function test_UpdateAgent_OptionalArgumentsKeepValues() public {
        uint256 id = _new(alice, "alice.example");
        vm.prank(alice);
        identity.updateAgent(id, "", carol);
        _assertAgent(identity.getAgent(id), id, "alice.example", carol);
        vm.prank(carol);
        identity.updateAgent(id, "other.example", address(0));
        _assertAgent(identity.getAgent(id), id, "other.example", carol);
        vm.expectEmit(true, false, false, true, address(identity));
        emit IDraftIdentityRegistry.AgentUpdated(id, "other.example", carol);
        vm.prank(carol);
        assertTrue(identity.updateAgent(id, "", address(0)));
        // Re-using the agent's own domain in another case is not a clash.
        vm.prank(carol);
        identity.updateAgent(id, "OTHER.example", carol);
        _assertAgent(identity.resolveByDomain("other.EXAMPLE"), id, "OTHER.example", carol);
    }

    // ERC-8004 first draft §Identity Registry: only the current AgentAddress may update.
    function test_UpdateAgent_WrongCallerReverts() public {
        uint256 id = _new(alice, "alice.example");
        vm.prank(bob);
        vm.expectRevert(abi.encodeWithSelector(DraftIdentityRegistry.UnauthorizedCaller.selector, bob, alice));
        identity.updateAgent(id, "stolen.example", bob);
        // After a move, the old address has lost control.
        vm.prank(alice);
        identity.updateAgent(id, "", carol);
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(DraftIdentityRegistry.UnauthorizedCaller.selector, alice, carol));
        identity.updateAgent(id, "back.example", address(0));
    }

    function test_UpdateAgent_UnknownAgentReverts() public {
        vm.prank(alice);
        vm.expectRevert(DraftIdentityRegistry.AgentNotFound.selector);
        identity.updateAgent(7, "x.example", address(0));
    }

    function test_UpdateAgent_DuplicatesRevert() public {
        uint256 id = _new(alice, "alice.example");
        _new(bob, "bob.example");
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(DraftIdentityRegistry.DomainAlreadyRegistered.selector, "Bob.example"));
        identity.updateAgent(id, "Bob.example", address(0));
        vm.prank(alice);
        vm.expectRevert(abi.encodeWithSelector(DraftIdentityRegistry.AddressAlreadyRegistered.selector, bob));
        identity.updateAgent(id, "", bob);
    }

    // Fuzz: any non-empty domain registers and resolves back, case-insensitively for ASCII letters.
    function testFuzz_NewAgent_ResolvesBack(address who, string calldata domain) public {
        vm.assume(who != address(0) && bytes(domain).length != 0);
        vm.prank(who);
        uint256 id = identity.newAgent(domain, who);
        _assertAgent(identity.resolveByDomain(domain), id, domain, who);
        _assertAgent(identity.resolveByAddress(who), id, domain, who);
        bytes memory upper = bytes(domain);
        for (uint256 i; i < upper.length; ++i) {
            if (upper[i] >= "a" && upper[i] <= "z") upper[i] = bytes1(uint8(upper[i]) - 32);
        }
        assertEq(identity.resolveByDomain(string(upper)).agentId, id);
    }
}
