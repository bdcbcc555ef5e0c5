// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AgentWorkflow} from "../AgentWorkflow.sol";

/// @title InputProvenanceWorkflow
/// @notice ERC-8301 Scenario 1: Sanitize (sync, pre-action gate) -> Infer (sync, terminal).
///         The Infer task's inputHash is the proven sanitized hash (the Sanitize reply's outputHash).
contract InputProvenanceWorkflow is AgentWorkflow {
    /// @notice Sanitization / WYRIWE attestation stage.
    uint8 public constant STAGE_SANITIZE = 0;
    /// @notice Inference stage.
    uint8 public constant STAGE_INFER = 1;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_)
        AgentWorkflow(verifier_, agentMode_, metadata_)
    {}

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        _emitTask(runId, STAGE_SANITIZE, inputHash, input, expiresAt, new bytes32[](0));
    }

    function _isSyncStage(uint8) internal pure override returns (bool) {
        return true;
    }

    function _syncGate(bytes32 runId, bytes32 replyHash, uint8 stage) internal override {
        bytes32[] memory prev = new bytes32[](1);
        prev[0] = replyHash;
        if (stage == STAGE_SANITIZE) {
            _transition(runId, STAGE_INFER);
            _emitTask(runId, STAGE_INFER, _reply(replyHash).outputHash, "", _nextExpiry(runId), prev);
        } else {
            _complete(runId, prev);
        }
    }
}
