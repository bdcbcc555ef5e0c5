#include <credence/chain/log_wakeup.hpp>

#include <algorithm>
#include <memory>
#include <utility>

#include <fmt/core.h>

namespace credence::chain {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// How long one wait for a notification lasts: the thread notices a stop within this.
constexpr milliseconds kSlice{250};

// Failures that mean "this node does not offer eth_subscribe here" (retrying will not help):
// the upgrade refused or answered wrongly, eth_subscribe refused, a certificate that does not
// verify, a URL that is not ws(s)://. Anything else (unreachable, reset, timeout) may heal.
bool permanent(WsError e) noexcept {
    return e == WsError::handshake || e == WsError::rpc || e == WsError::tls ||
           e == WsError::bad_url;
}

std::string seconds(milliseconds d) {
    return fmt::format("{:.1f} s", static_cast<double>(d.count()) / 1000.0);
}

}  // namespace

LogWakeup::LogWakeup(SubscribeConfig config, SubscriptionFilter filter, std::string what)
    : config_(std::move(config)), filter_(std::move(filter)), what_(std::move(what)) {
    thread_ = std::jthread([this](const std::stop_token& stop) { loop(stop); });
}

LogWakeup::~LogWakeup() {
    thread_.request_stop();
    woken_.notify_all();
    if (thread_.joinable()) thread_.join();
}

bool LogWakeup::sleep(const std::stop_token& stop, milliseconds pause_for) {
    std::unique_lock lock(mutex_);
    woken_.wait_for(lock, stop, pause_for, [this] { return pending_; });
    pending_ = false;
    return !stop.stop_requested();
}

void LogWakeup::wake() {
    {
        const std::lock_guard lock(mutex_);
        pending_ = true;
    }
    woken_.notify_all();
}

bool LogWakeup::pause(const std::stop_token& stop, milliseconds d) {
    std::unique_lock lock(mutex_);
    woken_.wait_for(lock, stop, d, [] { return false; });
    return !stop.stop_requested();
}

void LogWakeup::info(const std::string& line) const {
    if (config_.on_info) config_.on_info(line);
}

void LogWakeup::loop(const std::stop_token& stop) {
    milliseconds retry = config_.retry_min;
    bool outage_reported = false;  // one line per outage, not one per attempt
    // Waits `retry`, then doubles it up to retry_max; false when stopped meanwhile.
    const auto back_off = [&] {
        if (!pause(stop, retry)) return false;
        retry = std::min(retry * 2, std::max(config_.retry_max, config_.retry_min));
        return true;
    };
    while (!stop.stop_requested()) {
        auto opened = LogSubscription::open(config_.ws_url, filter_, config_.socket);
        if (!opened) {
            const auto& e = opened.error();
            if (permanent(e.code)) {
                gave_up_ = true;
                info(fmt::format("eth_subscribe is not offered at {} ({}); polling eth_getLogs",
                                 config_.ws_url, e.detail));
                return;
            }
            if (!outage_reported) {
                info(
                    fmt::format("eth_subscribe: {} unreachable ({}); polling eth_getLogs and "
                                "retrying from {}",
                                config_.ws_url, e.detail, seconds(retry)));
                outage_reported = true;
            }
            if (!back_off()) return;
            continue;
        }
        std::unique_ptr<LogSubscription> sub = std::move(*opened);
        const bool first = subscriptions_.fetch_add(1) == 0;
        subscribed_ = true;
        outage_reported = false;
        retry = config_.retry_min;
        info(fmt::format("eth_subscribe: {} {} at {}", first ? "subscribed to" : "resubscribed to",
                         what_, config_.ws_url));
        // Logs emitted while no subscription was open are found by the next step's eth_getLogs.
        wake();

        std::optional<Clock::time_point> ping_sent;
        std::string lost;
        while (!stop.stop_requested()) {
            auto event = sub->next(kSlice);
            if (!event) {
                lost = event.error().detail;
                break;
            }
            if (*event) {
                ++notifications_;
                wake();
            }
            const auto now = Clock::now();
            if (ping_sent && sub->last_activity() >= *ping_sent) ping_sent.reset();
            if (ping_sent && now - *ping_sent > config_.socket.io_timeout) {
                lost = "no answer to a keep-alive ping";
                break;
            }
            if (!ping_sent && now - sub->last_activity() > config_.keepalive) {
                if (auto p = sub->ping(); !p) {
                    lost = p.error().detail;
                    break;
                }
                ping_sent = now;
            }
        }
        subscribed_ = false;
        if (stop.stop_requested()) {
            // A clean goodbye; the node may have gone already, which is fine.
            if (auto bye = sub->unsubscribe(milliseconds(1'000)); !bye)
                info(fmt::format("eth_unsubscribe: {}", bye.error().detail));
            return;
        }
        info(
            fmt::format("eth_subscribe: subscription lost ({}); polling eth_getLogs and "
                        "reconnecting",
                        lost));
        outage_reported = true;
        sub.reset();
        if (!back_off()) return;
    }
}

}  // namespace credence::chain
