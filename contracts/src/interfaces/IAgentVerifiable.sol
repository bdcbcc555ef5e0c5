// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAgentVerifier} from "./IAgentVerifier.sol";

/// @title IAgentVerifiable
/// @notice ERC-8274 declaration layer: which IAgentVerifier a contract uses.
interface IAgentVerifiable {
    /// @notice MUST be emitted when the agent verifier changes; data = abi.encode(previous, new).
    event AgentVerifierUpdated(bytes data);

    /// @notice The agent verifier used by this contract.
    function getAgentVerifier() external view returns (IAgentVerifier);
}
