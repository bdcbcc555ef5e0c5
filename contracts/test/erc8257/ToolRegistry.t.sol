// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {ToolRegistry} from "../../src/erc8257/ToolRegistry.sol";
import {IToolRegistry, ToolConfig} from "../../src/interfaces/IToolRegistry.sol";
import {IAccessPredicate} from "../../src/interfaces/IAccessPredicate.sol";
import {AllowlistPredicate} from "../../src/erc8257/predicates/AllowlistPredicate.sol";
import {
    RawWordPredicate,
    LongReturnPredicate,
    RevertingPredicate,
    GasBurnerPredicate,
    Erc165OnlyContract,
    Erc165RevertingContract,
    Erc165ThenRevert
} from "../utils/PredicateMocks.sol";

contract ToolRegistryTest is Test {
    ToolRegistry internal reg;
    address internal creator = makeAddr("creator");
    address internal other = makeAddr("other");
    bytes32 internal constant H = keccak256("manifest");
    string internal constant URI = "https://tools.example.com/.well-known/ai-tool/x.json";

    function setUp() public {
        reg = new ToolRegistry();
    }

    function _register(address predicate) internal returns (uint256 id) {
        vm.prank(creator);
        id = reg.registerTool(URI, H, predicate);
    }

    // ERC-8257 §9: IToolRegistry interface id 0xf1dc8075 and IAccessPredicate 0xbdf9dc18; registry MUST support ERC-165.
    function test_InterfaceIds_Pinned() public view {
        assertEq(type(IToolRegistry).interfaceId, bytes4(0xf1dc8075));
        assertEq(type(IAccessPredicate).interfaceId, bytes4(0xbdf9dc18));
        assertTrue(reg.supportsInterface(0xf1dc8075));
        assertTrue(reg.supportsInterface(0x01ffc9a7));
        assertFalse(reg.supportsInterface(0xbdf9dc18));
    }

    // ERC-8257 §1: ids start at 1, toolCount is the high-water mark, ToolRegistered carries URI and hash.
    function test_RegisterTool_SequentialIdsAndEvent() public {
        vm.expectEmit(true, true, true, true, address(reg));
        emit IToolRegistry.ToolRegistered(1, creator, address(0), URI, H);
        assertEq(_register(address(0)), 1);
        assertEq(_register(address(0)), 2);
        assertEq(reg.toolCount(), 2);
        ToolConfig memory c = reg.getToolConfig(1);
        assertEq(c.creator, creator);
        assertEq(c.metadataURI, URI);
        assertEq(c.manifestHash, H);
        assertEq(c.accessPredicate, address(0));
    }

    // ERC-8257 §1: InvalidMetadataURI for "" and > 2,048 bytes (checked before the hash); InvalidManifestHash for 0.
    function test_RegisterTool_InputChecksInOrder() public {
        address bad = address(new Erc165OnlyContract());
        vm.startPrank(creator);
        vm.expectRevert(IToolRegistry.InvalidMetadataURI.selector);
        reg.registerTool("", bytes32(0), address(0));
        vm.expectRevert(IToolRegistry.InvalidMetadataURI.selector);
        reg.registerTool(string(new bytes(2049)), H, address(0));
        reg.registerTool(string(new bytes(2048)), H, address(0));
        vm.expectRevert(IToolRegistry.InvalidManifestHash.selector);
        reg.registerTool(URI, bytes32(0), bad);
        vm.stopPrank();
    }

    // ERC-8257 §1: URI length 1..2,048 bytes accepted, fuzzed.
    function testFuzz_RegisterTool_UriLength(uint16 len) public {
        len = uint16(bound(len, 0, 2100));
        vm.prank(creator);
        if (len == 0 || len > 2048) vm.expectRevert(IToolRegistry.InvalidMetadataURI.selector);
        reg.registerTool(string(new bytes(len)), H, address(0));
    }

    // ERC-8257 §Predicate Validation: zero-code accepted; no-ERC-165 accepted; ERC-165 without IAccessPredicate rejected.
    function test_RegisterTool_PredicateLadder() public {
        _register(address(0xdead)); // step 2: no code
        _register(address(new RawWordPredicate(1))); // step 3/4: no supportsInterface
        _register(address(new Erc165RevertingContract())); // step 3: probe reverts
        address p = address(new Erc165OnlyContract());
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.InvalidAccessPredicate.selector, p));
        reg.registerTool(URI, H, p);
        address q = address(new Erc165ThenRevert());
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.InvalidAccessPredicate.selector, q));
        reg.registerTool(URI, H, q);
        // The registry itself advertises ERC-165 but not IAccessPredicate: rejected.
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.InvalidAccessPredicate.selector, address(reg)));
        reg.registerTool(URI, H, address(reg));
        _register(address(new AllowlistPredicate(creator))); // advertises IAccessPredicate
    }

    // ERC-8257 §1 updateToolMetadata: creator only; emits on change; idempotent call emits nothing.
    function test_UpdateToolMetadata_ChangeAndIdempotent() public {
        uint256 id = _register(address(0));
        vm.prank(other);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.NotToolCreator.selector, id, other));
        reg.updateToolMetadata(id, "u2", H);
        vm.expectEmit(true, true, true, true, address(reg));
        emit IToolRegistry.ToolMetadataUpdated(id, "u2", keccak256("m2"));
        vm.prank(creator);
        reg.updateToolMetadata(id, "u2", keccak256("m2"));
        vm.recordLogs();
        vm.prank(creator);
        reg.updateToolMetadata(id, "u2", keccak256("m2"));
        assertEq(vm.getRecordedLogs().length, 0);
        assertEq(reg.getToolConfig(id).metadataURI, "u2");
        vm.startPrank(creator);
        vm.expectRevert(IToolRegistry.InvalidMetadataURI.selector);
        reg.updateToolMetadata(id, "", bytes32(0));
        vm.expectRevert(IToolRegistry.InvalidManifestHash.selector);
        reg.updateToolMetadata(id, "u3", bytes32(0));
        vm.stopPrank();
    }

    // ERC-8257 §1: ToolNotFound for unknown ids on every operation.
    function test_UnknownTool_Reverts() public {
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.ToolNotFound.selector, 5));
        reg.getToolConfig(5);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.ToolNotFound.selector, 5));
        reg.hasAccess(5, other, "");
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.ToolNotFound.selector, 5));
        reg.tryHasAccess(5, other, "");
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.ToolNotFound.selector, 5));
        reg.updateToolMetadata(5, "u", H);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.ToolNotFound.selector, 0));
        reg.setAccessPredicate(0, address(0));
    }

    // ERC-8257 §1 deregisterTool: permanent; every later operation reverts ToolIsDeregistered; count unchanged.
    function test_DeregisterTool_Permanent() public {
        uint256 id = _register(address(0));
        vm.prank(other);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.NotToolCreator.selector, id, other));
        reg.deregisterTool(id);
        vm.expectEmit(true, true, true, true, address(reg));
        emit IToolRegistry.ToolDeregistered(id);
        vm.prank(creator);
        reg.deregisterTool(id);
        bytes memory err = abi.encodeWithSelector(IToolRegistry.ToolIsDeregistered.selector, id);
        vm.expectRevert(err);
        reg.getToolConfig(id);
        vm.expectRevert(err);
        reg.hasAccess(id, other, "");
        vm.expectRevert(err);
        reg.tryHasAccess(id, other, "");
        vm.startPrank(creator);
        vm.expectRevert(err);
        reg.updateToolMetadata(id, "u", H);
        vm.expectRevert(err);
        reg.setAccessPredicate(id, address(0));
        vm.expectRevert(err);
        reg.deregisterTool(id);
        vm.stopPrank();
        assertEq(reg.toolCount(), 1);
        assertEq(_register(address(0)), 2);
    }

    // ERC-8257 §1 setAccessPredicate: validated on change, emits; idempotent call emits nothing (no validation).
    function test_SetAccessPredicate_ChangeAndIdempotent() public {
        uint256 id = _register(address(0));
        address p = address(new AllowlistPredicate(creator));
        vm.expectEmit(true, true, true, true, address(reg));
        emit IToolRegistry.AccessPredicateUpdated(id, p);
        vm.prank(creator);
        reg.setAccessPredicate(id, p);
        vm.recordLogs();
        vm.prank(creator);
        reg.setAccessPredicate(id, p);
        assertEq(vm.getRecordedLogs().length, 0);
        address bad = address(new Erc165OnlyContract());
        vm.prank(creator);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.InvalidAccessPredicate.selector, bad));
        reg.setAccessPredicate(id, bad);
        vm.prank(other);
        vm.expectRevert(abi.encodeWithSelector(IToolRegistry.NotToolCreator.selector, id, other));
        reg.setAccessPredicate(id, address(0));
    }

    // ERC-8257 §1 tryHasAccess: address(0) predicate -> (true,true) without calling.
    function test_TryHasAccess_OpenAccess() public {
        uint256 id = _register(address(0));
        (bool ok, bool granted) = reg.tryHasAccess(id, other, "junk");
        assertTrue(ok && granted);
        assertTrue(reg.hasAccess(id, other, ""));
    }

    // ERC-8257 §1 tryHasAccess: canonical 1 -> (true,true); canonical 0 -> (true,false).
    function test_TryHasAccess_CanonicalAnswers() public {
        uint256 yes = _register(address(new RawWordPredicate(1)));
        uint256 no = _register(address(new RawWordPredicate(0)));
        (bool ok, bool granted) = reg.tryHasAccess(yes, other, "");
        assertTrue(ok && granted);
        (ok, granted) = reg.tryHasAccess(no, other, "");
        assertTrue(ok);
        assertFalse(granted);
        assertFalse(reg.hasAccess(no, other, ""));
    }

    // ERC-8257 §1: non-canonical word, wrong length, revert, out-of-gas and zero code -> (false,false); never (false,true).
    function test_TryHasAccess_MalfunctionsFailClosed() public {
        address[5] memory ps = [
            address(new RawWordPredicate(2)),
            address(new LongReturnPredicate()),
            address(new RevertingPredicate()),
            address(new GasBurnerPredicate()),
            address(0xBEEF)
        ];
        for (uint256 i; i < ps.length; ++i) {
            uint256 id = _register(ps[i]);
            (bool ok, bool granted) = reg.tryHasAccess(id, other, "");
            assertFalse(ok);
            assertFalse(granted);
            assertFalse(reg.hasAccess(id, other, ""));
        }
    }

    // ERC-8257 §1: strict bool decode, fuzzed over every return word.
    function testFuzz_TryHasAccess_StrictBool(uint256 word) public {
        uint256 id = _register(address(new RawWordPredicate(word)));
        (bool ok, bool granted) = reg.tryHasAccess(id, other, "");
        assertEq(ok, word <= 1);
        assertEq(granted, word == 1);
    }

    // ERC-8257 §1: name() and version() are non-empty.
    function test_NameVersion_NonEmpty() public view {
        assertGt(bytes(reg.name()).length, 0);
        assertGt(bytes(reg.version()).length, 0);
    }
}
