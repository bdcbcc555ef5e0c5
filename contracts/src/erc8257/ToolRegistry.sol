// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IToolRegistry, ToolConfig} from "../interfaces/IToolRegistry.sol";
import {IAccessPredicate} from "../interfaces/IAccessPredicate.sol";

/// @title ToolRegistry
/// @notice ERC-8257 tool registry. Tool ids start at 1; deregistration is permanent.
/// @dev Checks, in order: registerTool -> URI (1..2,048 bytes), hash (non-zero), predicate (ERC-165
///      ladder). update/set/deregister -> deregistered, exists, creator, then arguments.
///      Predicate calls are `staticcall`s capped at PREDICATE_GAS with a strict 32-byte bool decode.
contract ToolRegistry is IToolRegistry, IERC165 {
    /// @notice Metadata URI cap in bytes (ERC-8257 §Metadata URI Length Cap).
    uint256 public constant MAX_METADATA_URI_LENGTH = 2048;
    /// @notice Gas forwarded to a predicate's hasAccess (defence in depth; not normative).
    uint256 public constant PREDICATE_GAS = 300_000;
    /// @notice Gas forwarded to each ERC-165 probe (ERC-165 bounds supportsInterface at 30,000).
    uint256 public constant ERC165_PROBE_GAS = 30_000;

    struct Tool {
        address creator;
        bool deregistered;
        address accessPredicate;
        bytes32 manifestHash;
        string metadataURI;
    }

    uint256 private _toolCount;
    mapping(uint256 toolId => Tool) private _tools;

    /// @inheritdoc IToolRegistry
    function registerTool(string calldata metadataURI, bytes32 manifestHash, address accessPredicate)
        external
        returns (uint256 toolId)
    {
        _checkURI(metadataURI);
        if (manifestHash == bytes32(0)) revert InvalidManifestHash();
        _validatePredicate(accessPredicate);
        toolId = ++_toolCount;
        Tool storage t = _tools[toolId];
        t.creator = msg.sender;
        if (accessPredicate != address(0)) t.accessPredicate = accessPredicate;
        t.manifestHash = manifestHash;
        t.metadataURI = metadataURI;
        emit ToolRegistered(toolId, msg.sender, accessPredicate, metadataURI, manifestHash);
    }

    /// @inheritdoc IToolRegistry
    function deregisterTool(uint256 toolId) external {
        _requireCreator(toolId);
        delete _tools[toolId];
        _tools[toolId].deregistered = true;
        emit ToolDeregistered(toolId);
    }

    /// @inheritdoc IToolRegistry
    function updateToolMetadata(uint256 toolId, string calldata newURI, bytes32 newHash) external {
        Tool storage t = _requireCreator(toolId);
        _checkURI(newURI);
        if (newHash == bytes32(0)) revert InvalidManifestHash();
        bool uriChanged = bytes(t.metadataURI).length != bytes(newURI).length
            || keccak256(bytes(t.metadataURI)) != keccak256(bytes(newURI));
        bool hashChanged = t.manifestHash != newHash;
        // Idempotent calls write nothing and emit nothing.
        if (!uriChanged && !hashChanged) return;
        if (uriChanged) t.metadataURI = newURI;
        if (hashChanged) t.manifestHash = newHash;
        emit ToolMetadataUpdated(toolId, newURI, newHash);
    }

    /// @inheritdoc IToolRegistry
    function setAccessPredicate(uint256 toolId, address newPredicate) external {
        Tool storage t = _requireCreator(toolId);
        // Idempotent calls skip validation, write nothing and emit nothing.
        if (t.accessPredicate == newPredicate) return;
        _validatePredicate(newPredicate);
        t.accessPredicate = newPredicate;
        emit AccessPredicateUpdated(toolId, newPredicate);
    }

    /// @inheritdoc IToolRegistry
    function getToolConfig(uint256 toolId) external view returns (ToolConfig memory config) {
        Tool storage t = _requireExists(toolId);
        config = ToolConfig({
            creator: t.creator,
            metadataURI: t.metadataURI,
            manifestHash: t.manifestHash,
            accessPredicate: t.accessPredicate
        });
    }

    /// @inheritdoc IToolRegistry
    function hasAccess(uint256 toolId, address account, bytes calldata data) external view returns (bool) {
        (bool ok, bool granted) = _tryHasAccess(toolId, account, data);
        return ok && granted;
    }

    /// @inheritdoc IToolRegistry
    function tryHasAccess(uint256 toolId, address account, bytes calldata data)
        external
        view
        returns (bool ok, bool granted)
    {
        return _tryHasAccess(toolId, account, data);
    }

    /// @inheritdoc IToolRegistry
    function toolCount() external view returns (uint256) {
        return _toolCount;
    }

    /// @inheritdoc IToolRegistry
    function name() external pure returns (string memory) {
        return "CredenceToolRegistry";
    }

    /// @inheritdoc IToolRegistry
    function version() external pure returns (string memory) {
        return "1.0";
    }

    /// @notice ERC-165: IToolRegistry (0xf1dc8075) and IERC165.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IToolRegistry).interfaceId || interfaceId == type(IERC165).interfaceId;
    }

    // ───────────────────────────── Internals ─────────────────────────────

    function _tryHasAccess(uint256 toolId, address account, bytes calldata data)
        private
        view
        returns (bool ok, bool granted)
    {
        address predicate = _requireExists(toolId).accessPredicate;
        if (predicate == address(0)) return (true, true);
        // A zero-code predicate returns empty data: treated as a malfunction below.
        bytes memory payload = abi.encodeCall(IAccessPredicate.hasAccess, (toolId, account, data));
        (bool success, uint256 word, uint256 size) = _staticcallWord(predicate, payload, PREDICATE_GAS);
        if (!success || size != 32) return (false, false);
        if (word == 1) return (true, true);
        if (word == 0) return (true, false);
        return (false, false);
    }

    /// @dev Static call that copies at most one return word (a hostile predicate cannot force a large copy).
    function _staticcallWord(address target, bytes memory payload, uint256 gasCap)
        private
        view
        returns (bool success, uint256 word, uint256 size)
    {
        assembly ("memory-safe") {
            mstore(0x00, 0)
            success := staticcall(gasCap, target, add(payload, 0x20), mload(payload), 0x00, 0x20)
            size := returndatasize()
            word := mload(0x00)
        }
    }

    /// @dev ERC-8257 §Predicate Validation at Registration, steps 1-5.
    function _validatePredicate(address predicate) private view {
        if (predicate == address(0)) return; // 1. open access
        if (predicate.code.length == 0) return; // 2. zero code: accepted, unverifiable
        (bool ok, uint256 word, uint256 size) = _staticcallWord(
            predicate, abi.encodeCall(IERC165.supportsInterface, (type(IERC165).interfaceId)), ERC165_PROBE_GAS
        );
        // 3./4. a revert, a malformed answer or `false` means "does not advertise ERC-165": accepted.
        if (!ok || size < 32 || word != 1) return;
        // 5. self-declared ERC-165: MUST advertise IAccessPredicate.
        (ok, word, size) = _staticcallWord(
            predicate, abi.encodeCall(IERC165.supportsInterface, (type(IAccessPredicate).interfaceId)), ERC165_PROBE_GAS
        );
        if (!ok || size < 32 || word != 1) revert InvalidAccessPredicate(predicate);
    }

    function _checkURI(string calldata uri) private pure {
        uint256 len = bytes(uri).length;
        if (len == 0 || len > MAX_METADATA_URI_LENGTH) revert InvalidMetadataURI();
    }

    function _requireExists(uint256 toolId) private view returns (Tool storage t) {
        t = _tools[toolId];
        if (t.deregistered) revert ToolIsDeregistered(toolId);
        if (t.creator == address(0)) revert ToolNotFound(toolId);
    }

    function _requireCreator(uint256 toolId) private view returns (Tool storage t) {
        t = _requireExists(toolId);
        if (t.creator != msg.sender) revert NotToolCreator(toolId, msg.sender);
    }
}
