// `credence util ...`: a cast-like toolbox over credence::core. Argument conventions follow
// Foundry's cast so that scripts port by changing the command name.
#include <credence/cmd/util.hpp>

#include <pthread.h>

#include <cstdlib>

namespace credence::cmd {

core::SecretKey load_private_key(const std::string& flag_value) {
    std::string hex = flag_value;
    for (const char* var : {"CREDENCE_PRIVATE_KEY", "ETH_PRIVATE_KEY"}) {
        if (!hex.empty()) break;
        if (const char* env = std::getenv(var)) hex = env;
    }
    if (hex.empty())
        throw CliError("no private key: pass --private-key or set CREDENCE_PRIVATE_KEY");
    auto key = core::SecretKey::from_hex(hex);
    core::secure_wipe(hex.data(), hex.size());
    // The key's bytes never reach the message.
    if (!key) throw CliError("invalid private key: " + std::string(to_string(key.error().code)));
    return std::move(*key);
}

CLI::App* add_util_command(CLI::App& util, const std::string& name, const std::string& about,
                           UtilOptions& opts) {
    auto* cmd = util.add_subcommand(name, about);
    cmd->add_flag("--json", opts.json, "Print the result as JSON");
    return cmd;
}

void add_util_commands(CLI::App& app) {
    static UtilOptions opts;
    auto* util =
        app.add_subcommand("util", "Ethereum and JSON utilities (cast-compatible arguments)");
    util->require_subcommand(1);
    add_util_hash_commands(*util, opts);
    add_util_abi_commands(*util, opts);
    add_util_sign_commands(*util, opts);
    add_util_json_commands(*util, opts);
}

sigset_t block_stop_signals() {
    sigset_t stop_signals;
    ::sigemptyset(&stop_signals);
    ::sigaddset(&stop_signals, SIGINT);
    ::sigaddset(&stop_signals, SIGTERM);
    ::pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    return stop_signals;
}

}  // namespace credence::cmd
