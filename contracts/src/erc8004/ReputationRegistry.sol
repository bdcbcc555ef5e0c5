// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IReputationRegistry} from "../interfaces/IReputationRegistry.sol";
import {IIdentityRegistry} from "../interfaces/IIdentityRegistry.sol";
import {AddressDedup} from "../utils/AddressDedup.sol";

/// @title ReputationRegistry
/// @notice ERC-8004 Reputation Registry, ABI-compatible with the deployed v2 registries.
/// @dev Storage layout (gas): per (agent, client) one slot {lastIndex, position}; per agent a client
///      count and a position -> client list; per feedback one packed header slot {value, decimals,
///      revoked, len(tag1), len(tag2), total responses} followed by tag1||tag2 in ceil(len/32) slots.
///      Two defects of the deployed registries are fixed: `getSummary` checks the int128 range of
///      its result instead of truncating silently, and a client listed twice is counted once.
contract ReputationRegistry is IReputationRegistry {
    /// @notice `initialize` was already called (or the constructor set the registry).
    error AlreadyInitialized();
    /// @notice The identity registry is the zero address or unset.
    error InvalidIdentityRegistry();
    /// @notice valueDecimals > 18.
    error TooManyDecimals(uint8 valueDecimals);
    /// @notice |value| > 1e38.
    error ValueOutOfRange(int128 value);
    /// @notice The owner or an operator of the agent tried to rate it.
    error SelfFeedbackNotAllowed(uint256 agentId, address caller);
    /// @notice feedbackIndex is 0 or above the client's last index.
    error InvalidFeedbackIndex(uint64 feedbackIndex);
    /// @notice The feedback was already revoked.
    error FeedbackAlreadyRevoked(uint64 feedbackIndex);
    /// @notice appendResponse with an empty responseURI.
    error EmptyResponseURI();
    /// @notice getSummary requires at least one client address.
    error ClientAddressesRequired();
    /// @notice The summary does not fit in int128 at the chosen decimals.
    error SummaryOverflow();
    /// @notice A tag longer than 65,535 bytes (could not be stored within a block anyway).
    error TagTooLong();

    int256 private constant _MAX_ABS_VALUE = 1e38;
    bytes32 private constant _FEEDBACK_SEED = keccak256("credence.reputation.feedback");
    uint256 private constant _MAX_PAGE = 1000;

    struct ClientInfo {
        uint64 lastIndex;
        uint64 position; // 1-based position in the agent's client list
    }

    address private _identityRegistry;
    mapping(uint256 agentId => mapping(address client => ClientInfo)) private _clientInfo;
    mapping(uint256 agentId => uint256) private _clientCount;
    mapping(uint256 agentId => mapping(uint256 position => address)) private _clientAt;
    mapping(
        uint256 agentId => mapping(address client => mapping(uint64 index => mapping(address responder => uint64)))
    ) private _responseCounts;

    /// @param identityRegistry_ The identity registry; address(0) leaves it to `initialize`.
    constructor(address identityRegistry_) {
        _identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IReputationRegistry
    function initialize(address identityRegistry_) external {
        if (_identityRegistry != address(0)) revert AlreadyInitialized();
        if (identityRegistry_ == address(0)) revert InvalidIdentityRegistry();
        _identityRegistry = identityRegistry_;
    }

    /// @inheritdoc IReputationRegistry
    function getIdentityRegistry() external view returns (address) {
        return _identityRegistry;
    }

    // ───────────────────────────── Writes ─────────────────────────────

    /// @inheritdoc IReputationRegistry
    function giveFeedback(
        uint256 agentId,
        int128 value,
        uint8 valueDecimals,
        string calldata tag1,
        string calldata tag2,
        string calldata endpoint,
        string calldata feedbackURI,
        bytes32 feedbackHash
    ) external {
        if (valueDecimals > 18) revert TooManyDecimals(valueDecimals);
        if (value > _MAX_ABS_VALUE || value < -_MAX_ABS_VALUE) revert ValueOutOfRange(value);
        if (bytes(tag1).length > type(uint16).max || bytes(tag2).length > type(uint16).max) revert TagTooLong();
        address identity = _identityRegistry;
        if (identity == address(0)) revert InvalidIdentityRegistry();
        // Reverts (ERC721NonexistentToken) for an agent that does not exist.
        if (IIdentityRegistry(identity).isAuthorizedOrOwner(msg.sender, agentId)) {
            revert SelfFeedbackNotAllowed(agentId, msg.sender);
        }

        ClientInfo storage info = _clientInfo[agentId][msg.sender];
        ClientInfo memory ci = info;
        uint64 index = ci.lastIndex + 1;
        if (ci.position == 0) {
            uint256 pos = _clientCount[agentId] + 1;
            _clientCount[agentId] = pos;
            _clientAt[agentId][pos] = msg.sender;
            ci.position = uint64(pos);
        }
        ci.lastIndex = index;
        info.lastIndex = ci.lastIndex;
        info.position = ci.position;

        uint256 base = _feedbackBase(agentId, msg.sender, index);
        uint256 header = uint256(uint128(value)) | (uint256(valueDecimals) << 128)
            | (uint256(bytes(tag1).length) << 144) | (uint256(bytes(tag2).length) << 160);
        assembly ("memory-safe") {
            sstore(base, header)
        }
        _writeTags(base + 1, tag1, tag2);

        emit NewFeedback(
            agentId, msg.sender, index, value, valueDecimals, tag1, tag1, tag2, endpoint, feedbackURI, feedbackHash
        );
    }

    /// @inheritdoc IReputationRegistry
    function revokeFeedback(uint256 agentId, uint64 feedbackIndex) external {
        if (feedbackIndex == 0 || feedbackIndex > _clientInfo[agentId][msg.sender].lastIndex) {
            revert InvalidFeedbackIndex(feedbackIndex);
        }
        uint256 base = _feedbackBase(agentId, msg.sender, feedbackIndex);
        uint256 header = _sload(base);
        if ((header >> 136) & 0xff != 0) revert FeedbackAlreadyRevoked(feedbackIndex);
        header |= uint256(1) << 136;
        assembly ("memory-safe") {
            sstore(base, header)
        }
        emit FeedbackRevoked(agentId, msg.sender, feedbackIndex);
    }

    /// @inheritdoc IReputationRegistry
    function appendResponse(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        string calldata responseURI,
        bytes32 responseHash
    ) external {
        if (feedbackIndex == 0) revert InvalidFeedbackIndex(feedbackIndex);
        if (bytes(responseURI).length == 0) revert EmptyResponseURI();
        if (feedbackIndex > _clientInfo[agentId][clientAddress].lastIndex) revert InvalidFeedbackIndex(feedbackIndex);
        uint256 base = _feedbackBase(agentId, clientAddress, feedbackIndex);
        uint256 header = _sload(base);
        // Total responses live in bits 176..239 of the header (cannot overflow 2^64 in practice).
        unchecked {
            header += uint256(1) << 176;
            _responseCounts[agentId][clientAddress][feedbackIndex][msg.sender] += 1;
        }
        assembly ("memory-safe") {
            sstore(base, header)
        }
        emit ResponseAppended(agentId, clientAddress, feedbackIndex, msg.sender, responseURI, responseHash);
    }

    // ───────────────────────────── Reads ─────────────────────────────

    /// @inheritdoc IReputationRegistry
    function getLastIndex(uint256 agentId, address clientAddress) external view returns (uint64) {
        return _clientInfo[agentId][clientAddress].lastIndex;
    }

    /// @inheritdoc IReputationRegistry
    function readFeedback(uint256 agentId, address clientAddress, uint64 feedbackIndex)
        external
        view
        returns (int128 value, uint8 valueDecimals, string memory tag1, string memory tag2, bool isRevoked)
    {
        if (feedbackIndex == 0 || feedbackIndex > _clientInfo[agentId][clientAddress].lastIndex) {
            revert InvalidFeedbackIndex(feedbackIndex);
        }
        uint256 base = _feedbackBase(agentId, clientAddress, feedbackIndex);
        uint256 header = _sload(base);
        (value, valueDecimals, isRevoked) = _decodeHeader(header);
        (tag1, tag2) = _readTags(base + 1, header);
    }

    /// @inheritdoc IReputationRegistry
    function getSummary(uint256 agentId, address[] calldata clientAddresses, string calldata tag1, string calldata tag2)
        external
        view
        returns (uint64 count, int128 summaryValue, uint8 summaryValueDecimals)
    {
        if (clientAddresses.length == 0) revert ClientAddressesRequired();
        address[] memory clients = AddressDedup.unique(clientAddresses);
        bool f1 = bytes(tag1).length != 0;
        bool f2 = bytes(tag2).length != 0;
        bytes32 h1 = keccak256(bytes(tag1));
        bytes32 h2 = keccak256(bytes(tag2));
        int256 sum;
        uint64[19] memory decimalCounts;
        for (uint256 i; i < clients.length; ++i) {
            uint64 last = _clientInfo[agentId][clients[i]].lastIndex;
            for (uint64 j = 1; j <= last; ++j) {
                uint256 base = _feedbackBase(agentId, clients[i], j);
                uint256 header = _sload(base);
                if ((header >> 136) & 0xff != 0) continue;
                if ((f1 || f2) && !_tagsMatch(base + 1, header, f1, h1, f2, h2)) continue;
                (int128 v, uint8 d,) = _decodeHeader(header);
                sum += int256(v) * int256(10 ** uint256(18 - d));
                ++decimalCounts[d];
                ++count;
            }
        }
        if (count == 0) return (0, 0, 0);
        uint64 best;
        for (uint8 d; d <= 18; ++d) {
            if (decimalCounts[d] > best) {
                best = decimalCounts[d];
                summaryValueDecimals = d;
            }
        }
        // Solidity signed division truncates toward zero, at both steps.
        int256 avg = (sum / int256(uint256(count))) / int256(10 ** uint256(18 - summaryValueDecimals));
        if (avg > type(int128).max || avg < type(int128).min) revert SummaryOverflow();
        summaryValue = int128(avg);
    }

    /// @inheritdoc IReputationRegistry
    function readAllFeedback(
        uint256 agentId,
        address[] calldata clientAddresses,
        string calldata tag1,
        string calldata tag2,
        bool includeRevoked
    )
        external
        view
        returns (
            address[] memory clients,
            uint64[] memory feedbackIndexes,
            int128[] memory values,
            uint8[] memory valueDecimals,
            string[] memory tag1s,
            string[] memory tag2s,
            bool[] memory revokedStatuses
        )
    {
        address[] memory list = clientAddresses.length != 0
            ? AddressDedup.unique(clientAddresses)
            : _allClients(agentId);
        bool f1 = bytes(tag1).length != 0;
        bool f2 = bytes(tag2).length != 0;
        bytes32 h1 = keccak256(bytes(tag1));
        bytes32 h2 = keccak256(bytes(tag2));
        uint256 total;
        for (uint256 i; i < list.length; ++i) {
            total += _clientInfo[agentId][list[i]].lastIndex;
        }
        clients = new address[](total);
        feedbackIndexes = new uint64[](total);
        values = new int128[](total);
        valueDecimals = new uint8[](total);
        tag1s = new string[](total);
        tag2s = new string[](total);
        revokedStatuses = new bool[](total);
        uint256 k;
        for (uint256 i; i < list.length; ++i) {
            address c = list[i];
            uint64 last = _clientInfo[agentId][c].lastIndex;
            for (uint64 j = 1; j <= last; ++j) {
                uint256 base = _feedbackBase(agentId, c, j);
                uint256 header = _sload(base);
                (int128 v, uint8 d, bool revoked) = _decodeHeader(header);
                if (revoked && !includeRevoked) continue;
                if ((f1 || f2) && !_tagsMatch(base + 1, header, f1, h1, f2, h2)) continue;
                clients[k] = c;
                feedbackIndexes[k] = j;
                values[k] = v;
                valueDecimals[k] = d;
                (tag1s[k], tag2s[k]) = _readTags(base + 1, header);
                revokedStatuses[k] = revoked;
                ++k;
            }
        }
        assembly ("memory-safe") {
            mstore(clients, k)
            mstore(feedbackIndexes, k)
            mstore(values, k)
            mstore(valueDecimals, k)
            mstore(tag1s, k)
            mstore(tag2s, k)
            mstore(revokedStatuses, k)
        }
    }

    /// @inheritdoc IReputationRegistry
    function getResponseCount(
        uint256 agentId,
        address clientAddress,
        uint64 feedbackIndex,
        address[] calldata responders
    ) external view returns (uint64 count) {
        if (clientAddress == address(0)) {
            uint256 n = _clientCount[agentId];
            for (uint256 p = 1; p <= n; ++p) {
                address c = _clientAt[agentId][p];
                count += _countAll(agentId, c, responders);
            }
        } else if (feedbackIndex == 0) {
            count = _countAll(agentId, clientAddress, responders);
        } else {
            count = _countOne(agentId, clientAddress, feedbackIndex, responders);
        }
    }

    /// @inheritdoc IReputationRegistry
    function getClients(uint256 agentId) external view returns (address[] memory) {
        return _allClients(agentId);
    }

    /// @inheritdoc IReputationRegistry
    function getClientCount(uint256 agentId) external view returns (uint256) {
        return _clientCount[agentId];
    }

    /// @inheritdoc IReputationRegistry
    function getClientsPage(uint256 agentId, uint256 offset, uint256 limit)
        external
        view
        returns (address[] memory clients)
    {
        uint256 n = _clientCount[agentId];
        if (limit > _MAX_PAGE) limit = _MAX_PAGE;
        if (offset >= n) return new address[](0);
        uint256 end = offset + limit > n ? n : offset + limit;
        clients = new address[](end - offset);
        for (uint256 i = offset; i < end; ++i) {
            clients[i - offset] = _clientAt[agentId][i + 1];
        }
    }

    /// @inheritdoc IReputationRegistry
    /// @dev `cursor` = (clientPosition << 64) | feedbackIndex, both 1-based; 0 starts at the beginning.
    ///      `nextCursor` is 0 when the listing is exhausted. Revoked rows are included (flagged) so the
    ///      page size is exact and the cost of a page does not depend on the number of clients.
    function readFeedbackPage(uint256 agentId, uint256 cursor, uint256 limit)
        external
        view
        returns (FeedbackRow[] memory rows, uint256 nextCursor)
    {
        if (limit > _MAX_PAGE) limit = _MAX_PAGE;
        uint256 n = _clientCount[agentId];
        uint256 pos = cursor >> 64;
        uint64 idx = uint64(cursor);
        if (pos == 0) pos = 1;
        if (idx == 0) idx = 1;
        rows = new FeedbackRow[](limit);
        uint256 k;
        while (k < limit && pos <= n) {
            address c = _clientAt[agentId][pos];
            uint64 last = _clientInfo[agentId][c].lastIndex;
            while (k < limit && idx <= last) {
                uint256 base = _feedbackBase(agentId, c, idx);
                uint256 header = _sload(base);
                FeedbackRow memory r = rows[k];
                r.client = c;
                r.feedbackIndex = idx;
                (r.value, r.valueDecimals, r.isRevoked) = _decodeHeader(header);
                (r.tag1, r.tag2) = _readTags(base + 1, header);
                ++k;
                ++idx;
            }
            if (idx > last) {
                ++pos;
                idx = 1;
            }
        }
        assembly ("memory-safe") {
            mstore(rows, k)
        }
        nextCursor = pos <= n ? (pos << 64) | idx : 0;
    }

    // ───────────────────────────── Internals ─────────────────────────────

    function _allClients(uint256 agentId) private view returns (address[] memory list) {
        uint256 n = _clientCount[agentId];
        list = new address[](n);
        for (uint256 i; i < n; ++i) {
            list[i] = _clientAt[agentId][i + 1];
        }
    }

    function _countAll(uint256 agentId, address c, address[] calldata responders) private view returns (uint64 count) {
        uint64 last = _clientInfo[agentId][c].lastIndex;
        for (uint64 j = 1; j <= last; ++j) {
            count += _countOne(agentId, c, j, responders);
        }
    }

    function _countOne(uint256 agentId, address c, uint64 index, address[] calldata responders)
        private
        view
        returns (uint64 count)
    {
        if (responders.length == 0) {
            return uint64(_sload(_feedbackBase(agentId, c, index)) >> 176);
        }
        for (uint256 k; k < responders.length; ++k) {
            count += _responseCounts[agentId][c][index][responders[k]];
        }
    }

    function _feedbackBase(uint256 agentId, address client, uint64 index) private pure returns (uint256 base) {
        bytes32 seed = _FEEDBACK_SEED;
        assembly ("memory-safe") {
            let m := mload(0x40)
            mstore(m, agentId)
            mstore(add(m, 0x20), client)
            mstore(add(m, 0x40), index)
            mstore(add(m, 0x60), seed)
            base := keccak256(m, 0x80)
        }
    }

    function _sload(uint256 slot) private view returns (uint256 v) {
        assembly ("memory-safe") {
            v := sload(slot)
        }
    }

    function _decodeHeader(uint256 header) private pure returns (int128 value, uint8 decimals, bool revoked) {
        value = int128(uint128(header));
        decimals = uint8(header >> 128);
        revoked = uint8(header >> 136) != 0;
    }

    /// @dev Stores tag1||tag2 word by word from `slot`; the last word's tail is zeroed.
    function _writeTags(uint256 slot, string calldata tag1, string calldata tag2) private {
        uint256 len = bytes(tag1).length + bytes(tag2).length;
        if (len == 0) return;
        bytes memory blob = bytes.concat(bytes(tag1), bytes(tag2));
        assembly ("memory-safe") {
            let src := add(blob, 0x20)
            let words := shr(5, add(len, 31))
            // bytes.concat leaves the memory after `len` unspecified: zero the tail of the last word.
            let rem := and(len, 31)
            for { let i := 0 } lt(i, words) { i := add(i, 1) } {
                let w := mload(add(src, shl(5, i)))
                if and(rem, eq(add(i, 1), words)) { w := and(w, not(shr(shl(3, rem), not(0)))) }
                sstore(add(slot, i), w)
            }
        }
    }

    function _loadBlob(uint256 slot, uint256 len) private view returns (bytes memory blob) {
        blob = new bytes(len);
        assembly ("memory-safe") {
            let dst := add(blob, 0x20)
            let words := shr(5, add(len, 31))
            for { let i := 0 } lt(i, words) { i := add(i, 1) } {
                mstore(add(dst, shl(5, i)), sload(add(slot, i)))
            }
        }
    }

    function _readTags(uint256 slot, uint256 header) private view returns (string memory t1, string memory t2) {
        uint256 l1 = uint16(header >> 144);
        uint256 l2 = uint16(header >> 160);
        bytes memory blob = _loadBlob(slot, l1 + l2);
        t1 = new string(l1);
        t2 = new string(l2);
        assembly ("memory-safe") {
            mcopy(add(t1, 0x20), add(blob, 0x20), l1)
            mcopy(add(t2, 0x20), add(add(blob, 0x20), l1), l2)
        }
    }

    function _tagsMatch(uint256 slot, uint256 header, bool f1, bytes32 h1, bool f2, bytes32 h2)
        private
        view
        returns (bool)
    {
        uint256 l1 = uint16(header >> 144);
        uint256 l2 = uint16(header >> 160);
        bytes memory blob = _loadBlob(slot, l1 + l2);
        bytes32 g1;
        bytes32 g2;
        assembly ("memory-safe") {
            g1 := keccak256(add(blob, 0x20), l1)
            g2 := keccak256(add(add(blob, 0x20), l1), l2)
        }
        return (!f1 || g1 == h1) && (!f2 || g2 == h2);
    }
}
