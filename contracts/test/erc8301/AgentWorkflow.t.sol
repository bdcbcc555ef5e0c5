// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Vm} from "forge-std/Test.sol";
import {WorkflowFixture} from "../utils/WorkflowFixture.sol";
import {
    CountingProofVerifier,
    ReentrantVerifier,
    AsyncCompleteWorkflow,
    NoTaskWorkflow
} from "../utils/WorkflowMocks.sol";
import {IAgentWorkflow, AgentTask, AgentReply, RunStatus} from "../../src/interfaces/IAgentWorkflow.sol";
import {AgentWorkflow} from "../../src/erc8301/AgentWorkflow.sol";
import {SingleStageWorkflow} from "../../src/erc8301/workflows/SingleStageWorkflow.sol";
import {SequentialPipelineWorkflow} from "../../src/erc8301/workflows/SequentialPipelineWorkflow.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";

contract AgentWorkflowTest is WorkflowFixture {
    SingleStageWorkflow internal single;
    SequentialPipelineWorkflow internal pipe;
    CountingProofVerifier internal counting;
    SingleStageWorkflow internal countingSingle;
    bytes32 internal constant EMPTY_KECCAK = 0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470;

    function setUp() public override {
        super.setUp();
        single = new SingleStageWorkflow(address(ecdsa), true, "");
        pipe = new SequentialPipelineWorkflow(address(ecdsa), true, "");
        counting = new CountingProofVerifier();
        countingSingle = new SingleStageWorkflow(address(counting), false, "");
    }

    // ───── hash formulas ─────

    // ERC-8301 §Data Envelopes: empty prevReplyHashes MUST hash as keccak256("") (not bytes32(0)).
    function test_TaskHash_EmptyArrayIsKeccakEmpty() public {
        assertEq(keccak256(abi.encodePacked(new bytes32[](0))), EMPTY_KECCAK);
        bytes memory input = "hello";
        (bytes32 runId, bytes32[] memory tasks) = _run(single, input);
        (AgentTask memory t, bool proven) = single.getAgentTask(tasks[0]);
        bytes32 expected = keccak256(
            abi.encode(uint8(0), uint256(0), keccak256(input), vm.getBlockTimestamp(), t.expiresAt, EMPTY_KECCAK, runId)
        );
        assertEq(tasks[0], expected);
        assertTrue(proven); // initial task: always proven
        assertEq(t.input, input);
        assertEq(t.taskSeq, 0);
        assertEq(single.taskAnchorTime(tasks[0]), vm.getBlockTimestamp());
    }

    // ERC-8301 §Data Envelopes: taskHash formula (input plaintext excluded), fuzzed.
    function testFuzz_TaskHash_Formula(uint8 stage, uint256 seq, bytes32 ih, bytes memory input, uint256 ts, bytes32 p)
        public
        view
    {
        ts = bound(ts, 0, type(uint256).max - 1);
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = p;
        AgentTask memory t = AgentTask(stage, seq, ih, input, ts, ts + 1, prev, keccak256("run"));
        bytes32 h = keccak256(abi.encode(stage, seq, ih, ts, ts + 1, keccak256(abi.encodePacked(p)), keccak256("run")));
        assertEq(single.taskHashOf(t), h);
        t.input = "";
        assertEq(single.taskHashOf(t), h);
    }

    // ERC-8301 §Data Envelopes: replyHash, operationKey and replyDigest formulas, fuzzed.
    function testFuzz_ReplyHashes_Formulas(bytes32 opId, bytes32 oh, uint256 ts, address who, bytes32 t0, bytes32 run)
        public
        view
    {
        bytes32[] memory prev = new bytes32[](2);
        prev[0] = t0;
        prev[1] = ~t0;
        AgentReply memory r = AgentReply(opId, oh, "x", ts, who, prev, run);
        bytes32 ph = keccak256(abi.encodePacked(t0, ~t0));
        assertEq(single.replyHashOf(r), keccak256(abi.encode(opId, oh, ts, who, ph, run)));
        assertEq(single.operationKeyOf(run, who, opId), keccak256(abi.encode(run, who, opId)));
        assertEq(single.replyDigestOf(r), keccak256(abi.encode(oh, who, ph, run)));
        r.timestamp = ts ^ 1; // digest excludes timestamp
        assertEq(single.replyDigestOf(r), keccak256(abi.encode(oh, who, ph, run)));
    }

    // ERC-8274 §IAgentVerifiable: the workflow declares its IAgentVerifier and announced it at deployment.
    function test_GetAgentVerifier_Declared() public {
        assertEq(address(single.getAgentVerifier()), address(ecdsa));
        assertEq(address(countingSingle.getAgentVerifier()), address(0));
        vm.recordLogs();
        SingleStageWorkflow w = new SingleStageWorkflow(address(ecdsa), true, "");
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs[0].topics[0], keccak256("AgentVerifierUpdated(bytes)"));
        assertEq(abi.decode(logs[0].data, (bytes)), abi.encode(address(0), address(ecdsa)));
        assertEq(address(w.getAgentVerifier()), address(ecdsa));
    }

    // ───── run / result / queries ─────

    // ERC-8301 §run(): workflowRunId = keccak256(msg.sender, block.number, runNonce); >= 1 NewAgentTask.
    function test_Run_DeterministicIdAndTask() public {
        vm.recordLogs();
        bytes32 id0 = single.run(keccak256("a"), "a", 0);
        bytes32 id1 = single.run(keccak256("a"), "a", 0);
        assertEq(id0, keccak256(abi.encode(address(this), block.number, uint256(0))));
        assertEq(id1, keccak256(abi.encode(address(this), block.number, uint256(1))));
        assertEq(_newTasks(vm.getRecordedLogs()).length, 2);
    }

    // ERC-8301 §run(): SHOULD verify keccak256(input) == inputHash; SHOULD reject a past expiresAt.
    function test_Run_InputHashAndExpiryChecks() public {
        vm.expectRevert(AgentWorkflow.InputHashMismatch.selector);
        single.run(keccak256("a"), "b", 0);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.InvalidExpiry.selector, vm.getBlockTimestamp()));
        single.run(keccak256("a"), "a", vm.getBlockTimestamp());
        single.run(keccak256("secret"), "", 0); // confidential input: empty plaintext allowed
    }

    // ERC-8301 §run(): MUST emit at least one NewAgentTask.
    function test_Run_NoInitialTaskReverts() public {
        NoTaskWorkflow wf = new NoTaskWorkflow(address(counting));
        vm.expectRevert(AgentWorkflow.NoInitialTask.selector);
        wf.run(0, "", 0);
    }

    // ERC-8301 §Security (Unknown workflowRunId): result() MUST return (Pending, 0, 0), MUST NOT revert.
    function test_Result_UnknownRunPending() public view {
        (RunStatus s, bytes32 f, uint256 c) = single.result(keccak256("nope"));
        assertEq(uint8(s), uint8(RunStatus.Pending));
        assertEq(f, bytes32(0));
        assertEq(c, 0);
    }

    // ERC-8301 §Interface: getAgentTask / getAgentReply MUST revert for unknown hashes.
    function test_Getters_UnknownRevert() public {
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.UnknownTask.selector, bytes32(uint256(1))));
        single.getAgentTask(bytes32(uint256(1)));
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.UnknownReply.selector, bytes32(uint256(1))));
        single.getAgentReply(bytes32(uint256(1)));
    }

    // ───── onAgentReply ─────

    // ERC-8301 §onAgentReply 1: reply.replier MUST equal msg.sender.
    function test_OnAgentReply_ReplierMustBeSender() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentB);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.ReplierMismatch.selector, agentA, agentB));
        single.onAgentReply(r);
    }

    // ERC-8301 §onAgentReply 1: MUST reject operationId == bytes32(0).
    function test_OnAgentReply_ZeroOperationIdReverts() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        r.operationId = 0;
        vm.prank(agentA);
        vm.expectRevert(AgentWorkflow.ZeroOperationId.selector);
        single.onAgentReply(r);
    }

    // ERC-8301 §onAgentReply 1: a matching retry returns the canonical hash, stores nothing, emits nothing,
    // runs no gate; the first accepted reply (with its timestamp) stays canonical.
    function test_OnAgentReply_RetryIsIdempotent() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(pipe, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentA);
        bytes32 h = pipe.onAgentReply(r);
        assertEq(pipe.currentStage(runId), 1);
        vm.warp(vm.getBlockTimestamp() + 5);
        r.timestamp = vm.getBlockTimestamp(); // reconstructed retry with a later timestamp
        vm.recordLogs();
        vm.prank(agentA);
        bytes32 h2 = pipe.onAgentReply(r);
        assertEq(h2, h);
        assertEq(vm.getRecordedLogs().length, 0);
        assertEq(pipe.currentStage(runId), 1);
        assertEq(pipe.getReplyHashByOperation(runId, agentA, r.operationId), h);
        (AgentReply memory stored,,,) = pipe.getAgentReply(h);
        assertEq(stored.timestamp, vm.getBlockTimestamp() - 5);
    }

    // ERC-8301 §onAgentReply 1: reusing an operationId with a different digest MUST revert, binding kept.
    function test_OnAgentReply_OperationConflictReverts() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentA);
        bytes32 h = single.onAgentReply(r);
        r.output = "other";
        r.outputHash = keccak256("other");
        bytes32 key = single.operationKeyOf(runId, agentA, r.operationId);
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.OperationConflict.selector, key));
        single.onAgentReply(r);
        assertEq(single.getReplyHashByOperation(runId, agentA, r.operationId), h);
    }

    // ERC-8301 §Logical Reply Idempotency: operationId is scoped by run and replier; distinct ids over identical
    // content are distinct operations.
    function test_OnAgentReply_OperationScope() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentA);
        bytes32 ha = single.onAgentReply(r);
        r.replier = agentB;
        vm.prank(agentB);
        bytes32 hb = single.onAgentReply(r);
        assertTrue(ha != hb);
        r.replier = agentA;
        r.operationId = keccak256("fresh");
        vm.prank(agentA);
        bytes32 ha2 = single.onAgentReply(r);
        assertTrue(ha2 != ha);
        assertEq(single.getReplyHashByOperation(runId, agentC, r.operationId), bytes32(0));
    }

    // ERC-8301 §onAgentReply 2: prevTaskHashes MUST be non-empty, known and of the same run.
    function test_OnAgentReply_PrevTaskValidity() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        (, bytes32[] memory otherTasks) = _run(single, "in2");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        r.prevTaskHashes = new bytes32[](0);
        vm.prank(agentA);
        vm.expectRevert(AgentWorkflow.EmptyPrevTaskHashes.selector);
        single.onAgentReply(r);
        r = _mkReply(runId, keccak256("unknown"), agentA, "out");
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.UnknownTask.selector, keccak256("unknown")));
        single.onAgentReply(r);
        r = _mkReply(runId, otherTasks[0], agentA, "out");
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.ForeignTask.selector, otherTasks[0]));
        single.onAgentReply(r);
    }

    // ERC-8301 §onAgentReply order: step 2 (task validity) is checked before step 3 (run eligibility).
    function test_OnAgentReply_TaskValidityBeforeRunCheck() public {
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(keccak256("no-run"), keccak256("no-task"), agentA, "out");
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.UnknownTask.selector, keccak256("no-task")));
        single.onAgentReply(r);
    }

    // ERC-8301 §onAgentReply 4: max(anchor_time) < reply.timestamp <= block.timestamp.
    function test_OnAgentReply_TimestampBounds() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out"); // timestamp == anchor
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.InvalidReplyTimestamp.selector, r.timestamp));
        single.onAgentReply(r);
        vm.warp(vm.getBlockTimestamp() + 10);
        r.timestamp = vm.getBlockTimestamp() + 1; // future-dated
        vm.prank(agentA);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.InvalidReplyTimestamp.selector, r.timestamp));
        single.onAgentReply(r);
        r.timestamp = vm.getBlockTimestamp();
        vm.prank(agentA);
        single.onAgentReply(r);
    }

    // ERC-8301 §onAgentReply 4: new replies after expiry rejected; a retry of an earlier accepted one still resolves.
    function test_OnAgentReply_ExpiryAndRetryAfterExpiry() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentA);
        bytes32 h = single.onAgentReply(r);
        vm.warp(vm.getBlockTimestamp() + 2 days);
        vm.prank(agentA);
        assertEq(single.onAgentReply(r), h);
        AgentReply memory r2 = _mkReply(runId, tasks[0], agentB, "late");
        vm.prank(agentB);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.TaskExpired.selector, tasks[0]));
        single.onAgentReply(r2);
    }

    // ERC-8301 §onAgentReply 5/6: AgentReplyAnchored is emitted before the gate's NewAgentTask.
    function test_OnAgentReply_AnchoredBeforeGate() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(pipe, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.recordLogs();
        vm.prank(agentA);
        bytes32 h = pipe.onAgentReply(r);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        assertEq(logs.length, 2);
        assertEq(logs[0].topics[0], IAgentWorkflow.AgentReplyAnchored.selector);
        assertEq(logs[0].topics[2], h);
        assertEq(logs[0].topics[3], bytes32(uint256(uint160(agentA))));
        assertEq(logs[1].topics[0], IAgentWorkflow.NewAgentTask.selector);
        assertEq(pipe.replyAnchorTime(h), vm.getBlockTimestamp());
    }

    // ERC-8301 §onAgentReply 3 and §Race condition: after a transition, new replies to the completed stage are rejected.
    function test_OnAgentReply_SupersededTaskRejected() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(pipe, "in");
        _reply(pipe, runId, tasks[0], agentA, "a");
        assertFalse(pipe.isTaskEligible(tasks[0]));
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentB, "b");
        vm.prank(agentB);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.TaskNotEligible.selector, tasks[0]));
        pipe.onAgentReply(r);
    }

    // ───── onAgentProve ─────

    // ERC-8301 §onAgentProve 1 / §Empty proof array: MUST revert on an empty array or an unknown reply.
    function test_OnAgentProve_EmptyAndUnknownRevert() public {
        vm.expectRevert(AgentWorkflow.EmptyReplyHashes.selector);
        single.onAgentProve(new bytes32[](0), "");
        bytes32[] memory l = new bytes32[](1);
        l[0] = keccak256("x");
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.UnknownReply.selector, l[0]));
        single.onAgentProve(l, "");
    }

    // ERC-8301 §Griefing: a failed proof changes nothing and the reply can be proven later by anyone.
    function test_OnAgentProve_FailedProofResubmittable() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        (bytes32 h,) = _reply(single, runId, tasks[0], agentA, "out");
        bytes32[] memory l = new bytes32[](1);
        l[0] = h;
        vm.prank(agentC);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.ProofRejected.selector, h));
        single.onAgentProve(l, hex"00");
        (,, bool proven,) = single.getAgentReply(h);
        assertFalse(proven);
        _prove(single, h);
        (, address v, bool p2, bytes32 vd) = single.getAgentReply(h);
        assertTrue(p2);
        assertEq(v, address(ecdsa));
        assertTrue(vd != bytes32(0));
        _assertSuccess(single, runId, h);
    }

    // ERC-8301 §onAgentProve 3: the verifier MUST NOT be called again for the same replyHash.
    function test_OnAgentProve_VerifierNeverCalledTwice() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(pipe, "in");
        SequentialPipelineWorkflow p2 = new SequentialPipelineWorkflow(address(counting), false, "");
        (runId, tasks) = _run(p2, "in");
        (bytes32 h,) = _reply(p2, runId, tasks[0], agentA, "a");
        bytes32[] memory l = new bytes32[](1);
        l[0] = h;
        p2.onAgentProve(l, "p");
        assertEq(counting.calls(), 1);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.ReplyAlreadyProven.selector, h));
        p2.onAgentProve(l, "p");
        assertEq(counting.calls(), 1);
    }

    // ERC-8301 §Evidence Chain: proven propagates to downstream tasks (task proven iff all prevReplyHashes proven).
    function test_OnAgentProve_PropagatesProven() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(pipe, "in");
        (bytes32 r0, bytes32[] memory t1) = _reply(pipe, runId, tasks[0], agentA, "a");
        (, bool proven) = pipe.getAgentTask(t1[0]);
        assertFalse(proven);
        _prove(pipe, r0); // async stage: proof is post-hoc, no gate
        (, proven) = pipe.getAgentTask(t1[0]);
        assertTrue(proven);
        assertEq(pipe.currentStage(runId), 1);
    }

    // ERC-8301 §Terminal stage: final task (sentinel stage, inputHash 0), WorkflowCompleted, no NewAgentTask,
    // completedAt persisted; then new replies and proofs rejected, retries still resolve.
    function test_Terminal_FinalTaskAndRejections() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentA);
        bytes32 h = single.onAgentReply(r);
        AgentReply memory other = _mkReply(runId, tasks[0], agentB, "other");
        vm.prank(agentB);
        bytes32 hb = single.onAgentReply(other);
        bytes32[] memory tasksAfter = _prove(single, h);
        assertEq(tasksAfter.length, 0); // no NewAgentTask for the final task
        _assertSuccess(single, runId, h);
        vm.prank(agentA);
        assertEq(single.onAgentReply(r), h); // matching retry still resolves
        AgentReply memory late = _mkReply(runId, tasks[0], agentC, "late");
        vm.prank(agentC);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.RunNotPending.selector, runId));
        single.onAgentReply(late);
        bytes32[] memory l = new bytes32[](1);
        l[0] = hb;
        bytes memory pb = _agentProof(single, hb);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.RunNotPending.selector, runId));
        single.onAgentProve(l, pb);
    }

    // ERC-8301 §Terminal stage: the final gate MUST be sync (an async completion is refused).
    function test_Complete_FromAsyncGateReverts() public {
        AsyncCompleteWorkflow wf = new AsyncCompleteWorkflow(address(counting));
        (bytes32 runId, bytes32[] memory tasks) = _run(wf, "in");
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, tasks[0], agentA, "out");
        vm.prank(agentA);
        vm.expectRevert(AgentWorkflow.FinalGateMustBeSync.selector);
        wf.onAgentReply(r);
    }

    // ERC-8301 §Security (expiresAt): replyTimeout callable by anyone after expiry only; default aborts.
    function test_ReplyTimeout_AfterExpiryAborts() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(single, "in");
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.NotExpired.selector, tasks[0]));
        single.replyTimeout(tasks[0]);
        vm.warp(vm.getBlockTimestamp() + 1 days + 1);
        vm.expectEmit(true, true, true, true, address(single));
        emit IAgentWorkflow.WorkflowCompleted(runId, RunStatus.Failed, bytes32(0), vm.getBlockTimestamp());
        vm.prank(agentC);
        single.replyTimeout(tasks[0]);
        (RunStatus s, bytes32 f, uint256 c) = single.result(runId);
        assertEq(uint8(s), uint8(RunStatus.Failed));
        assertEq(f, bytes32(0));
        assertEq(c, 0);
        vm.expectRevert(abi.encodeWithSelector(AgentWorkflow.RunNotPending.selector, runId));
        single.replyTimeout(tasks[0]);
    }

    // ERC-8301 §Reentrancy: a verifier re-entering onAgentReply during onAgentProve is refused.
    function test_Reentrancy_GuardBlocksVerifierReentry() public {
        ReentrantVerifier rv = new ReentrantVerifier();
        SingleStageWorkflow wf = new SingleStageWorkflow(address(rv), false, "");
        (bytes32 runId, bytes32[] memory tasks) = _run(wf, "in");
        (bytes32 h,) = _reply(wf, runId, tasks[0], agentA, "out");
        rv.arm(_mkReply(runId, tasks[0], address(rv), "x"));
        bytes32[] memory l = new bytes32[](1);
        l[0] = h;
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        wf.onAgentProve(l, "");
    }

    // ERC-8301 §onAgentProve: one proof covering several replies (abi.encode(bytes[])), count must match.
    function test_OnAgentProve_BatchEncoding() public {
        (bytes32 runId, bytes32[] memory tasks) = _run(countingSingle, "in");
        (bytes32 h1,) = _reply(countingSingle, runId, tasks[0], agentA, "1");
        (bytes32 h2,) = _reply(countingSingle, runId, tasks[0], agentB, "2");
        bytes32[] memory l = new bytes32[](2);
        l[0] = h1;
        l[1] = h2;
        vm.expectRevert(AgentWorkflow.ProofCountMismatch.selector);
        countingSingle.onAgentProve(l, abi.encode(new bytes[](1)));
        countingSingle.onAgentProve(l, abi.encode(new bytes[](2)));
        assertEq(counting.calls(), 2);
        (RunStatus s, bytes32 fin,) = countingSingle.result(runId);
        assertEq(uint8(s), uint8(RunStatus.Success));
        (AgentTask memory ft,) = countingSingle.getAgentTask(fin);
        assertEq(ft.prevReplyHashes[0], h1); // first proven terminal reply wins
    }
}
