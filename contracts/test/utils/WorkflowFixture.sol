// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test, Vm} from "forge-std/Test.sol";
import {IAgentWorkflow, AgentTask, AgentReply, RunStatus} from "../../src/interfaces/IAgentWorkflow.sol";
import {AgentWorkflow} from "../../src/erc8301/AgentWorkflow.sol";
import {ECDSAAttestationVerifier} from "../../src/erc8301/verifiers/ECDSAAttestationVerifier.sol";

/// @notice Shared helpers for ERC-8301 tests: real ECDSA attestations, task capture from logs.
abstract contract WorkflowFixture is Test {
    uint256 internal attesterKey = 0xA77E57;
    address internal attester;
    ECDSAAttestationVerifier internal ecdsa;
    uint256 internal opNonce;

    address internal agentA = makeAddr("agentA");
    address internal agentB = makeAddr("agentB");
    address internal agentC = makeAddr("agentC");

    function setUp() public virtual {
        attester = vm.addr(attesterKey);
        address[] memory a = new address[](1);
        a[0] = attester;
        ecdsa = new ECDSAAttestationVerifier(address(this), a, keccak256("credence-test"));
        vm.warp(1_700_000_000);
    }

    /// @dev Start a run and return its id and the tasks emitted.
    function _run(AgentWorkflow wf, bytes memory input) internal returns (bytes32 runId, bytes32[] memory tasks) {
        vm.recordLogs();
        runId = wf.run(keccak256(input), input, vm.getBlockTimestamp() + 1 days);
        tasks = _newTasks(vm.getRecordedLogs());
    }

    /// @dev taskHashes of NewAgentTask events in `logs`.
    function _newTasks(Vm.Log[] memory logs) internal pure returns (bytes32[] memory out) {
        out = new bytes32[](logs.length);
        uint256 k;
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == IAgentWorkflow.NewAgentTask.selector) out[k++] = logs[i].topics[3];
        }
        assembly ("memory-safe") {
            mstore(out, k)
        }
    }

    function _mkReply(bytes32 runId, bytes32 taskHash, address who, bytes memory output)
        internal
        returns (AgentReply memory r)
    {
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = taskHash;
        r = AgentReply({
            operationId: keccak256(abi.encode("op", ++opNonce)),
            outputHash: keccak256(output),
            output: output,
            timestamp: vm.getBlockTimestamp(),
            replier: who,
            prevTaskHashes: prev,
            workflowRunId: runId
        });
    }

    /// @dev Warp 1s (reply.timestamp must be > task anchor time), submit, return hash and new tasks.
    function _reply(AgentWorkflow wf, bytes32 runId, bytes32 taskHash, address who, bytes memory output)
        internal
        returns (bytes32 replyHash, bytes32[] memory tasks)
    {
        vm.warp(vm.getBlockTimestamp() + 1);
        AgentReply memory r = _mkReply(runId, taskHash, who, output);
        vm.recordLogs();
        vm.prank(who);
        replyHash = wf.onAgentReply(r);
        tasks = _newTasks(vm.getRecordedLogs());
    }

    /// @dev A real IAgentVerifier attestation for a stored reply (Option A).
    function _agentProof(AgentWorkflow wf, bytes32 replyHash) internal view returns (bytes memory) {
        (AgentReply memory r,,,) = wf.getAgentReply(replyHash);
        (AgentTask memory t,) = wf.getAgentTask(r.prevTaskHashes[0]);
        bytes32 d = ecdsa.agentAttestationDigest(
            r.workflowRunId, bytes32(uint256(uint160(r.replier))), t.inputHash, r.outputHash
        );
        (uint8 v, bytes32 rr, bytes32 s) = vm.sign(attesterKey, d);
        return abi.encodePacked(rr, s, v);
    }

    /// @dev Prove one reply with a real attestation; return tasks emitted.
    function _prove(AgentWorkflow wf, bytes32 replyHash) internal returns (bytes32[] memory tasks) {
        bytes32[] memory l = new bytes32[](1);
        l[0] = replyHash;
        bytes memory p = _agentProof(wf, replyHash);
        vm.recordLogs();
        wf.onAgentProve(l, p);
        tasks = _newTasks(vm.getRecordedLogs());
    }

    function _assertSuccess(AgentWorkflow wf, bytes32 runId, bytes32 lastReply) internal view {
        (RunStatus st, bytes32 fin, uint256 at) = wf.result(runId);
        assertEq(uint8(st), uint8(RunStatus.Success));
        assertEq(at, vm.getBlockTimestamp());
        (AgentTask memory t, bool proven) = wf.getAgentTask(fin);
        assertEq(t.stage, 255);
        assertEq(t.inputHash, bytes32(0));
        assertEq(t.prevReplyHashes.length, 1);
        assertEq(t.prevReplyHashes[0], lastReply);
        assertEq(t.workflowRunId, runId);
        assertTrue(proven);
        assertEq(wf.taskHashOf(t), fin);
    }
}
