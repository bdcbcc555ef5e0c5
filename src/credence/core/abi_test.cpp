#include <credence/core/abi.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;
using namespace credence::core::literals;
using nlohmann::json;

namespace {

// Builds the value of a vector case from ethers' typed "verbose" annotation. Only parsing of the
// vector's own text happens here; nothing is computed with the code under test.
AbiValue value_from_verbose(const AbiType& t, const json& node) {
    const std::string kind = node.at("type").get<std::string>();
    const json& v = node.at("value");
    if (kind == "number") {
        const std::string s = v.get<std::string>();
        if (t.kind() == AbiKind::signed_int) return *Int256::parse(s);
        return *Uint256::parse(s);
    }
    if (kind == "boolean") return AbiValue(v.get<bool>());
    if (kind == "string") return AbiValue(v.get<std::string>());
    if (kind == "address") return AbiValue(*from_hex_fixed<20>(v.get<std::string>()));
    if (kind == "hexstring") {
        Bytes b = *from_hex(v.get<std::string>());
        if (t.kind() == AbiKind::fixed_bytes) return AbiValue(FixedBytes(b));
        return AbiValue(std::move(b));
    }
    AbiValue::List items;
    for (size_t i = 0; i < v.size(); ++i) {
        const AbiType& child = t.kind() == AbiKind::tuple ? t.components()[i] : t.element();
        items.push_back(value_from_verbose(child, v[i]));
    }
    return AbiValue(std::move(items));
}

}  // namespace

// All 1,024 cases of ethers' abi.json: each is abi.encode of one value of `type`, produced by solc.
TEST(core_abi, ethers_abi_vectors) {
    const auto cases = credence::testing::read_vector_json("ethers/abi.json.gz");
    ASSERT_EQ(cases.size(), 1024u);
    size_t checked = 0;
    for (const auto& c : cases) {
        const std::string name = c["name"];
        auto type = parse_type(c["type"].get<std::string>());
        ASSERT_TRUE(type.has_value()) << name << ": " << type.error().detail;
        const AbiValue value = value_from_verbose(*type, c["verbose"]);
        const Bytes expected = *from_hex(c["encoded"].get<std::string>());

        auto encoded = encode_one(*type, value);
        ASSERT_TRUE(encoded.has_value()) << name << ": " << encoded.error().detail;
        EXPECT_EQ(to_hex(*encoded), to_hex(expected)) << name;

        for (bool canonical : {false, true}) {
            auto decoded = decode_one(*type, expected, {.canonical = canonical});
            ASSERT_TRUE(decoded.has_value()) << name << ": " << decoded.error().detail;
            EXPECT_TRUE(*decoded == value) << name;
        }
        ++checked;
    }
    EXPECT_EQ(checked, 1024u);
}

// The three cases of ethereum/tests ABITests/basic_abi_tests.json. Their bytesN and bytes args are
// given as ASCII text.
TEST(core_abi, ethereum_tests_basic_abi) {
    const auto cases = credence::testing::read_vector_json("ethereum-tests/ABITests/basic_abi_tests.json");
    ASSERT_EQ(cases.size(), 3u);
    for (const auto& [name, c] : cases.items()) {
        std::vector<AbiType> types;
        for (const auto& ts : c["types"]) types.push_back(*parse_type(ts.get<std::string>()));
        std::vector<AbiValue> values;
        for (size_t i = 0; i < types.size(); ++i) {
            const json& a = c["args"][i];
            const AbiType& t = types[i];
            auto scalar = [&](const AbiType& st, const json& x) -> AbiValue {
                switch (st.kind()) {
                    case AbiKind::unsigned_int: return Uint256(x.get<uint64_t>());
                    case AbiKind::address: return *from_hex_fixed<20>(x.get<std::string>());
                    case AbiKind::fixed_bytes: return FixedBytes(as_bytes(x.get<std::string>()));
                    case AbiKind::bytes: {
                        const std::string s = x.get<std::string>();
                        return Bytes(s.begin(), s.end());
                    }
                    default: return x.get<std::string>();
                }
            };
            if (t.kind() == AbiKind::dynamic_array) {
                AbiValue::List items;
                for (const auto& x : a) items.push_back(scalar(t.element(), x));
                values.emplace_back(std::move(items));
            } else {
                values.push_back(scalar(t, a));
            }
        }
        const Bytes expected = *from_hex(c["result"].get<std::string>());
        auto encoded = encode(types, values);
        ASSERT_TRUE(encoded.has_value()) << name << ": " << encoded.error().detail;
        EXPECT_EQ(to_hex(*encoded), to_hex(expected)) << name;
        auto decoded = decode(types, expected, {.canonical = true});
        ASSERT_TRUE(decoded.has_value()) << name << ": " << decoded.error().detail;
        EXPECT_TRUE(*decoded == values) << name;
    }
}
