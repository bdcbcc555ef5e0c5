// credence: the command-line entry point. Each command group lives in its own file in this folder
// and registers its subcommands on the CLI11 app. This is the one boundary where errors, the
// command line's own included, become a single line on stderr (JSON with --json) and exit code 1
// (docs/cli.md §Errors).
#include <exception>
#include <span>
#include <vector>

#include <CLI/CLI.hpp>

#include <credence/cmd/commands.hpp>
#include <credence/cmd/error_report.hpp>

int main(int argc, char** argv) {
    const std::vector<const char*> line = credence::cmd::json_moved_last(
        std::span<const char* const>(argv, static_cast<size_t>(argc)));
    const std::span<const char* const> args(line);
    const bool json = credence::cmd::json_requested(args);
    try {
        CLI::App app{
            "credence: the on-chain trust layer for AI agents (ERC-8004, ERC-8257, ERC-8301)"};
        app.require_subcommand(1);
        app.set_version_flag("--version", "credence " CREDENCE_VERSION);
        namespace cmd = credence::cmd;
        cmd::add_util_commands(app);
        cmd::add_devnet_commands(app);
        cmd::add_agent_commands(app);
        cmd::add_feedback_commands(app);
        cmd::add_validation_commands(app);
        cmd::add_tool_commands(app);
        cmd::add_workflow_commands(app);
        cmd::add_index_commands(app);
        cmd::add_verify_commands(app);
        cmd::add_trust_commands(app);
        cmd::add_worker_commands(app);
        cmd::add_validator_commands(app);
        cmd::add_node_commands(app);
        cmd::add_demo_commands(app);
        try {
            app.parse(static_cast<int>(line.size()), line.data());
        } catch (const CLI::ParseError& e) {
            // --help and --version end the parse with success; CLI11 prints them.
            if (e.get_exit_code() == 0) return app.exit(e);
            credence::cmd::print_error(credence::cmd::describe_usage_error(app, e, args), json);
            return 1;
        }
        return 0;
    } catch (const credence::cmd::CliError& e) {
        credence::cmd::print_error(e.what(), json, e.details());
        return 1;
    } catch (const std::exception& e) {
        credence::cmd::print_error(e.what(), json);
        return 1;
    }
}
