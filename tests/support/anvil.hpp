// A real anvil node for integration tests.
//
// AnvilProcess::start() runs the anvil binary ($CREDENCE_ANVIL, else the npm-installed one under
// CREDENCE_SOURCE_DIR) on 127.0.0.1 and a free port, waits until eth_chainId answers with the
// configured chain id, and returns a handle whose destructor stops the process (SIGTERM, then
// SIGKILL after a grace period) and reaps it. anvil's stdout and stderr go to a temporary log file,
// quoted in start errors and available via log(). On Linux the child also gets
// PR_SET_PDEATHSIG, so it dies with the test binary even if the destructor never runs.
//
// Port choice binds port 0 to learn a free port and releases it before anvil binds; another
// process may grab it in between, so start() retries on a fresh port when anvil exits early.
// Thread-safety: one owner; not copyable or movable (the handle owns a child pid).
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

namespace credence::testing {

/// The first dev accounts of anvil's default mnemonic ("test test ... junk"), index 0..2.
inline constexpr std::string_view kAnvilDevKeys[] = {
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
    "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
    "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
};
inline constexpr std::string_view kAnvilDevAddresses[] = {
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
};

struct AnvilOptions {
    uint64_t chain_id = 31337;
    /// Seconds between blocks; nullopt mines one block per transaction (automine).
    std::optional<uint64_t> block_time;
    unsigned accounts = 10;
    /// Appended verbatim, e.g. {"--no-mining"} or {"--state", dir}.
    std::vector<std::string> extra_args;
    std::chrono::milliseconds start_timeout{20'000};
    /// Binary override; empty: $CREDENCE_ANVIL, then the npm-installed path.
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

    /// "http://127.0.0.1:<port>".
    [[nodiscard]] std::string url() const;
    [[nodiscard]] uint16_t port() const noexcept { return port_; }
    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    /// Everything anvil printed so far.
    [[nodiscard]] std::string log() const;
    /// Stops the process now (idempotent); the destructor calls it.
    void stop() noexcept;

    /// The binary start() would use with default options.
    [[nodiscard]] static std::filesystem::path default_binary();

private:
    AnvilProcess(pid_t pid, uint16_t port, std::filesystem::path log_path)
        : pid_(pid), port_(port), log_path_(std::move(log_path)) {}

    pid_t pid_ = -1;
    uint16_t port_ = 0;
    std::filesystem::path log_path_;
};

/// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it back, close).
[[nodiscard]] uint16_t pick_free_port();

}  // namespace credence::testing
