// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IValidationRegistry} from "../interfaces/IValidationRegistry.sol";
import {IIdentityRegistry} from "../interfaces/IIdentityRegistry.sol";

/// @title ValidationRegistry
/// @notice ERC-8004 Validation Registry, ABI-compatible with the deployed v2 registries.
/// @dev One packed slot per request {validator, response, hasResponse, lastUpdate}; agentId,
///      responseHash and tag are written only when non-zero / non-empty. Paginated reads are added.
contract ValidationRegistry is IValidationRegistry {
    /// @notice `initialize` was already called (or the constructor set the registry).
    error AlreadyInitialized();
    /// @notice The identity registry is the zero address or unset.
    error InvalidIdentityRegistry();
    /// @notice validatorAddress is the zero address.
    error InvalidValidator();
    /// @notice requestHash was already used.
    error RequestExists(bytes32 requestHash);
    /// @notice requestHash is unknown.
    error UnknownRequest(bytes32 requestHash);
    /// @notice Caller is not the owner or an operator of the agent.
    error NotAuthorized(uint256 agentId, address caller);
    /// @notice Caller is not the validator named in the request.
    error NotValidator(bytes32 requestHash, address caller);
    /// @notice response > 100.
    error ResponseOutOfRange(uint8 response);

    struct Validation {
        address validator;
        uint8 response;
        bool hasResponse;
        uint40 lastUpdate;
        uint256 agentId;
        bytes32 responseHash;
        string tag;
    }

    uint256 private constant _MAX_PAGE = 1000;

    address private _identityRegistry;
    mapping(bytes32 requestHash => Validation) private _validations;
    mapping(uint256 agentId => bytes32[]) private _agentValidations;
    mapping(address validator => bytes32[]) private _validatorRequests;

    /// @param identityRegistry_ The identity registry; address(0) leaves it to `initialize`.
    constructor(address identityRegistry_) {
        _identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IValidationRegistry
    function initialize(address identityRegistry_) external {
        if (_identityRegistry != address(0)) revert AlreadyInitialized();
        if (identityRegistry_ == address(0)) revert InvalidIdentityRegistry();
        _identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IValidationRegistry
    function getIdentityRegistry() external view returns (address) {
        return _identityRegistry;
    }

    /// @inheritdoc IValidationRegistry
    function validationRequest(
        address validatorAddress,
        uint256 agentId,
        string calldata requestURI,
        bytes32 requestHash
    ) external {
        if (validatorAddress == address(0)) revert InvalidValidator();
        Validation storage v = _validations[requestHash];
        if (v.validator != address(0)) revert RequestExists(requestHash);
        address identity = _identityRegistry;
        if (identity == address(0)) revert InvalidIdentityRegistry();
        // ERC-8004: MUST be called by the owner or operator of agentId (reverts for unknown agents).
        if (!IIdentityRegistry(identity).isAuthorizedOrOwner(msg.sender, agentId)) {
            revert NotAuthorized(agentId, msg.sender);
        }
        v.validator = validatorAddress;
        v.lastUpdate = uint40(block.timestamp);
        if (agentId != 0) v.agentId = agentId;
        _agentValidations[agentId].push(requestHash);
        _validatorRequests[validatorAddress].push(requestHash);
        emit ValidationRequest(validatorAddress, agentId, requestURI, requestHash);
    }

    /// @inheritdoc IValidationRegistry
    function validationResponse(
        bytes32 requestHash,
        uint8 response,
        string calldata responseURI,
        bytes32 responseHash,
        string calldata tag
    ) external {
        if (response > 100) revert ResponseOutOfRange(response);
        Validation storage v = _validations[requestHash];
        address validator = v.validator;
        if (validator == address(0)) revert UnknownRequest(requestHash);
        if (msg.sender != validator) revert NotValidator(requestHash, msg.sender);
        v.response = response;
        v.hasResponse = true;
        v.lastUpdate = uint40(block.timestamp);
        if (v.responseHash != responseHash) v.responseHash = responseHash;
        if (bytes(tag).length != 0 || bytes(v.tag).length != 0) v.tag = tag;
        emit ValidationResponse(validator, v.agentId, requestHash, response, responseURI, responseHash, tag);
    }

    /// @inheritdoc IValidationRegistry
    function getValidationStatus(bytes32 requestHash)
        external
        view
        returns (
            address validatorAddress,
            uint256 agentId,
            uint8 response,
            bytes32 responseHash,
            string memory tag,
            uint256 lastUpdate
        )
    {
        Validation storage v = _validations[requestHash];
        validatorAddress = v.validator;
        if (validatorAddress == address(0)) revert UnknownRequest(requestHash);
        return (validatorAddress, v.agentId, v.response, v.responseHash, v.tag, v.lastUpdate);
    }

    /// @inheritdoc IValidationRegistry
    function getSummary(uint256 agentId, address[] calldata validatorAddresses, string calldata tag)
        external
        view
        returns (uint64 count, uint8 averageResponse)
    {
        bytes32[] storage hashes = _agentValidations[agentId];
        bool filterTag = bytes(tag).length != 0;
        bytes32 tagHash = keccak256(bytes(tag));
        uint256 total;
        uint256 n = hashes.length;
        for (uint256 i; i < n; ++i) {
            Validation storage v = _validations[hashes[i]];
            if (!v.hasResponse) continue;
            if (validatorAddresses.length != 0) {
                bool found;
                address val = v.validator;
                for (uint256 j; j < validatorAddresses.length; ++j) {
                    if (validatorAddresses[j] == val) {
                        found = true;
                        break;
                    }
                }
                if (!found) continue;
            }
            if (filterTag && keccak256(bytes(v.tag)) != tagHash) continue;
            total += v.response;
            ++count;
        }
        averageResponse = count == 0 ? 0 : uint8(total / count);
    }

    /// @inheritdoc IValidationRegistry
    function getAgentValidations(uint256 agentId) external view returns (bytes32[] memory) {
        return _agentValidations[agentId];
    }

    /// @inheritdoc IValidationRegistry
    function getValidatorRequests(address validatorAddress) external view returns (bytes32[] memory) {
        return _validatorRequests[validatorAddress];
    }

    /// @notice A page `[offset, offset+limit)` of an agent's request hashes (limit capped at 1000).
    function getAgentValidationsPage(uint256 agentId, uint256 offset, uint256 limit)
        external
        view
        returns (bytes32[] memory page, uint256 total)
    {
        return _page(_agentValidations[agentId], offset, limit);
    }

    /// @notice A page `[offset, offset+limit)` of a validator's request hashes (limit capped at 1000).
    function getValidatorRequestsPage(address validatorAddress, uint256 offset, uint256 limit)
        external
        view
        returns (bytes32[] memory page, uint256 total)
    {
        return _page(_validatorRequests[validatorAddress], offset, limit);
    }

    function _page(bytes32[] storage list, uint256 offset, uint256 limit)
        private
        view
        returns (bytes32[] memory page, uint256 total)
    {
        total = list.length;
        if (limit > _MAX_PAGE) limit = _MAX_PAGE;
        if (offset >= total) return (new bytes32[](0), total);
        uint256 end = offset + limit > total ? total : offset + limit;
        page = new bytes32[](end - offset);
        for (uint256 i = offset; i < end; ++i) {
            page[i - offset] = list[i];
        }
    }
}
