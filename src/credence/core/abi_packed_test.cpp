#include <credence/core/abi_packed.hpp>

#include <gtest/gtest.h>

#include "support/vectors.hpp"

using namespace credence::core;
using nlohmann::json;

namespace {

// Value of a solidity-hashes.json case: numbers are (optionally negative) hex or decimal text,
// bytes and addresses hex, strings UTF-8 text.
AbiValue packed_value(const AbiType& t, const json& v) {
    switch (t.kind()) {
        case AbiKind::unsigned_int:
            return *Uint256::parse(v.get<std::string>());
        case AbiKind::signed_int:
            return *Int256::parse(v.get<std::string>());
        case AbiKind::address:
            return *from_hex_fixed<20>(v.get<std::string>());
        case AbiKind::boolean:
            return AbiValue(v.get<bool>());
        case AbiKind::fixed_bytes:
            return FixedBytes(*from_hex(v.get<std::string>()));
        case AbiKind::bytes:
            return *from_hex(v.get<std::string>());
        case AbiKind::string:
            return v.get<std::string>();
        default: {
            AbiValue::List items;
            for (const auto& x : v) items.push_back(packed_value(t.element(), x));
            return items;
        }
    }
}

}  // namespace

// All 2,016 cases of ethers' solidity-hashes.json: keccak256(abi.encodePacked(values)).
TEST(core_abi_packed, ethers_solidity_hashes_vectors) {
    const auto cases = credence::testing::read_vector_json("ethers/solidity-hashes.json.gz");
    ASSERT_EQ(cases.size(), 2016u);
    size_t checked = 0;
    for (const auto& c : cases) {
        const std::string name = c["name"];
        std::vector<AbiType> types;
        std::vector<AbiValue> values;
        for (size_t i = 0; i < c["types"].size(); ++i) {
            auto t = parse_type(c["types"][i].get<std::string>());
            ASSERT_TRUE(t.has_value()) << name << ": " << t.error().detail;
            values.push_back(packed_value(*t, c["values"][i]));
            types.push_back(std::move(*t));
        }
        auto h = keccak256_packed(types, values);
        ASSERT_TRUE(h.has_value()) << name << ": " << h.error().detail;
        EXPECT_EQ(to_hex(*h), c["keccak256"].get<std::string>()) << name;
        ++checked;
    }
    EXPECT_EQ(checked, 2016u);
}

TEST(core_abi_packed, widths_follow_the_spec) {
    // Solidity docs §Non-standard Packed Mode example:
    // abi.encodePacked(int16(-1), bytes1(0x42), uint16(0x03), string("Hello, world!"))
    //   = 0xffff42000348656c6c6f2c20776f726c6421
    const std::vector<AbiType> types = {AbiType::make_int(16), AbiType::make_fixed_bytes(1),
                                        AbiType::make_uint(16), AbiType::make_string()};
    const std::vector<AbiValue> values = {Int256(-1), FixedBytes(Bytes{0x42}), Uint256(3),
                                          std::string("Hello, world!")};
    auto packed = encode_packed(types, values);
    ASSERT_TRUE(packed.has_value());
    EXPECT_EQ(to_hex(*packed), "0xffff42000348656c6c6f2c20776f726c6421");
}

TEST(core_abi_packed, rejects_tuples_and_arrays_of_dynamic_types) {
    auto tuple = parse_type("(uint256,string)");
    ASSERT_TRUE(tuple.has_value());
    const std::vector<AbiType> t1 = {*tuple};
    const std::vector<AbiValue> v1 = {AbiValue::List{Uint256(1), std::string("x")}};
    EXPECT_EQ(encode_packed(t1, v1).error().code, AbiError::unsupported);

    const std::vector<AbiType> t2 = {*parse_type("string[]")};
    const std::vector<AbiValue> v2 = {AbiValue::List{std::string("x")}};
    EXPECT_EQ(encode_packed(t2, v2).error().code, AbiError::unsupported);
}

TEST(core_abi_packed, rejects_out_of_range_and_wrong_counts) {
    const std::vector<AbiType> t = {AbiType::make_uint(8)};
    const std::vector<AbiValue> v = {Uint256(256)};
    EXPECT_EQ(encode_packed(t, v).error().code, AbiError::out_of_range);
    const std::vector<AbiValue> none;
    EXPECT_EQ(encode_packed(t, none).error().code, AbiError::count_mismatch);
    const std::vector<AbiType> fixed = {*parse_type("uint8[2]")};
    const std::vector<AbiValue> one = {AbiValue::List{Uint256(1)}};
    EXPECT_EQ(encode_packed(fixed, one).error().code, AbiError::count_mismatch);
}
