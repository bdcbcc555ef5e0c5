// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";

/// @notice Invariant handler: register, transfer, and re-verify wallets with real EIP-712 signatures.
contract IdentityHandler is Test {
    IdentityRegistry public reg;
    uint256[] public keys;
    uint256 public minted;
    mapping(uint256 => bool) public transferredSinceWalletSet;

    constructor(IdentityRegistry r) {
        reg = r;
        for (uint256 i = 1; i <= 4; ++i) {
            keys.push(0x1000 + i);
        }
    }

    function register(uint256 who) external {
        address a = vm.addr(keys[who % keys.length]);
        vm.prank(a);
        reg.register("ipfs://agent");
        ++minted;
    }

    function transfer(uint256 id, uint256 to) external {
        if (minted == 0) return;
        id = 1 + (id % minted);
        address from = reg.ownerOf(id);
        address dest = vm.addr(keys[to % keys.length]);
        if (dest == from) return;
        vm.prank(from);
        reg.transferFrom(from, dest, id);
        transferredSinceWalletSet[id] = true;
    }

    function setWallet(uint256 id, uint256 walletKey) external {
        if (minted == 0) return;
        id = 1 + (id % minted);
        address owner_ = reg.ownerOf(id);
        uint256 wk = keys[walletKey % keys.length];
        address w = vm.addr(wk);
        uint256 deadline = vm.getBlockTimestamp() + 60;
        bytes32 ds = keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256("ERC8004IdentityRegistry"),
                keccak256("1"),
                block.chainid,
                address(reg)
            )
        );
        bytes32 sh = keccak256(abi.encode(reg.AGENT_WALLET_SET_TYPEHASH(), id, w, owner_, deadline));
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(wk, keccak256(abi.encodePacked("\x19\x01", ds, sh)));
        vm.prank(owner_);
        reg.setAgentWallet(id, w, deadline, abi.encodePacked(r, s, v));
        transferredSinceWalletSet[id] = false;
    }
}
