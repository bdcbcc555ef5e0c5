// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.24;

import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {ISubscriptionSource} from "../interfaces/ISubscriptionSource.sol";

/// @title DevnetSubscriptions
/// @notice Devnet fixture: owner-managed subscriptions that the SubscriptionPredicate gates on.
contract DevnetSubscriptions is ISubscriptionSource, Ownable {
    /// @notice Emitted when a subscription changes.
    event SubscriptionSet(address indexed account, uint8 tier, uint64 expiresAt);

    struct Sub {
        uint8 tier;
        uint64 expiresAt;
    }

    mapping(address account => Sub) private _subs;

    constructor(address initialOwner) Ownable(initialOwner) {}

    /// @notice Set the subscription of `account` (owner only).
    function setSubscription(address account, uint8 tier, uint64 expiresAt) external onlyOwner {
        _subs[account] = Sub(tier, expiresAt);
        emit SubscriptionSet(account, tier, expiresAt);
    }

    /// @inheritdoc ISubscriptionSource
    function subscriptionOf(address account) external view returns (uint8 tier, uint64 expiresAt) {
        Sub memory s = _subs[account];
        return (s.tier, s.expiresAt);
    }
}
