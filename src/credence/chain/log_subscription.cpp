#include <credence/chain/log_subscription.hpp>

#include <algorithm>

#include <fmt/core.h>

#include <credence/chain/rpc_codec.hpp>

namespace credence::chain {
namespace {

using core::fail;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

std::chrono::milliseconds left_until(Clock::time_point deadline) {
    return std::max(std::chrono::milliseconds(0),
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

// One line of the node's text, for error messages (the node chooses it).
std::string message_snippet(std::string_view s) {
    std::string out;
    for (const char c : s.substr(0, 200)) {
        const auto u = static_cast<unsigned char>(c);
        out.push_back(u < 0x20 || u == 0x7f ? ' ' : c);
    }
    return out;
}

}  // namespace

json subscribe_params(const SubscriptionFilter& filter) {
    if (filter.kind == SubscriptionFilter::Kind::new_heads) return json::array({"newHeads"});
    LogFilter lf;
    lf.addresses = filter.addresses;
    lf.topics = filter.topics;
    json criteria = to_json(lf);
    // A subscription follows new blocks only: no range (geth refuses fromBlock/toBlock there).
    criteria.erase("fromBlock");
    criteria.erase("toBlock");
    return json::array({"logs", std::move(criteria)});
}

WsResult<std::optional<SubscriptionEvent>> parse_notification(std::string_view message,
                                                              std::string_view subscription_id,
                                                              SubscriptionFilter::Kind kind) {
    json j = json::parse(message, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        return fail(WsError::rpc,
                    "a WebSocket message that is not a JSON object: " + message_snippet(message));
    const auto method = j.find("method");
    if (method == j.end()) return std::nullopt;  // an answer to a request
    if (!method->is_string() || *method != "eth_subscription") return std::nullopt;
    const auto params = j.find("params");
    if (params == j.end() || !params->is_object())
        return fail(WsError::rpc, "eth_subscription without params");
    const auto sub = params->find("subscription");
    if (sub == params->end() || !sub->is_string())
        return fail(WsError::rpc, "eth_subscription without a subscription id");
    if (sub->get_ref<const std::string&>() != subscription_id) return std::nullopt;
    const auto result = params->find("result");
    if (result == params->end()) return fail(WsError::rpc, "eth_subscription without a result");
    SubscriptionEvent event;
    if (kind == SubscriptionFilter::Kind::logs) {
        auto log = read_log(*result);
        if (!log) return fail(WsError::rpc, "log notification: " + log.error().message);
        event.log = std::move(*log);
        return event;
    }
    if (!result->is_object()) return fail(WsError::rpc, "newHeads notification: not an object");
    const auto number = result->find("number");
    const auto hash = result->find("hash");
    if (number == result->end() || hash == result->end())
        return fail(WsError::rpc, "newHeads notification without number and hash");
    auto n = read_u64(*number);
    if (!n) return fail(WsError::rpc, "newHeads number: " + n.error().message);
    auto h = read_hash(*hash);
    if (!h) return fail(WsError::rpc, "newHeads hash: " + h.error().message);
    event.block_num = *n;
    event.block_hash = *h;
    return event;
}

WsResult<std::unique_ptr<LogSubscription>> LogSubscription::open(std::string_view ws_url,
                                                                 const SubscriptionFilter& filter,
                                                                 const WsClientOptions& options) {
    auto client = WebSocketClient::connect(ws_url, options);
    if (!client) return std::unexpected(client.error());
    std::unique_ptr<LogSubscription> sub(new LogSubscription(std::move(*client), filter.kind));
    auto id = sub->call("eth_subscribe", subscribe_params(filter), options.connect_timeout);
    if (!id) {
        sub->client_->close(1000, std::chrono::milliseconds(200));
        return std::unexpected(id.error());
    }
    if (!id->is_string() || id->get_ref<const std::string&>().empty())
        return fail(WsError::rpc, "eth_subscribe answered no subscription id");
    sub->id_ = id->get<std::string>();
    return sub;
}

LogSubscription::~LogSubscription() = default;

WsResult<json> LogSubscription::call(std::string_view method, json params,
                                     std::chrono::milliseconds timeout) {
    const uint64_t request_id = next_request_id_++;
    const json request{
        {"jsonrpc", "2.0"}, {"id", request_id}, {"method", method}, {"params", std::move(params)}};
    if (auto r = client_->send_text(request.dump()); !r) return std::unexpected(r.error());
    const auto deadline = Clock::now() + timeout;
    while (true) {
        auto m = client_->receive(left_until(deadline));
        if (!m) return std::unexpected(m.error());
        const std::optional<WsMessage>& message = *m;
        if (!message) return fail(WsError::timeout, fmt::format("no answer to {} in time", method));
        last_activity_ = Clock::now();
        if (message->opcode != WsOpcode::text) continue;  // pongs, binary: not JSON-RPC
        const std::string text(message->payload.begin(), message->payload.end());
        json j = json::parse(text, nullptr, false);
        const auto id = j.is_object() ? j.find("id") : j.end();
        if (j.is_object() && id != j.end() && *id == request_id) {
            if (const auto error = j.find("error"); error != j.end()) {
                std::string what = error->is_object() && error->contains("message") &&
                                           (*error)["message"].is_string()
                                       ? (*error)["message"].get<std::string>()
                                       : error->dump();
                return fail(WsError::rpc, fmt::format("{}: {}", method, message_snippet(what)));
            }
            const auto result = j.find("result");
            if (result == j.end()) return fail(WsError::rpc, fmt::format("{}: no result", method));
            return *result;
        }
        // A notification that raced the answer: keep it for next().
        queued_.push_back(text);
    }
}

WsResult<std::optional<SubscriptionEvent>> LogSubscription::next(
    std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
        std::string text;
        if (!queued_.empty()) {
            text = std::move(queued_.front());
            queued_.pop_front();
        } else {
            auto m = client_->receive(left_until(deadline));
            if (!m) return std::unexpected(m.error());
            const std::optional<WsMessage>& message = *m;
            if (!message) return std::nullopt;
            last_activity_ = Clock::now();
            if (message->opcode != WsOpcode::text) {
                if (Clock::now() >= deadline) return std::nullopt;
                continue;
            }
            text.assign(message->payload.begin(), message->payload.end());
        }
        auto event = parse_notification(text, id_, kind_);
        if (!event) return std::unexpected(event.error());
        if (*event) return event;
        if (Clock::now() >= deadline && queued_.empty()) return std::nullopt;
    }
}

WsResult<void> LogSubscription::ping() { return client_->send_ping(); }

WsResult<bool> LogSubscription::unsubscribe(std::chrono::milliseconds timeout) {
    if (unsubscribed_) return false;
    unsubscribed_ = true;
    auto r = call("eth_unsubscribe", json::array({id_}), timeout);
    client_->close(1000, timeout);
    if (!r) return std::unexpected(r.error());
    if (!r->is_boolean())
        return fail(WsError::rpc, "eth_unsubscribe answered " + message_snippet(r->dump()));
    return r->get<bool>();
}

}  // namespace credence::chain
