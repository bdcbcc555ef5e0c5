// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721URIStorage} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {ERC721Utils} from "@openzeppelin/contracts/token/ERC721/utils/ERC721Utils.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {SignatureChecker} from "@openzeppelin/contracts/utils/cryptography/SignatureChecker.sol";

/// @title ScoreIdentityRegistry
/// @notice ERC-8004 intermediate revision Identity Registry: an ERC-721 with URI storage whose
///         tokens are agents, with on-chain metadata and a verified `agentWallet`.
/// @dev Same selectors, events and EIP-712 type as the current `IdentityRegistry`, which also serves
///      this revision's ABI; this contract keeps the revision's own behaviour where the two differ:
///      registration emits a MetadataSet only per metadata entry (none for agentWallet), and there is
///      no getAgentWallet / unsetAgentWallet. Deadline window and EIP-712 domain follow the
///      revision's official contracts (erc-8004/erc-8004-contracts b7a30fe).
contract ScoreIdentityRegistry is ERC721URIStorage, EIP712 {
    /// @notice The reserved key `agentWallet` was passed to setMetadata or register.
    error ReservedMetadataKey();
    /// @notice The caller is neither the owner nor an operator of the agent.
    error NotAuthorized(uint256 agentId, address caller);
    /// @notice newWallet is the zero address.
    error InvalidWallet();
    /// @notice The signature deadline has passed.
    error DeadlineExpired(uint256 deadline);
    /// @notice The signature deadline is more than 5 minutes ahead.
    error DeadlineTooFar(uint256 deadline);
    /// @notice The new wallet's EIP-712 / ERC-1271 signature does not verify.
    error InvalidWalletSignature();

    /// @notice One metadata entry given to `register` (ERC-8004 intermediate §Registration).
    struct MetadataEntry {
        string metadataKey;
        bytes metadataValue;
    }

    /// @notice ERC-8004 intermediate §Onchain metadata.
    event MetadataSet(
        uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue
    );
    /// @notice ERC-8004 intermediate §Registration.
    event Registered(uint256 indexed agentId, string agentURI, address indexed owner);
    /// @notice ERC-8004 intermediate §Update agentURI.
    event URIUpdated(uint256 indexed agentId, string newURI, address indexed updatedBy);

    /// @notice EIP-712 type of the new wallet's consent.
    bytes32 public constant AGENT_WALLET_SET_TYPEHASH =
        keccak256("AgentWalletSet(uint256 agentId,address newWallet,address owner,uint256 deadline)");
    uint256 private constant _MAX_DEADLINE_DELAY = 5 minutes;
    bytes32 private constant _AGENT_WALLET_KEY_HASH = keccak256("agentWallet");

    uint256 private _nextId;
    mapping(uint256 agentId => address) private _wallets;
    mapping(uint256 agentId => mapping(string metadataKey => bytes)) private _metadata;

    constructor() ERC721("AgentIdentity", "AGENT") EIP712("ERC8004IdentityRegistry", "1") {}

    /// @notice Mints an agent to msg.sender with a URI and metadata entries.
    function register(string calldata agentURI, MetadataEntry[] calldata metadata) external returns (uint256 agentId) {
        agentId = _register(agentURI);
        for (uint256 i; i < metadata.length; ++i) {
            string calldata key = metadata[i].metadataKey;
            // ERC-8004 intermediate §Onchain metadata: agentWallet cannot be set during register().
            if (keccak256(bytes(key)) == _AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey();
            _metadata[agentId][key] = metadata[i].metadataValue;
            emit MetadataSet(agentId, key, key, metadata[i].metadataValue);
        }
        _finishRegister(agentId, agentURI);
    }

    /// @notice Mints an agent to msg.sender with a URI.
    function register(string calldata agentURI) external returns (uint256 agentId) {
        agentId = _register(agentURI);
        _finishRegister(agentId, agentURI);
    }

    /// @notice Mints an agent to msg.sender; the URI is added later with setAgentURI().
    function register() external returns (uint256 agentId) {
        agentId = _register("");
        _finishRegister(agentId, "");
    }

    /// @notice Replaces the agentURI; owner or operator only.
    function setAgentURI(uint256 agentId, string calldata newURI) external {
        _requireAuthorized(agentId);
        _setTokenURI(agentId, newURI);
        emit URIUpdated(agentId, newURI, msg.sender);
    }

    /// @notice On-chain metadata; `agentWallet` returns the 20-byte wallet, or empty when unset.
    function getMetadata(uint256 agentId, string calldata metadataKey) external view returns (bytes memory) {
        if (keccak256(bytes(metadataKey)) == _AGENT_WALLET_KEY_HASH) {
            address wallet = _wallets[agentId];
            return wallet == address(0) ? bytes("") : abi.encodePacked(wallet);
        }
        return _metadata[agentId][metadataKey];
    }

    /// @notice Sets one metadata entry; owner or operator only; `agentWallet` is reserved.
    function setMetadata(uint256 agentId, string calldata metadataKey, bytes calldata metadataValue) external {
        _requireAuthorized(agentId);
        // ERC-8004 intermediate §Onchain metadata: agentWallet cannot be set via setMetadata().
        if (keccak256(bytes(metadataKey)) == _AGENT_WALLET_KEY_HASH) revert ReservedMetadataKey();
        _metadata[agentId][metadataKey] = metadataValue;
        emit MetadataSet(agentId, metadataKey, metadataKey, metadataValue);
    }

    /// @notice Sets agentWallet to `newWallet`, which proves control with an EIP-712 signature (EOA)
    ///         or ERC-1271 (contract) over AgentWalletSet(agentId, newWallet, owner, deadline).
    function setAgentWallet(uint256 agentId, address newWallet, uint256 deadline, bytes calldata signature) external {
        address agentOwner = _requireAuthorized(agentId);
        if (newWallet == address(0)) revert InvalidWallet();
        if (block.timestamp > deadline) revert DeadlineExpired(deadline);
        if (deadline > block.timestamp + _MAX_DEADLINE_DELAY) revert DeadlineTooFar(deadline);
        // ERC-8004 intermediate §Onchain metadata: EIP-712 signature for EOAs, ERC-1271 for contract wallets.
        bytes32 digest = _hashTypedDataV4(
            keccak256(abi.encode(AGENT_WALLET_SET_TYPEHASH, agentId, newWallet, agentOwner, deadline))
        );
        if (!SignatureChecker.isValidSignatureNow(newWallet, digest, signature)) revert InvalidWalletSignature();
        _wallets[agentId] = newWallet;
        emit MetadataSet(agentId, "agentWallet", "agentWallet", abi.encodePacked(newWallet));
    }

    /// @dev ERC-8004 intermediate §Onchain metadata: a transfer resets agentWallet to the zero address.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        from = super._update(to, tokenId, auth);
        if (from != address(0) && to != address(0) && _wallets[tokenId] != address(0)) {
            delete _wallets[tokenId];
            emit MetadataSet(tokenId, "agentWallet", "agentWallet", "");
        }
    }

    /// @dev Mints the next id to msg.sender (no receiver call yet), sets URI and the initial wallet.
    function _register(string memory agentURI) private returns (uint256 agentId) {
        agentId = _nextId++;
        _mint(msg.sender, agentId);
        if (bytes(agentURI).length != 0) _setTokenURI(agentId, agentURI);
        // ERC-8004 intermediate §Onchain metadata: agentWallet is initially the owner's address.
        _wallets[agentId] = msg.sender;
    }

    /// @dev Emits Registered after the metadata events, then runs the ERC-721 receiver check last.
    function _finishRegister(uint256 agentId, string memory agentURI) private {
        emit Registered(agentId, agentURI, msg.sender);
        ERC721Utils.checkOnERC721Received(msg.sender, address(0), msg.sender, agentId, "");
    }

    function _requireAuthorized(uint256 agentId) private view returns (address agentOwner) {
        agentOwner = _requireOwned(agentId);
        if (!_isAuthorized(agentOwner, msg.sender, agentId)) revert NotAuthorized(agentId, msg.sender);
    }
}
