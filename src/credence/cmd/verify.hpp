// `credence verify`: checking what the chain points to (docs/architecture.md §verify/). The group
// is registered by add_verify_commands(); each subcommand lives in its own file (verify_<x>.cpp)
// and exposes `void add_verify_<x>_command(CLI::App& verify_group)`, called from
// add_verify_commands().
//
// Every subcommand that fetches takes the same flags (add_fetch_flags) and builds its fetcher with
// make_fetcher(), so `--allow-host`, `--connect-to`, `--ca-file`, `--allow-http` and
// `--ipfs-gateway` mean the same thing everywhere. The parsed FetchArgs must outlive parsing (the
// callers keep them static, as the other command groups keep their options).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <credence/verify/net/fetch.hpp>

namespace credence::cmd {

/// The fetcher's knobs on the command line (verify::FetcherConfig).
struct FetchArgs {
    std::vector<std::string> allow_hosts;  ///< --allow-host (repeatable): lifts the SSRF guard
    std::vector<std::string> connect_to;   ///< --connect-to (repeatable, curl syntax)
    std::string ca_file;      ///< --ca-file: PEM CA bundle used instead of the system's
    bool allow_http = false;  ///< --allow-http
    /// --ipfs-gateway (repeatable): replaces the public ones the node asks by default
    /// (verify/net/ipfs_gateways.hpp), so a CLI check and the node read `ipfs://` alike.
    std::vector<std::string> ipfs_gateways;
    bool no_ipfs_gateway = false;  ///< --no-ipfs-gateway: none, `ipfs://` fails `no_gateway`
};

/// CLI11 check of one --allow-host entry: a malformed one is refused with the line
/// verify::HostAllowList::parse gives, never silently dropped.
[[nodiscard]] CLI::Validator allow_host_check();

/// Adds --allow-host, --connect-to, --ca-file, --allow-http, --ipfs-gateway and
/// --no-ipfs-gateway to `cmd`.
void add_fetch_flags(CLI::App& cmd, FetchArgs& args);

/// The fetcher's configuration from the flags (the default gateways filled in).
[[nodiscard]] verify::FetcherConfig fetcher_config(const FetchArgs& args);
/// The production fetcher configured from the flags.
[[nodiscard]] std::unique_ptr<verify::Fetcher> make_fetcher(const FetchArgs& args);

/// One line for a fetch failure: "<reason>: <detail>".
[[nodiscard]] std::string describe(const core::Error<verify::FetchError>& error);

/// Registers the `verify` group and its subcommands (declared in commands.hpp).
void add_verify_commands(CLI::App& app);

// The subcommands' registration functions, one per verify_<x>.cpp (add yours here).
void add_verify_feedback_command(CLI::App& verify_group);    // verify_feedback.cpp
void add_verify_validation_command(CLI::App& verify_group);  // verify_feedback.cpp
void add_verify_agent_command(CLI::App& verify_group);       // verify_agent.cpp (+ resolve)
void add_verify_tool_command(CLI::App& verify_group);        // verify_tool.cpp
void add_verify_run_command(CLI::App& verify_group);         // verify_run.cpp
void add_verify_pending_command(CLI::App& verify_group);     // verify_pending.cpp

}  // namespace credence::cmd
