// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AgentWorkflow} from "../AgentWorkflow.sol";
import {AgentReply} from "../../interfaces/IAgentWorkflow.sol";

/// @title ParallelAuditWorkflow
/// @notice ERC-8301 Scenario 5 (static FSM): Audit (3 parallel tasks: Gas, Security, Logic; async)
///         -> Qualify (sync) -> Settle (sync, terminal). Hardcoded: no stage can be skipped.
///         Each audit task accepts exactly one reply (then it is consumed); a reply references exactly
///         one task. When all three dimensions replied, Qualify is dispatched with
///         inputHash = keccak256(abi.encode(gasOut, secOut, logicOut)) and prevReplyHashes = the three replies.
contract ParallelAuditWorkflow is AgentWorkflow {
    /// @notice A reply must reference exactly one task in this static FSM.
    error SingleTaskReplyRequired();

    /// @notice Audit stage (3 parallel tasks).
    uint8 public constant STAGE_AUDIT = 0;
    /// @notice Qualification stage (sync).
    uint8 public constant STAGE_QUALIFY = 1;
    /// @notice Settlement stage (sync, terminal).
    uint8 public constant STAGE_SETTLE = 2;
    /// @notice Number of audit dimensions.
    uint256 public constant DIMENSIONS = 3;

    mapping(bytes32 taskHash => uint8 dimensionPlusOne) private _dimension;
    mapping(bytes32 runId => bytes32[DIMENSIONS]) private _audits;
    mapping(bytes32 runId => uint8) private _auditCount;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_)
        AgentWorkflow(verifier_, agentMode_, metadata_)
    {}

    /// @notice Audit dimension of a task: 0 Gas, 1 Security, 2 Logic; reverts for other tasks.
    function dimensionOf(bytes32 taskHash) external view returns (uint8) {
        uint8 d = _dimension[taskHash];
        if (d == 0) revert UnknownTask(taskHash);
        return d - 1;
    }

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        bytes32[] memory none = new bytes32[](0);
        for (uint8 d; d < DIMENSIONS; ++d) {
            bytes32 th = _emitTask(runId, STAGE_AUDIT, inputHash, input, expiresAt, none);
            _dimension[th] = d + 1;
        }
    }

    function _isSyncStage(uint8 stage) internal pure override returns (bool) {
        return stage != STAGE_AUDIT;
    }

    function _checkReply(bytes32, AgentReply calldata reply) internal pure override {
        if (reply.prevTaskHashes.length != 1) revert SingleTaskReplyRequired();
    }

    function _asyncGate(bytes32 runId, bytes32 replyHash, uint8) internal override {
        bytes32 th = _reply(replyHash).prevTaskHashes[0];
        _closeTask(th); // consumed: one reply per dimension
        _audits[runId][_dimension[th] - 1] = replyHash;
        uint8 count = ++_auditCount[runId];
        if (count < DIMENSIONS) return;
        bytes32[] memory prev = new bytes32[](DIMENSIONS);
        bytes32[DIMENSIONS] memory outs;
        for (uint256 d; d < DIMENSIONS; ++d) {
            prev[d] = _audits[runId][d];
            outs[d] = _reply(prev[d]).outputHash;
        }
        _transition(runId, STAGE_QUALIFY);
        _emitTask(runId, STAGE_QUALIFY, keccak256(abi.encode(outs)), "", _nextExpiry(runId), prev);
    }

    function _syncGate(bytes32 runId, bytes32 replyHash, uint8 stage) internal override {
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = replyHash;
        if (stage == STAGE_QUALIFY) {
            _transition(runId, STAGE_SETTLE);
            _emitTask(runId, STAGE_SETTLE, _reply(replyHash).outputHash, "", _nextExpiry(runId), prev);
        } else {
            _complete(runId, prev);
        }
    }
}
