// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IScoreValidationRegistry
/// @notice Validation Registry of the intermediate ERC-8004 revision (ethereum/ERCs acf085c):
///         requests keyed by requestHash, any number of 0..100 responses by the named validator.
/// @dev Every signature below is the revision's own code block (ERCS/erc-8004.md at acf085c); it
///      differs from the current revision in getValidationStatus, which does not return responseHash.
interface IScoreValidationRegistry {
    /// @notice The owner or an operator of agentId asked validatorAddress to validate.
    event ValidationRequest(
        address indexed validatorAddress, uint256 indexed agentId, string requestURI, bytes32 indexed requestHash
    );
    /// @notice The validator answered (all function parameters).
    event ValidationResponse(
        address indexed validatorAddress,
        uint256 indexed agentId,
        bytes32 indexed requestHash,
        uint8 response,
        string responseURI,
        bytes32 responseHash,
        string tag
    );

    /// @notice The identity registry given to the constructor.
    function getIdentityRegistry() external view returns (address identityRegistry);

    /// @notice Asks `validatorAddress` to validate; MUST be called by the owner or operator of agentId.
    function validationRequest(address validatorAddress, uint256 agentId, string calldata requestURI, bytes32 requestHash)
        external;

    /// @notice Answers a request; MUST be called by its validatorAddress; response 0..100; repeatable.
    function validationResponse(
        bytes32 requestHash,
        uint8 response,
        string calldata responseURI,
        bytes32 responseHash,
        string calldata tag
    ) external;

    /// @notice The stored state of a request.
    function getValidationStatus(bytes32 requestHash)
        external
        view
        returns (address validatorAddress, uint256 agentId, uint8 response, string memory tag, uint256 lastUpdate);

    /// @notice Count and average response of the answered requests of agentId matching the optional filters.
    function getSummary(uint256 agentId, address[] calldata validatorAddresses, string calldata tag)
        external
        view
        returns (uint64 count, uint8 averageResponse);

    /// @notice Every requestHash of agentId, in request order.
    function getAgentValidations(uint256 agentId) external view returns (bytes32[] memory requestHashes);

    /// @notice Every requestHash addressed to validatorAddress, in request order.
    function getValidatorRequests(address validatorAddress) external view returns (bytes32[] memory requestHashes);
}
