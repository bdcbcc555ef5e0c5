// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {AccessPredicateBase} from "./AccessPredicateBase.sol";
import {AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";
import {IAccessProofSignature} from "../../interfaces/IRequirementTypes.sol";

/// @title AccessProofPredicate
/// @notice ERC-8257 §Concrete AccessProof Pattern: grants access when `data` carries an unexpired EIP-712
///         signature by `account` over AccessProof{toolId, account, deadline}.
/// @dev Domain {name: "ERC8257-AccessProof", version: "1", chainId, verifyingContract: this};
///      data = abi.encode(uint64 deadline, bytes signature). Malformed data is a clean denial.
contract AccessProofPredicate is AccessPredicateBase, EIP712 {
    /// @notice EIP-712 typehash of the challenge.
    bytes32 public constant ACCESS_PROOF_TYPEHASH =
        keccak256("AccessProof(uint256 toolId,address account,uint64 deadline)");

    constructor() EIP712("ERC8257-AccessProof", "1") {}

    /// @notice The EIP-712 digest the account signs.
    function accessProofDigest(uint256 toolId, address account, uint64 deadline) public view returns (bytes32) {
        return _hashTypedDataV4(keccak256(abi.encode(ACCESS_PROOF_TYPEHASH, toolId, account, deadline)));
    }

    /// @notice The EIP-712 domain separator.
    function domainSeparator() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    /// @notice True when `data` = abi.encode(deadline, sig), block.timestamp <= deadline, and sig recovers to `account`.
    function hasAccess(uint256 toolId, address account, bytes calldata data) external view returns (bool) {
        // Strict layout: [deadline][0x40][len][sig...]
        if (data.length < 96) return false;
        uint256 deadline = uint256(bytes32(data[0:32]));
        uint256 off = uint256(bytes32(data[32:64]));
        uint256 len = uint256(bytes32(data[64:96]));
        if (deadline > type(uint64).max || off != 0x40 || len > data.length - 96) return false;
        if (block.timestamp > deadline) return false;
        bytes calldata sig = data[96:96 + len];
        (address signer, ECDSA.RecoverError err,) =
            ECDSA.tryRecoverCalldata(accessProofDigest(toolId, account, uint64(deadline)), sig);
        return err == ECDSA.RecoverError.NoError && signer == account && account != address(0);
    }

    /// @notice Predicate identifier.
    function name() external pure returns (string memory) {
        return "AccessProofPredicate";
    }

    /// @notice One IAccessProofSignature requirement: abi.encode(domainSeparator).
    function getRequirements(uint256)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic)
    {
        return _single(
            type(IAccessProofSignature).interfaceId,
            abi.encode(_domainSeparatorV4()),
            "EIP-712 AccessProof signed by the account"
        );
    }
}
