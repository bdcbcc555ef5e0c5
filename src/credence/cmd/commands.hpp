// The CLI's command groups, one file each, and the small toolkit they share.
//
// Errors: a command throws CliError with a one-line message; main() is the single boundary that
// prints it as "error: <message>" on stderr and exits 1. Nothing else in cmd/ prints errors.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace credence::cmd {

class CliError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
    /// An error with structured detail: with --json, its members join "message" in the error
    /// document (for example a validation report's "issues").
    CliError(const std::string& message, nlohmann::ordered_json details)
        : std::runtime_error(message), details_(std::move(details)) {}
    [[nodiscard]] const nlohmann::ordered_json& details() const noexcept { return details_; }

private:
    nlohmann::ordered_json details_;  ///< an object, or null
};

/// How a result reads without --json (docs/cli.md §Output).
enum class OutputStyle {
    bare,     ///< one value per line, the `cast` way: for `util` and the commands that are cast's
    labeled,  ///< "name  value" lines, the names being the --json keys: for people
};

/// A command's result, printed as plain text or, with --json, as one JSON document (the same
/// names). Labeled output of a single value prints it bare, so `$(credence ...)` keeps working.
class Output {
public:
    explicit Output(bool json, OutputStyle style = OutputStyle::bare)
        : json_(json), style_(style) {}
    /// Adds a named value.
    void add(const std::string& key, nlohmann::ordered_json value);
    /// Prints and clears what was added.
    void flush();

private:
    bool json_;
    OutputStyle style_;
    nlohmann::ordered_json doc_ = nlohmann::ordered_json::object();
};

/// Reads a whole file, or stdin for "-". Throws CliError when it cannot.
[[nodiscard]] std::string read_input(const std::string& path);

/// `bytes` as a base64 data: URI (RFC 2397), application/json when they are JSON, else
/// application/octet-stream: how a file goes on chain without a server (ERC-8004 §Agent URI).
[[nodiscard]] std::string data_uri_of(std::string_view bytes);

void add_util_commands(CLI::App& app);
void add_devnet_commands(CLI::App& app);
void add_agent_commands(CLI::App& app);
void add_feedback_commands(CLI::App& app);
void add_validation_commands(CLI::App& app);
void add_tool_commands(CLI::App& app);
void add_workflow_commands(CLI::App& app);
void add_index_commands(CLI::App& app);
void add_verify_commands(CLI::App& app);
void add_trust_commands(CLI::App& app);
void add_worker_commands(CLI::App& app);
void add_validator_commands(CLI::App& app);
void add_node_commands(CLI::App& app);
void add_demo_commands(CLI::App& app);

}  // namespace credence::cmd
