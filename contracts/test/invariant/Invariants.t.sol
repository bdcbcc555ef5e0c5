// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";
import {ReputationRegistry} from "../../src/erc8004/ReputationRegistry.sol";
import {SequentialPipelineWorkflow} from "../../src/erc8301/workflows/SequentialPipelineWorkflow.sol";
import {RunStatus} from "../../src/interfaces/IAgentWorkflow.sol";
import {CountingProofVerifier} from "../utils/WorkflowMocks.sol";
import {ReputationHandler} from "./ReputationHandler.sol";
import {IdentityHandler} from "./IdentityHandler.sol";
import {WorkflowHandler} from "./WorkflowHandler.sol";

/// @notice Invariants over the three registries' and the workflow framework's state machines.
contract InvariantsTest is Test {
    IdentityRegistry internal identity;
    ReputationRegistry internal reputation;
    ReputationHandler internal repH;
    IdentityHandler internal idH;
    WorkflowHandler internal wfH;
    SequentialPipelineWorkflow internal wf;

    function setUp() public {
        vm.warp(1_700_000_000);
        identity = new IdentityRegistry();
        reputation = new ReputationRegistry(address(identity));
        vm.prank(address(0xA9E47));
        identity.register("ipfs://agent0");
        repH = new ReputationHandler(reputation);
        idH = new IdentityHandler(identity);
        wf = new SequentialPipelineWorkflow(address(new CountingProofVerifier()), false, "");
        wfH = new WorkflowHandler(wf);
        targetContract(address(repH));
        targetContract(address(idH));
        targetContract(address(wfH));
    }

    // ERC-8004 §Giving Feedback: feedbackIndex is a 1-indexed counter: +1 per feedback, never decreasing.
    function invariant_FeedbackIndexesMonotone() public view {
        assertFalse(repH.monotoneViolated());
        for (uint256 i; i < repH.clientCount(); ++i) {
            address c = repH.clients(i);
            assertEq(reputation.getLastIndex(0, c), repH.ghostLast(c));
        }
        assertLe(reputation.getClientCount(0), repH.clientCount());
    }

    // ERC-8004 §On-chain metadata: after a transfer the wallet is cleared until re-verified.
    function invariant_WalletClearedOnTransfer() public view {
        for (uint256 id = 1; id <= idH.minted(); ++id) {
            if (idH.transferredSinceWalletSet(id)) assertEq(identity.getAgentWallet(id), address(0));
        }
    }

    // ERC-8301 §Terminal stage: terminal runs stay terminal with the same result.
    function invariant_TerminalRunsStayTerminal() public view {
        for (uint256 i; i < wfH.runCount(); ++i) {
            bytes32 r = wfH.runs(i);
            if (!wfH.seenTerminal(r)) continue;
            (RunStatus s, bytes32 f,) = wf.result(r);
            assertEq(uint8(s), uint8(wfH.ghostTerminal(r)));
            assertEq(f, wfH.ghostFinal(r));
        }
    }

    // ERC-8301 §onAgentReply 1: an operationKey is bound at most once and never overwritten.
    function invariant_OperationKeyBoundOnce() public view {
        for (uint256 i; i < wfH.opKeyCount(); ++i) {
            bytes32 key = wfH.opKeys(i);
            (address replier, bytes32 runId, bytes32 opId) = wfH.opReplier(key);
            assertEq(wf.getReplyHashByOperation(runId, replier, opId), wfH.ghostBinding(key));
        }
    }
}
