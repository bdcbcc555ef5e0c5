// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IScoreValidationRegistry} from "./interfaces/IScoreValidationRegistry.sol";

/// @title ScoreValidationRegistry
/// @notice ERC-8004 intermediate revision Validation Registry.
/// @dev Same request/response flow as the current revision's `ValidationRegistry`, with the
///      revision's own differences: the identity registry is fixed in the constructor, responseHash
///      is emitted but not stored, and getValidationStatus has no responseHash output. Only ERC-721
///      calls are made on the identity registry (see ScoreReputationRegistry).
contract ScoreValidationRegistry is IScoreValidationRegistry {
    /// @notice The identity registry address is zero.
    error InvalidIdentityRegistry();
    /// @notice validatorAddress is the zero address.
    error InvalidValidator();
    /// @notice agentId is not a registered agent.
    error AgentNotFound(uint256 agentId);
    /// @notice The caller is neither the owner nor an operator of agentId.
    error NotAuthorized(uint256 agentId, address caller);
    /// @notice requestHash already identifies a request.
    error RequestExists(bytes32 requestHash);
    /// @notice requestHash identifies no request.
    error UnknownRequest(bytes32 requestHash);
    /// @notice The caller is not the validator named in the request.
    error NotValidator(bytes32 requestHash, address caller);
    /// @notice response > 100.
    error ResponseOutOfRange(uint8 response);

    struct Validation {
        address validator;
        uint8 response;
        bool hasResponse;
        uint40 lastUpdate;
        uint256 agentId;
        string tag;
    }

    address private immutable _identityRegistry;
    mapping(bytes32 requestHash => Validation) private _validations;
    mapping(uint256 agentId => bytes32[]) private _agentValidations;
    mapping(address validator => bytes32[]) private _validatorRequests;

    /// @param identityRegistry_ The ERC-721 identity registry (ERC-8004 intermediate §Validation Registry:
    ///        passed to the constructor).
    constructor(address identityRegistry_) {
        if (identityRegistry_ == address(0)) revert InvalidIdentityRegistry();
        _identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IScoreValidationRegistry
    function getIdentityRegistry() external view returns (address identityRegistry) {
        return _identityRegistry;
    }

    /// @inheritdoc IScoreValidationRegistry
    function validationRequest(address validatorAddress, uint256 agentId, string calldata requestURI, bytes32 requestHash)
        external
    {
        // ERC-8004 intermediate §Validation Request: all fields are mandatory.
        if (validatorAddress == address(0)) revert InvalidValidator();
        Validation storage v = _validations[requestHash];
        // ERC-8004 intermediate §Validation Request: requestHash identifies the request.
        if (v.validator != address(0)) revert RequestExists(requestHash);
        // ERC-8004 intermediate §Validation Request: MUST be called by the owner or operator of agentId.
        if (!_isOwnerOrOperator(msg.sender, agentId)) revert NotAuthorized(agentId, msg.sender);

        v.validator = validatorAddress;
        v.agentId = agentId;
        v.lastUpdate = uint40(block.timestamp);
        _agentValidations[agentId].push(requestHash);
        _validatorRequests[validatorAddress].push(requestHash);
        emit ValidationRequest(validatorAddress, agentId, requestURI, requestHash);
    }

    /// @inheritdoc IScoreValidationRegistry
    function validationResponse(
        bytes32 requestHash,
        uint8 response,
        string calldata responseURI,
        bytes32 responseHash,
        string calldata tag
    ) external {
        // ERC-8004 intermediate §Validation Response: the response is a value between 0 and 100.
        if (response > 100) revert ResponseOutOfRange(response);
        Validation storage v = _validations[requestHash];
        address validator = v.validator;
        if (validator == address(0)) revert UnknownRequest(requestHash);
        // ERC-8004 intermediate §Validation Response: MUST be called by the request's validatorAddress.
        if (msg.sender != validator) revert NotValidator(requestHash, msg.sender);

        // ERC-8004 intermediate §Validation Response: callable many times; stores response, lastUpdate, tag.
        v.response = response;
        v.hasResponse = true;
        v.lastUpdate = uint40(block.timestamp);
        v.tag = tag;
        emit ValidationResponse(validator, v.agentId, requestHash, response, responseURI, responseHash, tag);
    }

    /// @inheritdoc IScoreValidationRegistry
    function getValidationStatus(bytes32 requestHash)
        external
        view
        returns (address validatorAddress, uint256 agentId, uint8 response, string memory tag, uint256 lastUpdate)
    {
        Validation storage v = _validations[requestHash];
        if (v.validator == address(0)) revert UnknownRequest(requestHash);
        return (v.validator, v.agentId, v.response, v.tag, v.lastUpdate);
    }

    /// @inheritdoc IScoreValidationRegistry
    function getSummary(uint256 agentId, address[] calldata validatorAddresses, string calldata tag)
        external
        view
        returns (uint64 count, uint8 averageResponse)
    {
        bytes32[] storage hashes = _agentValidations[agentId];
        bytes32 tagHash = keccak256(bytes(tag));
        uint256 total;
        for (uint256 i; i < hashes.length; ++i) {
            Validation storage v = _validations[hashes[i]];
            // Unanswered requests carry no response, not a response of 0.
            if (!v.hasResponse) continue;
            if (validatorAddresses.length != 0 && !_contains(validatorAddresses, v.validator)) continue;
            if (bytes(tag).length != 0 && keccak256(bytes(v.tag)) != tagHash) continue;
            total += v.response;
            ++count;
        }
        if (count != 0) averageResponse = uint8(total / count);
    }

    /// @inheritdoc IScoreValidationRegistry
    function getAgentValidations(uint256 agentId) external view returns (bytes32[] memory requestHashes) {
        return _agentValidations[agentId];
    }

    /// @inheritdoc IScoreValidationRegistry
    function getValidatorRequests(address validatorAddress) external view returns (bytes32[] memory requestHashes) {
        return _validatorRequests[validatorAddress];
    }

    function _isOwnerOrOperator(address who, uint256 agentId) private view returns (bool) {
        IERC721 identity = IERC721(_identityRegistry);
        address agentOwner;
        try identity.ownerOf(agentId) returns (address o) {
            agentOwner = o;
        } catch {
            revert AgentNotFound(agentId);
        }
        if (agentOwner == address(0)) revert AgentNotFound(agentId);
        return who == agentOwner || identity.isApprovedForAll(agentOwner, who) || identity.getApproved(agentId) == who;
    }

    function _contains(address[] calldata list, address a) private pure returns (bool) {
        for (uint256 i; i < list.length; ++i) {
            if (list[i] == a) return true;
        }
        return false;
    }
}
