// How a failure leaves the CLI (docs/cli.md §Errors): one line on stderr and exit code 1, for
// argument errors as much as for failed commands, and a JSON document instead of the line when
// the command line asks for --json.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace credence::cmd {

/// The command line with every --json (before a "--") moved to its end as one, so
/// `credence --json agent show 0` and `credence agent --json show 0` mean
/// `credence agent show 0 --json`: "--json anywhere" (docs/cli.md §Errors). The pointers are the
/// originals'.
[[nodiscard]] std::vector<const char*> json_moved_last(std::span<const char* const> args);

/// True when the arguments (before a "--") include --json.
[[nodiscard]] bool json_requested(std::span<const char* const> args);

/// One line for a command line that CLI11 refused: its message, or for an unknown command the
/// commands it could have been ("did you mean 'show'?"), and where the usage is.
[[nodiscard]] std::string describe_usage_error(const CLI::App& app, const CLI::ParseError& error,
                                               std::span<const char* const> args);

/// Prints `message` to stderr: "error: <message>" or, with `json`, {"error":{"message":...}}
/// with the members of `details` (an object, or null) after "message".
void print_error(std::string_view message, bool json,
                 const nlohmann::ordered_json& details = nullptr);

}  // namespace credence::cmd
