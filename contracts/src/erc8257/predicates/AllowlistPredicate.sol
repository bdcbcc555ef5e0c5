// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {AccessPredicateBase} from "./AccessPredicateBase.sol";
import {AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";
import {IAllowlistMembership} from "../../interfaces/IRequirementTypes.sol";

/// @title AllowlistPredicate
/// @notice Grants access to accounts on an owner-managed allowlist (kind IAllowlistMembership).
contract AllowlistPredicate is AccessPredicateBase, Ownable {
    /// @notice Emitted when an account is added to or removed from the list.
    event AllowlistUpdated(address indexed account, bool allowed);

    mapping(address account => bool) private _allowed;

    constructor(address initialOwner) Ownable(initialOwner) {}

    /// @notice Add or remove accounts (owner only). Emits AllowlistUpdated for every change.
    function setAllowed(address[] calldata accounts, bool allowed) external onlyOwner {
        for (uint256 i; i < accounts.length; ++i) {
            if (_allowed[accounts[i]] != allowed) {
                _allowed[accounts[i]] = allowed;
                emit AllowlistUpdated(accounts[i], allowed);
            }
        }
    }

    /// @notice True when `account` is on the list.
    function hasAccess(uint256, address account, bytes calldata) external view returns (bool) {
        return _allowed[account];
    }

    /// @notice Whether `account` is listed.
    function isAllowed(address account) external view returns (bool) {
        return _allowed[account];
    }

    /// @notice Predicate identifier.
    function name() external pure returns (string memory) {
        return "AllowlistPredicate";
    }

    /// @notice One IAllowlistMembership requirement: abi.encode(address(this)).
    function getRequirements(uint256)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic)
    {
        return _single(type(IAllowlistMembership).interfaceId, abi.encode(address(this)), "Be on the allowlist");
    }
}
