// Running programs from tests, without a shell: the one runner every test uses for the real
// `credence` binary, cast, node and the like (arguments are passed as they are, so nothing needs
// quoting), and where the checkout's tools are.
// Thread-safety: run_command may be called from several threads; each call owns its child.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace credence::testing {

/// The outcome of a finished child process.
struct CommandResult {
    int exit_code = -1;  // -1 when it did not exit normally (signal) or could not start
    std::string out;     // stdout
    std::string err;     // stderr
};

/// Runs `binary args...` to completion with the current environment plus `env` (overriding), and
/// `stdin_text` on its standard input. Captures stdout and stderr separately. The child gets
/// SIGKILL if the test process dies first.
[[nodiscard]] CommandResult run_command(const std::filesystem::path& binary,
                                        const std::vector<std::string>& args,
                                        const std::map<std::string, std::string>& env = {},
                                        std::string_view stdin_text = {});

/// The source checkout: $CREDENCE_SOURCE_DIR (set by CTest), else the one the tests were built
/// from.
[[nodiscard]] std::filesystem::path source_dir();
/// The npm-installed Foundry tools: $CREDENCE_CAST / $CREDENCE_ANVIL, else the checkout's
/// node_modules.
[[nodiscard]] std::filesystem::path cast_binary();
[[nodiscard]] std::filesystem::path anvil_binary();
/// `name` found on $PATH, or an empty path.
[[nodiscard]] std::filesystem::path find_program(std::string_view name);
/// Runs cast with `args` (cast_binary()).
[[nodiscard]] CommandResult run_cast(const std::vector<std::string>& args);
/// cast's printed value (trimmed stdout); a non-zero exit fails the current test, with cast's
/// output in the message.
[[nodiscard]] std::string cast_output(const std::vector<std::string>& args);
/// A loopback TCP port the kernel just reported free (bound to port 0, then closed): for a child
/// that must be told its port. Never a fixed formula, which can land on another test's
/// ephemeral port.
[[nodiscard]] uint16_t free_loopback_port();
/// The port of a URL that ends in ":<port>" (http://127.0.0.1:8545).
[[nodiscard]] uint16_t port_of_url(const std::string& url);
/// http://127.0.0.1:<port> where nothing listens: free_loopback_port().
[[nodiscard]] std::string closed_loopback_url();
/// `text` without trailing newlines and spaces (a command's printed value).
[[nodiscard]] std::string trimmed(std::string text);

}  // namespace credence::testing
