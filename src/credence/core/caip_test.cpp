#include <credence/core/caip.hpp>

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "support/vectors.hpp"

using namespace credence::core;

namespace {

template <typename T>
CaipError error_of(const Result<T, CaipError>& r) {
    EXPECT_FALSE(r.has_value());
    return r ? CaipError{} : r.error().code;
}

}  // namespace

// ---- CAIP-2 ----

// Test cases of CAIP-2 and CAIP-3 (eip155), and the other namespaces' CAIP-2 profiles.
TEST(core_caip, chain_id_spec_examples_round_trip) {
    for (const char* s :
         {"eip155:1", "eip155:5", "eip155:28945486", "bip122:000000000019d6689c085ae165831e93",
          "bip122:12a765e31ffd4059bada1e25190f6e98", "cosmos:cosmoshub-3",
          "cosmos:Binance-Chain-Tigris", "cosmos:iov-mainnet", "starknet:SN_GOERLI",
          "lip9:9ee11e9df416b18b", "chainstd:8c3444cf8970a9e41a706fab93e7a6c4"}) {
        auto id = parse_chain_id(s);
        ASSERT_TRUE(id.has_value()) << s << ": " << id.error().detail;
        EXPECT_EQ(to_string(*id), s);
    }
    auto id = parse_chain_id("eip155:8453");
    ASSERT_TRUE(id.has_value());
    EXPECT_EQ(id->chain_namespace, "eip155");
    EXPECT_EQ(id->reference, "8453");
}

// CAIP-2 §Syntax: namespace [-a-z0-9]{3,8}, reference [-_a-zA-Z0-9]{1,32}.
TEST(core_caip, chain_id_grammar_rejections) {
    EXPECT_EQ(error_of(parse_chain_id("eip155")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_chain_id("")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_chain_id("ab:1")), CaipError::bad_namespace);         // 2 chars
    EXPECT_EQ(error_of(parse_chain_id("abcdefghi:1")), CaipError::bad_namespace);  // 9 chars
    EXPECT_EQ(error_of(parse_chain_id("EIP155:1")), CaipError::bad_namespace);     // uppercase
    EXPECT_EQ(error_of(parse_chain_id("eip_155:1")),
              CaipError::bad_namespace);  // '_' only in reference
    EXPECT_EQ(error_of(parse_chain_id("eip155:")), CaipError::bad_reference);
    EXPECT_EQ(error_of(parse_chain_id("eip155:" + std::string(33, '1'))), CaipError::bad_reference);
    EXPECT_TRUE(parse_chain_id("eip155:" + std::string(32, '1')).has_value());
    EXPECT_EQ(error_of(parse_chain_id("eip155:1:2")), CaipError::bad_reference);
    EXPECT_EQ(error_of(parse_chain_id("eip155:1.0")), CaipError::bad_reference);
    EXPECT_EQ(error_of(parse_chain_id("eip155:1 ")), CaipError::bad_reference);
}

// eip155 namespace (CAIP-3): the reference is the decimal EIP-155 chain ID.
TEST(core_caip, eip155_chain_id_rules) {
    EXPECT_EQ(eip155_chain_id(*parse_chain_id("eip155:8453")).value(), 8453u);
    EXPECT_EQ(eip155_chain_id(*parse_chain_id("eip155:18446744073709551615")).value(), UINT64_MAX);
    EXPECT_EQ(eip155_chain_id(*parse_chain_id("eip155:0")).value(), 0u);  // eip155 CAIP-10: EOA
    EXPECT_EQ(error_of(eip155_chain_id(*parse_chain_id("eip155:18446744073709551616"))),
              CaipError::bad_chain_id);
    EXPECT_EQ(error_of(eip155_chain_id(*parse_chain_id("eip155:01"))), CaipError::bad_chain_id);
    EXPECT_EQ(error_of(eip155_chain_id(*parse_chain_id("eip155:0x1"))), CaipError::bad_chain_id);
    EXPECT_EQ(error_of(eip155_chain_id(*parse_chain_id("eip155:-1"))), CaipError::bad_chain_id);
    EXPECT_EQ(error_of(eip155_chain_id(*parse_chain_id("cosmos:cosmoshub-3"))),
              CaipError::wrong_namespace);
    EXPECT_EQ(to_string(make_eip155_chain_id(84532)), "eip155:84532");
}

// ---- CAIP-10 ----

TEST(core_caip, account_id_spec_examples_round_trip) {
    const std::string polkadot = std::string("polkadot:b0a8d493285c2df73290dfb7e61f870f:") +
                                 "5hmuyxw9xdgbpptgypokw4thfyoe3ryenebr381z9iaegmfy";
    const std::vector<std::string> cases = {
        "eip155:1:0xab16a96D359eC26a11e2C2b3d8f8B8942d5Bfcdb",
        "bip122:000000000019d6689c085ae165831e93:128Lkh3S7CkDTBZ8W7BbpsN3YYizJMp8p6",
        "cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0",
        polkadot,
        "starknet:SN_GOERLI:0x02dd1b492765c064eac4039e3841aa5f382773b598097a40073bd8b48170ab57",
        "hedera:mainnet:0.0.1234567890-zbhlt",
        "eip155:0:0x839395e20bbB182fa440d08F850E6c7A8f6F0780",
        "eip155:137:0x0495766cD136138Fc492Dd499B8DC87A92D6685b"};
    for (const auto& s : cases) {
        auto id = parse_account_id(s);
        ASSERT_TRUE(id.has_value()) << s << ": " << id.error().detail;
        EXPECT_EQ(to_string(*id), s);
    }
}

// CAIP-10 §Syntax: account_address [-.%a-zA-Z0-9]{1,128}.
TEST(core_caip, account_id_grammar_rejections) {
    EXPECT_EQ(error_of(parse_account_id("eip155:1")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_account_id("eip155")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_account_id("eip155:1:")), CaipError::bad_account_address);
    EXPECT_EQ(error_of(parse_account_id("eip155:1:0xab:cd")), CaipError::bad_account_address);
    EXPECT_EQ(error_of(parse_account_id("eip155:1:0xab/cd")), CaipError::bad_account_address);
    EXPECT_EQ(error_of(parse_account_id("eip155:1:0xab_cd")), CaipError::bad_account_address);
    EXPECT_EQ(error_of(parse_account_id("eip155:1:" + std::string(129, 'a'))),
              CaipError::bad_account_address);
    EXPECT_TRUE(parse_account_id("eip155:1:" + std::string(128, 'a')).has_value());
    EXPECT_EQ(error_of(parse_account_id("Eip155:1:0xab")), CaipError::bad_namespace);
    EXPECT_EQ(error_of(parse_account_id("eip155::0xab")), CaipError::bad_reference);
}

// eip155 CAIP-10 profile: checksum case and legacy lowercase validate; its test cases mark the
// all-uppercase form as not validating.
TEST(core_caip, eip155_account_address_rules) {
    auto checksummed = parse_account_id("eip155:1:0x22227A31dd842196A246d8f3b775998560eAa61d");
    auto lowercase = parse_account_id("eip155:1:0x22227a31dd842196a246d8f3b775998560eaa61d");
    auto uppercase = parse_account_id("eip155:137:0x0495766CD136138FC492DD499B8DC87A92D6685B");
    ASSERT_TRUE(checksummed && lowercase && uppercase);
    auto a = eip155_address(*checksummed);
    auto b = eip155_address(*lowercase);
    ASSERT_TRUE(a.has_value() && b.has_value());
    EXPECT_EQ(*a, *b);
    EXPECT_EQ(error_of(eip155_address(*uppercase)), CaipError::bad_address);
    EXPECT_EQ(error_of(eip155_address(
                  *parse_account_id("eip155:1:0x22227a31dd842196A246d8f3b775998560eAa61d"))),
              CaipError::bad_address);  // checksum broken by one case flip
    EXPECT_EQ(error_of(eip155_address(*parse_account_id("eip155:1:0x1234"))),
              CaipError::bad_address);
    EXPECT_EQ(error_of(eip155_address(
                  *parse_account_id("eip155:1:22227a31dd842196a246d8f3b775998560eaa61d00"))),
              CaipError::bad_address);
    EXPECT_EQ(error_of(eip155_address(*parse_account_id(
                  "cosmos:cosmoshub-3:cosmos1t2uflqwqe0fsj0shcfkrvpukewcw40yjj6hdc0"))),
              CaipError::wrong_namespace);
    const auto made = make_eip155_account_id(8453, *a);
    EXPECT_EQ(to_string(made), "eip155:8453:0x22227a31dd842196a246d8f3b775998560eaa61d");
}

// ---- CAIP-19 ----

TEST(core_caip, asset_id_spec_examples_round_trip) {
    for (const char* s : {"eip155:1/slip44:60", "bip122:000000000019d6689c085ae165831e93/slip44:0",
                          "cosmos:cosmoshub-3/slip44:118",
                          "eip155:1/erc20:0x6b175474e89094c44da98b954eedeac495271d0f",
                          "eip155:1/erc721:0x06012c8cf97BEaD5deAe237070F9587f8E7A266d",
                          "eip155:1/erc721:0x06012c8cf97BEaD5deAe237070F9587f8E7A266d/771769",
                          "hedera:mainnet/nft:0.0.55492/12",
                          "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913"}) {
        auto id = parse_asset_id(s);
        ASSERT_TRUE(id.has_value()) << s << ": " << id.error().detail;
        EXPECT_EQ(to_string(*id), s);
    }
    auto nft = parse_asset_id("eip155:1/erc721:0x06012c8cf97BEaD5deAe237070F9587f8E7A266d/771769");
    ASSERT_TRUE(nft.has_value());
    EXPECT_EQ(nft->chain.reference, "1");
    EXPECT_EQ(nft->asset_namespace, "erc721");
    EXPECT_EQ(nft->asset_reference, "0x06012c8cf97BEaD5deAe237070F9587f8E7A266d");
    EXPECT_EQ(nft->token_id, "771769");
    EXPECT_FALSE(parse_asset_id("eip155:1/slip44:60")->token_id.has_value());
}

// CAIP-19 §Syntax: asset_namespace [-a-z0-9]{3,8}, asset_reference [-.%a-zA-Z0-9]{1,128},
// token_id [-.%a-zA-Z0-9]{1,78}.
TEST(core_caip, asset_id_grammar_rejections) {
    EXPECT_EQ(error_of(parse_asset_id("eip155:1")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/slip44")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1;slip44:60")),
              CaipError::malformed);  // pre-2021 draft form
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/ERC20:0xab")), CaipError::bad_asset_namespace);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/e2:0xab")), CaipError::bad_asset_namespace);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/erc20:")), CaipError::bad_asset_reference);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/erc20:0x:ab")), CaipError::bad_asset_reference);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/erc20:" + std::string(129, 'a'))),
              CaipError::bad_asset_reference);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/erc721:0xab/")), CaipError::bad_token_id);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/erc721:0xab/1/2")), CaipError::bad_token_id);
    EXPECT_EQ(error_of(parse_asset_id("eip155:1/erc721:0xab/" + std::string(79, '9'))),
              CaipError::bad_token_id);
    EXPECT_TRUE(parse_asset_id("eip155:1/erc721:0xab/" + std::string(78, '9')).has_value());
    EXPECT_EQ(error_of(parse_asset_id("eip155:/erc20:0xab")), CaipError::bad_reference);
}

// ---- ERC-8004 agentRegistry ----

// ERC-8004 §Identity Registry: {namespace}:{chainId}:{identityRegistry}, over the deployed
// registries of erc8004.json.
TEST(core_caip, agent_registry_deployed_registries) {
    const auto v = credence::testing::read_vector_json("erc8004.json");
    const std::pair<const char*, const char*> deployments[] = {{"mainnets", "8453"},
                                                               {"testnets", "84532"}};
    for (const auto& [group, chain] : deployments) {
        const std::string address = v["deployed"][group]["identity"];
        const std::string text = std::string("eip155:") + chain + ":" + address;
        auto reg = parse_agent_registry(text);
        ASSERT_TRUE(reg.has_value()) << text << ": " << reg.error().detail;
        EXPECT_EQ(std::to_string(reg->chain_id), chain);
        EXPECT_EQ(Bytes(reg->identity_registry.begin(), reg->identity_registry.end()),
                  from_hex(address).value());
        EXPECT_EQ(to_string(*reg), text);  // the deployed addresses are written in EIP-55 case

        // Lowercase form names the same registry.
        std::string lower = text;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        auto reg_lower = parse_agent_registry(lower);
        ASSERT_TRUE(reg_lower.has_value());
        EXPECT_EQ(*reg_lower, *reg);
    }
}

TEST(core_caip, agent_registry_rejections) {
    // The spec's own abbreviated example is not a complete address.
    EXPECT_EQ(error_of(parse_agent_registry("eip155:1:0x742...")), CaipError::bad_address);
    EXPECT_EQ(error_of(parse_agent_registry("eip155:1:0x742")), CaipError::bad_address);
    const std::string addr = "0x8004a169fb4a3325136eb29fa0ceb6d2e539a432";
    EXPECT_TRUE(parse_agent_registry("eip155:1:" + addr).has_value());
    EXPECT_EQ(error_of(parse_agent_registry("eip155:01:" + addr)), CaipError::bad_chain_id);
    EXPECT_EQ(error_of(parse_agent_registry("eip155:0:" + addr)), CaipError::bad_chain_id);
    EXPECT_EQ(error_of(parse_agent_registry("solana:mainnet:" + addr)), CaipError::wrong_namespace);
    EXPECT_EQ(error_of(parse_agent_registry("eip155:1:0x8004A169fb4a3325136eb29fa0ceb6d2e539a432")),
              CaipError::bad_address);  // mixed case without a valid checksum
    EXPECT_EQ(error_of(parse_agent_registry("eip155:1")), CaipError::malformed);
    EXPECT_EQ(error_of(parse_agent_registry("eip155:1:" + addr + ":5")),
              CaipError::bad_account_address);
}

// ---- ERC-8257 tool reference ----

// ERC-8257 §Test vectors: "Canonical tool reference (proposed CAIP-19 form)".
TEST(core_caip, tool_reference_spec_example) {
    const std::string text = "eip155:8453/erc8257:0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/1";
    auto ref = parse_tool_reference(text);
    ASSERT_TRUE(ref.has_value()) << ref.error().detail;
    EXPECT_EQ(ref->chain_id, 8453u);
    EvmAddress registry;
    registry.fill(0xaa);
    EXPECT_EQ(ref->registry, registry);
    EXPECT_EQ(ref->tool_id, Uint256{1});
    EXPECT_EQ(to_string(*ref), text);
    // It is a CAIP-19 asset ID too.
    EXPECT_TRUE(parse_asset_id(text).has_value());

    const std::string max_id = Uint256::max().to_dec();
    auto big = parse_tool_reference("eip155:1/erc8257:0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/" +
                                    max_id);
    ASSERT_TRUE(big.has_value());
    EXPECT_EQ(big->tool_id, Uint256::max());
    EXPECT_TRUE(
        parse_tool_reference("eip155:1/erc8257:0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/0")
            .has_value());
}

// ERC-8257 §1 Tool Registry: lowercase 0x-prefixed registry address, decimal uint256 tool ID.
TEST(core_caip, tool_reference_rejections) {
    const std::string reg = "0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    EXPECT_EQ(error_of(parse_tool_reference(
                  "eip155:8453/erc8257:0xAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/1")),
              CaipError::not_lowercase);
    EXPECT_EQ(error_of(parse_tool_reference(
                  "eip155:8453/erc8257:0x8004A169FB4a3325136EB29fA0ceB6D2e539a432/1")),
              CaipError::not_lowercase);  // even a valid EIP-55 checksum
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc8257:0xaaaa/1")),
              CaipError::bad_address);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc8257:" + reg + "/01")),
              CaipError::bad_tool_id);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc8257:" + reg + "/0x1")),
              CaipError::bad_tool_id);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc8257:" + reg + "/-1")),
              CaipError::bad_tool_id);
    const std::string too_big =
        "115792089237316195423570985008687907853269984665640564039457584007913129639936";
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc8257:" + reg + "/" + too_big)),
              CaipError::bad_tool_id);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc8257:" + reg)), CaipError::malformed);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:08453/erc8257:" + reg + "/1")),
              CaipError::bad_chain_id);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:0/erc8257:" + reg + "/1")),
              CaipError::bad_chain_id);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453/erc721:" + reg + "/1")),
              CaipError::wrong_namespace);
    EXPECT_EQ(error_of(parse_tool_reference("solana:mainnet/erc8257:" + reg + "/1")),
              CaipError::wrong_namespace);
    EXPECT_EQ(error_of(parse_tool_reference("eip155:8453:erc8257:" + reg + "/1")),
              CaipError::bad_reference);
}

TEST(core_caip, error_names) {
    EXPECT_EQ(to_string(CaipError::not_lowercase), "hex must be lowercase");
    EXPECT_EQ(to_string(CaipError::bad_token_id), "bad token id");
}
