// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IAccessPredicate, AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";

/// @title AccessPredicateBase
/// @notice ERC-165 advertisement of IAccessPredicate (0xbdf9dc18) and a one-requirement helper.
abstract contract AccessPredicateBase is IAccessPredicate, IERC165 {
    /// @notice ERC-165: IAccessPredicate and IERC165.
    function supportsInterface(bytes4 interfaceId) public view virtual returns (bool) {
        return interfaceId == type(IAccessPredicate).interfaceId || interfaceId == type(IERC165).interfaceId;
    }

    function _single(bytes4 kind, bytes memory data, string memory label)
        internal
        pure
        returns (AccessRequirement[] memory reqs, RequirementLogic logic)
    {
        reqs = new AccessRequirement[](1);
        reqs[0] = AccessRequirement({kind: kind, data: data, label: label});
        logic = RequirementLogic.AND;
    }
}
