// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IScoreReputationRegistry
/// @notice Reputation Registry of the intermediate ERC-8004 revision (ethereum/ERCs acf085c,
///         2026-01-13): feedback is a score 0..100 with optional string tags, endpoint, URI and hash.
/// @dev Every signature below is the revision's own code block (ERCS/erc-8004.md at acf085c).
interface IScoreReputationRegistry {
    /// @notice A client gave feedback; feedbackIndex counts the client's feedback to the agent from 1.
    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        uint8 score,
        string indexed tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    /// @notice A client revoked one of its feedbacks.
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    /// @notice Someone appended a response to a feedback (the revision's event has no responseHash).
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI
    );

    /// @notice The identity registry given to the constructor.
    function getIdentityRegistry() external view returns (address identityRegistry);

    /// @notice Gives feedback to `agentId` as msg.sender; score MUST be 0..100.
    function giveFeedback(
        uint256 agentId,
        uint8 score,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external;

    /// @notice Revokes msg.sender's feedback `feedbackIndex` to `agentId`.
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external;

    /// @notice Appends a response (by anyone) to a feedback.
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external;

    /// @notice Count and average score of the non-revoked feedback matching the optional filters.
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, uint8 averageScore);

    /// @notice One stored feedback.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (uint8 score, string memory tag1, string memory tag2, bool isRevoked);

    /// @notice Every stored feedback matching the optional filters.
    function readAllFeedback(
        uint256 agentId,
        address[] calldata clientAddresses,
        string calldata tag1,
        string calldata tag2,
        bool includeRevoked
    )
        external
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            uint8[] memory scores,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        );

    /// @notice Number of responses; clientAddress 0, feedbackIndex 0 and empty responders mean "any".
    function getResponseCount(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        address[] calldata responders
    ) external view returns (uint64 count);

    /// @notice Every address that gave feedback to `agentId`, in first-feedback order.
    function getClients(uint256 agentId) external view returns (address[] memory);

    /// @notice The highest feedbackIndex of `clientAddress` for `agentId` (0 when none).
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64);
}
