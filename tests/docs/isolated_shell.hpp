// Runs a bash script in a network and PID namespace of its own: loopback only, so a document's
// fixed ports (8545, 8004) never meet another test's, and everything it started, anvil included,
// is killed when the script's shell (PID 1 there) exits. As root the namespaces need nothing
// more; otherwise a user namespace maps the caller to root in them (Debian 12 allows that by
// default).
#pragma once

#include <chrono>
#include <expected>
#include <filesystem>
#include <map>
#include <string>

namespace credence::docs {

struct ShellRun {
    int exit_code = -1;      ///< the shell's exit code, or 128 + signal
    bool timed_out = false;  ///< killed at the limit
};

/// Runs `bash -e -o pipefail script` in `cwd` with exactly `env`, stdout and stderr both to `log`,
/// killed after `limit`. Fails only when the namespaces or the process cannot be made.
[[nodiscard]] std::expected<ShellRun, std::string> run_isolated_shell(
    const std::filesystem::path& script, const std::filesystem::path& cwd,
    const std::map<std::string, std::string>& env, const std::filesystem::path& log,
    std::chrono::seconds limit);

}  // namespace credence::docs
