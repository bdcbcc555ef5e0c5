// A complete local devnet for integration tests: a real anvil with every Credence contract
// deployed (chain/devnet_deploy.hpp, the code `credence devnet` runs), and a fresh temporary
// CREDENCE_HOME holding the deployment, so a spawned `credence` finds the chain with NO flags.
//
//   auto devnet = credence::testing::Devnet::start();       // or derive from DevnetFixture
//   ASSERT_TRUE(devnet) << devnet.error();
//   (*devnet)->address("IdentityRegistry");                 // a deployed contract
//   run_command(CREDENCE_BIN, {"agent", "show", "1"}, (*devnet)->env());
//
// Layout of home(): devnet.json (the deployment with rpcUrl) and deployments/<chainId>.json
// (chain/deployment.hpp). Keys: anvil's default mnemonic; dev_key(0) is the deployer, which owns
// the owned contracts (DevnetERC1155, DevnetSubscriptions, AllowlistPredicate, the verifier) and is
// the ECDSA attester. These keys are public: devnet only.
//
// Cost: anvil start plus 20 CREATE2 transactions, about a second; DevnetFixture starts one devnet
// per test (full isolation). SharedDevnetFixture starts one per test suite for read-mostly suites.
// Thread-safety: one owner. The destructor stops anvil and removes home().
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "support/process.hpp"

#include <credence/chain/anvil_process.hpp>
#include <credence/chain/deployment.hpp>
#include <credence/chain/devnet_deploy.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::testing {

struct DevnetOptions {
    uint64_t chain_id = 31337;
    /// Seconds between blocks; nullopt: automine (one block per transaction).
    std::optional<uint64_t> block_time;
    unsigned accounts = 10;
    /// DeployRevisions::all also deploys the earlier ERC-8004 revisions' registries
    /// (`credence devnet --revisions all`).
    chain::DeployRevisions revisions = chain::DeployRevisions::current;
};

class Devnet {
public:
    /// Starts anvil on a free port, deploys everything, writes the deployment into a new temporary
    /// CREDENCE_HOME. The error is one line (plus anvil's log tail when anvil failed).
    [[nodiscard]] static std::expected<std::unique_ptr<Devnet>, std::string> start(
        const DevnetOptions& options = {});

    ~Devnet();
    Devnet(const Devnet&) = delete;
    Devnet& operator=(const Devnet&) = delete;
    Devnet(Devnet&&) = delete;
    Devnet& operator=(Devnet&&) = delete;

    /// "http://127.0.0.1:<port>".
    [[nodiscard]] const std::string& rpc_url() const noexcept { return rpc_url_; }
    [[nodiscard]] uint64_t chain_id() const noexcept { return deployment_.chain_id; }
    /// The deployment as written to home() (rpc_url set).
    [[nodiscard]] const chain::Deployment& deployment() const noexcept { return deployment_; }
    /// The address of a deployed contract by its Solidity name ("IdentityRegistry", ...); fails
    /// the current test (and returns the zero address) when there is no such contract.
    [[nodiscard]] core::Address address(std::string_view contract) const;
    /// The temporary CREDENCE_HOME.
    [[nodiscard]] const std::filesystem::path& home() const noexcept { return home_; }

    /// The funded dev accounts (anvil's --config-out), index 0 = deployer.
    [[nodiscard]] const std::vector<chain::DevAccount>& accounts() const noexcept;
    /// "0x" + 64 hex digits of account i.
    [[nodiscard]] const std::string& dev_key(size_t i) const;
    [[nodiscard]] core::Address dev_address(size_t i) const;
    /// Account i's key, parsed.
    [[nodiscard]] core::SecretKey secret_key(size_t i) const;

    /// What a spawned `credence` needs to find this devnet with no flags:
    /// {"CREDENCE_HOME", home()}.
    [[nodiscard]] std::map<std::string, std::string> env() const;
    /// The same as "NAME=value" strings.
    [[nodiscard]] std::vector<std::string> env_strings() const;

    /// A new JSON-RPC client for this node (the client is not thread-safe: one per thread).
    [[nodiscard]] chain::RpcClient rpc() const;
    /// Sends `data` to `to` from dev account `from` and waits for it to be mined; the receipt.
    /// A failed send fails the current test and returns an empty receipt.
    chain::Receipt send(size_t from, const core::Address& to, core::Bytes data) const;
    /// The latest block's timestamp (0 after a failed read, which fails the current test).
    [[nodiscard]] uint64_t chain_time() const;
    [[nodiscard]] chain::AnvilProcess& anvil() noexcept { return *anvil_; }

private:
    Devnet() = default;

    std::unique_ptr<chain::AnvilProcess> anvil_;
    std::string rpc_url_;
    chain::Deployment deployment_;
    std::filesystem::path home_;
};

/// One devnet per test: `devnet()` in the test body. A failed start fails the test in SetUp.
class DevnetFixture : public ::testing::Test {
protected:
    void SetUp() override;
    void TearDown() override;
    [[nodiscard]] Devnet& devnet() { return *devnet_; }

private:
    std::unique_ptr<Devnet> devnet_;
};

/// One devnet per test suite, shared by its tests (state carries over between tests).
class SharedDevnetFixture : public ::testing::Test {
protected:
    static void SetUpTestSuite();
    static void TearDownTestSuite();
    void SetUp() override;
    [[nodiscard]] static Devnet& devnet() { return *shared_; }

private:
    static std::unique_ptr<Devnet> shared_;
    static std::string start_error_;
};

}  // namespace credence::testing
