// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

/// @title ISubscriptionSource
/// @notice Minimal subscription read used by SubscriptionPredicate (the `collection` of ISubscription).
interface ISubscriptionSource {
    /// @notice Current tier of `account` and the time its subscription ends (0 tier = none).
    function subscriptionOf(address account) external view returns (uint8 tier, uint64 expiresAt);
}
