// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC721Metadata} from "@openzeppelin/contracts/token/ERC721/extensions/IERC721Metadata.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";
import {IIdentityRegistry} from "../interfaces/IIdentityRegistry.sol";

/// @title IdentityRegistry
/// @notice ERC-8004 Identity Registry: an ERC-721 (with URI storage) whose tokens are agents.
/// @dev Drop-in ABI equal of the deployed v2 registries (selectors, events, EIP-712 domain
///      `ERC8004IdentityRegistry`/`1`, typehash `AgentWalletSet(...)`, first agentId 0).
///      Storage is packed for gas: one slot per agent holds the owner, the agent-wallet mode and the
///      URI length; the URI bytes follow in ceil(len/32) slots at a keccak-derived base; the wallet
///      slot is written at mint so later wallet changes are cheap. See docs/compatibility.md.
contract IdentityRegistry is IIdentityRegistry, IERC721Metadata, IERC721Errors, EIP712 {
    /// @notice The reserved metadata key was used in `setMetadata` or `register`.
    error ReservedMetadataKey();
    /// @notice Caller is neither owner nor operator of the agent.
    error NotAuthorized(uint256 agentId, address caller);
    /// @notice `newWallet` is the zero address.
    error InvalidWallet();
    /// @notice Signature deadline already passed.
    error DeadlineExpired(uint256 deadline);
    /// @notice Signature deadline is more than 5 minutes in the future.
    error DeadlineTooFar(uint256 deadline);
    /// @notice The wallet signature (EIP-712 or ERC-1271) does not verify.
    error InvalidWalletSignature();
    /// @notice A URI longer than 2^32-1 bytes (cannot be stored within any block gas limit anyway).
    error URITooLong();

    /// @dev EIP-712 typehash of the wallet proof, equal to the deployed registries'.
    bytes32 public constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    uint256 private constant _MAX_DEADLINE_DELAY = 5 minutes;
    bytes32 private constant _AGENT_WALLET_KEY_HASH = keccak256("agentWallet");
    /// @dev Seed of the keccak-derived base slot of an agent's URI bytes.
    bytes32 private constant _URI_SEED = keccak256("credence.identity.uri");

    uint8 private constant _WALLET_NONE = 0;
    uint8 private constant _WALLET_OWNER = 1;
    uint8 private constant _WALLET_CUSTOM = 2;

    /// @dev One slot per agent: owner (20 bytes), wallet mode (1), URI length (4).
    struct Agent {
        address owner;
        uint8 walletMode;
        uint32 uriLength;
    }

    mapping(uint256 agentId => Agent) private _agents;
    mapping(address owner => uint256) private _balances;
    mapping(uint256 agentId => address) private _tokenApprovals;
    mapping(address owner => mapping(address operator => bool)) private _operatorApprovals;
    mapping(uint256 agentId => address) private _customWallets;
    mapping(uint256 agentId => mapping(string key => bytes)) private _metadata;
    /// @dev Next agentId plus one, kept non-zero so that the first mint pays no zero-to-non-zero SSTORE.
    uint256 private _nextIdPlusOne = 1;

    constructor() EIP712("ERC8004IdentityRegistry", "1") {}

    // ───────────────────────────── Registration ─────────────────────────────

    /// @inheritdoc IIdentityRegistry
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        agentId = _mint(agentURI);
        for (uint256 i; i < metadata.length; ++i) {
            string calldata key = metadata[i].metadataKey;
            if (keccak256(bytes(key)) == _AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey();
            _metadata[agentId][key] = metadata[i].metadataValue;
            emit MetadataSet(agentId, key, key, metadata[i].metadataValue);
        }
        emit Registered(agentId, agentURI, msg.sender);
        ERC721Utils.checkOnERC721Received(msg.sender, address(0), msg.sender, agentId, "");
    }

    /// @inheritdoc IIdentityRegistry
    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _mint(agentURI);
        emit Registered(agentId, agentURI, msg.sender);
        ERC721Utils.checkOnERC721Received(msg.sender, address(0), msg.sender, agentId, "");
    }

    /// @inheritdoc IIdentityRegistry
    function register() external returns (uint256 agentId) {
        agentId = _mint("");
        emit Registered(agentId, "", msg.sender);
        ERC721Utils.checkOnERC721Received(msg.sender, address(0), msg.sender, agentId, "");
    }

    // ───────────────────────────── URI / metadata ─────────────────────────────

    /// @inheritdoc IIdentityRegistry
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        Agent storage a = _requireAuthorized(agentId);
        a.uriLength = _uriLength(newURI);
        _writeURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @inheritdoc IIdentityRegistry
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        if (keccak256(bytes(metadataKey)) == _AGENT_WALLET_KEY_HASH) {
            address wallet = _walletOf(agentId);
            return wallet == address(0) ? bytes("") : abi.encodePacked(wallet);
        }
        return _metadata[agentId][metadataKey];
    }

    /// @inheritdoc IIdentityRegistry
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _requireAuthorized(agentId);
        if (keccak256(bytes(metadataKey)) == _AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey();
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    // ───────────────────────────── Agent wallet ─────────────────────────────

    /// @inheritdoc IIdentityRegistry
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        if (newWallet == address(0)) revert InvalidWallet();
        if (block.timestamp > deadline) revert DeadlineExpired(deadline);
        if (deadline > block.timestamp + _MAX_DEADLINE_DELAY) revert DeadlineTooFar(deadline);
        Agent storage a = _requireAuthorized(agentId);
        address owner_ = a.owner;
        bytes32 digest =
            _hashTypedDataV4(keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, owner_, deadline)));
        // EIP-712 (ECDSA) for EOAs, ERC-1271 for contract wallets.
        if (!SignatureChecker.isValidSignatureNowCalldata(newWallet, digest, signature)) {
            revert InvalidWalletSignature();
        }
        if (newWallet == owner_) {
            a.walletMode = _WALLET_OWNER;
        } else {
            a.walletMode = _WALLET_CUSTOM;
            _customWallets[agentId] = newWallet;
        }
        emit MetadataSet(agentId, "agentWallet", "agentWallet", abi.encodePacked(newWallet));
    }

    /// @inheritdoc IIdentityRegistry
    /// @dev An unknown agent has no wallet: address(0), as the deployed registries answer and as
    ///      `getMetadata(agentId, "agentWallet")` answers (empty), rather than a revert.
    function getAgentWallet(uint256 agentId) external view returns (address) {
        return _walletOf(agentId);
    }

    /// @inheritdoc IIdentityRegistry
    function unsetAgentWallet(uint256 agentId) external {
        Agent storage a = _requireAuthorized(agentId);
        if (a.walletMode != _WALLET_NONE) {
            a.walletMode = _WALLET_NONE;
            emit MetadataSet(agentId, "agentWallet", "agentWallet", "");
        }
    }

    /// @inheritdoc IIdentityRegistry
    function isAuthorizedOrOwner(address spender, uint256 agentId) external view returns (bool) {
        address owner_ = _requireOwned(agentId);
        return _isAuthorized(owner_, spender, agentId);
    }

    /// @notice The id the next `register` call will assign.
    function nextAgentId() external view returns (uint256) {
        return _nextIdPlusOne - 1;
    }

    // ───────────────────────────── ERC-721 ─────────────────────────────

    /// @notice ERC-165 detection for ERC-721, ERC-721 Metadata and ERC-165.
    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC721).interfaceId || interfaceId == type(IERC721Metadata).interfaceId
            || interfaceId == type(IERC165).interfaceId;
    }

    /// @notice Collection name, equal to the deployed registries'.
    function name() external pure returns (string memory) {
        return "AgentIdentity";
    }

    /// @notice Collection symbol, equal to the deployed registries'.
    function symbol() external pure returns (string memory) {
        return "AGENT";
    }

    /// @notice The agentURI of an agent (empty when registered without one).
    function tokenURI(uint256 agentId) external view returns (string memory uri) {
        _requireOwned(agentId);
        uint256 len = _agents[agentId].uriLength;
        uri = new string(len);
        bytes32 base = _uriBase(agentId);
        assembly ("memory-safe") {
            let dst := add(uri, 0x20)
            for { let i := 0 } lt(shl(5, i), len) { i := add(i, 1) } {
                mstore(add(dst, shl(5, i)), sload(add(base, i)))
            }
        }
    }

    /// @notice ERC-721 balance.
    function balanceOf(address owner_) external view returns (uint256) {
        if (owner_ == address(0)) revert ERC721InvalidOwner(address(0));
        return _balances[owner_];
    }

    /// @inheritdoc IIdentityRegistry
    function ownerOf(uint256 agentId) public view override(IERC721, IIdentityRegistry) returns (address) {
        return _requireOwned(agentId);
    }

    /// @notice ERC-721 approve.
    function approve(address to, uint256 agentId) external {
        address owner_ = _requireOwned(agentId);
        if (msg.sender != owner_ && !_operatorApprovals[owner_][msg.sender]) revert ERC721InvalidApprover(msg.sender);
        _tokenApprovals[agentId] = to;
        emit Approval(owner_, to, agentId);
    }

    /// @notice ERC-721 getApproved.
    function getApproved(uint256 agentId) external view returns (address) {
        _requireOwned(agentId);
        return _tokenApprovals[agentId];
    }

    /// @notice ERC-721 setApprovalForAll.
    function setApprovalForAll(address operator, bool approved) external {
        if (operator == address(0)) revert ERC721InvalidOperator(operator);
        _operatorApprovals[msg.sender][operator] = approved;
        emit ApprovalForAll(msg.sender, operator, approved);
    }

    /// @notice ERC-721 isApprovedForAll.
    function isApprovedForAll(address owner_, address operator) external view returns (bool) {
        return _operatorApprovals[owner_][operator];
    }

    /// @notice ERC-721 transferFrom; clears the agent wallet.
    function transferFrom(address from, address to, uint256 agentId) public {
        _transfer(from, to, agentId);
    }

    /// @notice ERC-721 safeTransferFrom; clears the agent wallet.
    function safeTransferFrom(address from, address to, uint256 agentId) external {
        _transfer(from, to, agentId);
        ERC721Utils.checkOnERC721Received(msg.sender, from, to, agentId, "");
    }

    /// @notice ERC-721 safeTransferFrom with data; clears the agent wallet.
    function safeTransferFrom(address from, address to, uint256 agentId, bytes calldata data) external {
        _transfer(from, to, agentId);
        ERC721Utils.checkOnERC721Received(msg.sender, from, to, agentId, data);
    }

    // ───────────────────────────── Internals ─────────────────────────────

    function _mint(string memory agentURI) private returns (uint256 agentId) {
        uint256 nextPlusOne = _nextIdPlusOne;
        agentId = nextPlusOne - 1;
        unchecked {
            _nextIdPlusOne = nextPlusOne + 1;
            _balances[msg.sender] += 1;
        }
        uint256 len = bytes(agentURI).length;
        if (len > type(uint32).max) revert URITooLong();
        _agents[agentId] = Agent({owner: msg.sender, walletMode: _WALLET_OWNER, uriLength: uint32(len)});
        // Pre-fill the custom-wallet slot (read only in _WALLET_CUSTOM mode) so that a later
        // setAgentWallet is a non-zero to non-zero SSTORE, like the deployed registries' layout.
        _customWallets[agentId] = msg.sender;
        if (len != 0) _writeURIMemory(agentId, agentURI);
        emit Transfer(address(0), msg.sender, agentId);
        // The agent wallet starts as the owner: reserved key, 20-byte packed value.
        emit MetadataSet(agentId, "agentWallet", "agentWallet", abi.encodePacked(msg.sender));
    }

    function _transfer(address from, address to, uint256 agentId) private {
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        Agent storage a = _agents[agentId];
        address owner_ = a.owner;
        if (owner_ == address(0)) revert ERC721NonexistentToken(agentId);
        if (!_isAuthorized(owner_, msg.sender, agentId)) revert ERC721InsufficientApproval(msg.sender, agentId);
        if (owner_ != from) revert ERC721IncorrectOwner(from, agentId, owner_);
        if (_tokenApprovals[agentId] != address(0)) _tokenApprovals[agentId] = address(0);
        unchecked {
            _balances[from] -= 1;
            _balances[to] += 1;
        }
        bool hadWallet = a.walletMode != _WALLET_NONE;
        a.owner = to;
        a.walletMode = _WALLET_NONE;
        emit Transfer(from, to, agentId);
        // ERC-8004: on transfer the agent wallet is cleared and must be re-verified by the new owner.
        if (hadWallet) emit MetadataSet(agentId, "agentWallet", "agentWallet", "");
    }

    function _isAuthorized(address owner_, address spender, uint256 agentId) private view returns (bool) {
        return spender == owner_ || _operatorApprovals[owner_][spender] || _tokenApprovals[agentId] == spender;
    }

    function _requireOwned(uint256 agentId) private view returns (address owner_) {
        owner_ = _agents[agentId].owner;
        if (owner_ == address(0)) revert ERC721NonexistentToken(agentId);
    }

    function _requireAuthorized(uint256 agentId) private view returns (Agent storage a) {
        a = _agents[agentId];
        address owner_ = a.owner;
        if (owner_ == address(0)) revert ERC721NonexistentToken(agentId);
        if (!_isAuthorized(owner_, msg.sender, agentId)) revert NotAuthorized(agentId, msg.sender);
    }

    function _walletOf(uint256 agentId) private view returns (address) {
        Agent storage a = _agents[agentId];
        uint8 mode = a.walletMode;
        if (mode == _WALLET_OWNER) return a.owner;
        if (mode == _WALLET_CUSTOM) return _customWallets[agentId];
        return address(0);
    }

    function _uriLength(string calldata uri) private pure returns (uint32) {
        uint256 len = bytes(uri).length;
        if (len > type(uint32).max) revert URITooLong();
        return uint32(len);
    }

    function _uriBase(uint256 agentId) private pure returns (bytes32 base) {
        base = keccak256(abi.encode(agentId, _URI_SEED));
    }

    /// @dev Writes the URI bytes word by word; the tail of the last word is zeroed.
    function _writeURI(uint256 agentId, string calldata uri) private {
        bytes32 base = _uriBase(agentId);
        assembly ("memory-safe") {
            let len := uri.length
            let off := uri.offset
            let full := shr(5, len)
            for { let i := 0 } lt(i, full) { i := add(i, 1) } {
                sstore(add(base, i), calldataload(add(off, shl(5, i))))
            }
            let rem := and(len, 31)
            if rem {
                let w := calldataload(add(off, shl(5, full)))
                sstore(add(base, full), and(w, not(shr(shl(3, rem), not(0)))))
            }
        }
    }

    function _writeURIMemory(uint256 agentId, string memory uri) private {
        bytes32 base = _uriBase(agentId);
        assembly ("memory-safe") {
            let len := mload(uri)
            let src := add(uri, 0x20)
            let full := shr(5, len)
            for { let i := 0 } lt(i, full) { i := add(i, 1) } {
                sstore(add(base, i), mload(add(src, shl(5, i))))
            }
            let rem := and(len, 31)
            if rem {
                let w := mload(add(src, shl(5, full)))
                sstore(add(base, full), and(w, not(shr(shl(3, rem), not(0)))))
            }
        }
    }
}
