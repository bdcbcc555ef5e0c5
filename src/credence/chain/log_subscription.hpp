// eth_subscribe over a WebSocket (the Ethereum JSON-RPC pub/sub API, as geth, reth and anvil
// serve it): subscribe to "logs" with an address/topics filter or to "newHeads", read the
// `eth_subscription` notifications of that subscription, and eth_unsubscribe.
//
// A subscription is a live feed with no replay: what happens while it is down is missed, and a
// node may drop it at any time. Callers that must see every log keep eth_getLogs as their source
// of truth and use a subscription only to learn early that something new is there (that is what
// chain/log_wakeup does).
//
// Notifications are validated: the envelope (jsonrpc 2.0, method eth_subscription, our
// subscription id) and the result (a log as rpc_codec reads it, or a head's number and hash);
// anything else is an `rpc` error, so a node that sends garbage is noticed.
// Thread-safety: one thread uses a subscription; interrupt() may be called from any thread.
// Ownership: owns its WebSocketClient.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_types.hpp>
#include <credence/chain/websocket_client.hpp>

namespace credence::chain {

/// What to subscribe to.
struct SubscriptionFilter {
    enum class Kind { logs, new_heads };
    Kind kind = Kind::logs;
    /// logs: empty = any address, else logs of any of these.
    std::vector<core::Address> addresses;
    /// logs: per topic position, nullopt = any, else any of the listed values (as eth_getLogs).
    std::vector<TopicFilter> topics;

    [[nodiscard]] static SubscriptionFilter logs(std::vector<core::Address> addresses,
                                                 std::vector<TopicFilter> topics) {
        return {Kind::logs, std::move(addresses), std::move(topics)};
    }
    [[nodiscard]] static SubscriptionFilter new_heads() { return {Kind::new_heads, {}, {}}; }
};

/// The eth_subscribe params for `filter`: ["logs", {address, topics}] or ["newHeads"].
[[nodiscard]] nlohmann::json subscribe_params(const SubscriptionFilter& filter);

/// One notification.
struct SubscriptionEvent {
    std::optional<Log> log;                  // logs subscriptions
    std::optional<uint64_t> block_num;       // newHeads: the head's number
    std::optional<core::Hash32> block_hash;  // newHeads: its hash
};

/// Parses one WebSocket text message: a notification of `subscription_id` (the event), another
/// JSON-RPC message (nullopt: an answer or another subscription's notification), or an error.
[[nodiscard]] WsResult<std::optional<SubscriptionEvent>> parse_notification(
    std::string_view message, std::string_view subscription_id, SubscriptionFilter::Kind kind);

class LogSubscription {
public:
    /// Connects to `ws_url` and subscribes. A JSON-RPC error answer (the node does not offer
    /// eth_subscribe, or not this kind) is an `rpc` error with the node's message.
    [[nodiscard]] static WsResult<std::unique_ptr<LogSubscription>> open(
        std::string_view ws_url, const SubscriptionFilter& filter,
        const WsClientOptions& options = {});

    ~LogSubscription();
    LogSubscription(const LogSubscription&) = delete;
    LogSubscription& operator=(const LogSubscription&) = delete;
    LogSubscription(LogSubscription&&) = delete;
    LogSubscription& operator=(LogSubscription&&) = delete;

    /// The id the node gave (eth_subscribe's result).
    [[nodiscard]] const std::string& id() const noexcept { return id_; }

    /// The next notification within `timeout`; nullopt when none came.
    [[nodiscard]] WsResult<std::optional<SubscriptionEvent>> next(
        std::chrono::milliseconds timeout);

    /// Sends a ping (a liveness probe; the pong is consumed by next()).
    [[nodiscard]] WsResult<void> ping();

    /// eth_unsubscribe and its answer (true: the node removed it), then the close handshake.
    [[nodiscard]] WsResult<bool> unsubscribe(
        std::chrono::milliseconds timeout = std::chrono::seconds(2));

    /// When the last message of any kind (a notification, an answer, a pong) arrived.
    [[nodiscard]] std::chrono::steady_clock::time_point last_activity() const noexcept {
        return last_activity_;
    }

    /// From any thread: makes a blocked next() return `closed`.
    void interrupt() noexcept { client_->interrupt(); }

    [[nodiscard]] WebSocketClient& client() noexcept { return *client_; }

private:
    LogSubscription(std::unique_ptr<WebSocketClient> client, SubscriptionFilter::Kind kind)
        : client_(std::move(client)), kind_(kind) {}
    // Sends a request and waits for its answer; notifications that arrive meanwhile are queued.
    [[nodiscard]] WsResult<nlohmann::json> call(std::string_view method, nlohmann::json params,
                                                std::chrono::milliseconds timeout);

    std::unique_ptr<WebSocketClient> client_;
    SubscriptionFilter::Kind kind_;
    std::string id_;
    uint64_t next_request_id_ = 1;
    std::deque<std::string> queued_;  // text messages read while waiting for an answer
    bool unsubscribed_ = false;
    std::chrono::steady_clock::time_point last_activity_ = std::chrono::steady_clock::now();
};

}  // namespace credence::chain
