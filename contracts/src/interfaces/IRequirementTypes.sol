// SPDX-License-Identifier: CC0-1.0
pragma solidity ^0.8.24;

// Marker interfaces whose interfaceId is the `kind` of an AccessRequirement (ERC-8257 Test Cases).
// Each is a single zero-argument function, so interfaceId == its selector.

/// @dev kind 0xbdf8c428; data = abi.encode(address collection)
interface IERC721Holding {
    function erc721Holding() external;
}

/// @dev kind 0xcb429230; data = abi.encode(address collection, uint256 tokenId)
interface IERC1155Holding {
    function erc1155Holding() external;
}

/// @dev kind 0x44387cc2; data = abi.encode(address collection, uint8 minTier)
interface ISubscription {
    function subscription() external;
}

/// @dev Credence kind for allowlists; data = abi.encode(address allowlistPredicate)
interface IAllowlistMembership {
    function allowlistMembership() external;
}

/// @dev Credence kind for the EIP-712 AccessProof pattern;
///      data = abi.encode(bytes32 domainSeparator); the caller passes abi.encode(uint64 deadline, bytes signature).
interface IAccessProofSignature {
    function accessProofSignature() external;
}
