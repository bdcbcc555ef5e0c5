// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {IProofVerifier} from "../../interfaces/IProofVerifier.sol";
import {IAgentVerifier} from "../../interfaces/IAgentVerifier.sol";

/// @title ECDSAAttestationVerifier
/// @notice ERC-8274 attestation verifier (`attestation/ecdsa`): a registered attester signs EIP-712
///         typed data over the claim. Implements both layers:
///         - IProofVerifier: signature over Attestation(bytes32 inputHash,bytes32 outputHash);
///           `metadata` is empty (any registered attester) or abi.encode(address) (that attester only).
///         - IAgentVerifier: signature over
///           AgentAttestation(bytes32 taskId,bytes32 agentId,bytes32 inputHash,bytes32 outputHash),
///           i.e. also over the run (taskId) and the agent; emits VerificationCompleted on every call.
/// @dev Hash scheme (ERC-8274 §verify): inputHash / outputHash are opaque 32-byte commitments
///      (keccak256 of the plaintexts in Credence). Proof = a 65-byte (r,s,v) signature; low-s enforced.
///      Domain: {name: "CredenceECDSAVerifier", version: "1", chainId, verifyingContract}.
contract ECDSAAttestationVerifier is IProofVerifier, IAgentVerifier, IERC165, EIP712, Ownable {
    /// @notice Emitted when an attester is added or removed.
    event AttesterSet(address indexed attester, bool enabled);

    /// @notice Typehash of the inner (IProofVerifier) statement.
    bytes32 public constant ATTESTATION_TYPEHASH = keccak256("Attestation(bytes32 inputHash,bytes32 outputHash)");
    /// @notice Typehash of the outer (IAgentVerifier) statement.
    bytes32 public constant AGENT_ATTESTATION_TYPEHASH =
        keccak256("AgentAttestation(bytes32 taskId,bytes32 agentId,bytes32 inputHash,bytes32 outputHash)");

    bytes32 private immutable _deploymentSalt;
    mapping(address attester => bool) private _attesters;

    /// @param initialOwner Manages the attester set.
    /// @param attesters Initial attesters.
    /// @param deploymentSalt Backend constant folded into proofProfile().
    constructor(address initialOwner, address[] memory attesters, bytes32 deploymentSalt)
        EIP712("CredenceECDSAVerifier", "1")
        Ownable(initialOwner)
    {
        _deploymentSalt = deploymentSalt;
        for (uint256 i; i < attesters.length; ++i) {
            _attesters[attesters[i]] = true;
            emit AttesterSet(attesters[i], true);
        }
    }

    /// @notice Add or remove an attester (owner only).
    function setAttester(address attester, bool enabled) external onlyOwner {
        _attesters[attester] = enabled;
        emit AttesterSet(attester, enabled);
    }

    /// @notice Whether `attester` is registered.
    function isAttester(address attester) external view returns (bool) {
        return _attesters[attester];
    }

    /// @notice EIP-712 digest of the inner statement.
    function attestationDigest(bytes32 inputHash, bytes32 outputHash) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(ATTESTATION_TYPEHASH, inputHash, outputHash)));
    }

    /// @notice EIP-712 digest of the outer statement.
    function agentAttestationDigest(bytes32 taskId, bytes32 agentId, bytes32 inputHash, bytes32 outputHash)
        public
        view
        returns (bytes32)
    {
        return
            _hashTypedDataV4(keccak256(abi.encode(AGENT_ATTESTATION_TYPEHASH, taskId, agentId, inputHash, outputHash)));
    }

    /// @inheritdoc IProofVerifier
    function verify(bytes32 inputHash, bytes32 outputHash, bytes calldata metadata, bytes calldata proof)
        external
        view
        returns (bool)
    {
        address signer = _recover(attestationDigest(inputHash, outputHash), proof);
        if (signer == address(0) || !_attesters[signer]) return false;
        if (metadata.length == 32) return signer == abi.decode(metadata, (address));
        return metadata.length == 0;
    }

    /// @inheritdoc IAgentVerifier
    function verify(bytes32 taskId, bytes32 agentId, bytes32 inputHash, bytes32 outputHash, bytes calldata proof)
        external
        returns (bool valid, bytes32 verificationDigest)
    {
        address signer = _recover(agentAttestationDigest(taskId, agentId, inputHash, outputHash), proof);
        valid = signer != address(0) && _attesters[signer];
        bytes32 profile = proofProfile();
        bytes memory instanceId = abi.encodePacked(address(this));
        bytes memory chainId = abi.encode(block.chainid);
        verificationDigest = keccak256(
            abi.encode(taskId, agentId, inputHash, outputHash, valid, profile, block.timestamp, instanceId, chainId)
        );
        emit VerificationCompleted(
            taskId,
            agentId,
            verificationDigest,
            valid,
            inputHash,
            outputHash,
            profile,
            block.timestamp,
            instanceId,
            chainId
        );
    }

    /// @inheritdoc IProofVerifier
    function proofSystem() public pure returns (string memory) {
        return "attestation/ecdsa";
    }

    /// @inheritdoc IProofVerifier
    function proofProfile() public view returns (bytes32) {
        return keccak256(abi.encodePacked(proofSystem(), _deploymentSalt));
    }

    /// @notice ERC-165: IProofVerifier, IAgentVerifier, IERC165.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IProofVerifier).interfaceId || interfaceId == type(IAgentVerifier).interfaceId
            || interfaceId == type(IERC165).interfaceId;
    }

    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address) {
        (address signer, ECDSA.RecoverError err,) = ECDSA.tryRecoverCalldata(digest, sig);
        return err == ECDSA.RecoverError.NoError ? signer : address(0);
    }
}
