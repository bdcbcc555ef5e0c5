// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IReputationRegistry
/// @notice ERC-8004 Reputation Registry (ABI-compatible with the deployed v2 registries), plus paginated reads.
interface IReputationRegistry {
    /// @notice Emitted for each new feedback.
    event NewFeedback(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        int128 value,
        uint8 valueDecimals,
        string indexed indexedTag1,
        string tag1,
        string tag2,
        string endpoint,
        string feedbackURI,
        bytes32 feedbackHash
    );
    /// @notice Emitted when a client revokes its feedback.
    event FeedbackRevoked(uint256 indexed agentId, address indexed clientAddress, uint64 indexed feedbackIndex);
    /// @notice Emitted when anyone appends a response to a feedback.
    event ResponseAppended(
        uint256 indexed agentId,
        address indexed clientAddress,
        uint64 feedbackIndex,
        address indexed responder,
        string responseURI,
        bytes32 responseHash
    );

    /// @notice One feedback row returned by the paginated read.
    struct FeedbackRow {
        address client;
        uint64 feedbackIndex;
        int128 value;
        uint8 valueDecimals;
        bool isRevoked;
        string tag1;
        string tag2;
    }

    /// @notice Bind the identity registry (one time only).
    function initialize(address identityRegistry_) external;
    /// @notice The identity registry this registry reads agents from.
    function getIdentityRegistry() external view returns (address);
    /// @notice Give feedback to an agent.
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external;
    /// @notice Revoke one's own feedback.
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external;
    /// @notice Append a response to a feedback.
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external;
    /// @notice Aggregate the non-revoked feedback of the given clients.
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals);
    /// @notice Read one feedback.
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked);
    /// @notice Read all feedback matching the filters (unbounded; prefer `readFeedbackPage`).
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
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        );
    /// @notice Count responses.
    function getResponseCount(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        address[] calldata responders
    ) external view returns (uint64 count);
    /// @notice All clients of an agent, in first-feedback order (unbounded; prefer `getClientsPage`).
    function getClients(uint256 agentId) external view returns (address[] memory);
    /// @notice The last feedback index of a client for an agent (0 if none).
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64);
    /// @notice Number of distinct clients of an agent.
    function getClientCount(uint256 agentId) external view returns (uint256);
    /// @notice A page of clients, `[offset, offset+limit)`.
    function getClientsPage(uint256 agentId, uint256 offset, uint256 limit)
        external
        view
        returns (address[] memory clients);
    /// @notice A page of feedback rows in (client order, feedback index) order, starting at `cursor`.
    function readFeedbackPage(uint256 agentId, uint256 cursor, uint256 limit)
        external
        view
        returns (FeedbackRow[] memory rows, uint256 nextCursor);
}
