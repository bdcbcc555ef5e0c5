// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IDraftValidationRegistry
/// @notice Validation Registry of the ERC-8004 first draft: requests keyed by DataHash, kept pending
///         for a fixed number of seconds, answered once by the validator agent with 0..100.
/// @dev Parameters and the ValidationResponse event name are the draft's; Solidity names, the event
///      indexing, the Request tuple and the readers follow ChaosChain/trustless-agents-erc-ri 1d9bbfa
///      (whose events carry an `Event` suffix; the draft names the response event `ValidationResponse`,
///      and Credence names the request event `ValidationRequest` to match). See contracts/README.md.
interface IDraftValidationRegistry {
    /// @notice A stored request. Returned as the tuple (uint256,uint256,bytes32,uint256,bool).
    struct Request {
        uint256 agentValidatorId;
        uint256 agentServerId;
        bytes32 dataHash;
        uint256 timestamp;
        bool responded;
    }

    /// @notice ERC-8004 first draft §Validation Registry: (AgentValidatorID, AgentServerID, DataHash).
    event ValidationRequest(uint256 indexed agentValidatorId, uint256 indexed agentServerId, bytes32 indexed dataHash);
    /// @notice ERC-8004 first draft §Validation Responses: (AgentValidatorID, AgentServerID, DataHash, Response).
    event ValidationResponse(
        uint256 indexed agentValidatorId, uint256 indexed agentServerId, bytes32 indexed dataHash, uint8 response
    );

    /// @notice ValidationRequest(AgentValidatorID, AgentServerID, DataHash), called by the server agent.
    function validationRequest(uint256 agentValidatorId, uint256 agentServerId, bytes32 dataHash) external;

    /// @notice ValidationResponse(DataHash, Response), called by the validator agent's address while the
    ///         request is pending; 0 ≤ response ≤ 100.
    function validationResponse(bytes32 dataHash, uint8 response) external;

    /// @notice The last request stored under `dataHash`. Reverts when there is none.
    function getValidationRequest(bytes32 dataHash) external view returns (Request memory request);

    /// @notice Whether a request exists under `dataHash`, and whether it still awaits a response.
    function isValidationPending(bytes32 dataHash) external view returns (bool exists, bool pending);

    /// @notice The response recorded for the request under `dataHash`, if any.
    function getValidationResponse(bytes32 dataHash) external view returns (bool hasResponse, uint8 response);

    /// @notice X of the draft: how many seconds a request stays pending (the RI's name, in seconds).
    function getExpirationSlots() external view returns (uint256 slots);
}
