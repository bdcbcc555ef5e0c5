// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IAgentVerifier
/// @notice ERC-8274 outer, identity-bound verification layer.
interface IAgentVerifier {
    /// @notice Emitted on every verify() call, passing or failing, with the digest preimage.
    event VerificationCompleted(
        bytes32 indexed taskId,
        bytes32 indexed agentId,
        bytes32 indexed verificationDigest,
        bool valid,
        bytes32 inputHash,
        bytes32 outputHash,
        bytes32 agentProofProfile,
        uint256 timestamp,
        bytes instanceId,
        bytes chainId
    );

    /// @notice Verify an agent's inference claim for a task.
    function verify(bytes32 taskId, bytes32 agentId, bytes32 inputHash, bytes32 outputHash, bytes calldata proof)
        external
        returns (bool valid, bytes32 verificationDigest);
}
