// credence: the command-line entry point. Each command group lives in its own file in this folder
// and registers its subcommands on the CLI11 app. This is the one boundary where errors become a
// single line on stderr and a non-zero exit code.
#include <exception>

#include <fmt/core.h>
#include <CLI/CLI.hpp>

#include <credence/cmd/commands.hpp>

int main(int argc, char** argv) {
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
            app.parse(argc, argv);
        } catch (const CLI::ParseError& e) {
            return app.exit(e);
        }
        return 0;
    } catch (const std::exception& e) {
        fmt::print(stderr, "error: {}\n", e.what());
        return 1;
    }
}
