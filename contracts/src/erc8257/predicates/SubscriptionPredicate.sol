// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {AccessPredicateBase} from "./AccessPredicateBase.sol";
import {AccessRequirement, RequirementLogic} from "../../interfaces/IAccessPredicate.sol";
import {ISubscription} from "../../interfaces/IRequirementTypes.sol";
import {ISubscriptionSource} from "../../interfaces/ISubscriptionSource.sol";

/// @title SubscriptionPredicate
/// @notice Grants access to accounts with an active subscription at `minTier` or above (kind ISubscription).
contract SubscriptionPredicate is AccessPredicateBase {
    /// @notice The subscription contract (ISubscriptionSource).
    address public immutable collection;
    /// @notice Minimum tier.
    uint8 public immutable minTier;

    constructor(address collection_, uint8 minTier_) {
        collection = collection_;
        minTier = minTier_;
    }

    /// @notice True when the subscription of `account` is active (not expired) at tier >= minTier.
    function hasAccess(uint256, address account, bytes calldata) external view returns (bool) {
        (uint8 tier, uint64 expiresAt) = ISubscriptionSource(collection).subscriptionOf(account);
        return tier >= minTier && tier != 0 && expiresAt >= block.timestamp;
    }

    /// @notice Predicate identifier.
    function name() external pure returns (string memory) {
        return "SubscriptionPredicate";
    }

    /// @notice One ISubscription requirement: abi.encode(collection, minTier).
    function getRequirements(uint256)
        external
        view
        returns (AccessRequirement[] memory requirements, RequirementLogic logic)
    {
        return _single(type(ISubscription).interfaceId, abi.encode(collection, minTier), "Active subscription at tier");
    }
}
