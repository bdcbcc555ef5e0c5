// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ISubscriptionSource} from "../../src/interfaces/ISubscriptionSource.sol";

/// @notice Test-only ERC-721 with open mint.
contract MockERC721 is ERC721("Mock", "MCK") {
    function mint(address to, uint256 id) external {
        _mint(to, id);
    }
}

/// @notice Test-only ERC-1155 with open mint.
contract MockERC1155 is ERC1155("") {
    function mint(address to, uint256 id, uint256 amount) external {
        _mint(to, id, amount, "");
    }
}

/// @notice Test-only subscription source.
contract MockSubscriptions is ISubscriptionSource {
    mapping(address => uint8) public tiers;
    mapping(address => uint64) public ends;

    function set(address a, uint8 tier, uint64 end) external {
        tiers[a] = tier;
        ends[a] = end;
    }

    function subscriptionOf(address account) external view returns (uint8, uint64) {
        return (tiers[account], ends[account]);
    }
}

/// @notice Predicate answering a fixed raw 32-byte word (e.g. 2: non-canonical bool).
contract RawWordPredicate {
    uint256 public immutable word;

    constructor(uint256 w) {
        word = w;
    }

    function hasAccess(uint256, address, bytes calldata) external view returns (uint256) {
        return word;
    }
}

/// @notice Predicate returning 64 bytes.
contract LongReturnPredicate {
    function hasAccess(uint256, address, bytes calldata) external pure returns (uint256, uint256) {
        return (1, 1);
    }
}

/// @notice Predicate that always reverts.
contract RevertingPredicate {
    function hasAccess(uint256, address, bytes calldata) external pure returns (bool) {
        revert("no");
    }
}

/// @notice Predicate that burns all gas it gets.
contract GasBurnerPredicate {
    function hasAccess(uint256, address, bytes calldata) external view returns (bool) {
        uint256 x;
        while (gasleft() > 0) {
            x++;
        }
        return x == 0;
    }
}

/// @notice Claims ERC-165 but not IAccessPredicate.
contract Erc165OnlyContract {
    function supportsInterface(bytes4 id) external pure returns (bool) {
        return id == 0x01ffc9a7;
    }
}

/// @notice supportsInterface reverts: treated as "no ERC-165".
contract Erc165RevertingContract {
    function supportsInterface(bytes4) external pure returns (bool) {
        revert();
    }
}

/// @notice Claims ERC-165 and reverts on the IAccessPredicate probe.
contract Erc165ThenRevert {
    function supportsInterface(bytes4 id) external pure returns (bool) {
        if (id == 0x01ffc9a7) return true;
        revert();
    }
}
