// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {AccessPredicateBase} from "./AccessPredicateBase.sol";
import {AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";
import {IERC721Holding} from "../../interfaces/IRequirementTypes.sol";

/// @title ERC721HoldingPredicate
/// @notice Grants access to holders of any token of one ERC-721 collection (kind IERC721Holding).
contract ERC721HoldingPredicate is AccessPredicateBase {
    /// @notice The gating collection.
    address public immutable collection;

    constructor(address collection_) {
        collection = collection_;
    }

    /// @notice True when `account` holds at least one token of `collection`.
    function hasAccess(uint256, address account, bytes calldata) external view returns (bool) {
        return IERC721(collection).balanceOf(account) > 0;
    }

    /// @notice Predicate identifier.
    function name() external pure returns (string memory) {
        return "ERC721HoldingPredicate";
    }

    /// @notice One IERC721Holding requirement: abi.encode(collection).
    function getRequirements(uint256)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic)
    {
        return _single(type(IERC721Holding).interfaceId, abi.encode(collection), "Hold any token of the collection");
    }
}
