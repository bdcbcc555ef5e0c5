// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title AddressDedup
/// @notice O(n) de-duplication of an address list in memory (open addressing, linear probing).
/// @dev Used by view functions, where transient storage is unavailable.
library AddressDedup {
    /// @notice Allocate a probe table for up to `n` addresses (load factor <= 1/2).
    function newTable(uint256 n) internal pure returns (uint256[] memory table) {
        uint256 size = 4;
        while (size < n * 2) size <<= 1;
        table = new uint256[](size);
    }

    /// @notice Insert `a`; returns false when it was already present.
    function insert(uint256[] memory table, address a) internal pure returns (bool) {
        uint256 tagged = uint256(uint160(a)) | (1 << 160);
        uint256 mask = table.length - 1;
        uint256 i = uint256(keccak256(abi.encode(a))) & mask;
        while (true) {
            uint256 cur = table[i];
            if (cur == 0) {
                table[i] = tagged;
                return true;
            }
            if (cur == tagged) return false;
            i = (i + 1) & mask;
        }
        return false;
    }

    /// @notice The list without repeated entries, first occurrence order kept.
    function unique(address[] calldata list) internal pure returns (address[] memory out) {
        uint256 n = list.length;
        uint256[] memory table = newTable(n);
        out = new address[](n);
        uint256 k;
        for (uint256 i; i < n; ++i) {
            if (insert(table, list[i])) out[k++] = list[i];
        }
        assembly ("memory-safe") {
            mstore(out, k)
        }
    }
}
