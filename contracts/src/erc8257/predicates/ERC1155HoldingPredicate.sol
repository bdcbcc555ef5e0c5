// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {AccessPredicateBase} from "./AccessPredicateBase.sol";
import {AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";
import {IERC1155Holding} from "../../interfaces/IRequirementTypes.sol";

/// @title ERC1155HoldingPredicate
/// @notice Grants access to holders of one ERC-1155 token id (kind IERC1155Holding).
contract ERC1155HoldingPredicate is AccessPredicateBase {
    /// @notice The gating collection.
    address public immutable collection;
    /// @notice The gating token id.
    uint256 public immutable tokenId;

    constructor(address collection_, uint256 tokenId_) {
        collection = collection_;
        tokenId = tokenId_;
    }

    /// @notice True when `account` holds at least one `tokenId` of `collection`.
    function hasAccess(uint256, address account, bytes calldata) external view returns (bool) {
        return IERC1155(collection).balanceOf(account, tokenId) > 0;
    }

    /// @notice Predicate identifier.
    function name() external pure returns (string memory) {
        return "ERC1155HoldingPredicate";
    }

    /// @notice One IERC1155Holding requirement: abi.encode(collection, tokenId).
    function getRequirements(uint256)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic)
    {
        return _single(type(IERC1155Holding).interfaceId, abi.encode(collection, tokenId), "Hold the ERC-1155 token");
    }
}
