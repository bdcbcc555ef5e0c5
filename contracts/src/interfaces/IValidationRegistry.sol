// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IValidationRegistry
/// @notice ERC-8004 Validation Registry (ABI-compatible with the deployed v2 registries).
interface IValidationRegistry {
    /// @notice Emitted for each validation request.
    event ValidationRequest(
        address indexed validatorAddress, uint256 indexed agentId, string requestURI, bytes32 indexed requestHash
    );
    /// @notice Emitted for each validation response.
    event ValidationResponse(
        address indexed validatorAddress,
        uint256 indexed agentId,
        bytes32 indexed requestHash,
        uint8 response,
        string responseURI,
        bytes32 responseHash,
        string tag
    );

    /// @notice Bind the identity registry (one time only).
    function initialize(address identityRegistry_) external;
    /// @notice The identity registry.
    function getIdentityRegistry() external view returns (address);
    /// @notice Request a validation (owner or operator of `agentId`).
    function validationRequest(
        address validatorAddress,
        uint256 agentId,
        string calldata requestURI,
        bytes32 requestHash
    ) external;
    /// @notice Respond to a request (named validator only; repeatable).
    function validationResponse(
        bytes32 requestHash,
        uint8 response,
        string calldata responseURI,
        bytes32 responseHash,
        string calldata tag
    ) external;
    /// @notice Status of one request.
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
        );
    /// @notice Aggregate responded validations of an agent.
    function getSummary(uint256 agentId, address[] calldata validatorAddresses, string calldata tag)
        external
        view
        returns (uint64 count, uint8 averageResponse);
    /// @notice All request hashes of an agent.
    function getAgentValidations(uint256 agentId) external view returns (bytes32[] memory requestHashes);
    /// @notice All request hashes addressed to a validator.
    function getValidatorRequests(address validatorAddress) external view returns (bytes32[] memory requestHashes);
}
