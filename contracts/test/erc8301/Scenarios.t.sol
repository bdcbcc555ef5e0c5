// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {WorkflowFixture} from "../utils/WorkflowFixture.sol";
import {AgentTask, AgentReply, RunStatus} from "../../src/interfaces/IAgentWorkflow.sol";
import {AgentWorkflow} from "../../src/erc8301/AgentWorkflow.sol";
import {SingleStageWorkflow} from "../../src/erc8301/workflows/SingleStageWorkflow.sol";
import {InputProvenanceWorkflow} from "../../src/erc8301/workflows/InputProvenanceWorkflow.sol";
import {CompetitiveBidWorkflow} from "../../src/erc8301/workflows/CompetitiveBidWorkflow.sol";
import {SequentialPipelineWorkflow} from "../../src/erc8301/workflows/SequentialPipelineWorkflow.sol";
import {BFTCommitRevealWorkflow} from "../../src/erc8301/workflows/BFTCommitRevealWorkflow.sol";
import {ParallelAuditWorkflow} from "../../src/erc8301/workflows/ParallelAuditWorkflow.sol";
import {PermissionedSingleStageWorkflow} from "../../src/erc8301/workflows/PermissionedSingleStageWorkflow.sol";
import {IdentityRegistry} from "../../src/erc8004/IdentityRegistry.sol";

/// @notice The six call sequences of ERC-8301 §Reference Implementation, with real ECDSA attestations.
contract ScenariosTest is WorkflowFixture {
    // ERC-8301 Scenario 0: run -> reply (terminal sync, waits) -> prove -> Success with Tf.prev = [R0].
    function test_Scenario0_SingleStage() public {
        SingleStageWorkflow wf = new SingleStageWorkflow(address(ecdsa), true, "");
        (bytes32 runId, bytes32[] memory t) = _run(wf, "question");
        assertEq(t.length, 1);
        (bytes32 r0, bytes32[] memory after0) = _reply(wf, runId, t[0], agentA, "answer");
        assertEq(after0.length, 0);
        (RunStatus s,,) = wf.result(runId);
        assertEq(uint8(s), uint8(RunStatus.Pending)); // sync: waits for the proof
        _prove(wf, r0);
        _assertSuccess(wf, runId, r0);
    }

    // ERC-8301 Scenario 1: Sanitize (sync) -> Infer whose inputHash is the sanitized hash -> Success.
    function test_Scenario1_InputProvenance() public {
        InputProvenanceWorkflow wf = new InputProvenanceWorkflow(address(ecdsa), true, "");
        (bytes32 runId, bytes32[] memory t) = _run(wf, "raw prompt");
        (bytes32 r0, bytes32[] memory none) = _reply(wf, runId, t[0], agentA, "sanitized prompt");
        assertEq(none.length, 0); // sync stage: no Infer task before the proof
        bytes32[] memory t1 = _prove(wf, r0);
        assertEq(t1.length, 1);
        (AgentTask memory infer, bool proven) = wf.getAgentTask(t1[0]);
        assertEq(infer.stage, wf.STAGE_INFER());
        assertEq(infer.inputHash, keccak256("sanitized prompt"));
        assertEq(infer.prevReplyHashes[0], r0);
        assertTrue(proven);
        (bytes32 r1,) = _reply(wf, runId, t1[0], agentB, "inference");
        _prove(wf, r1);
        _assertSuccess(wf, runId, r1);
    }

    // ERC-8301 Scenario 2: A=100, B=80, C=120; lowest (B) wins, A and C silently discarded; only B executes.
    function test_Scenario2_CompetitiveBid() public {
        CompetitiveBidWorkflow wf = new CompetitiveBidWorkflow(address(ecdsa), true, "", 3);
        (bytes32 runId, bytes32[] memory t) = _run(wf, "job");
        _reply(wf, runId, t[0], agentA, abi.encode(uint256(100)));
        (bytes32 rb,) = _reply(wf, runId, t[0], agentB, abi.encode(uint256(80)));
        (bytes32 junk, bytes32[] memory none) = _reply(wf, runId, t[0], agentA, "malformed");
        assertEq(none.length, 0); // silent discard: anchored, no effect
        (,, bool p,) = wf.getAgentReply(junk);
        assertFalse(p);
        (, bytes32[] memory t1) = _reply(wf, runId, t[0], agentC, abi.encode(uint256(120)));
        assertEq(t1.length, 1);
        (AgentTask memory exec,) = wf.getAgentTask(t1[0]);
        assertEq(exec.stage, wf.STAGE_EXECUTE());
        assertEq(exec.prevReplyHashes[0], rb);
        assertEq(exec.inputHash, keccak256(abi.encode(uint256(80))));
        assertEq(wf.auction(runId).winner, agentB);
        // Only the winner may execute.
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory ra = _mkReply(runId, t1[0], agentA, "result");
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(CompetitiveBidWorkflow.NotSelectedBidder.selector, agentA));
        wf.onAgentReply(ra);
        (bytes32 r1,) = _reply(wf, runId, t1[0], agentB, "result");
        _prove(wf, r1);
        _assertSuccess(wf, runId, r1);
    }

    // ERC-8301 Scenario 2: a timed-out auction with bids selects the best; without bids it is retried.
    function test_Scenario2_TimeoutSelectsOrRetries() public {
        CompetitiveBidWorkflow wf = new CompetitiveBidWorkflow(address(ecdsa), true, "", 3);
        (bytes32 runId, bytes32[] memory t) = _run(wf, "job");
        (bytes32 ra,) = _reply(wf, runId, t[0], agentA, abi.encode(uint256(5)));
        vm.warp(vm.getBlockTimestamp() + 2 days);
        wf.replyTimeout(t[0]);
        assertEq(wf.currentStage(runId), wf.STAGE_EXECUTE());
        assertEq(wf.auction(runId).bestReply, ra);
        (bytes32 run2, bytes32[] memory t2) = _run(wf, "job2");
        vm.warp(vm.getBlockTimestamp() + 2 days);
        wf.replyTimeout(t2[0]);
        (RunStatus s,,) = wf.result(run2);
        assertEq(uint8(s), uint8(RunStatus.Pending));
        assertEq(wf.currentStage(run2), wf.STAGE_BID());
        assertEq(wf.auction(run2).retries, 1);
    }

    // ERC-8301 §Gate Logic (retry / abort): an empty auction is retried once (same stage, next taskSeq, old
    // task superseded), then aborted.
    function test_Scenario2_EmptyAuctionRetriesThenAborts() public {
        CompetitiveBidWorkflow wf = new CompetitiveBidWorkflow(address(ecdsa), true, "", 3);
        (bytes32 runId, bytes32[] memory t) = _run(wf, "job");
        vm.warp(vm.getBlockTimestamp() + 1 days + 1);
        vm.recordLogs();
        wf.replyTimeout(t[0]);
        bytes32[] memory t1 = _newTasks(vm.getRecordedLogs());
        assertEq(t1.length, 1);
        (AgentTask memory again,) = wf.getAgentTask(t1[0]);
        assertEq(again.stage, wf.STAGE_BID());
        assertEq(again.taskSeq, 1);
        assertEq(again.inputHash, keccak256("job"));
        assertFalse(wf.isTaskEligible(t[0]));
        assertTrue(wf.isTaskEligible(t1[0]));
        vm.warp(vm.getBlockTimestamp() + 1 days + 1);
        wf.replyTimeout(t1[0]);
        (RunStatus s,,) = wf.result(runId);
        assertEq(uint8(s), uint8(RunStatus.Failed));
    }

    // ERC-8301 §Gate Logic (abort): every committer revealed and no result has a majority -> Failed.
    function test_Scenario4_NoMajorityAborts() public {
        BFTCommitRevealWorkflow wf = new BFTCommitRevealWorkflow(address(ecdsa), true, "", 3);
        (bytes32 runId, bytes32[] memory t0) = _run(wf, "question");
        address[3] memory who = [agentA, agentB, agentC];
        bytes[3] memory reveals = [_commit("r1", "n"), _commit("r2", "n"), _commit("r3", "n")];
        bytes32[] memory t1;
        for (uint256 i; i < 3; ++i) {
            vm.warp(vm.getBlockTimestamp() + 1);
            AgentReply memory c = _mkReply(runId, t0[0], who[i], "");
            c.outputHash = keccak256(reveals[i]);
            vm.recordLogs();
            vm.prank(who[i]);
            wf.onAgentReply(c);
            t1 = _newTasks(vm.getRecordedLogs());
        }
        for (uint256 i; i < 3; ++i) {
            _reply(wf, runId, t1[0], who[i], reveals[i]);
        }
        (RunStatus s, bytes32 f,) = wf.result(runId);
        assertEq(uint8(s), uint8(RunStatus.Failed));
        assertEq(f, bytes32(0));
    }

    // ERC-8301 Scenario 3: A -> B -> C; each task's inputHash is the previous outputHash.
    function test_Scenario3_SequentialPipeline() public {
        SequentialPipelineWorkflow wf = new SequentialPipelineWorkflow(address(ecdsa), true, "");
        (bytes32 runId, bytes32[] memory t0) = _run(wf, "H0");
        (bytes32 r0, bytes32[] memory t1) = _reply(wf, runId, t0[0], agentA, "H1");
        (AgentTask memory task1,) = wf.getAgentTask(t1[0]);
        assertEq(task1.inputHash, keccak256("H1"));
        assertEq(task1.prevReplyHashes[0], r0);
        (bytes32 r1, bytes32[] memory t2) = _reply(wf, runId, t1[0], agentB, "H2");
        (AgentTask memory task2,) = wf.getAgentTask(t2[0]);
        assertEq(task2.inputHash, keccak256("H2"));
        assertEq(task2.prevReplyHashes[0], r1);
        (bytes32 r2, bytes32[] memory none) = _reply(wf, runId, t2[0], agentC, "H3");
        assertEq(none.length, 0);
        _prove(wf, r2);
        _assertSuccess(wf, runId, r2);
        // Evidence chain: traverse back from the final task to the initial one.
        (, bytes32 fin,) = wf.result(runId);
        (AgentTask memory f,) = wf.getAgentTask(fin);
        (AgentReply memory rep,,,) = wf.getAgentReply(f.prevReplyHashes[0]);
        (AgentTask memory back,) = wf.getAgentTask(rep.prevTaskHashes[0]);
        assertEq(back.prevReplyHashes[0], r1);
    }

    function _commit(bytes32 result_, bytes32 nonce) internal pure returns (bytes memory) {
        return abi.encodePacked(result_, nonce);
    }

    // ERC-8301 Scenario 4: commits reach quorum -> Reveal; majority result -> Finalize (sync) -> Success.
    function test_Scenario4_BFTCommitReveal() public {
        BFTCommitRevealWorkflow wf = new BFTCommitRevealWorkflow(address(ecdsa), true, "", 3);
        (bytes32 runId, bytes32[] memory t0) = _run(wf, "question");
        bytes32 yes = keccak256("yes");
        bytes32 no = keccak256("no");
        bytes memory revA = _commit(yes, "nA");
        bytes memory revB = _commit(yes, "nB");
        bytes memory revC = _commit(no, "nC");
        // Commit: output empty (hidden), outputHash = H(result || nonce).
        bytes32[3] memory commits;
        address[3] memory who = [agentA, agentB, agentC];
        bytes[3] memory reveals = [revA, revB, revC];
        bytes32[] memory t1;
        for (uint256 i; i < 3; ++i) {
            vm.warp(vm.getBlockTimestamp() + 1);
            AgentReply memory c = _mkReply(runId, t0[0], who[i], "");
            c.outputHash = keccak256(reveals[i]);
            vm.recordLogs();
            vm.prank(who[i]);
            commits[i] = wf.onAgentReply(c);
            t1 = _newTasks(vm.getRecordedLogs());
        }
        assertEq(t1.length, 1);
        (AgentTask memory reveal,) = wf.getAgentTask(t1[0]);
        assertEq(reveal.stage, wf.STAGE_REVEAL());
        assertEq(reveal.prevReplyHashes.length, 3);
        // A bad reveal (does not open the commitment) is silently discarded.
        (, bytes32[] memory none) = _reply(wf, runId, t1[0], agentC, _commit(yes, "nC"));
        assertEq(none.length, 0);
        (bytes32 ra,) = _reply(wf, runId, t1[0], agentA, revA);
        (bytes32 rb, bytes32[] memory t2) = _reply(wf, runId, t1[0], agentB, revB);
        assertEq(t2.length, 1);
        (AgentTask memory fin,) = wf.getAgentTask(t2[0]);
        assertEq(fin.stage, wf.STAGE_FINALIZE());
        assertEq(fin.inputHash, yes);
        assertEq(fin.prevReplyHashes[0], ra);
        assertEq(fin.prevReplyHashes[1], rb);
        // Aggregator with a wrong result: proven but the final gate stays silent.
        (bytes32 wrong,) = _replyWithHash(wf, runId, t2[0], agentC, no);
        _prove(wf, wrong);
        (RunStatus s,,) = wf.result(runId);
        assertEq(uint8(s), uint8(RunStatus.Pending));
        (bytes32 agg,) = _replyWithHash(wf, runId, t2[0], agentA, yes);
        _prove(wf, agg);
        _assertSuccess(wf, runId, agg);
    }

    function _replyWithHash(AgentWorkflow wf, bytes32 runId, bytes32 task, address who, bytes32 oh)
        internal
        returns (bytes32 h, bytes32[] memory tasks)
    {
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, task, who, "");
        r.outputHash = oh;
        vm.recordLogs();
        vm.prank(who);
        h = wf.onAgentReply(r);
        tasks = _newTasks(vm.getRecordedLogs());
    }

    // ERC-8301 Scenario 5: three parallel Audit tasks -> Qualify (sync) -> Settle (sync) -> Success; 5 dispatch points.
    function test_Scenario5_ParallelAudit() public {
        ParallelAuditWorkflow wf = new ParallelAuditWorkflow(address(ecdsa), true, "");
        (bytes32 runId, bytes32[] memory t) = _run(wf, "contract code");
        assertEq(t.length, 3);
        for (uint8 d; d < 3; ++d) {
            assertEq(wf.dimensionOf(t[d]), d);
            (AgentTask memory at,) = wf.getAgentTask(t[d]);
            assertEq(at.taskSeq, d);
        }
        (bytes32 rg, bytes32[] memory n1) = _reply(wf, runId, t[0], agentA, "gas ok");
        assertEq(n1.length, 0);
        // The gas task is consumed: a second gas audit is rejected (static FSM may revert).
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory dup = _mkReply(runId, t[0], agentB, "gas ok 2");
        vm.prank(agentB);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.TaskNotEligible.selector, t[0]));
        wf.onAgentReply(dup);
        (bytes32 rs,) = _reply(wf, runId, t[1], agentB, "sec ok");
        (bytes32 rl, bytes32[] memory tq) = _reply(wf, runId, t[2], agentC, "logic ok");
        assertEq(tq.length, 1);
        (AgentTask memory q,) = wf.getAgentTask(tq[0]);
        assertEq(q.stage, wf.STAGE_QUALIFY());
        assertEq(q.prevReplyHashes.length, 3);
        assertEq(q.prevReplyHashes[0], rg);
        assertEq(q.prevReplyHashes[1], rs);
        assertEq(q.prevReplyHashes[2], rl);
        (bytes32 rq, bytes32[] memory none) = _reply(wf, runId, tq[0], agentA, "qualified");
        assertEq(none.length, 0);
        bytes32[] memory ts = _prove(wf, rq);
        assertEq(ts.length, 1);
        (bytes32 rset,) = _reply(wf, runId, ts[0], agentB, "settled");
        _prove(wf, rset);
        _assertSuccess(wf, runId, rset);
    }

    // Permissioned variant: only enrolled repliers that own the agent or are its agentWallet; re-checked per reply.
    function test_Permissioned_OwnerOrWalletOnly() public {
        IdentityRegistry idr = new IdentityRegistry();
        PermissionedSingleStageWorkflow wf = new PermissionedSingleStageWorkflow(address(ecdsa), true, "", address(idr));
        vm.prank(agentA);
        uint256 agentId = idr.register("ipfs://a");
        vm.prank(agentB);
        vm.expectRevert(
            abi.encodeWithSelector(PermissionedSingleStageWorkflow.NotAgentController.selector, agentId, agentB)
        );
        wf.enroll(agentId);
        vm.prank(agentA);
        wf.enroll(agentId);
        (bytes32 runId, bytes32[] memory t) = _run(wf, "q");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory rb = _mkReply(runId, t[0], agentB, "x");
        vm.prank(agentB);
        vm.expectRevert(abi.encodeWithSelector(PermissionedSingleStageWorkflow.ReplierNotRegistered.selector, agentB));
        wf.onAgentReply(rb);
        (bytes32 ra,) = _reply(wf, runId, t[0], agentA, "answer");
        // After a transfer the old owner is no longer admitted.
        vm.prank(agentA);
        idr.transferFrom(agentA, agentC, agentId);
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory ra2 = _mkReply(runId, t[0], agentA, "again");
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(PermissionedSingleStageWorkflow.ReplierNotRegistered.selector, agentA));
        wf.onAgentReply(ra2);
        _prove(wf, ra);
        _assertSuccess(wf, runId, ra);
    }
}
