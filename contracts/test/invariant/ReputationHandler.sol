// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {ReputationRegistry} from "../../src/erc8004/ReputationRegistry.sol";

/// @notice Invariant handler: random clients give and revoke feedback on agent 0.
contract ReputationHandler is Test {
    ReputationRegistry public rep;
    address[] public clients;
    mapping(address => uint64) public ghostLast;
    bool public monotoneViolated;

    constructor(ReputationRegistry r) {
        rep = r;
        for (uint256 i; i < 5; ++i) {
            clients.push(address(uint160(0xC0FFEE + i)));
        }
    }

    function give(uint256 who, int128 value, uint8 decimals) external {
        address c = clients[who % clients.length];
        value = int128(bound(value, -1e38, 1e38));
        decimals = uint8(bound(decimals, 0, 18));
        uint64 before = rep.getLastIndex(0, c);
        vm.prank(c);
        rep.giveFeedback(0, value, decimals, "t", "", "", "", 0);
        uint64 afterIdx = rep.getLastIndex(0, c);
        if (afterIdx != before + 1) monotoneViolated = true;
        ghostLast[c] = afterIdx;
    }

    function revoke(uint256 who, uint64 index) external {
        address c = clients[who % clients.length];
        uint64 last = rep.getLastIndex(0, c);
        if (last == 0) return;
        index = uint64(bound(index, 1, last));
        (,,,, bool revoked) = rep.readFeedback(0, c, index);
        if (revoked) return;
        vm.prank(c);
        rep.revokeFeedback(0, index);
    }

    function clientCount() external view returns (uint256) {
        return clients.length;
    }
}
