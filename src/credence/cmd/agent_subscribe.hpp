// The eth_subscribe options that `credence worker` and `credence validator` share
// (chain/log_wakeup.hpp): --ws-url and --no-subscribe, and the SubscribeConfig they make.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include <credence/chain/log_wakeup.hpp>

namespace credence::cmd {

struct SubscribeOptions {
    std::string ws_url;         // empty: derived from the RPC URL
    bool no_subscribe = false;  // poll only
};

void add_subscribe_options(CLI::App& cmd, SubscribeOptions& options);

/// nullopt with --no-subscribe, or when no WebSocket URL follows from the RPC URL (which is then
/// said once on stderr). Info lines go to stderr prefixed with `who` ("worker", "validator").
[[nodiscard]] std::optional<chain::SubscribeConfig> subscribe_config(
    const SubscribeOptions& options, const std::string& rpc_url, std::string_view who);

}  // namespace credence::cmd
