#include <credence/cmd/agent_subscribe.hpp>

#include <cstdio>

#include <fmt/core.h>

#include <credence/chain/websocket_handshake.hpp>
#include <credence/cmd/util.hpp>

namespace credence::cmd {

void add_subscribe_options(CLI::App& cmd, SubscribeOptions& options) {
    cmd.add_option("--ws-url", options.ws_url,
                   "WebSocket endpoint for eth_subscribe (default: the RPC URL with ws:// or "
                   "wss://); polling eth_getLogs stays the source of truth");
    cmd.add_flag("--no-subscribe", options.no_subscribe,
                 "Do not use eth_subscribe: poll eth_getLogs only");
}

std::optional<chain::SubscribeConfig> subscribe_config(const SubscribeOptions& options,
                                                       const std::string& rpc_url,
                                                       std::string_view who) {
    if (options.no_subscribe) {
        if (!options.ws_url.empty())
            throw CliError("--ws-url and --no-subscribe exclude each other");
        return std::nullopt;
    }
    chain::SubscribeConfig config;
    const std::string prefix(who);
    if (!options.ws_url.empty()) {
        if (auto u = chain::parse_ws_url(options.ws_url); !u)
            throw CliError(fmt::format("--ws-url: {}", u.error().detail));
        config.ws_url = options.ws_url;
    } else if (auto derived = chain::websocket_url_for(rpc_url)) {
        config.ws_url = std::move(*derived);
    } else {
        fmt::print(stderr, "{}: no WebSocket URL follows from {}; polling eth_getLogs\n", prefix,
                   rpc_url);
        return std::nullopt;
    }
    config.on_info = [prefix](std::string_view line) {
        fmt::print(stderr, "{}: {}\n", prefix, line);
        std::fflush(stderr);
    };
    return config;
}

}  // namespace credence::cmd
