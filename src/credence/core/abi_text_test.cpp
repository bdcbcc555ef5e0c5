#include <credence/core/abi_text.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;

// The cast-style text of the ethereum/tests GithubWikiTest arguments encodes to the vector's bytes.
TEST(core_abi_text, cast_style_arguments_encode_to_ethereum_tests_vector) {
    const auto cases =
        credence::testing::read_vector_json("ethereum-tests/ABITests/basic_abi_tests.json");
    const auto& c = cases.at("GithubWikiTest");
    std::vector<AbiType> types;
    for (const auto& t : c["types"]) types.push_back(*parse_type(t.get<std::string>()));
    const std::vector<std::string> args = {"291", "[1110, 1929]", "0x31323334353637383930",
                                           "0x48656c6c6f2c20776f726c6421"};
    auto values = parse_values(types, args);
    ASSERT_TRUE(values.has_value()) << values.error().detail;
    auto encoded = encode(types, *values);
    ASSERT_TRUE(encoded.has_value());
    EXPECT_EQ(to_hex(*encoded, false), c["result"].get<std::string>());

    EXPECT_EQ(format_value(types[1], (*values)[1]), "[1110, 1929]");
    EXPECT_EQ(format_value(types[2], (*values)[2]), "0x31323334353637383930");
}

// EIP-55 checksums of all 259 addresses in ethers' accounts.json.
TEST(core_abi_text, checksum_addresses_match_ethers_accounts) {
    const auto cases = credence::testing::read_vector_json("ethers/accounts.json");
    ASSERT_EQ(cases.size(), 259u);
    for (const auto& c : cases) {
        const std::string expected = c["address"];
        auto v = parse_value(AbiType::make_address(), expected);
        ASSERT_TRUE(v.has_value()) << expected;
        EXPECT_EQ(format_value(AbiType::make_address(), *v), expected);
    }
}

TEST(core_abi_text, parses_nested_values) {
    auto t = parse_type("(uint8,string,bool[],(int16,bytes2))[]");
    ASSERT_TRUE(t.has_value());
    auto v = parse_value(
        *t, R"([(1, hi, [true,false], (-3, 0xbeef)), (255, "a, \"b\"", [], (0x7fff, 0x0000))])");
    ASSERT_TRUE(v.has_value()) << v.error().detail;
    const auto& items = std::get<AbiValue::List>(v->v);
    auto list = [](const AbiValue& x) -> const AbiValue::List& {
        return std::get<AbiValue::List>(x.v);
    };
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(list(items[0])[1], AbiValue("hi"));
    EXPECT_EQ(list(items[1])[1], AbiValue("a, \"b\""));
    EXPECT_EQ(list(list(items[0])[3])[0], AbiValue(Int256(-3)));
    EXPECT_EQ(
        format_value(*t, *v),
        R"([(1, "hi", [true, false], (-3, 0xbeef)), (255, "a, \"b\"", [], (32767, 0x0000))])");
    // Top-level strings are taken verbatim, commas and spaces included.
    EXPECT_EQ(*parse_value(AbiType::make_string(), " a, b "), AbiValue(" a, b "));
    EXPECT_EQ(format_value(AbiType::make_string(), AbiValue(" a, b ")), " a, b ");
}

TEST(core_abi_text, rejects_bad_text) {
    const std::pair<const char*, const char*> bad[] = {
        {"uint8", "256"},
        {"uint8", "-1"},
        {"uint256", "1.5"},
        {"uint256", ""},
        {"int8", "128"},
        {"int8", "-129"},
        {"bool", "1"},
        {"bool", "True"},
        {"address", "0x1234"},
        {"address", "7E5F4552091A69125d5DfCb7b8C2659029395Bdf"},
        {"bytes2", "0x12"},
        {"bytes2", "0x123456"},
        {"bytes", "0xabc"},
        {"bytes", "hi"},
        {"uint256[2]", "[1]"},
        {"uint256[]", "[1,]"},
        {"uint256[]", "[1"},
        {"uint256[]", "1"},
        {"(uint256,bool)", "(1)"},
        {"(uint256,bool)", "(1,true,2)"},
        {"uint256[]", "[1] x"},
        {"string[]", "[\"abc]"},
        {"uint256[]", "[\"1\"]"},
    };
    for (const auto& [type, text] : bad) {
        auto t = parse_type(type);
        ASSERT_TRUE(t.has_value()) << type;
        EXPECT_FALSE(parse_value(*t, text).has_value()) << type << " " << text;
    }
    const std::vector<AbiType> one = {AbiType::make_bool()};
    EXPECT_EQ(parse_values(one, std::vector<std::string>{}).error().code, AbiError::count_mismatch);
}
