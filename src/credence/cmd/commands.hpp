// Registration of the CLI command groups, one file each (util.cpp, ...).
#pragma once

#include <CLI/CLI.hpp>

namespace credence::cmd {

void add_util_commands(CLI::App& app);

/// Exit status set by the command that ran (0 on success).
int exit_code();
void set_exit_code(int code);

}  // namespace credence::cmd
