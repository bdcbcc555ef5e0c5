// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IDraftReputationRegistry} from "./interfaces/IDraftReputationRegistry.sol";
import {IDraftIdentityRegistry} from "./interfaces/IDraftIdentityRegistry.sol";

/// @title DraftReputationRegistry
/// @notice ERC-8004 first draft Reputation Registry: AcceptFeedback emits AuthFeedback; the feedback
///         itself lives off-chain at the client's FeedbackDataURI, keyed by FeedbackAuthID.
/// @dev The draft binds one FeedbackAuthID to one task, so every AcceptFeedback mints a new id:
///      keccak256(abi.encode(chainid, registry, agentClientId, agentServerId, n)) where n counts the
///      pair's authorizations from 1. It is deterministic (clients can predict it) and unique per
///      chain, registry and pair.
contract DraftReputationRegistry is IDraftReputationRegistry {
    /// @notice The identity registry address is zero.
    error InvalidIdentityRegistry();
    /// @notice The caller is not the server agent's AgentAddress.
    error UnauthorizedCaller(address caller, address serverAddress);
    /// @notice Client and server are the same agent.
    error SelfFeedbackNotAllowed(uint256 agentId);
    /// @notice The FeedbackAuthID was never issued here.
    error UnknownFeedbackAuth(bytes32 feedbackAuthId);

    struct Pair {
        uint256 agentClientId;
        uint256 agentServerId;
    }

    IDraftIdentityRegistry private immutable _identity;
    mapping(bytes32 feedbackAuthId => Pair) private _auths;
    mapping(uint256 agentClientId => mapping(uint256 agentServerId => uint64)) private _authCount;
    mapping(uint256 agentClientId => mapping(uint256 agentServerId => bytes32)) private _lastAuth;

    /// @param identityRegistry The DraftIdentityRegistry whose agent ids this registry uses.
    constructor(address identityRegistry) {
        if (identityRegistry == address(0)) revert InvalidIdentityRegistry();
        _identity = IDraftIdentityRegistry(identityRegistry);
    }

    /// @notice The identity registry this registry resolves agent ids with.
    function getIdentityRegistry() external view returns (address) {
        return address(_identity);
    }

    /// @inheritdoc IDraftReputationRegistry
    function acceptFeedback(uint256 agentClientId, uint256 agentServerId) external {
        // ERC-8004 first draft §Participants: both sides are registered agents (getAgent reverts otherwise).
        _identity.getAgent(agentClientId);
        address server = _identity.getAgent(agentServerId).agentAddress;
        // ERC-8004 first draft §Reputation Registry, Authorization Flow: the Server Agent pre-authorizes.
        if (msg.sender != server) revert UnauthorizedCaller(msg.sender, server);
        // Credence rule (as the draft's reference implementation): an agent cannot authorize itself.
        if (agentClientId == agentServerId) revert SelfFeedbackNotAllowed(agentServerId);

        uint64 n = ++_authCount[agentClientId][agentServerId];
        bytes32 feedbackAuthId = keccak256(abi.encode(block.chainid, address(this), agentClientId, agentServerId, n));
        _auths[feedbackAuthId] = Pair(agentClientId, agentServerId);
        _lastAuth[agentClientId][agentServerId] = feedbackAuthId;
        emit AuthFeedback(agentClientId, agentServerId, feedbackAuthId);
    }

    /// @inheritdoc IDraftReputationRegistry
    function isFeedbackAuthorized(uint256 agentClientId, uint256 agentServerId)
        external
        view
        returns (bool isAuthorized, bytes32 feedbackAuthId)
    {
        feedbackAuthId = _lastAuth[agentClientId][agentServerId];
        isAuthorized = feedbackAuthId != bytes32(0);
    }

    /// @inheritdoc IDraftReputationRegistry
    function getFeedbackAuthId(uint256 agentClientId, uint256 agentServerId)
        external
        view
        returns (bytes32 feedbackAuthId)
    {
        return _lastAuth[agentClientId][agentServerId];
    }

    /// @inheritdoc IDraftReputationRegistry
    function getFeedbackAuth(bytes32 feedbackAuthId)
        external
        view
        returns (uint256 agentClientId, uint256 agentServerId)
    {
        Pair storage p = _auths[feedbackAuthId];
        if (p.agentServerId == 0) revert UnknownFeedbackAuth(feedbackAuthId);
        return (p.agentClientId, p.agentServerId);
    }

    /// @inheritdoc IDraftReputationRegistry
    function getFeedbackAuthCount(uint256 agentClientId, uint256 agentServerId) external view returns (uint64 count) {
        return _authCount[agentClientId][agentServerId];
    }
}
