// SPDX-License-Identifier: CC0-1.0
pragma solidity ^0.8.24;

/// @notice Onchain configuration for a registered tool (ERC-8257 §1).
struct ToolConfig {
    address creator;
    string metadataURI;
    bytes32 manifestHash;
    address accessPredicate;
}

/// @title IToolRegistry
/// @notice ERC-8257 minimal onchain registry for AI agent tools.
/// @dev ERC-165 interface ID: 0xf1dc8075
interface IToolRegistry {
    /// @notice Emitted when a new tool is registered.
    event ToolRegistered(
        uint256 indexed toolId,
        address indexed creator,
        address indexed accessPredicate,
        string metadataURI,
        bytes32 manifestHash
    );
    /// @notice Emitted when a tool's metadata URI and/or manifest hash is updated.
    event ToolMetadataUpdated(uint256 indexed toolId, string newURI, bytes32 newHash);
    /// @notice Emitted when a tool's access predicate is updated.
    event AccessPredicateUpdated(uint256 indexed toolId, address indexed newPredicate);
    /// @notice Emitted when a tool is permanently deregistered by its creator.
    event ToolDeregistered(uint256 indexed toolId);

    /// @notice The specified tool ID does not exist.
    error ToolNotFound(uint256 toolId);
    /// @notice Caller is not the tool's creator.
    error NotToolCreator(uint256 toolId, address caller);
    /// @notice The metadata URI is empty or longer than 2,048 bytes.
    error InvalidMetadataURI();
    /// @notice The manifest hash is bytes32(0).
    error InvalidManifestHash();
    /// @notice The predicate claims ERC-165 but does not advertise IAccessPredicate.
    error InvalidAccessPredicate(address predicate);
    /// @notice The tool has been permanently deregistered by its creator.
    error ToolIsDeregistered(uint256 toolId);

    /// @notice Register a new tool; the caller becomes its creator.
    function registerTool(string calldata metadataURI, bytes32 manifestHash, address accessPredicate)
        external
        returns (uint256 toolId);
    /// @notice Permanently deregister a tool (creator only).
    function deregisterTool(uint256 toolId) external;
    /// @notice Update a tool's metadata URI and manifest hash atomically (creator only).
    function updateToolMetadata(uint256 toolId, string calldata newURI, bytes32 newHash) external;
    /// @notice Update a tool's access predicate (creator only).
    function setAccessPredicate(uint256 toolId, address newPredicate) external;
    /// @notice Full configuration of a tool.
    function getToolConfig(uint256 toolId) external view returns (ToolConfig memory);
    /// @notice Whether `account` has access (malfunctions read as false).
    function hasAccess(uint256 toolId, address account, bytes calldata data) external view returns (bool);
    /// @notice Whether `account` has access, and whether the predicate answered canonically.
    function tryHasAccess(uint256 toolId, address account, bytes calldata data)
        external
        view
        returns (bool ok, bool granted);
    /// @notice Total number of registered tools (the highest assigned id).
    function toolCount() external view returns (uint256);
    /// @notice Human-readable implementation identifier.
    function name() external view returns (string memory);
    /// @notice Implementation version.
    function version() external view returns (string memory);
}
