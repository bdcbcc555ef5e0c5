// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title IIdentityRegistry
/// @notice ERC-8004 Identity Registry (ABI-compatible with the deployed v2 registries).
interface IIdentityRegistry {
    /// @notice One on-chain metadata entry passed to `register`.
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /// @notice Emitted once per new agent.
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    /// @notice Emitted whenever on-chain metadata (including the reserved `agentWallet` key) changes.
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );
    /// @notice Emitted when the agentURI changes.
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    /// @notice Mint a new agent with a URI and metadata entries.
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId);
    /// @notice Mint a new agent with a URI.
    function register(string calldata agentURI) external returns (uint256 agentId);
    /// @notice Mint a new agent without URI.
    function register() external returns (uint256 agentId);
    /// @notice Update the agentURI (owner or operator).
    function setAgentURI(uint256 agentId, string calldata newURI) external;
    /// @notice Read one metadata value; `agentWallet` yields the 20-byte packed wallet (or empty).
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory);
    /// @notice Write one metadata value (owner or operator); `agentWallet` is reserved.
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external;
    /// @notice Set the agent wallet, proven by an EIP-712 (EOA) or ERC-1271 (contract) signature of `newWallet`.
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external;
    /// @notice The agent wallet, or address(0) when cleared.
    function getAgentWallet(uint256 agentId) external view returns (address);
    /// @notice Clear the agent wallet (owner or operator).
    function unsetAgentWallet(uint256 agentId) external;
    /// @notice True when `spender` is the owner, an operator for all, or approved for `agentId`.
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool);
    /// @notice ERC-721 owner lookup (reverts for unknown agents).
    function ownerOf(uint256 agentId) external view returns (address);
}
