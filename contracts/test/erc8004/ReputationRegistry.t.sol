// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {RegistryFixture} from "../utils/RegistryFixture.sol";
import {ReputationRegistry} from "../../src/erc8004/ReputationRegistry.sol";
import {IReputationRegistry} from "../../src/interfaces/IReputationRegistry.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";

contract ReputationRegistryTest is RegistryFixture {
    uint256 internal agent;

    function setUp() public override {
        super.setUp();
        agent = _registerAs(owner, URI1);
    }

    function _give(address who, int128 v, uint8 d, string memory t1, string memory t2) internal {
        vm.prank(who);
        reputation.giveFeedback(agent, v, d, t1, t2, "", "", bytes32(0));
    }

    function _one(address a) internal pure returns (address[] memory l) {
        l = new address[](1);
        l[0] = a;
    }

    function _two(address a, address b) internal pure returns (address[] memory l) {
        l = new address[](2);
        l[0] = a;
        l[1] = b;
    }

    // ERC-8004 compat: selectors and event topics equal vectors/erc8004.json.
    function test_Selectors_MatchVector() public pure {
        assertEq(IReputationRegistry.giveFeedback.selector, bytes4(0x3c036a7e));
        assertEq(IReputationRegistry.revokeFeedback.selector, bytes4(0x4ab3ca99));
        assertEq(IReputationRegistry.appendResponse.selector, bytes4(0xc2349ab2));
        assertEq(IReputationRegistry.getSummary.selector, bytes4(0x81bbba58));
        assertEq(IReputationRegistry.readFeedback.selector, bytes4(0x232b0810));
        assertEq(IReputationRegistry.readAllFeedback.selector, bytes4(0xd9d84224));
        assertEq(IReputationRegistry.getResponseCount.selector, bytes4(0x6e04cacd));
        assertEq(IReputationRegistry.getClients.selector, bytes4(0x42dd519c));
        assertEq(IReputationRegistry.getLastIndex.selector, bytes4(0xf2d81759));
        assertEq(IReputationRegistry.getIdentityRegistry.selector, bytes4(0xbc4d861b));
        assertEq(IReputationRegistry.initialize.selector, bytes4(0xc4d66de8));
        assertEq(
            IReputationRegistry.NewFeedback.selector, 0x6a4a61743519c9d648a14e6493f47dbe3ff1aa29e7785c96c8326a205e58febc
        );
        assertEq(
            IReputationRegistry.FeedbackRevoked.selector,
            0x25156fd3288212246d8b008d5921fde376c71ed14ac2e072a506eb06fde6d09d
        );
        assertEq(
            IReputationRegistry.ResponseAppended.selector,
            0xb1c6be0b5b8aef6539e2fac0fd131a2faa7b49edf8e505b5eb0ad487d56051d4
        );
    }

    // ERC-8004 §Reputation: identityRegistry set once and visible via getIdentityRegistry.
    function test_Initialize_OnlyOnce() public {
        assertEq(reputation.getIdentityRegistry(), address(identity));
        vm.expectRevert(ReputationRegistry.AlreadyInitialized.selector);
        reputation.initialize(address(1));
        ReputationRegistry r = new ReputationRegistry(address(0));
        r.initialize(address(identity));
        assertEq(r.getIdentityRegistry(), address(identity));
    }

    // ERC-8004 §Giving Feedback: event emitted, index 1-based, fields stored; endpoint/URI/hash only emitted.
    function test_GiveFeedback_StoresAndEmits() public {
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IReputationRegistry.NewFeedback(
            agent, client1, 1, 87, 0, "starred", "starred", "quality", "https://e", "ipfs://x", bytes32(uint256(7))
        );
        vm.prank(client1);
        reputation.giveFeedback(agent, 87, 0, "starred", "quality", "https://e", "ipfs://x", bytes32(uint256(7)));
        (int128 v, uint8 d, string memory t1, string memory t2, bool rev) = reputation.readFeedback(agent, client1, 1);
        assertEq(v, 87);
        assertEq(d, 0);
        assertEq(t1, "starred");
        assertEq(t2, "quality");
        assertFalse(rev);
        assertEq(reputation.getLastIndex(agent, client1), 1);
        _give(client1, 9977, 2, "uptime", "");
        assertEq(reputation.getLastIndex(agent, client1), 2);
    }

    // ERC-8004 §Giving Feedback: valueDecimals MUST be between 0 and 18.
    function test_GiveFeedback_DecimalsAbove18Reverts() public {
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.TooManyDecimals.selector, 19));
        reputation.giveFeedback(agent, 1, 19, "", "", "", "", 0);
        _give(client1, 1, 18, "", "");
    }

    // ERC-8004 compat: |value| <= 1e38.
    function test_GiveFeedback_ValueRange() public {
        _give(client1, 1e38, 0, "", "");
        _give(client1, -1e38, 0, "", "");
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.ValueOutOfRange.selector, int128(1e38 + 1)));
        reputation.giveFeedback(agent, 1e38 + 1, 0, "", "", "", "", 0);
    }

    // ERC-8004 §Giving Feedback: value range + decimals, fuzzed.
    function testFuzz_GiveFeedback_ValueRange(int128 v, uint8 d) public {
        bool ok = d <= 18 && v <= 1e38 && v >= -1e38;
        vm.prank(client1);
        if (!ok) vm.expectRevert();
        reputation.giveFeedback(agent, v, d, "t", "", "", "", 0);
        if (ok) {
            (int128 rv, uint8 rd,,,) = reputation.readFeedback(agent, client1, 1);
            assertEq(rv, v);
            assertEq(rd, d);
        }
    }

    // ERC-8004 §Giving Feedback: submitter MUST NOT be the agent owner or an approved operator.
    function test_GiveFeedback_OwnerAndOperatorsRevert() public {
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, owner));
        reputation.giveFeedback(agent, 1, 0, "", "", "", "", 0);
        vm.prank(owner);
        identity.setApprovalForAll(operator, true);
        vm.prank(operator);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, operator));
        reputation.giveFeedback(agent, 1, 0, "", "", "", "", 0);
        vm.prank(owner);
        identity.approve(client2, agent);
        vm.prank(client2);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.SelfFeedbackNotAllowed.selector, agent, client2));
        reputation.giveFeedback(agent, 1, 0, "", "", "", "", 0);
    }

    // ERC-8004 §Giving Feedback: the agentId must be a validly registered agent.
    function test_GiveFeedback_UnknownAgentReverts() public {
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 99));
        reputation.giveFeedback(99, 1, 0, "", "", "", "", 0);
    }

    // ERC-8004 §Revoking Feedback: revoke emits FeedbackRevoked and flips isRevoked; twice reverts.
    function test_RevokeFeedback_FlagsAndRejectsTwice() public {
        _give(client1, 5, 0, "a", "b");
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IReputationRegistry.FeedbackRevoked(agent, client1, 1);
        vm.prank(client1);
        reputation.revokeFeedback(agent, 1);
        (,,,, bool rev) = reputation.readFeedback(agent, client1, 1);
        assertTrue(rev);
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.FeedbackAlreadyRevoked.selector, 1));
        reputation.revokeFeedback(agent, 1);
    }

    // ERC-8004 §Revoking Feedback: only the client's own existing indexes (1-based) can be revoked.
    function test_RevokeFeedback_InvalidIndexReverts() public {
        _give(client1, 5, 0, "", "");
        vm.prank(client2);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.InvalidFeedbackIndex.selector, 1));
        reputation.revokeFeedback(agent, 1);
        vm.prank(client1);
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.InvalidFeedbackIndex.selector, 0));
        reputation.revokeFeedback(agent, 0);
    }

    // ERC-8004 §Appending Responses: anyone may append; counts per responder and in total.
    function test_AppendResponse_Counts() public {
        _give(client1, 5, 0, "", "");
        _give(client1, 6, 0, "", "");
        vm.expectEmit(true, true, true, true, address(reputation));
        emit IReputationRegistry.ResponseAppended(agent, client1, 2, owner, "ipfs://r", bytes32(0));
        vm.prank(owner);
        reputation.appendResponse(agent, client1, 2, "ipfs://r", 0);
        vm.prank(stranger);
        reputation.appendResponse(agent, client1, 2, "ipfs://r2", 0);
        vm.prank(stranger);
        reputation.appendResponse(agent, client1, 1, "ipfs://r3", 0);
        address[] memory none = new address[](0);
        assertEq(reputation.getResponseCount(agent, client1, 2, none), 2);
        assertEq(reputation.getResponseCount(agent, client1, 2, _one(owner)), 1);
        assertEq(reputation.getResponseCount(agent, client1, 0, none), 3);
        assertEq(reputation.getResponseCount(agent, address(0), 0, _one(stranger)), 2);
        assertEq(reputation.getResponseCount(agent, address(0), 0, none), 3);
    }

    // ERC-8004 compat: appendResponse needs an existing feedback and a non-empty URI.
    function test_AppendResponse_InvalidReverts() public {
        vm.expectRevert(abi.encodeWithSelector(ReputationRegistry.InvalidFeedbackIndex.selector, 1));
        reputation.appendResponse(agent, client1, 1, "u", 0);
        _give(client1, 5, 0, "", "");
        vm.expectRevert(ReputationRegistry.EmptyResponseURI.selector);
        reputation.appendResponse(agent, client1, 1, "", 0);
    }

    // ERC-8004 §Read Functions: clientAddresses MUST be provided (non-empty) to getSummary.
    function test_GetSummary_EmptyClientsReverts() public {
        vm.expectRevert(ReputationRegistry.ClientAddressesRequired.selector);
        reputation.getSummary(agent, new address[](0), "", "");
    }

    // ERC-8004 compat: average normalized to 18 decimals, expressed in the most frequent decimals.
    function test_GetSummary_ModeDecimalsAndAverage() public {
        _give(client1, 9977, 2, "uptime", ""); // 99.77
        _give(client1, 9900, 2, "uptime", ""); // 99.00
        _give(client2, 98, 0, "uptime", ""); // 98
        (uint64 c, int128 v, uint8 d) = reputation.getSummary(agent, _two(client1, client2), "", "");
        assertEq(c, 3);
        assertEq(d, 2);
        // (99.77 + 99.00 + 98) / 3 = 98.9233.. -> 9892 at 2 decimals (truncated)
        assertEq(v, 9892);
    }

    // ERC-8004 compat: ties in decimals frequency go to the lowest decimals.
    function test_GetSummary_TieGoesToLowestDecimals() public {
        _give(client1, 15, 1, "", ""); // 1.5
        _give(client2, 3, 0, "", ""); // 3
        (, int128 v, uint8 d) = reputation.getSummary(agent, _two(client1, client2), "", "");
        assertEq(d, 0);
        assertEq(v, 2); // 2.25 -> 2
    }

    // ERC-8004 compat: truncation toward zero for negative averages.
    function test_GetSummary_TruncatesTowardZero() public {
        _give(client1, -5, 0, "", "");
        _give(client2, -2, 0, "", "");
        (, int128 v,) = reputation.getSummary(agent, _two(client1, client2), "", "");
        assertEq(v, -3); // -3.5 -> -3
    }

    // Fixed defect (docs/compatibility.md): a duplicated client address is counted once.
    function test_GetSummary_DuplicateClientCountedOnce() public {
        _give(client1, 10, 0, "", "");
        _give(client2, 20, 0, "", "");
        address[] memory l = new address[](3);
        l[0] = client1;
        l[1] = client1;
        l[2] = client2;
        (uint64 c, int128 v,) = reputation.getSummary(agent, l, "", "");
        assertEq(c, 2);
        assertEq(v, 15);
    }

    // Fixed defect (docs/compatibility.md): the int128 cast of the summary is checked.
    function test_GetSummary_OverflowReverts() public {
        _give(client1, 1e38, 0, "", "");
        _give(client2, 1, 18, "", "");
        _give(client3, 1, 18, "", "");
        address[] memory l = new address[](3);
        l[0] = client1;
        l[1] = client2;
        l[2] = client3;
        vm.expectRevert(ReputationRegistry.SummaryOverflow.selector);
        reputation.getSummary(agent, l, "", "");
    }

    // ERC-8004 §Read Functions: revoked feedback excluded; tag filters apply only when non-empty.
    function test_GetSummary_TagFiltersAndRevoked() public {
        _give(client1, 80, 0, "starred", "a");
        _give(client1, 60, 0, "starred", "b");
        _give(client1, 10, 0, "other", "a");
        vm.prank(client1);
        reputation.revokeFeedback(agent, 2);
        (uint64 c, int128 v,) = reputation.getSummary(agent, _one(client1), "starred", "");
        assertEq(c, 1);
        assertEq(v, 80);
        (c,,) = reputation.getSummary(agent, _one(client1), "", "a");
        assertEq(c, 2);
        (c,,) = reputation.getSummary(agent, _one(client1), "", "");
        assertEq(c, 2);
    }

    // ERC-8004 compat: getSummary equals a reference computation, fuzzed.
    function testFuzz_GetSummary_MatchesReference(int64[4] memory vals, uint8[4] memory decs) public {
        address[4] memory who = [client1, client2, client3, stranger];
        int256 sum;
        uint256[19] memory freq;
        for (uint256 i; i < 4; ++i) {
            uint8 d = decs[i] % 19;
            _give(who[i], vals[i], d, "", "");
            sum += int256(vals[i]) * int256(10 ** uint256(18 - d));
            freq[d]++;
        }
        uint8 mode;
        for (uint8 d; d < 19; ++d) {
            if (freq[d] > freq[mode]) mode = d;
        }
        int256 expected = (sum / 4) / int256(10 ** uint256(18 - mode));
        address[] memory l = new address[](4);
        for (uint256 i; i < 4; ++i) {
            l[i] = who[i];
        }
        (uint64 c, int128 v, uint8 d2) = reputation.getSummary(agent, l, "", "");
        assertEq(c, 4);
        assertEq(d2, mode);
        assertEq(int256(v), expected);
    }

    // ERC-8004 §Read Functions: readAllFeedback with empty clients = all clients; revoked omitted by default.
    function test_ReadAllFeedback_AllClientsSkipsRevoked() public {
        _give(client1, 1, 0, "x", "");
        _give(client2, 2, 0, "y", "z");
        _give(client1, 3, 0, "x", "");
        vm.prank(client1);
        reputation.revokeFeedback(agent, 1);
        (address[] memory cs, uint64[] memory idx, int128[] memory vs,, string[] memory t1s, string[] memory t2s,) =
            reputation.readAllFeedback(agent, new address[](0), "", "", false);
        assertEq(cs.length, 2);
        assertEq(cs[0], client1);
        assertEq(idx[0], 2);
        assertEq(vs[0], 3);
        assertEq(cs[1], client2);
        assertEq(t1s[1], "y");
        assertEq(t2s[1], "z");
        bool[] memory rev;
        (cs,,,,,, rev) = reputation.readAllFeedback(agent, new address[](0), "", "", true);
        assertEq(cs.length, 3);
        assertTrue(rev[0]);
        (cs,,,,,,) = reputation.readAllFeedback(agent, _one(client1), "x", "", true);
        assertEq(cs.length, 2);
    }

    // ERC-8004 §Read Functions: getClients lists each client once in first-feedback order.
    function test_GetClients_UniqueInOrder() public {
        _give(client2, 1, 0, "", "");
        _give(client1, 1, 0, "", "");
        _give(client2, 1, 0, "", "");
        address[] memory cs = reputation.getClients(agent);
        assertEq(cs.length, 2);
        assertEq(cs[0], client2);
        assertEq(cs[1], client1);
        assertEq(reputation.getClientCount(agent), 2);
        address[] memory page = reputation.getClientsPage(agent, 1, 5);
        assertEq(page.length, 1);
        assertEq(page[0], client1);
    }

    // Beyond deployed: readFeedbackPage walks every row exactly once with a cursor.
    function test_ReadFeedbackPage_CursorWalk() public {
        for (uint256 i; i < 3; ++i) {
            _give(client1, int128(int256(i)), 0, "a", "");
        }
        _give(client2, 10, 0, "b", "");
        _give(client3, 20, 0, "c", "");
        (IReputationRegistry.FeedbackRow[] memory rows, uint256 next) = reputation.readFeedbackPage(agent, 0, 2);
        assertEq(rows.length, 2);
        assertEq(rows[1].feedbackIndex, 2);
        (rows, next) = reputation.readFeedbackPage(agent, next, 2);
        assertEq(rows.length, 2);
        assertEq(rows[0].client, client1);
        assertEq(rows[0].feedbackIndex, 3);
        assertEq(rows[1].client, client2);
        assertEq(rows[1].tag1, "b");
        (rows, next) = reputation.readFeedbackPage(agent, next, 2);
        assertEq(rows.length, 1);
        assertEq(rows[0].value, 20);
        assertEq(next, 0);
    }

    // Beyond deployed: a page of reads stays flat in gas as clients grow.
    function test_ReadFeedbackPage_FlatGas() public {
        for (uint256 i; i < 20; ++i) {
            _give(address(uint160(0x1000 + i)), 1, 0, "t", "");
        }
        uint256 g0 = gasleft();
        reputation.readFeedbackPage(agent, 0, 10);
        uint256 small = g0 - gasleft();
        for (uint256 i = 20; i < 200; ++i) {
            _give(address(uint160(0x1000 + i)), 1, 0, "t", "");
        }
        g0 = gasleft();
        reputation.readFeedbackPage(agent, 0, 10);
        uint256 large = g0 - gasleft();
        assertApproxEqRel(large, small, 0.05e18);
    }
}
