// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IProofVerifier} from "../../src/interfaces/IProofVerifier.sol";
import {IAgentWorkflow, AgentReply} from "../../src/interfaces/IAgentWorkflow.sol";
import {AgentWorkflow} from "../../src/erc8301/AgentWorkflow.sol";

/// @notice TEST ONLY: answers a fixed verdict and counts calls per (input, output).
contract CountingProofVerifier is IProofVerifier {
    bool public verdict = true;
    uint256 public calls;

    function setVerdict(bool v) external {
        verdict = v;
    }

    function verify(bytes32, bytes32, bytes calldata, bytes calldata) external returns (bool) {
        ++calls;
        return verdict;
    }

    function proofSystem() external pure returns (string memory) {
        return "test/always";
    }

    function proofProfile() external pure returns (bytes32) {
        return keccak256("test/always");
    }
}

/// @notice TEST ONLY: a verifier that re-enters the workflow.
contract ReentrantVerifier is IProofVerifier {
    AgentReply internal _r;
    bool internal _armed;

    function arm(AgentReply calldata r) external {
        _r = r;
        _armed = true;
    }

    function verify(bytes32, bytes32, bytes calldata, bytes calldata) external returns (bool) {
        if (_armed) IAgentWorkflow(msg.sender).onAgentReply(_r);
        return true;
    }

    function proofSystem() external pure returns (string memory) {
        return "test/reentrant";
    }

    function proofProfile() external pure returns (bytes32) {
        return 0;
    }
}

/// @notice TEST ONLY: a broken workflow whose async gate tries to complete (must be rejected).
contract AsyncCompleteWorkflow is AgentWorkflow {
    constructor(address v) AgentWorkflow(v, false, "") {}

    function _start(bytes32 runId, bytes32 inputHash, bytes calldata input, uint256 expiresAt) internal override {
        _emitTask(runId, 0, inputHash, input, expiresAt, new bytes32[](0));
    }

    function _isSyncStage(uint8) internal pure override returns (bool) {
        return false;
    }

    function _asyncGate(bytes32 runId, bytes32 replyHash, uint8) internal override {
        bytes32[] memory p = new bytes32[](1);
        p[0] = replyHash;
        _complete(runId, p);
    }
}

/// @notice TEST ONLY: a workflow that emits no initial task.
contract NoTaskWorkflow is AgentWorkflow {
    constructor(address v) AgentWorkflow(v, false, "") {}

    function _start(bytes32, bytes32, bytes calldata, uint256) internal override {}

    function _isSyncStage(uint8) internal pure override returns (bool) {
        return true;
    }
}
