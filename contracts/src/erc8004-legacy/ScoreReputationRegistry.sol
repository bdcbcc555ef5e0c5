// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IScoreReputationRegistry} from "./interfaces/IScoreReputationRegistry.sol";

/// @title ScoreReputationRegistry
/// @notice ERC-8004 intermediate revision Reputation Registry: feedback is a score 0..100.
/// @dev The identity registry is the revision's `ScoreIdentityRegistry` or the current
///      `IdentityRegistry` (same ABI for what is used): only ERC-721 calls are made on it
///      (ownerOf / getApproved / isApprovedForAll). Stored per feedback: score, tag1, tag2,
///      endpoint and isRevoked (§Giving Feedback: every field except feedbackURI and feedbackHash).
contract ScoreReputationRegistry is IScoreReputationRegistry {
    /// @notice The identity registry address is zero.
    error InvalidIdentityRegistry();
    /// @notice agentId is not a registered agent.
    error AgentNotFound(uint256 agentId);
    /// @notice score > 100.
    error ScoreOutOfRange(uint8 score);
    /// @notice The agent's owner or an approved operator tried to rate the agent.
    error SelfFeedbackNotAllowed(uint256 agentId, address caller);
    /// @notice No feedback with this index (indexes start at 1).
    error FeedbackNotFound(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    /// @notice The feedback is already revoked.
    error FeedbackAlreadyRevoked(uint256 agentId, address clientAddress, uint64 feedbackIndex);
    /// @notice responseURI is empty.
    error EmptyResponseURI();

    struct Feedback {
        uint8 score;
        bool isRevoked;
        string tag1;
        string tag2;
        string endpoint;
    }

    address private immutable _identityRegistry;
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => Feedback))) private _feedback;
    mapping(uint256 agentId => mapping(address client => uint64)) private _lastIndex;
    mapping(uint256 agentId => address[]) private _clients;
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => address[]))) private _responders;
    mapping(uint256 agentId => mapping(address client => mapping(uint64 index => mapping(address responder => uint64))))
        private _responseCount;

    /// @param identityRegistry_ The ERC-721 identity registry (ERC-8004 intermediate §Reputation Registry:
    ///        passed to the constructor).
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert InvalidIdentityRegistry();
        _identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IScoreReputationRegistry
    function getIdentityRegistry() external view returns (address identityRegistry) {
        return _identityRegistry;
    }

    /// @inheritdoc IScoreReputationRegistry
    function giveFeedback(
        uint256 agentId,
        uint8 score,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        // ERC-8004 intermediate §Giving Feedback: the score MUST be between 0 and 100.
        if (score > 100) revert ScoreOutOfRange(score);
        // ERC-8004 intermediate §Giving Feedback: agentId must be a validly registered agent.
        address agentOwner = _ownerOf(agentId);
        // As the revision's official contracts (erc-8004/erc-8004-contracts b7a30fe): no self-rating.
        IERC721 identity = IERC721(_identityRegistry);
        if (
            msg.sender == agentOwner || identity.isApprovedForAll(agentOwner, msg.sender)
                || identity.getApproved(agentId) == msg.sender
        ) revert SelfFeedbackNotAllowed(agentId, msg.sender);

        uint64 index = ++_lastIndex[agentId][msg.sender];
        if (index == 1) _clients[agentId].push(msg.sender);
        _feedback[agentId][msg.sender][index] = Feedback(score, false, tag1, tag2, endpoint);
        emit NewFeedback(agentId, msg.sender, index, score, tag1, tag2, endpoint, feedbackURI, feedbackHash);
    }

    /// @inheritdoc IScoreReputationRegistry
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        // ERC-8004 intermediate §Revoking Feedback: the clientAddress revokes its own feedback.
        Feedback storage f = _existing(agentId, msg.sender, feedbackIndex);
        if (f.isRevoked) revert FeedbackAlreadyRevoked(agentId, msg.sender, feedbackIndex);
        f.isRevoked = true;
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @inheritdoc IScoreReputationRegistry
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        // ERC-8004 intermediate §Appending Responses: anyone may respond, to an existing feedback.
        _existing(agentId, clientAddress, feedbackIndex);
        if (bytes(responseURI).length == 0) revert EmptyResponseURI();
        // ERC-8004 intermediate §Appending Responses: responseHash commits to the off-chain file; this
        // revision's ResponseAppended does not carry it and nothing reads it on-chain, so it is not kept.
        responseHash;
        if (_responseCount[agentId][clientAddress][feedbackIndex][msg.sender]++ == 0) {
            _responders[agentId][clientAddress][feedbackIndex].push(msg.sender);
        }
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI);
    }

    /// @inheritdoc IScoreReputationRegistry
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, uint8 averageScore)
    {
        address[] memory clients = _clientsOr(agentId, clientAddresses);
        uint256 total;
        for (uint256 i; i < clients.length; ++i) {
            uint64 last = _lastIndex[agentId][clients[i]];
            for (uint64 j = 1; j <= last; ++j) {
                Feedback storage f = _feedback[agentId][clients[i]][j];
                if (f.isRevoked || !_matches(f, tag1, tag2)) continue;
                total += f.score;
                ++count;
            }
        }
        if (count != 0) averageScore = uint8(total / count);
    }

    /// @inheritdoc IScoreReputationRegistry
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (uint8 score, string memory tag1, string memory tag2, bool isRevoked)
    {
        Feedback storage f = _existing(agentId, clientAddress, feedbackIndex);
        return (f.score, f.tag1, f.tag2, f.isRevoked);
    }

    /// @inheritdoc IScoreReputationRegistry
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
        )
    {
        address[] memory from = _clientsOr(agentId, clientAddresses);
        uint256 n;
        for (uint256 pass; pass < 2; ++pass) {
            if (pass == 1) {
                clients = new address[](n);
                feedbackIndexes = new uint64[](n);
                scores = new uint8[](n);
                tag1s = new string[](n);
                tag2s = new string[](n);
                revokedStatuses = new bool[](n);
                n = 0;
            }
            for (uint256 i; i < from.length; ++i) {
                uint64 last = _lastIndex[agentId][from[i]];
                for (uint64 j = 1; j <= last; ++j) {
                    Feedback storage f = _feedback[agentId][from[i]][j];
                    if ((f.isRevoked && !includeRevoked) || !_matches(f, tag1, tag2)) continue;
                    if (pass == 1) {
                        clients[n] = from[i];
                        feedbackIndexes[n] = j;
                        scores[n] = f.score;
                        tag1s[n] = f.tag1;
                        tag2s[n] = f.tag2;
                        revokedStatuses[n] = f.isRevoked;
                    }
                    ++n;
                }
            }
        }
    }

    /// @inheritdoc IScoreReputationRegistry
    function getResponseCount(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        address[] calldata responders
    ) external view returns (uint64 count) {
        // ERC-8004 intermediate §Read Functions: agentId is the only mandatory parameter.
        address[] memory clients;
        if (clientAddress == address(0)) {
            clients = _clients[agentId];
        } else {
            clients = new address[](1);
            clients[0] = clientAddress;
        }
        for (uint256 i; i < clients.length; ++i) {
            if (feedbackIndex != 0) {
                count += _countResponses(agentId, clients[i], feedbackIndex, responders);
                continue;
            }
            uint64 last = _lastIndex[agentId][clients[i]];
            for (uint64 j = 1; j <= last; ++j) {
                count += _countResponses(agentId, clients[i], j, responders);
            }
        }
    }

    /// @inheritdoc IScoreReputationRegistry
    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _clients[agentId];
    }

    /// @inheritdoc IScoreReputationRegistry
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _lastIndex[agentId][clientAddress];
    }

    function _ownerOf(uint256 agentId) private view returns (address agentOwner) {
        try IERC721(_identityRegistry).ownerOf(agentId) returns (address o) {
            agentOwner = o;
        } catch {
            revert AgentNotFound(agentId);
        }
        if (agentOwner == address(0)) revert AgentNotFound(agentId);
    }

    /// @dev The given clients, or every client of agentId when none is given (an optional filter).
    function _clientsOr(uint256 agentId, address[] calldata given) private view returns (address[] memory) {
        if (given.length != 0) return given;
        return _clients[agentId];
    }

    function _existing(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        private
        view
        returns (Feedback storage f)
    {
        if (feedbackIndex == 0 || feedbackIndex > _lastIndex[agentId][clientAddress]) {
            revert FeedbackNotFound(agentId, clientAddress, feedbackIndex);
        }
        return _feedback[agentId][clientAddress][feedbackIndex];
    }

    function _countResponses(uint256 agentId, address client, uint64 index, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        mapping(address => uint64) storage counts = _responseCount[agentId][client][index];
        address[] storage all = _responders[agentId][client][index];
        uint256 n = responders.length != 0 ? responders.length : all.length;
        for (uint256 k; k < n; ++k) {
            count += counts[responders.length != 0 ? responders[k] : all[k]];
        }
    }

    /// @dev Empty filter tags match anything (ERC-8004 intermediate §Read Functions: optional filters).
    function _matches(Feedback storage f, string calldata tag1, string calldata tag2) private view returns (bool) {
        if (bytes(tag1).length != 0 && keccak256(bytes(f.tag1)) != keccak256(bytes(tag1))) return false;
        if (bytes(tag2).length != 0 && keccak256(bytes(f.tag2)) != keccak256(bytes(tag2))) return false;
        return true;
    }
}
