// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {DraftIdentityRegistry} from "../../src/erc8004-legacy/DraftIdentityRegistry.sol";
import {DraftReputationRegistry} from "../../src/erc8004-legacy/DraftReputationRegistry.sol";
import {DraftValidationRegistry} from "../../src/erc8004-legacy/DraftValidationRegistry.sol";

/// @notice The three first-draft registries with a server, a client and a validator agent.
abstract contract DraftRegistryFixture is Test {
    uint256 internal constant TTL = 1000;

    DraftIdentityRegistry internal identity;
    DraftReputationRegistry internal reputation;
    DraftValidationRegistry internal validation;

    address internal server = makeAddr("server");
    address internal client = makeAddr("client");
    address internal validator = makeAddr("validator");
    address internal stranger = makeAddr("stranger");
    uint256 internal serverId;
    uint256 internal clientId;
    uint256 internal validatorId;

    function setUp() public virtual {
        identity = new DraftIdentityRegistry();
        reputation = new DraftReputationRegistry(address(identity));
        validation = new DraftValidationRegistry(address(identity), TTL);
        serverId = _new(server, "server.example");
        clientId = _new(client, "client.example");
        validatorId = _new(validator, "validator.example");
    }

    function _new(address who, string memory domain) internal returns (uint256 id) {
        vm.prank(who);
        id = identity.newAgent(domain, who);
    }
}
