// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AgentWorkflow} from "../AgentWorkflow.sol";

/// @title SingleStageWorkflow
/// @notice ERC-8301 Scenario 0: one task (Execute, sync), one reply, one proof -> Success.
contract SingleStageWorkflow is AgentWorkflow {
    /// @notice The single stage.
    uint8 public constant STAGE_EXECUTE = 0;

    constructor(address verifier_, bool agentMode_, bytes memory metadata_)
        AgentWorkflow(verifier_, agentMode_, metadata_)
    {}

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        _emitTask(runId, STAGE_EXECUTE, inputHash, input, expiresAt, new bytes32[](0));
    }

    function _isSyncStage(uint8) internal pure override returns (bool) {
        return true;
    }

    function _syncGate(bytes32 runId, bytes32 replyHash, uint8) internal virtual override {
        bytes32[] memory terminal = new bytes32[](1);
        terminal[0] = replyHash;
        _complete(runId, terminal);
    }
}
