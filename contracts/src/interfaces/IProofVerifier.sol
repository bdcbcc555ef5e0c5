// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title IProofVerifier
/// @notice ERC-8274 inner, stateless proof verification layer.
interface IProofVerifier {
    /// @notice Verify an AI inference proof for (inputHash, outputHash).
    function verify(bytes32 inputHash, bytes32 outputHash, bytes calldata metadata, bytes calldata proof)
        external
        returns (bool);
    /// @notice Proof system identifier "{paradigm}/{variant}".
    function proofSystem() external view returns (string memory);
    /// @notice Collision-resistant identifier of this deployment.
    function proofProfile() external view returns (bytes32);
}
