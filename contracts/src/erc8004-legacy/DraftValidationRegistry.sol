// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IDraftValidationRegistry} from "./interfaces/IDraftValidationRegistry.sol";
import {IDraftIdentityRegistry} from "./interfaces/IDraftIdentityRegistry.sol";

/// @title DraftValidationRegistry
/// @notice ERC-8004 first draft Validation Registry: a server agent asks a validator agent to check
///         the work committed to by DataHash; the validator answers 0..100 within X seconds.
/// @dev X is fixed at deployment. A request is pending from its block timestamp t while
///      block.timestamp < t + X and it has no response; one response closes it. A DataHash whose
///      request expired or was answered can be requested again (the old tuple is replaced).
contract DraftValidationRegistry is IDraftValidationRegistry {
    /// @notice The identity registry address is zero, or X is zero.
    error InvalidConfiguration();
    /// @notice DataHash is zero.
    error InvalidDataHash();
    /// @notice The caller is not the AgentAddress of the agent it acts for.
    error UnauthorizedCaller(address caller, address agentAddress);
    /// @notice Validator and server are the same agent.
    error SelfValidationNotAllowed(uint256 agentId);
    /// @notice A request under this DataHash is still pending.
    error RequestPending(bytes32 dataHash);
    /// @notice No request is stored under this DataHash.
    error RequestNotFound(bytes32 dataHash);
    /// @notice The request is no longer in the contract's memory (expired or already answered).
    error RequestNotPending(bytes32 dataHash);
    /// @notice response > 100.
    error ResponseOutOfRange(uint8 response);

    IDraftIdentityRegistry private immutable _identity;
    uint256 private immutable _ttl;
    mapping(bytes32 dataHash => Request) private _requests;
    mapping(bytes32 dataHash => uint8) private _responses;

    /// @param identityRegistry The DraftIdentityRegistry whose agent ids this registry uses.
    /// @param requestTtlSeconds X of the draft: how long a request stays pending.
    constructor(address identityRegistry, uint256 requestTtlSeconds) {
        if (identityRegistry == address(0) || requestTtlSeconds == 0) revert InvalidConfiguration();
        _identity = IDraftIdentityRegistry(identityRegistry);
        _ttl = requestTtlSeconds;
    }

    /// @notice The identity registry this registry resolves agent ids with.
    function getIdentityRegistry() external view returns (address) {
        return address(_identity);
    }

    /// @inheritdoc IDraftValidationRegistry
    function validationRequest(uint256 agentValidatorId, uint256 agentServerId, bytes32 dataHash) external {
        if (dataHash == bytes32(0)) revert InvalidDataHash();
        // ERC-8004 first draft §Participants: validator and server are registered agents.
        _identity.getAgent(agentValidatorId);
        address server = _identity.getAgent(agentServerId).agentAddress;
        // Credence rule: the Server Agent asks for validation of its own work (§Validation Requests:
        // the server lists its requests in its AgentCard), so nobody else can occupy its DataHash.
        if (msg.sender != server) revert UnauthorizedCaller(msg.sender, server);
        if (agentValidatorId == agentServerId) revert SelfValidationNotAllowed(agentServerId);
        if (_isPending(_requests[dataHash])) revert RequestPending(dataHash);

        // ERC-8004 first draft §Validation Registry: store the tuple for X seconds.
        _requests[dataHash] = Request(agentValidatorId, agentServerId, dataHash, block.timestamp, false);
        delete _responses[dataHash];
        emit ValidationRequest(agentValidatorId, agentServerId, dataHash);
    }

    /// @inheritdoc IDraftValidationRegistry
    function validationResponse(bytes32 dataHash, uint8 response) external {
        // ERC-8004 first draft §Validation Responses: Response is an Int 0 ≤ x ≤ 100.
        if (response > 100) revert ResponseOutOfRange(response);
        Request storage r = _requests[dataHash];
        // ERC-8004 first draft §Validation Responses: fail if DataHash is no longer in memory.
        if (!_isPending(r)) revert RequestNotPending(dataHash);
        uint256 validatorId = r.agentValidatorId;
        // ERC-8004 first draft §Validation Responses: AgentValidatorAddress calls (or subcalls) it.
        address validator = _identity.getAgent(validatorId).agentAddress;
        if (msg.sender != validator) revert UnauthorizedCaller(msg.sender, validator);

        r.responded = true;
        _responses[dataHash] = response;
        emit ValidationResponse(validatorId, r.agentServerId, dataHash, response);
    }

    /// @inheritdoc IDraftValidationRegistry
    function getValidationRequest(bytes32 dataHash) external view returns (Request memory request) {
        request = _requests[dataHash];
        if (request.agentValidatorId == 0) revert RequestNotFound(dataHash);
    }

    /// @inheritdoc IDraftValidationRegistry
    function isValidationPending(bytes32 dataHash) external view returns (bool exists, bool pending) {
        Request storage r = _requests[dataHash];
        exists = r.agentValidatorId != 0;
        pending = _isPending(r);
    }

    /// @inheritdoc IDraftValidationRegistry
    function getValidationResponse(bytes32 dataHash) external view returns (bool hasResponse, uint8 response) {
        Request storage r = _requests[dataHash];
        hasResponse = r.agentValidatorId != 0 && r.responded;
        if (hasResponse) response = _responses[dataHash];
    }

    /// @inheritdoc IDraftValidationRegistry
    function getExpirationSlots() external view returns (uint256 slots) {
        return _ttl;
    }

    function _isPending(Request storage r) private view returns (bool) {
        return r.agentValidatorId != 0 && !r.responded && block.timestamp < r.timestamp + _ttl;
    }
}
