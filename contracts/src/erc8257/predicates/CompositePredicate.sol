// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AccessPredicateBase} from "./AccessPredicateBase.sol";
import {IAccessPredicate, AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";

/// @title CompositePredicate
/// @notice AND / OR of child predicates. `data` is either empty (every child gets "") or
///         abi.encode(bytes[] childData) with one entry per child.
/// @dev Children are called by gas-capped staticcall with a strict bool decode; a malfunctioning child
///      counts as "denied". getRequirements flattens children's requirements; a child whose
///      introspection fails or exceeds the ERC-8257 ceilings is reported as the sentinel kind 0x00000000.
contract CompositePredicate is AccessPredicateBase {
    /// @notice No children, or too many.
    error InvalidChildren();

    /// @notice Gas forwarded to each child hasAccess.
    uint256 public constant CHILD_GAS = 90_000;
    /// @notice Gas forwarded to each child getRequirements.
    uint256 public constant CHILD_INTROSPECTION_GAS = 200_000;
    uint256 private constant _MAX_REQS = 256;
    uint256 private constant _MAX_DATA = 4096;
    uint256 private constant _MAX_LABEL = 256;

    /// @notice AND or OR.
    RequirementLogic public immutable logic;
    address[] private _children;

    constructor(address[] memory children_, RequirementLogic logic_) {
        if (children_.length == 0 || children_.length > 8) revert InvalidChildren();
        _children = children_;
        logic = logic_;
    }

    /// @notice The child predicates.
    function children() external view returns (address[] memory) {
        return _children;
    }

    /// @notice AND: every child grants; OR: at least one child grants.
    function hasAccess(uint256 toolId, address account, bytes calldata data) external view returns (bool) {
        uint256 n = _children.length;
        bytes[] memory parts;
        if (data.length != 0) {
            parts = abi.decode(data, (bytes[]));
            if (parts.length != n) return false;
        }
        bool isAnd = logic == RequirementLogic.AND;
        for (uint256 i; i < n; ++i) {
            bytes memory part = data.length != 0 ? parts[i] : bytes("");
            bool granted = _childGrants(_children[i], toolId, account, part);
            if (isAnd && !granted) return false;
            if (!isAnd && granted) return true;
        }
        return isAnd;
    }

    /// @notice Predicate identifier.
    function name() external pure returns (string memory) {
        return "CompositePredicate";
    }

    /// @notice Flattened requirements of all children with this composite's logic.
    function getRequirements(uint256 toolId)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic_)
    {
        uint256 n = _children.length;
        AccessRequirement[][] memory per = new AccessRequirement[][](n);
        uint256 total;
        for (uint256 i; i < n; ++i) {
            per[i] = _childRequirements(_children[i], toolId);
            total += per[i].length;
        }
        requirements = new AccessRequirement[](total);
        uint256 k;
        for (uint256 i; i < n; ++i) {
            for (uint256 j; j < per[i].length; ++j) {
                requirements[k++] = per[i][j];
            }
        }
        logic_ = logic;
    }

    function _childGrants(address child, uint256 toolId, address account, bytes memory part)
        private
        view
        returns (bool)
    {
        bytes memory payload = abi.encodeCall(IAccessPredicate.hasAccess, (toolId, account, part));
        bool ok;
        uint256 word;
        uint256 size;
        uint256 gasCap = CHILD_GAS;
        assembly ("memory-safe") {
            mstore(0x00, 0)
            ok := staticcall(gasCap, child, add(payload, 0x20), mload(payload), 0x00, 0x20)
            size := returndatasize()
            word := mload(0x00)
        }
        return ok && size == 32 && word == 1;
    }

    function _childRequirements(address child, uint256 toolId) private view returns (AccessRequirement[] memory out) {
        try IAccessPredicate(child).getRequirements{gas: CHILD_INTROSPECTION_GAS}(toolId) returns (
            AccessRequirement[] memory reqs, RequirementLogic
        ) {
            if (reqs.length <= _MAX_REQS) {
                bool fits = true;
                for (uint256 i; i < reqs.length; ++i) {
                    if (reqs[i].data.length > _MAX_DATA || bytes(reqs[i].label).length > _MAX_LABEL) fits = false;
                }
                if (fits) return reqs;
            }
        } catch {}
        out = new AccessRequirement[](1);
        out[0] = AccessRequirement({kind: bytes4(0), data: "", label: "unknown"});
    }
}
