// credence: the command-line entry point. Each command group lives in its own file in this folder
// and registers its subcommands on the CLI11 app; errors become one line on stderr and exit code 1.
#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include <credence/cmd/commands.hpp>

int main(int argc, char** argv) {
    CLI::App app{"credence: the on-chain trust layer for AI agents (ERC-8004, ERC-8257, ERC-8301)"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "credence 0.1.0");
    credence::cmd::add_util_commands(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    return credence::cmd::exit_code();
}
