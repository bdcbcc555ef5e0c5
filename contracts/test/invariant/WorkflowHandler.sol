// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Test, Vm} from "forge-std/Test.sol";
import {AgentReply, RunStatus, IAgentWorkflow} from "../../src/interfaces/IAgentWorkflow.sol";
import {SequentialPipelineWorkflow} from "../../src/erc8301/workflows/SequentialPipelineWorkflow.sol";

/// @notice Invariant handler: runs, replies (new, retries and conflicts), proofs and timeouts on a pipeline.
contract WorkflowHandler is Test {
    SequentialPipelineWorkflow public wf;
    bytes32[] public runs;
    mapping(bytes32 => bytes32[]) internal _open; // run => tasks seen
    bytes32[] public opKeys;
    mapping(bytes32 => bytes32) public ghostBinding; // operationKey => first canonical replyHash
    mapping(bytes32 => AgentReply) internal _opReply;
    bytes32[] public replies;
    mapping(bytes32 => RunStatus) public ghostTerminal; // status when first seen terminal
    mapping(bytes32 => bytes32) public ghostFinal;
    mapping(bytes32 => bool) public seenTerminal;
    address[3] internal agents = [address(0xA1), address(0xA2), address(0xA3)];

    constructor(SequentialPipelineWorkflow w) {
        wf = w;
    }

    function _record(Vm.Log[] memory logs, bytes32 runId) internal {
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].topics[0] == IAgentWorkflow.NewAgentTask.selector) _open[runId].push(logs[i].topics[3]);
        }
    }

    function startRun(bytes32 input) external {
        vm.recordLogs();
        bytes32 id = wf.run(input, "", vm.getBlockTimestamp() + 1 hours);
        runs.push(id);
        _record(vm.getRecordedLogs(), id);
    }

    function reply(uint256 runIdx, uint256 agentIdx, bytes32 output, uint256 taskIdx) external {
        if (runs.length == 0) return;
        bytes32 runId = runs[runIdx % runs.length];
        bytes32[] storage ts = _open[runId];
        if (ts.length == 0) return;
        vm.warp(vm.getBlockTimestamp() + 1);
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = ts[taskIdx % ts.length];
        address a = agents[agentIdx % 3];
        AgentReply memory r =
            AgentReply(keccak256(abi.encode(output, agentIdx)), output, "", vm.getBlockTimestamp(), a, prev, runId);
        vm.recordLogs();
        vm.prank(a);
        try wf.onAgentReply(r) returns (bytes32 h) {
            bytes32 key = wf.operationKeyOf(runId, a, r.operationId);
            if (ghostBinding[key] == bytes32(0)) {
                ghostBinding[key] = h;
                opKeys.push(key);
                _opReply[key] = r;
                replies.push(h);
            }
        } catch {}
        _record(vm.getRecordedLogs(), runId);
    }

    function retryOrConflict(uint256 keyIdx, bool conflict) external {
        if (opKeys.length == 0) return;
        bytes32 key = opKeys[keyIdx % opKeys.length];
        AgentReply memory r = _opReply[key];
        vm.warp(vm.getBlockTimestamp() + 1);
        r.timestamp = vm.getBlockTimestamp();
        if (conflict) r.outputHash = keccak256(abi.encode(r.outputHash));
        vm.prank(r.replier);
        try wf.onAgentReply(r) {} catch {}
    }

    function prove(uint256 replyIdx) external {
        if (replies.length == 0) return;
        bytes32[] memory l = new bytes32[](1);
        l[0] = replies[replyIdx % replies.length];
        try wf.onAgentProve(l, "p") {} catch {}
        _snapshotTerminals();
    }

    function timeout(uint256 runIdx, uint256 taskIdx) external {
        if (runs.length == 0) return;
        bytes32 runId = runs[runIdx % runs.length];
        bytes32[] storage ts = _open[runId];
        if (ts.length == 0) return;
        vm.warp(vm.getBlockTimestamp() + 2 hours);
        try wf.replyTimeout(ts[taskIdx % ts.length]) {} catch {}
        _snapshotTerminals();
    }

    function _snapshotTerminals() internal {
        for (uint256 i; i < runs.length; ++i) {
            if (seenTerminal[runs[i]]) continue;
            (RunStatus s, bytes32 f,) = wf.result(runs[i]);
            if (s != RunStatus.Pending) {
                seenTerminal[runs[i]] = true;
                ghostTerminal[runs[i]] = s;
                ghostFinal[runs[i]] = f;
            }
        }
    }

    function runCount() external view returns (uint256) {
        return runs.length;
    }

    function opKeyCount() external view returns (uint256) {
        return opKeys.length;
    }

    function opReplier(bytes32 key) external view returns (address, bytes32, bytes32) {
        AgentReply storage r = _opReply[key];
        return (r.replier, r.workflowRunId, r.operationId);
    }
}
