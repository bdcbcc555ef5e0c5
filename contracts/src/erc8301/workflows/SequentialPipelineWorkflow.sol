// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AgentWorkflow} from "../AgentWorkflow.sol";

/// @title SequentialPipelineWorkflow
/// @notice ERC-8301 Scenario 3: StepA (async) -> StepB (async) -> StepC (sync, terminal).
///         Each step's outputHash is the next step's inputHash.
contract SequentialPipelineWorkflow is AgentWorkflow {
    /// @notice First step.
    uint8 public constant STAGE_A = 0;
    /// @notice Second step.
    uint8 public constant STAGE_B = 1;
    /// @notice Last step (terminal, sync).
    uint8 public constant STAGE_C = 2;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_)
        AgentWorkflow(verifier_, agentMode_, metadata_)
    {}

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        _emitTask(runId, STAGE_A, inputHash, input, expiresAt, new bytes32[](0));
    }

    function _isSyncStage(uint8 stage) internal pure override returns (bool) {
        return stage == STAGE_C;
    }

    /// @dev Async gate of A and B: the first accepted reply passes and advances the pipeline.
    function _asyncGate(bytes32 runId, bytes32 replyHash, uint8 stage) internal override {
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = replyHash;
        uint8 next = stage + 1;
        _transition(runId, next);
        _emitTask(runId, next, _reply(replyHash).outputHash, "", _nextExpiry(runId), prev);
    }

    function _syncGate(bytes32 runId, bytes32 replyHash, uint8) internal override {
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = replyHash;
        _complete(runId, prev);
    }
}
