// A local anvil node as a child process: the chain of `credence devnet` and of the integration
// tests (docs/cli.md).
//
// AnvilProcess::start() runs the anvil binary (default_binary(): $CREDENCE_ANVIL, else the
// project's npm install) on 127.0.0.1, waits until eth_chainId answers with the configured chain
// id, and returns a handle whose destructor stops the process (SIGTERM, then SIGKILL after a grace
// period) and reaps it. anvil's stdout and stderr go to a log file in a private temporary
// directory, quoted in start errors and available via log(); its `--config-out` JSON, read once
// the node answers, gives the funded dev accounts and their private keys (dev_accounts()).
//
// Port: a fixed port when AnvilOptions::port is set (start fails if it is taken), else anvil binds
// port 0 itself and the port is read back from its "Listening on 127.0.0.1:<port>" line, so there
// is no window in which another process could take it.
// State: with AnvilOptions::state_file anvil loads that file when it exists and writes it back on
// a clean exit (anvil --state), which stop() gives it time to do.
// Process hygiene: the child runs in its own process group, so a terminal's Ctrl-C reaches the
// owner (which then stops anvil in order) rather than anvil directly; on Linux it also gets
// PR_SET_PDEATHSIG, so it dies with its parent even if the destructor never runs.
//
// Thread-safety: one owner; not copyable or movable (the handle owns a child pid). start() forks:
// call it before starting threads that hold locks the child could need (only async-signal-safe
// calls run between fork and exec).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>

namespace credence::chain {

/// A funded account of anvil's dev mnemonic. These keys are public knowledge: devnet only.
struct DevAccount {
    core::Address address;
    std::string private_key_hex;  // "0x" + 64 hex digits
};

struct AnvilOptions {
    uint64_t chain_id = 31337;
    /// 0: any free port (anvil binds port 0); otherwise exactly this port.
    uint16_t port = 0;
    /// Seconds between blocks; nullopt mines one block per transaction (automine).
    std::optional<uint64_t> block_time;
    unsigned accounts = 10;
    /// anvil --state FILE: load it when present, write it on exit.
    std::optional<std::filesystem::path> state_file;
    /// Appended verbatim, e.g. {"--no-mining"}.
    std::vector<std::string> extra_args;
    std::chrono::milliseconds start_timeout{20'000};
    /// Binary override; empty: default_binary().
    std::filesystem::path binary;
};

class AnvilProcess {
public:
    /// Starts anvil and waits for it to answer. The error is one line plus anvil's log tail.
    [[nodiscard]] static std::expected<std::unique_ptr<AnvilProcess>, std::string> start(
        const AnvilOptions& options = {});

    ~AnvilProcess();
    AnvilProcess(const AnvilProcess&) = delete;
    AnvilProcess& operator=(const AnvilProcess&) = delete;
    AnvilProcess(AnvilProcess&&) = delete;
    AnvilProcess& operator=(AnvilProcess&&) = delete;

    /// "http://127.0.0.1:<port>".
    [[nodiscard]] std::string url() const;
    [[nodiscard]] uint16_t port() const noexcept { return port_; }
    [[nodiscard]] uint64_t chain_id() const noexcept { return chain_id_; }
    /// The child's pid, or -1 once stopped.
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// The funded accounts, in anvil's order (index 0 is the default sender).
    [[nodiscard]] const std::vector<DevAccount>& dev_accounts() const noexcept {
        return dev_accounts_;
    }
    /// Everything anvil printed so far.
    [[nodiscard]] std::string log() const;
    /// The private directory (anvil's log, its config and its $HOME), removed with this object.
    [[nodiscard]] const std::filesystem::path& private_dir() const noexcept { return dir_; }
    /// True while the child has not exited (reaps it if it has).
    [[nodiscard]] bool running() noexcept;
    /// Stops the process now (idempotent): SIGTERM, and SIGKILL when it has not exited within
    /// `grace` (anvil writes its --state file in that time). The destructor calls it.
    void stop(std::chrono::milliseconds grace = std::chrono::milliseconds(10'000)) noexcept;

    /// The anvil to run, looked for in this order (docs/operating.md): $CREDENCE_ANVIL; an
    /// install's <prefix>/libexec/credence/anvil (chain/program_files.hpp);
    /// node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil under $CREDENCE_SOURCE_DIR or under
    /// the nearest ancestor of this executable that has it (a build tree); `anvil` on PATH. The
    /// error is one line naming every place looked in.
    [[nodiscard]] static std::expected<std::filesystem::path, std::string> find_binary();

private:
    AnvilProcess() = default;

    pid_t pid_ = -1;
    uint16_t port_ = 0;
    uint64_t chain_id_ = 0;
    std::filesystem::path
        dir_;  // private temporary directory: anvil.log, config.json, and anvil's $HOME
    std::vector<DevAccount> dev_accounts_;
};

/// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it back, close).
/// 0 when no socket could be bound.
[[nodiscard]] uint16_t pick_free_port();

/// Parses anvil's --config-out JSON ("available_accounts" and "private_keys" arrays).
[[nodiscard]] std::expected<std::vector<DevAccount>, std::string> parse_anvil_config(
    std::string_view json);

}  // namespace credence::chain
