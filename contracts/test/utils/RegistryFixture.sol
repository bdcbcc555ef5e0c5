// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../src/erc8004/ReputationRegistry.sol";
import {ValidationRegistry} from "../../src/erc8004/ValidationRegistry.sol";

/// @notice Shared fixture: the three ERC-8004 registries and a few named actors.
abstract contract RegistryFixture is Test {
    IdentityRegistry internal identity;
    ReputationRegistry internal reputation;
    ValidationRegistry internal validation;

    address internal owner = makeAddr("owner");
    address internal operator = makeAddr("operator");
    address internal client1 = makeAddr("client1");
    address internal client2 = makeAddr("client2");
    address internal client3 = makeAddr("client3");
    address internal validator = makeAddr("validator");
    address internal stranger = makeAddr("stranger");

    string internal constant URI1 = "https://agents.example.com/.well-known/agent-registration.json";

    function setUp() public virtual {
        identity = new IdentityRegistry();
        reputation = new ReputationRegistry(address(identity));
        validation = new ValidationRegistry(address(identity));
    }

    function _registerAs(address who, string memory uri) internal returns (uint256 id) {
        vm.prank(who);
        id = identity.register(uri);
    }
}
