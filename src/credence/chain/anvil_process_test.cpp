// AnvilProcess (chain/anvil_process.hpp) against the real anvil: dev keys from --config-out, a
// fixed port, a taken port, and a clean stop (--state persistence: devnet_deploy_test.cpp).
#include <credence/chain/anvil_process.hpp>

#include <gtest/gtest.h>

#include <signal.h>

#include <filesystem>
#include <thread>

#include <credence/chain/rpc_client.hpp>
#include <credence/core/secp256k1.hpp>

#include "support/anvil.hpp"

namespace {

namespace chain = credence::chain;
namespace core = credence::core;

}  // namespace

TEST(chain_anvil_process, reads_the_dev_keys_from_config_out) {
    chain::AnvilOptions options;
    options.accounts = 4;
    auto anvil = chain::AnvilProcess::start(options);
    ASSERT_TRUE(anvil) << anvil.error();
    const auto& accounts = (*anvil)->dev_accounts();
    ASSERT_EQ(accounts.size(), 4U);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(accounts[i].private_key_hex, credence::testing::kAnvilDevKeys[i]);
        EXPECT_EQ(accounts[i].address.to_checksum_hex(), credence::testing::kAnvilDevAddresses[i]);
    }
    // Each key belongs to its address, and the account is funded.
    auto rpc = chain::RpcClient::make_http((*anvil)->url());
    for (const auto& a : accounts) {
        auto key = core::SecretKey::from_hex(a.private_key_hex);
        ASSERT_TRUE(key);
        EXPECT_EQ(core::address_of(*key), a.address);
        auto balance = rpc.get_balance(a.address);
        ASSERT_TRUE(balance);
        EXPECT_FALSE(*balance == core::Uint256{0});
    }
}

TEST(chain_anvil_process, parse_anvil_config_rejects_mismatched_lists) {
    EXPECT_FALSE(chain::parse_anvil_config("[]"));
    EXPECT_FALSE(chain::parse_anvil_config(
        R"({"available_accounts":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"],"private_keys":[]})"));
    EXPECT_FALSE(chain::parse_anvil_config(
        R"({"available_accounts":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"],"private_keys":["0x12"]})"));
    auto ok = chain::parse_anvil_config(
        R"({"available_accounts":["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"],)"
        R"("private_keys":["0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"]})");
    ASSERT_TRUE(ok) << ok.error();
    ASSERT_EQ(ok->size(), 1U);
}

TEST(chain_anvil_process, fixed_port_is_used_and_a_taken_port_fails) {
    const uint16_t port = chain::pick_free_port();
    ASSERT_NE(port, 0);
    chain::AnvilOptions options;
    options.port = port;
    options.chain_id = 4242;
    auto first = chain::AnvilProcess::start(options);
    ASSERT_TRUE(first) << first.error();
    EXPECT_EQ((*first)->port(), port);
    EXPECT_EQ((*first)->url(), "http://127.0.0.1:" + std::to_string(port));
    auto rpc = chain::RpcClient::make_http((*first)->url());
    auto id = rpc.chain_id();
    ASSERT_TRUE(id);
    EXPECT_EQ(*id, 4242U);

    options.start_timeout = std::chrono::milliseconds(10'000);
    auto second = chain::AnvilProcess::start(options);
    ASSERT_FALSE(second);
    EXPECT_NE(second.error().find("exited"), std::string::npos) << second.error();
}

TEST(chain_anvil_process, stop_terminates_the_child) {
    auto anvil = chain::AnvilProcess::start();
    ASSERT_TRUE(anvil) << anvil.error();
    const pid_t pid = (*anvil)->pid();
    ASSERT_GT(pid, 0);
    EXPECT_TRUE((*anvil)->running());
    (*anvil)->stop();
    EXPECT_FALSE((*anvil)->running());
    EXPECT_EQ((*anvil)->pid(), -1);
    // Reaped: the pid no longer names our child.
    EXPECT_EQ(::kill(pid, 0), -1);
}

// anvil writes the states it evicts from memory under $HOME/.foundry/anvil/tmp and leaves them
// behind when signalled; they must land in the launcher's private directory and go with it.
TEST(chain_anvil_process, evicted_states_stay_in_the_private_directory) {
    namespace fs = std::filesystem;
    fs::path dir;
    {
        auto anvil = chain::AnvilProcess::start();
        ASSERT_TRUE(anvil) << anvil.error();
        dir = (*anvil)->private_dir();
        auto rpc = chain::RpcClient::make_http((*anvil)->url());
        // Enough blocks that anvil evicts states from memory (its limit is in the hundreds).
        for (int i = 0; i < 3; ++i)
            ASSERT_TRUE(rpc.request("anvil_mine", nlohmann::json::array({"0x400"})));
        const fs::path states = dir / ".foundry" / "anvil" / "tmp";
        size_t files = 0;
        for (int attempt = 0; attempt < 50 && files == 0; ++attempt) {
            std::error_code ec;
            for (auto it = fs::recursive_directory_iterator(states, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file()) ++files;
            if (files == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        EXPECT_GT(files, 0U) << "no evicted state under " << states;
    }
    EXPECT_FALSE(fs::exists(dir));
}
