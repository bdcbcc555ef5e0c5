// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IDraftReputationRegistry
/// @notice Reputation Registry of the ERC-8004 first draft: a server agent pre-authorizes a client
///         agent to give off-chain feedback on a task; the registry only emits the authorization.
/// @dev AcceptFeedback and the AuthFeedback parameters are the draft's; Solidity names, the
///      indexing of AuthFeedback and the two RI readers follow ChaosChain/trustless-agents-erc-ri 1d9bbfa.
interface IDraftReputationRegistry {
    /// @notice ERC-8004 first draft §Reputation Registry: (AgentClientID, AgentServerID, FeedbackAuthID).
    event AuthFeedback(uint256 indexed agentClientId, uint256 indexed agentServerId, bytes32 indexed feedbackAuthId);

    /// @notice AcceptFeedback(AgentClientID, AgentServerID): the server agent's address authorizes the
    ///         client agent to give feedback on one task. Each call mints a fresh FeedbackAuthID.
    function acceptFeedback(uint256 agentClientId, uint256 agentServerId) external;

    /// @notice Whether the pair has at least one authorization, and the latest FeedbackAuthID.
    function isFeedbackAuthorized(uint256 agentClientId, uint256 agentServerId)
        external
        view
        returns (bool isAuthorized, bytes32 feedbackAuthId);

    /// @notice The latest FeedbackAuthID of the pair, or zero.
    function getFeedbackAuthId(uint256 agentClientId, uint256 agentServerId)
        external
        view
        returns (bytes32 feedbackAuthId);

    /// @notice The pair a FeedbackAuthID was issued for. Reverts for an unknown id.
    function getFeedbackAuth(bytes32 feedbackAuthId)
        external
        view
        returns (uint256 agentClientId, uint256 agentServerId);

    /// @notice How many authorizations the pair has received.
    function getFeedbackAuthCount(uint256 agentClientId, uint256 agentServerId) external view returns (uint64 count);
}
