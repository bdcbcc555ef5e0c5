// ERC-8004 IdentityRegistry setAgentWallet typed data (AgentWalletSet), against erc8004.json:
// the type string and typehash, and both deployments' domain separators and digests, through the
// generic JSON path and through the C++ helper.
#include <credence/core/eip712.hpp>

#include <gtest/gtest.h>

#include <credence/core/keccak.hpp>

#include "support/vectors.hpp"

using namespace credence::core;
using nlohmann::json;

namespace {

// The struct as ERC-8004 declares it; only the input shape is written here, every expected value
// comes from the vector file.
const json kAgentWalletSetTypes = json::parse(R"({
    "AgentWalletSet": [
        {"name": "agentId", "type": "uint256"},
        {"name": "newWallet", "type": "address"},
        {"name": "owner", "type": "address"},
        {"name": "deadline", "type": "uint256"}
    ]
})");

Eip712Address address_of(const json& v) { return from_hex_fixed<20>(v.get<std::string>()).value(); }

Uint256 uint_of(const json& v) {
    return v.is_string() ? Uint256::parse(v.get<std::string>()).value()
                         : Uint256{v.get<uint64_t>()};
}

}  // namespace

TEST(core_erc8004_eip712, type_string_and_typehash) {
    const auto v = credence::testing::read_vector_json("erc8004.json")["eip712"];
    const std::string type_string = v["typeString"];
    EXPECT_EQ(std::string(kAgentWalletSetType), type_string);
    EXPECT_EQ(to_hex(keccak256(kAgentWalletSetType)), v["typehash"].get<std::string>());

    auto types = parse_eip712_types(kAgentWalletSetTypes);
    ASSERT_TRUE(types.has_value());
    auto enc = encode_type(*types, "AgentWalletSet");
    ASSERT_TRUE(enc.has_value());
    EXPECT_EQ(*enc, type_string);
    auto th = type_hash(*types, "AgentWalletSet");
    ASSERT_TRUE(th.has_value());
    EXPECT_EQ(to_hex(*th), v["typehash"].get<std::string>());
}

TEST(core_erc8004_eip712, published_digests_json_path) {
    const auto v = credence::testing::read_vector_json("erc8004.json")["eip712"];
    ASSERT_EQ(v["cases"].size(), 2u);
    for (const auto& c : v["cases"]) {
        json domain = v["domain"];
        domain["chainId"] = c["chainId"];
        domain["verifyingContract"] = c["verifyingContract"];
        const json doc{{"types", kAgentWalletSetTypes},
                       {"primaryType", "AgentWalletSet"},
                       {"domain", domain},
                       {"message", v["message"]}};
        auto td = parse_typed_data(doc.dump());
        ASSERT_TRUE(td.has_value()) << td.error().detail;
        auto ds = domain_separator(*td);
        ASSERT_TRUE(ds.has_value());
        EXPECT_EQ(to_hex(*ds), c["domainSeparator"].get<std::string>()) << c["chainId"];
        auto digest = typed_data_digest(*td);
        ASSERT_TRUE(digest.has_value());
        EXPECT_EQ(to_hex(*digest), c["digest"].get<std::string>()) << c["chainId"];

        // With the EIP712Domain type declared explicitly, as MetaMask documents carry it.
        json declared = doc;
        declared["types"]["EIP712Domain"] = json::parse(R"([
            {"name": "name", "type": "string"}, {"name": "version", "type": "string"},
            {"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}])");
        auto digest2 = typed_data_digest(declared.dump());
        ASSERT_TRUE(digest2.has_value());
        EXPECT_EQ(to_hex(*digest2), c["digest"].get<std::string>());
    }
}

TEST(core_erc8004_eip712, published_digests_cpp_helper) {
    const auto v = credence::testing::read_vector_json("erc8004.json")["eip712"];
    const auto& m = v["message"];
    ASSERT_EQ(v["cases"].size(), 2u);
    for (const auto& c : v["cases"]) {
        const Uint256 chain_id = uint_of(c["chainId"]);
        const Eip712Address registry = address_of(c["verifyingContract"]);
        EXPECT_EQ(to_hex(erc8004_domain_separator(chain_id, registry)),
                  c["domainSeparator"].get<std::string>());
        const Hash32 digest = agent_wallet_set_digest(
            chain_id, registry, uint_of(m["agentId"]), address_of(m["newWallet"]),
            address_of(m["owner"]), uint_of(m["deadline"]));
        EXPECT_EQ(to_hex(digest), c["digest"].get<std::string>());

        // The generic C++ domain gives the same separator.
        Eip712Domain domain;
        domain.name = v["domain"]["name"].get<std::string>();
        domain.version = v["domain"]["version"].get<std::string>();
        domain.chain_id = chain_id;
        domain.verifying_contract = registry;
        EXPECT_EQ(to_hex(domain_separator(domain)), c["domainSeparator"].get<std::string>());
    }
}

TEST(core_erc8004_eip712, helper_constants_match_vector_domain) {
    const auto v = credence::testing::read_vector_json("erc8004.json")["eip712"];
    EXPECT_EQ(std::string(kErc8004DomainName), v["domain"]["name"].get<std::string>());
    EXPECT_EQ(std::string(kErc8004DomainVersion), v["domain"]["version"].get<std::string>());
}

// A digest must change with every input (a swapped owner/newWallet must not collide).
TEST(core_erc8004_eip712, digest_binds_every_field) {
    const Eip712Address a{1};
    const Eip712Address b{2};
    const Hash32 base = agent_wallet_set_digest(8453, a, 42, a, b, 100);
    EXPECT_NE(base, agent_wallet_set_digest(1, a, 42, a, b, 100));
    EXPECT_NE(base, agent_wallet_set_digest(8453, b, 42, a, b, 100));
    EXPECT_NE(base, agent_wallet_set_digest(8453, a, 43, a, b, 100));
    EXPECT_NE(base, agent_wallet_set_digest(8453, a, 42, b, a, 100));
    EXPECT_NE(base, agent_wallet_set_digest(8453, a, 42, a, b, 101));
}
