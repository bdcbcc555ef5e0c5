// `credence util ...`: a cast-like toolbox over credence::core.
#include <credence/cmd/commands.hpp>
#include <credence/core/keccak.hpp>

#include <fmt/core.h>

namespace credence::cmd {
namespace {
int g_exit_code = 0;
}  // namespace

int exit_code() { return g_exit_code; }
void set_exit_code(int code) { g_exit_code = code; }

void add_util_commands(CLI::App& app) {
    auto* util = app.add_subcommand("util", "Ethereum and JSON utilities (cast-compatible arguments)");
    util->require_subcommand(1);
    auto* keccak = util->add_subcommand("keccak", "keccak256 of hex data (0x...) or UTF-8 text");
    static std::string input;
    keccak->add_option("data", input, "0x-prefixed hex, or text")->required();
    keccak->callback([] {
        auto bytes = core::from_prefixed_hex(input);
        const auto digest = bytes ? core::keccak256(*bytes) : core::keccak256(std::string_view(input));
        fmt::print("{}\n", core::to_hex(digest));
    });
}

}  // namespace credence::cmd
