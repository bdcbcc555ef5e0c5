// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @notice Run status (ERC-8301 §Data Envelopes).
enum RunStatus {
    Pending,
    Success,
    Failed
}

/// @notice Task dispatched by the contract (ERC-8301 §Data Envelopes).
struct AgentTask {
    uint8 stage;
    uint256 taskSeq;
    bytes32 inputHash;
    bytes input;
    uint256 timestamp;
    uint256 expiresAt;
    bytes32[] prevReplyHashes;
    bytes32 workflowRunId;
}

/// @notice Reply submitted by an agent (ERC-8301 §Data Envelopes, revision with operationId).
struct AgentReply {
    bytes32 operationId;
    bytes32 outputHash;
    bytes output;
    uint256 timestamp;
    address replier;
    bytes32[] prevTaskHashes;
    bytes32 workflowRunId;
}

/// @title IAgentWorkflow
/// @notice ERC-8301 core interface.
interface IAgentWorkflow {
    /// @notice Emitted when a new task is dispatched.
    event NewAgentTask(bytes32 indexed workflowRunId, uint8 indexed stage, bytes32 indexed taskHash);
    /// @notice Emitted when a reply is anchored, before gate evaluation.
    event AgentReplyAnchored(bytes32 indexed workflowRunId, bytes32 indexed replyHash, address indexed replier);
    /// @notice Emitted when a run reaches a terminal state.
    event WorkflowCompleted(bytes32 indexed workflowRunId, RunStatus status, bytes32 finalTaskHash, uint256 timestamp);

    /// @notice Start a new workflow run.
    function run(bytes32 inputHash, bytes calldata input, uint256 expiresAt) external returns (bytes32 workflowRunId);
    /// @notice Result of a run; (Pending, 0, 0) for unknown runs.
    function result(bytes32 workflowRunId)
        external
        view
        returns (RunStatus status, bytes32 finalTaskHash, uint256 completedAt);
    /// @notice Stored task and its proven status; reverts for unknown hashes.
    function getAgentTask(bytes32 taskHash) external view returns (AgentTask memory task, bool proven);
    /// @notice Stored reply and its verification status; reverts for unknown hashes.
    function getAgentReply(bytes32 replyHash)
        external
        view
        returns (AgentReply memory reply, address verifier, bool proven, bytes32 verificationDigest);
    /// @notice Canonical replyHash of a logical operation, or bytes32(0).
    function getReplyHashByOperation(bytes32 workflowRunId, address replier, bytes32 operationId)
        external
        view
        returns (bytes32 replyHash);
    /// @notice Agent submits a reply to dispatched task(s).
    function onAgentReply(AgentReply calldata reply) external returns (bytes32 replyHash);
    /// @notice Submit a proof covering one or more anchored replies.
    function onAgentProve(bytes32[] calldata replyHashes, bytes calldata proof) external;
}
