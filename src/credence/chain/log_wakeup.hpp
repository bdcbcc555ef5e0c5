// LogWakeup: eth_subscribe as a wake-up signal for the polling workers (docs/agent.md: "polling
// eth_getLogs, or eth_subscribe when the node offers it").
//
// eth_getLogs stays the single source of truth (it handles reorgs, restarts and lost RPCs); a
// subscription only ends the worker's pause early. A background thread holds a subscription to
// the worker's logs (chain/log_subscription.hpp); each notification wakes the sleeping worker,
// whose next step() reads the logs through its cursor as always. So the worker reacts within
// milliseconds instead of poll_interval, and nothing depends on the subscription being complete:
// a notification lost, duplicated or reorganised away costs at most one poll_interval or one
// empty step.
//
// When the node does not offer it (the upgrade is refused, eth_subscribe answers an error, the
// TLS certificate does not verify) the thread says so once through `on_info` and stops: the
// worker just polls. When the node cannot be reached, or a subscription drops or goes silent
// (no answer to a keep-alive ping), the worker polls meanwhile and the thread reconnects with
// backoff (retry_min doubling to retry_max), saying once per outage what happened. Every new
// subscription wakes the worker once, so logs emitted while none was open are read at once.
//
// Thread-safety: sleep() is called by the worker's thread; the counters may be read from any
// thread. The destructor stops the background thread (eth_unsubscribe and a close handshake when
// connected) and joins it.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

#include <credence/chain/log_subscription.hpp>

namespace credence::chain {

struct SubscribeConfig {
    /// ws:// or wss:// endpoint (the CLI derives it from the RPC URL unless --ws-url is given).
    std::string ws_url;
    WsClientOptions socket;
    /// Reconnection backoff after a drop or an unreachable node.
    std::chrono::milliseconds retry_min{1'000};
    std::chrono::milliseconds retry_max{30'000};
    /// Silence after which the connection is probed with a ping; no answer within
    /// socket.io_timeout means it is dead.
    std::chrono::milliseconds keepalive{30'000};
    /// One line per change of state (subscribed, not offered, lost, restored); may be empty.
    std::function<void(std::string_view)> on_info;
};

class LogWakeup {
public:
    /// Starts the background thread that subscribes to `filter` (what `what` names in messages,
    /// e.g. "NewAgentTask logs of 0x...").
    LogWakeup(SubscribeConfig config, SubscriptionFilter filter, std::string what);
    ~LogWakeup();
    LogWakeup(const LogWakeup&) = delete;
    LogWakeup& operator=(const LogWakeup&) = delete;
    LogWakeup(LogWakeup&&) = delete;
    LogWakeup& operator=(LogWakeup&&) = delete;

    /// A PollSleep: waits `pause`, until a notification arrives (also one that arrived since the
    /// previous sleep) or until `stop`. Returns false when stopped.
    bool sleep(const std::stop_token& stop, std::chrono::milliseconds pause);

    /// Is a subscription open now?
    [[nodiscard]] bool subscribed() const noexcept { return subscribed_.load(); }
    /// Subscriptions made so far (1 + reconnections).
    [[nodiscard]] uint64_t subscriptions() const noexcept { return subscriptions_.load(); }
    /// Notifications received so far.
    [[nodiscard]] uint64_t notifications() const noexcept { return notifications_.load(); }
    /// Did the thread give up because the node offers no subscription?
    [[nodiscard]] bool gave_up() const noexcept { return gave_up_.load(); }

private:
    void loop(const std::stop_token& stop);
    void info(const std::string& line) const;
    void wake();
    /// Waits `d` or until stopped; false when stopped.
    bool pause(const std::stop_token& stop, std::chrono::milliseconds d);

    SubscribeConfig config_;
    SubscriptionFilter filter_;
    std::string what_;
    std::mutex mutex_;
    std::condition_variable_any woken_;
    bool pending_ = false;  // a wake-up not yet consumed by sleep()
    std::atomic<bool> subscribed_{false};
    std::atomic<bool> gave_up_{false};
    std::atomic<uint64_t> subscriptions_{0};
    std::atomic<uint64_t> notifications_{0};
    std::jthread thread_;  // last: started after every member above exists
};

}  // namespace credence::chain
