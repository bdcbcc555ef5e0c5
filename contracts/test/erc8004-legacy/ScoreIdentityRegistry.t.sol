// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test, Vm} from "forge-std/Test.sol";
import {ScoreIdentityRegistry} from "../../src/erc8004-legacy/ScoreIdentityRegistry.sol";
import {ScoreReputationRegistry} from "../../src/erc8004-legacy/ScoreReputationRegistry.sol";
import {ERC1271WalletMock} from "../utils/ERC1271WalletMock.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

contract ScoreIdentityRegistryTest is Test {
    ScoreIdentityRegistry internal identity;
    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal stranger = makeAddr("stranger");
    address internal buyer = makeAddr("buyer");
    uint256 internal walletKey = uint256(keccak256("wallet key"));
    address internal wallet;

    function setUp() public {
        identity = new ScoreIdentityRegistry();
        wallet = vm.addr(walletKey);
    }

    function _register(string memory uri) internal returns (uint256 id) {
        vm.prank(owner);
        id = identity.register(uri);
    }

    function _sign(uint256 key, uint256 id, address newWallet, address agentOwner, uint256 deadline)
        internal
        view
        returns (bytes memory)
    {
        bytes32 structHash =
            keccak256(abi.encode(identity.AGENT_WALLET_SET_TYPEHASH(), id, newWallet, agentOwner, deadline));
        (, string memory name, string memory version, uint256 chainId, address verifying,,) = identity.eip712Domain();
        bytes32 domain = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256(bytes(version)),
                chainId,
                verifying
            )
        );
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, keccak256(abi.encodePacked("\x19\x01", domain, structHash)));
        return abi.encodePacked(r, s, v);
    }

    // ERC-8004 intermediate §Registration: Transfer, one MetadataSet per entry (none for agentWallet), Registered.
    function test_Register_WithMetadataEmitsPerEntry() public {
        ScoreIdentityRegistry.MetadataEntry[] memory md = new ScoreIdentityRegistry.MetadataEntry[](2);
        md[0] = ScoreIdentityRegistry.MetadataEntry("ens", bytes("agent.eth"));
        md[1] = ScoreIdentityRegistry.MetadataEntry("x", hex"01");
        vm.recordLogs();
        vm.prank(owner);
        uint256 id = identity.register("ipfs://cid", md);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        uint256 metadataSets;
        uint256 registered;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == ScoreIdentityRegistry.MetadataSet.selector) ++metadataSets;
            if (logs[i].topics[0] == ScoreIdentityRegistry.Registered.selector) ++registered;
        }
        assertEq(metadataSets, 2);
        assertEq(registered, 1);
        assertEq(identity.ownerOf(id), owner);
        assertEq(identity.tokenURI(id), "ipfs://cid");
        assertEq(identity.getMetadata(id, "ens"), bytes("agent.eth"));
        // ERC-8004 intermediate §Onchain metadata: agentWallet starts as the owner's address.
        assertEq(identity.getMetadata(id, "agentWallet"), abi.encodePacked(owner));
    }

    // ERC-8004 intermediate §Registration: three overloads; ids are assigned incrementally.
    function test_Register_OverloadsAndIds() public {
        vm.expectEmit(true, true, false, true, address(identity));
        emit ScoreIdentityRegistry.Registered(0, "", owner);
        vm.prank(owner);
        assertEq(identity.register(), 0);
        assertEq(_register("https://example.com/agent.json"), 1);
        vm.prank(owner);
        assertEq(identity.register("u", new ScoreIdentityRegistry.MetadataEntry[](0)), 2);
        assertEq(identity.balanceOf(owner), 3);
        assertEq(identity.name(), "AgentIdentity");
        assertEq(identity.symbol(), "AGENT");
    }

    // ERC-8004 intermediate §Onchain metadata: agentWallet cannot be set during register() or via setMetadata().
    function test_ReservedKey_Reverts() public {
        ScoreIdentityRegistry.MetadataEntry[] memory md = new ScoreIdentityRegistry.MetadataEntry[](1);
        md[0] = ScoreIdentityRegistry.MetadataEntry("agentWallet", abi.encodePacked(stranger));
        vm.prank(owner);
        vm.expectRevert(ScoreIdentityRegistry.ReservedMetadataKey.selector);
        identity.register("u", md);
        uint256 id = _register("u");
        vm.prank(owner);
        vm.expectRevert(ScoreIdentityRegistry.ReservedMetadataKey.selector);
        identity.setMetadata(id, "agentWallet", abi.encodePacked(stranger));
    }

    // ERC-8004 intermediate §Onchain metadata: setMetadata emits MetadataSet; owner or operator only.
    function test_SetMetadata_AuthorizedOnly() public {
        uint256 id = _register("u");
        vm.expectEmit(true, true, false, true, address(identity));
        emit ScoreIdentityRegistry.MetadataSet(id, "k", "k", hex"beef");
        vm.prank(owner);
        identity.setMetadata(id, "k", hex"beef");
        assertEq(identity.getMetadata(id, "k"), hex"beef");
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ScoreIdentityRegistry.NotAuthorized.selector, id, stranger));
        identity.setMetadata(id, "k", hex"00");
        vm.prank(owner);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        identity.setMetadata(id, "k", hex"01");
    }

    // ERC-8004 intermediate §Update agentURI: setAgentURI emits URIUpdated(agentId, newURI, updatedBy).
    function test_SetAgentURI_EmitsAndAuthorizes() public {
        uint256 id = _register("");
        vm.expectEmit(true, true, false, true, address(identity));
        emit ScoreIdentityRegistry.URIUpdated(id, "ipfs://new", owner);
        vm.prank(owner);
        identity.setAgentURI(id, "ipfs://new");
        assertEq(identity.tokenURI(id), "ipfs://new");
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ScoreIdentityRegistry.NotAuthorized.selector, id, stranger));
        identity.setAgentURI(id, "x");
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, uint256(9)));
        identity.setAgentURI(9, "x");
    }

    // ERC-8004 intermediate §Onchain metadata: a valid EIP-712 signature of the new EOA wallet sets agentWallet.
    function test_SetAgentWallet_EOASignature() public {
        uint256 id = _register("u");
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes memory sig = _sign(walletKey, id, wallet, owner, deadline);
        vm.expectEmit(true, true, false, true, address(identity));
        emit ScoreIdentityRegistry.MetadataSet(id, "agentWallet", "agentWallet", abi.encodePacked(wallet));
        vm.prank(owner);
        identity.setAgentWallet(id, wallet, deadline, sig);
        assertEq(identity.getMetadata(id, "agentWallet"), abi.encodePacked(wallet));
    }

    // ERC-8004 intermediate §Onchain metadata: ERC-1271 for smart-contract wallets.
    function test_SetAgentWallet_ERC1271() public {
        uint256 id = _register("u");
        ERC1271WalletMock scw = new ERC1271WalletMock(wallet);
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes memory sig = _sign(walletKey, id, address(scw), owner, deadline);
        vm.prank(owner);
        identity.setAgentWallet(id, address(scw), deadline, sig);
        assertEq(identity.getMetadata(id, "agentWallet"), abi.encodePacked(address(scw)));
    }

    function test_SetAgentWallet_Rejections() public {
        uint256 id = _register("u");
        uint256 now_ = vm.getBlockTimestamp();
        bytes memory sig = _sign(walletKey, id, wallet, owner, now_ + 60);
        // Signatures are made before vm.prank / vm.expectRevert, which apply to the next call.
        bytes memory farSig = _sign(walletKey, id, wallet, owner, now_ + 301);
        bytes memory wrongSig = _sign(uint256(7), id, wallet, owner, now_ + 60);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(ScoreIdentityRegistry.NotAuthorized.selector, id, stranger));
        identity.setAgentWallet(id, wallet, now_ + 60, sig);
        vm.prank(owner);
        vm.expectRevert(ScoreIdentityRegistry.InvalidWallet.selector);
        identity.setAgentWallet(id, address(0), now_ + 60, sig);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreIdentityRegistry.DeadlineTooFar.selector, now_ + 301));
        identity.setAgentWallet(id, wallet, now_ + 301, farSig);
        // Signed by someone else than newWallet.
        vm.prank(owner);
        vm.expectRevert(ScoreIdentityRegistry.InvalidWalletSignature.selector);
        identity.setAgentWallet(id, wallet, now_ + 60, wrongSig);
        vm.warp(now_ + 61);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreIdentityRegistry.DeadlineExpired.selector, now_ + 60));
        identity.setAgentWallet(id, wallet, now_ + 60, sig);
    }

    // ERC-8004 intermediate §Onchain metadata: on transfer agentWallet is reset to the zero address.
    function test_Transfer_ResetsAgentWallet() public {
        uint256 id = _register("u");
        vm.expectEmit(true, true, false, true, address(identity));
        emit ScoreIdentityRegistry.MetadataSet(id, "agentWallet", "agentWallet", "");
        vm.prank(owner);
        identity.transferFrom(owner, buyer, id);
        assertEq(identity.getMetadata(id, "agentWallet"), "");
        assertEq(identity.ownerOf(id), buyer);
    }

    // The intermediate registries work together: feedback for an agent of this identity registry.
    function test_WithScoreReputation_GiveFeedback() public {
        uint256 id = _register("u");
        ScoreReputationRegistry reputation = new ScoreReputationRegistry(address(identity));
        vm.prank(stranger);
        reputation.giveFeedback(id, 99, "starred", "", "", "", bytes32(0));
        (uint8 score,,,) = reputation.readFeedback(id, stranger, 1);
        assertEq(score, 99);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ScoreReputationRegistry.SelfFeedbackNotAllowed.selector, id, owner));
        reputation.giveFeedback(id, 99, "", "", "", "", bytes32(0));
    }
}
