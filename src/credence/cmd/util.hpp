// `credence util`: the subcommand groups (one file each) and their shared helpers.
#pragma once

#include <csignal>
#include <string>
#include <string_view>

#include <credence/cmd/commands.hpp>
#include <credence/core/abi_type.hpp>
#include <credence/core/error.hpp>
#include <credence/core/secp256k1.hpp>

#include <fmt/core.h>

namespace credence::cmd {

/// Options every util command shares.
struct UtilOptions {
    bool json = false;
};

void add_util_hash_commands(CLI::App& util, UtilOptions& opts);
void add_util_abi_commands(CLI::App& util, UtilOptions& opts);
void add_util_sign_commands(CLI::App& util, UtilOptions& opts);
void add_util_json_commands(CLI::App& util, UtilOptions& opts);

/// A util subcommand with the shared --json flag.
CLI::App* add_util_command(CLI::App& util, const std::string& name, const std::string& about,
                           UtilOptions& opts);

/// "<reason>: <detail>" of a core error, or its reason alone: how every message names one.
template <typename Code>
[[nodiscard]] std::string error_text(const core::Error<Code>& e) {
    return e.detail.empty() ? std::string(to_string(e.code))
                            : fmt::format("{}: {}", to_string(e.code), e.detail);
}

/// Unwraps a core result, or throws CliError("<what>: <reason>[: detail]").
template <typename T, typename Code>
T must(core::Result<T, Code>&& r, std::string_view what) {
    if (!r) throw CliError(fmt::format("{}: {}", what, error_text(r.error())));
    if constexpr (!std::is_void_v<T>) return std::move(*r);
}

/// must() for an ABI encoding or decoding: "<what>: ABI: <reason>".
template <typename T>
T must_abi(core::Result<T, core::AbiError>&& r, std::string_view what) {
    return must(std::move(r), fmt::format("{}: ABI", what));
}

/// The signing key from --private-key, else $CREDENCE_PRIVATE_KEY, else $ETH_PRIVATE_KEY.
[[nodiscard]] core::SecretKey load_private_key(const std::string& flag_value);

/// Blocks SIGINT and SIGTERM in the calling thread (call it before any thread or child starts, so
/// they inherit the mask) and returns the set, for the long-running commands that collect them
/// with sigtimedwait/sigwaitinfo and shut down cleanly instead of dying mid-transaction.
[[nodiscard]] sigset_t block_stop_signals();

}  // namespace credence::cmd
