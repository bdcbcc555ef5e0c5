// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {ToolRegistry} from "../../src/erc8257/ToolRegistry.sol";
import {IAccessPredicate, AccessRequirement, RequirementLogic} from "../../src/interfaces/IAccessPredicate.sol";
import {
    IERC721Holding,
    IERC1155Holding,
    ISubscription,
    IAllowlistMembership,
    IAccessProofSignature
} from "../../src/interfaces/IRequirementTypes.sol";
import {ERC721HoldingPredicate} from "../../src/erc8257/predicates/ERC721HoldingPredicate.sol";
import {ERC1155HoldingPredicate} from "../../src/erc8257/predicates/ERC1155HoldingPredicate.sol";
import {SubscriptionPredicate} from "../../src/erc8257/predicates/SubscriptionPredicate.sol";
import {AllowlistPredicate} from "../../src/erc8257/predicates/AllowlistPredicate.sol";
import {AccessProofPredicate} from "../../src/erc8257/predicates/AccessProofPredicate.sol";
import {CompositePredicate} from "../../src/erc8257/predicates/CompositePredicate.sol";
import {MockERC721, MockERC1155, MockSubscriptions, RevertingPredicate} from "../utils/PredicateMocks.sol";

contract PredicatesTest is Test {
    ToolRegistry internal reg;
    MockERC721 internal nft;
    MockERC1155 internal multi;
    MockSubscriptions internal subs;
    address internal alice;
    uint256 internal aliceKey = 0xA11CE;
    address internal bob = makeAddr("bob");

    function setUp() public {
        reg = new ToolRegistry();
        nft = new MockERC721();
        multi = new MockERC1155();
        subs = new MockSubscriptions();
        alice = vm.addr(aliceKey);
    }

    function _tool(address predicate) internal returns (uint256) {
        return reg.registerTool("ipfs://tool", keccak256("m"), predicate);
    }

    function _kind(IAccessPredicate p) internal view returns (bytes4 kind, bytes memory data) {
        (AccessRequirement[] memory r, RequirementLogic logic) = p.getRequirements(1);
        assertEq(r.length, 1);
        assertEq(uint8(logic), uint8(RequirementLogic.AND));
        assertGt(bytes(r[0].label).length, 0);
        return (r[0].kind, r[0].data);
    }

    // ERC-8257 Test Cases: marker interface ids are pinned.
    function test_MarkerIds_Pinned() public pure {
        assertEq(type(IERC721Holding).interfaceId, bytes4(0xbdf8c428));
        assertEq(type(IERC1155Holding).interfaceId, bytes4(0xcb429230));
        assertEq(type(ISubscription).interfaceId, bytes4(0x44387cc2));
        // Credence markers MUST NOT collide with the pinned ones.
        bytes4 a = type(IAllowlistMembership).interfaceId;
        bytes4 b = type(IAccessProofSignature).interfaceId;
        assertTrue(a != 0xbdf8c428 && a != 0xcb429230 && a != 0x44387cc2 && a != 0);
        assertTrue(b != 0xbdf8c428 && b != 0xcb429230 && b != 0x44387cc2 && b != 0 && a != b);
    }

    // ERC-8257 §IAccessPredicate: ERC-721 holding gate with kind IERC721Holding, data abi.encode(collection).
    function test_ERC721Holding_GateAndRequirements() public {
        ERC721HoldingPredicate p = new ERC721HoldingPredicate(address(nft));
        uint256 id = _tool(address(p));
        assertFalse(reg.hasAccess(id, alice, ""));
        nft.mint(alice, 1);
        assertTrue(reg.hasAccess(id, alice, ""));
        (bytes4 k, bytes memory d) = _kind(p);
        assertEq(k, bytes4(0xbdf8c428));
        assertEq(abi.decode(d, (address)), address(nft));
        assertTrue(p.supportsInterface(0xbdf9dc18));
        assertEq(p.name(), "ERC721HoldingPredicate");
    }

    // ERC-8257 §IAccessPredicate: ERC-1155 holding gate, data abi.encode(collection, tokenId).
    function test_ERC1155Holding_GateAndRequirements() public {
        ERC1155HoldingPredicate p = new ERC1155HoldingPredicate(address(multi), 7);
        uint256 id = _tool(address(p));
        multi.mint(alice, 6, 1);
        assertFalse(reg.hasAccess(id, alice, ""));
        multi.mint(alice, 7, 1);
        assertTrue(reg.hasAccess(id, alice, ""));
        (bytes4 k, bytes memory d) = _kind(p);
        assertEq(k, bytes4(0xcb429230));
        (address c, uint256 t) = abi.decode(d, (address, uint256));
        assertEq(c, address(multi));
        assertEq(t, 7);
    }

    // ERC-8257 §IAccessPredicate: subscription gate, data abi.encode(collection, uint8 minTier).
    function test_Subscription_TierAndExpiry() public {
        SubscriptionPredicate p = new SubscriptionPredicate(address(subs), 2);
        uint256 id = _tool(address(p));
        subs.set(alice, 1, uint64(vm.getBlockTimestamp() + 100));
        assertFalse(reg.hasAccess(id, alice, ""));
        subs.set(alice, 2, uint64(vm.getBlockTimestamp() + 100));
        assertTrue(reg.hasAccess(id, alice, ""));
        vm.warp(vm.getBlockTimestamp() + 101);
        assertFalse(reg.hasAccess(id, alice, ""));
        (bytes4 k, bytes memory d) = _kind(p);
        assertEq(k, bytes4(0x44387cc2));
        (address c, uint8 tier) = abi.decode(d, (address, uint8));
        assertEq(c, address(subs));
        assertEq(tier, 2);
    }

    // ERC-8257 §IAccessPredicate: allowlist gate, owner-managed, events on change.
    function test_Allowlist_OwnerManaged() public {
        AllowlistPredicate p = new AllowlistPredicate(address(this));
        uint256 id = _tool(address(p));
        address[] memory l = new address[](1);
        l[0] = alice;
        vm.expectEmit(true, true, true, true, address(p));
        emit AllowlistPredicate.AllowlistUpdated(alice, true);
        p.setAllowed(l, true);
        assertTrue(reg.hasAccess(id, alice, ""));
        assertFalse(reg.hasAccess(id, bob, ""));
        vm.prank(bob);
        vm.expectRevert();
        p.setAllowed(l, false);
        (bytes4 k,) = _kind(p);
        assertEq(k, type(IAllowlistMembership).interfaceId);
    }

    // ERC-8257 §Concrete AccessProof Pattern: digest equals the manifest-vectors.json vector.
    function test_AccessProof_VectorDigest() public {
        vm.chainId(8453);
        address target = 0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB;
        deployCodeTo("AccessProofPredicate.sol:AccessProofPredicate", target);
        AccessProofPredicate p = AccessProofPredicate(target);
        assertEq(p.ACCESS_PROOF_TYPEHASH(), 0xe8f08e8f7306d04c98c930c7b6c46de720239a6eb1d975d517f79832d0120a03);
        assertEq(p.domainSeparator(), 0x00be4dceb00e77c03c6176062e6fe772d83a6aa77cecdfecc01ec759cb4110e5);
        assertEq(
            p.accessProofDigest(2, 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826, 1767225600),
            0xb0d803b244257c929c152cab7cc2edc59987c059041f8a17d52b36d7210ff5f2
        );
    }

    // ERC-8257 §Concrete AccessProof Pattern: valid signature by account before deadline grants; else denies.
    function test_AccessProof_SignatureDeadlineAndBinding() public {
        AccessProofPredicate p = new AccessProofPredicate();
        uint256 id = _tool(address(p));
        uint64 deadline = uint64(vm.getBlockTimestamp() + 60);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(aliceKey, p.accessProofDigest(id, alice, deadline));
        bytes memory data = abi.encode(deadline, abi.encodePacked(r, s, v));
        assertTrue(reg.hasAccess(id, alice, data));
        assertFalse(reg.hasAccess(id, bob, data)); // bound to account
        uint256 id2 = _tool(address(p));
        assertFalse(reg.hasAccess(id2, alice, data)); // bound to toolId
        (bool ok, bool granted) = reg.tryHasAccess(id, alice, hex"1234");
        assertTrue(ok); // malformed data is a clean denial
        assertFalse(granted);
        vm.warp(deadline + 1);
        assertFalse(reg.hasAccess(id, alice, data)); // expired
        (bytes4 k,) = _kind(p);
        assertEq(k, type(IAccessProofSignature).interfaceId);
    }

    // ERC-8257 §Concrete AccessProof Pattern: any other signer is rejected, fuzzed.
    function testFuzz_AccessProof_WrongSigner(uint256 key) public {
        key = bound(key, 1, 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364140);
        vm.assume(key != aliceKey);
        AccessProofPredicate p = new AccessProofPredicate();
        uint64 deadline = uint64(vm.getBlockTimestamp() + 60);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, p.accessProofDigest(1, alice, deadline));
        assertFalse(p.hasAccess(1, alice, abi.encode(deadline, abi.encodePacked(r, s, v))));
    }

    // Composite AND/OR: AND needs every child, OR any child; requirements are flattened with the logic.
    function test_Composite_AndOr() public {
        AllowlistPredicate allow = new AllowlistPredicate(address(this));
        ERC721HoldingPredicate hold = new ERC721HoldingPredicate(address(nft));
        address[] memory ch = new address[](2);
        ch[0] = address(allow);
        ch[1] = address(hold);
        CompositePredicate andP = new CompositePredicate(ch, RequirementLogic.AND);
        CompositePredicate orP = new CompositePredicate(ch, RequirementLogic.OR);
        uint256 ida = _tool(address(andP));
        uint256 ido = _tool(address(orP));
        address[] memory l = new address[](1);
        l[0] = alice;
        allow.setAllowed(l, true);
        assertFalse(reg.hasAccess(ida, alice, ""));
        assertTrue(reg.hasAccess(ido, alice, ""));
        nft.mint(alice, 1);
        assertTrue(reg.hasAccess(ida, alice, ""));
        (AccessRequirement[] memory r, RequirementLogic logic) = orP.getRequirements(ido);
        assertEq(r.length, 2);
        assertEq(uint8(logic), uint8(RequirementLogic.OR));
        assertEq(r[1].kind, bytes4(0xbdf8c428));
    }

    // ERC-8257 Rationale: a child that fails introspection is reported as sentinel kind 0x00000000 "unknown".
    function test_Composite_SentinelForBrokenChild() public {
        address[] memory ch = new address[](2);
        ch[0] = address(new RevertingPredicate());
        ch[1] = address(new ERC721HoldingPredicate(address(nft)));
        CompositePredicate orP = new CompositePredicate(ch, RequirementLogic.OR);
        (AccessRequirement[] memory r,) = orP.getRequirements(1);
        assertEq(r.length, 2);
        assertEq(r[0].kind, bytes4(0));
        assertEq(r[0].label, "unknown");
        nft.mint(alice, 3);
        assertTrue(orP.hasAccess(1, alice, "")); // broken child denies, other grants
    }

    // Composite: per-child data routed from abi.encode(bytes[]).
    function test_Composite_RoutesChildData() public {
        AccessProofPredicate ap = new AccessProofPredicate();
        ERC721HoldingPredicate hold = new ERC721HoldingPredicate(address(nft));
        address[] memory ch = new address[](2);
        ch[0] = address(ap);
        ch[1] = address(hold);
        CompositePredicate andP = new CompositePredicate(ch, RequirementLogic.AND);
        nft.mint(alice, 9);
        uint64 deadline = uint64(vm.getBlockTimestamp() + 60);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(aliceKey, ap.accessProofDigest(5, alice, deadline));
        bytes[] memory parts = new bytes[](2);
        parts[0] = abi.encode(deadline, abi.encodePacked(r, s, v));
        assertTrue(andP.hasAccess(5, alice, abi.encode(parts)));
        assertFalse(andP.hasAccess(5, alice, ""));
    }
}
