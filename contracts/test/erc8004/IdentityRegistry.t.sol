// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {RegistryFixture} from "../utils/RegistryFixture.sol";
import {ERC1271WalletMock} from "../utils/ERC1271WalletMock.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";
import {IIdentityRegistry} from "../../src/interfaces/IIdentityRegistry.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

contract IdentityRegistryTest is RegistryFixture {
    bytes32 internal constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    // Vector: tests/vectors/erc8004.json
    bytes32 internal constant VEC_TYPEHASH = 0x678b53cd718d595370ab070ebf48edfdcd834beac116bf23e625fc7f4d5b7d32;

    uint256 internal walletKey = 0xA11CE;
    address internal wallet;

    function setUp() public override {
        super.setUp();
        wallet = vm.addr(walletKey);
    }

    function _digest(IdentityRegistry reg, uint256 agentId, address newWallet, address agentOwner, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 ds = keccak256(
            abi.encode(
                DOMAIN_TYPEHASH, keccak256("ERC8004IdentityRegistry"), keccak256("1"), block.chainid, address(reg)
            )
        );
        bytes32 sh = keccak256(abi.encode(VEC_TYPEHASH, agentId, newWallet, agentOwner, deadline));
        return keccak256(abi.encodePacked("\x19\x01", ds, sh));
    }

    function _sign(uint256 key, bytes32 digest) internal pure returns (bytes memory) {
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, digest);
        return abi.encodePacked(r, s, v);
    }

    // ───── compatibility vectors ─────

    // ERC-8004 compat (vectors/erc8004.json): typehash AgentWalletSet(...) MUST match the deployed registries.
    function test_Typehash_MatchesVector() public view {
        assertEq(identity.AGENT_WALLET_SET_TYPEHASH(), VEC_TYPEHASH);
    }

    // ERC-8004 compat: EIP-712 domain {ERC8004IdentityRegistry, 1, chainId, verifyingContract}.
    function test_Eip712Domain_NameVersion() public view {
        (, string memory n, string memory v, uint256 cid, address vc,,) = identity.eip712Domain();
        assertEq(n, "ERC8004IdentityRegistry");
        assertEq(v, "1");
        assertEq(cid, block.chainid);
        assertEq(vc, address(identity));
    }

    // ERC-8004 compat: the digest of the vector (Base mainnet, deployed address) is the one our contract verifies.
    function test_SetAgentWallet_VectorDigestBase() public {
        address vecOwner = 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266;
        uint256 vecWalletKey = 0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d;
        address vecWallet = 0x70997970C51812dc3A010C7d01b50e0d17dc79C8;
        assertEq(vm.addr(vecWalletKey), vecWallet);
        vm.chainId(8453);
        address target = 0x8004A169FB4a3325136EB29fA0ceB6D2e539a432;
        deployCodeTo("IdentityRegistry.sol:IdentityRegistry", target);
        IdentityRegistry reg = IdentityRegistry(target);
        vm.startPrank(vecOwner);
        for (uint256 i; i < 43; ++i) {
            reg.register();
        }
        bytes32 digest = 0x77097bf669f5eaa54b50bbda08962ee0b987c89d6c56ee476bbcde6e5deea86a;
        assertEq(_digest(reg, 42, vecWallet, vecOwner, 1893456000), digest);
        vm.warp(1893456000 - 60);
        reg.setAgentWallet(42, vecWallet, 1893456000, _sign(vecWalletKey, digest));
        vm.stopPrank();
        assertEq(reg.getAgentWallet(42), vecWallet);
    }

    // ERC-8004 compat: selectors and event topics equal vectors/erc8004.json.
    function test_Selectors_MatchVector() public view {
        assertEq(IIdentityRegistry.setAgentURI.selector, bytes4(0x0af28bd3));
        assertEq(IIdentityRegistry.setMetadata.selector, bytes4(0x466648da));
        assertEq(IIdentityRegistry.getMetadata.selector, bytes4(0xcb4799f2));
        assertEq(IIdentityRegistry.setAgentWallet.selector, bytes4(0x2d1ef5ae));
        assertEq(IIdentityRegistry.getAgentWallet.selector, bytes4(0x00339509));
        assertEq(IIdentityRegistry.unsetAgentWallet.selector, bytes4(0x3fddcf19));
        assertEq(bytes4(keccak256("register()")), bytes4(0x1aa3a008));
        assertEq(bytes4(keccak256("register(string)")), bytes4(0xf2c298be));
        assertEq(bytes4(keccak256("register(string,(string,bytes)[])")), bytes4(0x8ea42286));
        assertEq(
            IIdentityRegistry.Registered.selector, 0xca52e62c367d81bb2e328eb795f7c7ba24afb478408a26c0e201d155c449bc4a
        );
        assertEq(
            IIdentityRegistry.MetadataSet.selector, 0x2c149ed548c6d2993cd73efe187df6eccabe4538091b33adbd25fafdb8a1468b
        );
        assertEq(
            IIdentityRegistry.URIUpdated.selector, 0x3a2c7fffc2cba7582c690e3b82c453ea02a308326a98a3ad7576c606336409fb
        );
        assertEq(IERC721.Transfer.selector, 0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef);
    }

    // ERC-8004 compat: the three register overloads answer at the vector selectors.
    function test_Register_OverloadSelectorsCallable() public {
        vm.startPrank(owner);
        (bool ok0, bytes memory r0) = address(identity).call(abi.encodeWithSelector(0x1aa3a008));
        (bool ok1, bytes memory r1) = address(identity).call(abi.encodeWithSelector(0xf2c298be, URI1));
        IIdentityRegistry.MetadataEntry[] memory md = new IIdentityRegistry.MetadataEntry[](0);
        (bool ok2, bytes memory r2) = address(identity).call(abi.encodeWithSelector(0x8ea42286, URI1, md));
        vm.stopPrank();
        assertTrue(ok0 && ok1 && ok2);
        assertEq(abi.decode(r0, (uint256)), 0);
        assertEq(abi.decode(r1, (uint256)), 1);
        assertEq(abi.decode(r2, (uint256)), 2);
    }

    // ───── registration ─────

    // ERC-8004 compat: the first agentId is 0; ERC-8004 §Identity: agentId assigned incrementally.
    function test_Register_FirstIdZeroThenIncrements() public {
        assertEq(_registerAs(owner, URI1), 0);
        assertEq(_registerAs(client1, ""), 1);
        assertEq(identity.ownerOf(0), owner);
        assertEq(identity.ownerOf(1), client1);
        assertEq(identity.balanceOf(owner), 1);
        assertEq(identity.tokenURI(0), URI1);
        assertEq(identity.nextAgentId(), 2);
    }

    // ERC-8004 §Registration: emits Transfer, MetadataSet(agentWallet = owner) and Registered.
    function test_Register_EmitsTransferWalletAndRegistered() public {
        vm.expectEmit(true, true, true, true, address(identity));
        emit IERC721.Transfer(address(0), owner, 0);
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.MetadataSet(0, "agentWallet", "agentWallet", abi.encodePacked(owner));
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.Registered(0, URI1, owner);
        _registerAs(owner, URI1);
    }

    // ERC-8004 §Registration: register(uri, metadata) emits one MetadataSet per entry and stores it.
    function test_Register_WithMetadataStoresEntries() public {
        IIdentityRegistry.MetadataEntry[] memory md = new IIdentityRegistry.MetadataEntry[](2);
        md[0] = IIdentityRegistry.MetadataEntry("skills", bytes("search,summarize"));
        md[1] = IIdentityRegistry.MetadataEntry("region", bytes("eu-west"));
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.MetadataSet(0, "skills", "skills", bytes("search,summarize"));
        vm.prank(owner);
        uint256 id = identity.register(URI1, md);
        assertEq(identity.getMetadata(id, "skills"), bytes("search,summarize"));
        assertEq(identity.getMetadata(id, "region"), bytes("eu-west"));
    }

    // ERC-8004 §On-chain metadata: agentWallet is reserved and cannot be set during register().
    function test_Register_ReservedKeyReverts() public {
        IIdentityRegistry.MetadataEntry[] memory md = new IIdentityRegistry.MetadataEntry[](1);
        md[0] = IIdentityRegistry.MetadataEntry("agentWallet", abi.encodePacked(stranger));
        vm.prank(owner);
        vm.expectRevert(IdentityRegistry.ReservedMetadataKey.selector);
        identity.register(URI1, md);
    }

    // ERC-8004 §Registration: register() leaves the URI empty (set later with setAgentURI).
    function test_Register_NoUriIsEmpty() public {
        vm.prank(owner);
        uint256 id = identity.register();
        assertEq(identity.tokenURI(id), "");
    }

    // ERC-721: a contract minter that is not an ERC721Receiver is rejected (safe mint).
    function test_Register_NonReceiverContractReverts() public {
        vm.prank(address(reputation));
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(reputation)));
        identity.register(URI1);
    }

    // ───── agentURI ─────

    // ERC-8004 §Update agentURI: setAgentURI emits URIUpdated and updates tokenURI; operators may call it.
    function test_SetAgentURI_OwnerAndOperator() public {
        uint256 id = _registerAs(owner, URI1);
        string memory u2 = "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.URIUpdated(id, u2, owner);
        vm.prank(owner);
        identity.setAgentURI(id, u2);
        assertEq(identity.tokenURI(id), u2);
        vm.prank(owner);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        identity.setAgentURI(id, "x");
        assertEq(identity.tokenURI(id), "x");
    }

    // ERC-8004 §Identity: only the owner or an operator manages the agent.
    function test_SetAgentURI_StrangerReverts() public {
        uint256 id = _registerAs(owner, URI1);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, id, stranger));
        identity.setAgentURI(id, "x");
    }

    // URI storage: any length round-trips exactly (packed word storage).
    function testFuzz_SetAgentURI_RoundTrip(bytes memory raw) public {
        vm.assume(raw.length < 600);
        uint256 id = _registerAs(owner, URI1);
        vm.prank(owner);
        identity.setAgentURI(id, string(raw));
        assertEq(bytes(identity.tokenURI(id)), raw);
    }

    // ───── metadata ─────

    // ERC-8004 §On-chain metadata: setMetadata stores and emits MetadataSet.
    function test_SetMetadata_StoresAndEmits() public {
        uint256 id = _registerAs(owner, URI1);
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.MetadataSet(id, "region", "region", bytes("eu-west"));
        vm.prank(owner);
        identity.setMetadata(id, "region", bytes("eu-west"));
        assertEq(identity.getMetadata(id, "region"), bytes("eu-west"));
    }

    // ERC-8004 §On-chain metadata: agentWallet cannot be set via setMetadata().
    function test_SetMetadata_ReservedKeyReverts() public {
        uint256 id = _registerAs(owner, URI1);
        vm.prank(owner);
        vm.expectRevert(IdentityRegistry.ReservedMetadataKey.selector);
        identity.setMetadata(id, "agentWallet", abi.encodePacked(stranger));
    }

    // ERC-8004 §Identity: metadata writes require owner or operator.
    function test_SetMetadata_StrangerReverts() public {
        uint256 id = _registerAs(owner, URI1);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, id, stranger));
        identity.setMetadata(id, "k", "v");
    }

    // ERC-8004 compat: agentWallet is initially the owner, and its metadata value is the 20-byte packed address.
    function test_GetMetadata_AgentWalletPacked() public {
        uint256 id = _registerAs(owner, URI1);
        bytes memory v = identity.getMetadata(id, "agentWallet");
        assertEq(v.length, 20);
        assertEq(v, abi.encodePacked(owner));
        assertEq(identity.getAgentWallet(id), owner);
    }

    // ───── agent wallet ─────

    // ERC-8004 §On-chain metadata: setAgentWallet with an EIP-712 signature of the new (EOA) wallet.
    function test_SetAgentWallet_Eip712Eoa() public {
        uint256 id = _registerAs(owner, URI1);
        uint256 deadline = vm.getBlockTimestamp() + 5 minutes;
        bytes memory sig = _sign(walletKey, _digest(identity, id, wallet, owner, deadline));
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.MetadataSet(id, "agentWallet", "agentWallet", abi.encodePacked(wallet));
        vm.prank(owner);
        identity.setAgentWallet(id, wallet, deadline, sig);
        assertEq(identity.getAgentWallet(id), wallet);
        assertEq(identity.getMetadata(id, "agentWallet"), abi.encodePacked(wallet));
    }

    // ERC-8004 §On-chain metadata: ERC-1271 for smart contract wallets.
    function test_SetAgentWallet_Erc1271() public {
        uint256 id = _registerAs(owner, URI1);
        ERC1271WalletMock cw = new ERC1271WalletMock(wallet);
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes memory sig = _sign(walletKey, _digest(identity, id, address(cw), owner, deadline));
        vm.prank(owner);
        identity.setAgentWallet(id, address(cw), deadline, sig);
        assertEq(identity.getAgentWallet(id), address(cw));
    }

    // ERC-8004 §On-chain metadata: the owner must prove control of the new wallet (bad signature reverts).
    function test_SetAgentWallet_WrongSignerReverts() public {
        uint256 id = _registerAs(owner, URI1);
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes memory sig = _sign(0xB0B, _digest(identity, id, wallet, owner, deadline));
        vm.prank(owner);
        vm.expectRevert(IdentityRegistry.InvalidWalletSignature.selector);
        identity.setAgentWallet(id, wallet, deadline, sig);
    }

    // ERC-8004 compat: a signature deadline is at most now + 5 minutes, and not in the past.
    function test_SetAgentWallet_DeadlineBounds() public {
        uint256 id = _registerAs(owner, URI1);
        uint256 far = vm.getBlockTimestamp() + 5 minutes + 1;
        bytes memory sig = _sign(walletKey, _digest(identity, id, wallet, owner, far));
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.DeadlineTooFar.selector, far));
        identity.setAgentWallet(id, wallet, far, sig);
        vm.warp(1000);
        uint256 past = 999;
        sig = _sign(walletKey, _digest(identity, id, wallet, owner, past));
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.DeadlineExpired.selector, past));
        identity.setAgentWallet(id, wallet, past, sig);
    }

    // ERC-8004 §On-chain metadata: only the agent owner (or operator) can change the wallet.
    function test_SetAgentWallet_StrangerReverts() public {
        uint256 id = _registerAs(owner, URI1);
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes memory sig = _sign(walletKey, _digest(identity, id, wallet, owner, deadline));
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IdentityRegistry.NotAuthorized.selector, id, stranger));
        identity.setAgentWallet(id, wallet, deadline, sig);
    }

    // ERC-8004 compat: the zero wallet is rejected.
    function test_SetAgentWallet_ZeroReverts() public {
        uint256 id = _registerAs(owner, URI1);
        vm.prank(owner);
        vm.expectRevert(IdentityRegistry.InvalidWallet.selector);
        identity.setAgentWallet(id, address(0), vm.getBlockTimestamp(), "");
    }

    // ERC-8004 §On-chain metadata: unsetAgentWallet clears the wallet.
    function test_UnsetAgentWallet_Clears() public {
        uint256 id = _registerAs(owner, URI1);
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.MetadataSet(id, "agentWallet", "agentWallet", "");
        vm.prank(owner);
        identity.unsetAgentWallet(id);
        assertEq(identity.getAgentWallet(id), address(0));
        assertEq(identity.getMetadata(id, "agentWallet").length, 0);
    }

    // ERC-8004 §On-chain metadata: on transfer agentWallet is automatically cleared.
    function test_Transfer_ClearsWallet() public {
        uint256 id = _registerAs(owner, URI1);
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes memory sig = _sign(walletKey, _digest(identity, id, wallet, owner, deadline));
        vm.prank(owner);
        identity.setAgentWallet(id, wallet, deadline, sig);
        vm.expectEmit(true, true, true, true, address(identity));
        emit IIdentityRegistry.MetadataSet(id, "agentWallet", "agentWallet", "");
        vm.prank(owner);
        identity.transferFrom(owner, stranger, id);
        assertEq(identity.ownerOf(id), stranger);
        assertEq(identity.getAgentWallet(id), address(0));
        assertEq(identity.getMetadata(id, "agentWallet").length, 0);
        assertEq(identity.balanceOf(owner), 0);
        assertEq(identity.balanceOf(stranger), 1);
    }

    // ERC-721: approved spender may transfer; approval is cleared by the transfer.
    function test_Transfer_ByApprovedClearsApproval() public {
        uint256 id = _registerAs(owner, URI1);
        vm.prank(owner);
        identity.approve(operator, id);
        assertTrue(identity.isAuthorizedOrOwner(operator, id));
        vm.prank(operator);
        identity.safeTransferFrom(owner, stranger, id);
        assertEq(identity.getApproved(id), address(0));
        assertFalse(identity.isAuthorizedOrOwner(operator, id));
    }

    // ERC-721: unauthorized transfers revert.
    function test_Transfer_UnauthorizedReverts() public {
        uint256 id = _registerAs(owner, URI1);
        vm.prank(stranger);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InsufficientApproval.selector, stranger, id));
        identity.transferFrom(owner, stranger, id);
    }

    // ERC-721: unknown agents revert on ownerOf.
    function test_OwnerOf_UnknownReverts() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 7));
        identity.ownerOf(7);
    }

    // ERC-8004 §Identity Registry (agentWallet): an unknown agent has no wallet; like the deployed
    // registries, getAgentWallet answers address(0) and the reserved metadata key answers empty.
    function test_GetAgentWallet_UnknownIsZero() public {
        assertEq(identity.getAgentWallet(7), address(0));
        assertEq(identity.getMetadata(7, "agentWallet"), bytes(""));
        _registerAs(owner, URI1);
        assertEq(identity.getAgentWallet(7), address(0));
    }

    // ERC-165: ERC-721 and ERC-721 Metadata interfaces advertised.
    function test_SupportsInterface_Erc721() public view {
        assertTrue(identity.supportsInterface(0x80ac58cd));
        assertTrue(identity.supportsInterface(0x5b5e139f));
        assertTrue(identity.supportsInterface(0x01ffc9a7));
        assertFalse(identity.supportsInterface(0xffffffff));
        assertEq(identity.name(), "AgentIdentity");
        assertEq(identity.symbol(), "AGENT");
    }
}
