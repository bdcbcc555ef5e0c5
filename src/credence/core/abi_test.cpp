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
    const auto cases =
        credence::testing::read_vector_json("ethereum-tests/ABITests/basic_abi_tests.json");
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
                    case AbiKind::unsigned_int:
                        return Uint256(x.get<uint64_t>());
                    case AbiKind::address:
                        return *from_hex_fixed<20>(x.get<std::string>());
                    case AbiKind::fixed_bytes:
                        return FixedBytes(as_bytes(x.get<std::string>()));
                    case AbiKind::bytes: {
                        const std::string s = x.get<std::string>();
                        return Bytes(s.begin(), s.end());
                    }
                    default:
                        return x.get<std::string>();
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

namespace {

/// Concatenated 32-byte words, each given as hex (left-padded with zeros to 64 digits).
Bytes words(std::initializer_list<std::string_view> ws) {
    Bytes out;
    for (auto w : ws) {
        std::string digits(64 - std::min<size_t>(w.size(), 64), '0');
        digits += w;
        const Bytes b = *from_hex(digits);
        out.insert(out.end(), b.begin(), b.end());
    }
    return out;
}

AbiError decode_error(std::string_view types, const Bytes& data, DecodeOptions options = {}) {
    auto list = parse_type_list(types);
    EXPECT_TRUE(list.has_value()) << types;
    auto r = decode(*list, data, options);
    EXPECT_FALSE(r.has_value()) << types;
    return r ? AbiError::unsupported : r.error().code;
}

const std::string kMax = std::string(64, 'f');
const std::string kTwo255 = "8" + std::string(63, '0');

}  // namespace

TEST(core_abi, decode_rejects_offsets_outside_the_data) {
    // ABI spec: the head of a dynamic value is an offset into the enclosing encoding.
    EXPECT_EQ(decode_error("(string)", words({"1000", "0"})), AbiError::bad_offset);
    EXPECT_EQ(decode_error("(string)", words({kTwo255, "0"})), AbiError::bad_offset);
    EXPECT_EQ(decode_error("(bytes)", words({kMax})), AbiError::bad_offset);
    // In bounds, but the tail's length word is missing.
    EXPECT_EQ(decode_error("(string)", words({"20"})), AbiError::short_data);
    EXPECT_EQ(decode_error("(uint256[])", words({"40", "0"})), AbiError::short_data);
}

TEST(core_abi, decode_rejects_lengths_past_the_end_before_allocating) {
    // A 2^255 length must fail on the check, not on an allocation.
    EXPECT_EQ(decode_error("(bytes)", words({"20", kTwo255})), AbiError::bad_length);
    EXPECT_EQ(decode_error("(string)", words({"20", kMax})), AbiError::bad_length);
    EXPECT_EQ(decode_error("(uint256[])", words({"20", kTwo255})), AbiError::bad_length);
    EXPECT_EQ(decode_error("(string[])", words({"20", "ffffffffffffffff"})), AbiError::bad_length);
    EXPECT_EQ(decode_error("(uint256[])", words({"20", "2", "1"})), AbiError::bad_length);
    EXPECT_EQ(decode_error("(bytes)", words({"20", "21", "61"})), AbiError::bad_length);
    // Length fits but the zero padding to a word boundary is missing.
    Bytes unpadded = words({"20", "1"});
    unpadded.push_back(0x61);
    EXPECT_EQ(decode_error("(bytes)", unpadded), AbiError::short_data);
}

TEST(core_abi, decode_rejects_short_heads) {
    EXPECT_EQ(decode_error("(uint256)", Bytes(31, 0)), AbiError::short_data);
    EXPECT_EQ(decode_error("(uint256,uint256)", words({"1"})), AbiError::short_data);
    EXPECT_EQ(decode_error("(bytes32[3])", words({"1", "2"})), AbiError::short_data);
    EXPECT_EQ(decode_error("(uint256[4294967296])", words({"1"})), AbiError::short_data);
}

TEST(core_abi, decode_rejects_non_zero_padding) {
    // ABI spec: address is uint160, the 12 high bytes are zero.
    EXPECT_EQ(decode_error("(address)", words({"01" + std::string(40, 'a')})),
              AbiError::bad_padding);
    // bytesN is padded on the right with zeros.
    EXPECT_EQ(decode_error("(bytes1)", words({"6101" + std::string(60, '0')})),
              AbiError::bad_padding);
    EXPECT_EQ(decode_error("(bytes31)", words({std::string(62, '1') + "01"})),
              AbiError::bad_padding);
    // bytes tails are padded with zeros to a multiple of 32.
    EXPECT_EQ(decode_error("(bytes)", words({"20", "1", "61" + std::string(61, '0') + "1"})),
              AbiError::bad_padding);
    EXPECT_EQ(decode_error("(string)", words({"20", "1", "6162" + std::string(60, '0')})),
              AbiError::bad_padding);
}

TEST(core_abi, decode_rejects_out_of_range_values) {
    // uint8 with high bits set.
    EXPECT_EQ(decode_error("(uint8)", words({"100"})), AbiError::out_of_range);
    EXPECT_EQ(decode_error("(uint64)", words({"10000000000000000"})), AbiError::out_of_range);
    // bool must be 0 or 1.
    EXPECT_EQ(decode_error("(bool)", words({"2"})), AbiError::out_of_range);
    EXPECT_EQ(
        decode_error("(bool)",
                     words({"100000000000000000000000000000000000000000000000000000000000001"})),
        AbiError::out_of_range);
    // intN must be sign-extended: 0x80 as int8 needs 0xff padding, 0x7f needs zeros.
    EXPECT_EQ(decode_error("(int8)", words({"80"})), AbiError::out_of_range);
    EXPECT_EQ(decode_error("(int8)", words({std::string(62, 'f') + "7f"})), AbiError::out_of_range);
    EXPECT_EQ(decode_error("(int128)", words({"1" + std::string(32, '0')})),
              AbiError::out_of_range);
    // ...and in range when they are.
    auto ok = decode(*parse_type_list("(int8,int8,uint8,bool)"),
                     words({std::string(62, 'f') + "80", "7f", "ff", "1"}));
    ASSERT_TRUE(ok.has_value());
    EXPECT_EQ((*ok)[0], AbiValue(Int256(-128)));
    EXPECT_EQ((*ok)[1], AbiValue(Int256(127)));
    EXPECT_EQ((*ok)[2], AbiValue(Uint256(255)));
    EXPECT_EQ((*ok)[3], AbiValue(true));
}

TEST(core_abi, decode_rejects_overlapping_tails_that_expand) {
    // uint256[][] whose four inner offsets all point at the same 3-element array: 320 bytes that
    // would decode to 4 copies. The size budget rejects it (decode bombs grow exponentially).
    const Bytes bomb = words({"20", "4", "80", "80", "80", "80", "3", "1", "2", "3"});
    EXPECT_EQ(decode_error("(uint256[][])", bomb), AbiError::too_large);
    // The same array referenced once decodes.
    const Bytes once = words({"20", "1", "20", "3", "1", "2", "3"});
    EXPECT_TRUE(decode(*parse_type_list("(uint256[][])"), once).has_value());
}

TEST(core_abi, decode_depth_limit) {
    // A type deeper than the parser allows, built by hand, still cannot recurse without bound.
    AbiType t = AbiType::make_uint(256);
    for (int i = 0; i < 40; ++i) t = AbiType::make_array(std::move(t));
    Bytes data = words({"20"});
    for (int i = 0; i < 40; ++i) {
        const Bytes level = words({"1", "20"});
        data.insert(data.end(), level.begin(), level.end());
    }
    auto r = decode_one(t, data);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, AbiError::too_deep);
}

TEST(core_abi, canonical_mode_rejects_trailing_and_reordered_tails) {
    const auto types = *parse_type_list("(string,string)");
    // Canonical: heads, then "a" at 0x40, then "b" at 0x80.
    const Bytes canonical =
        words({"40", "80", "1", "61" + std::string(62, '0'), "1", "62" + std::string(62, '0')});
    EXPECT_TRUE(decode(types, canonical, {.canonical = true}).has_value());
    // Tails swapped: valid for Solidity's decoder, not canonical.
    const Bytes swapped =
        words({"80", "40", "1", "62" + std::string(62, '0'), "1", "61" + std::string(62, '0')});
    auto lenient = decode(types, swapped);
    ASSERT_TRUE(lenient.has_value());
    EXPECT_EQ((*lenient)[0], AbiValue("a"));
    EXPECT_EQ(decode(types, swapped, {.canonical = true}).error().code, AbiError::bad_offset);
    // Trailing bytes.
    Bytes trailing = canonical;
    trailing.push_back(0);
    EXPECT_TRUE(decode(types, trailing).has_value());
    EXPECT_EQ(decode(types, trailing, {.canonical = true}).error().code, AbiError::trailing_data);
}

TEST(core_abi, encode_checks_values_against_types) {
    const std::vector<AbiType> u8 = {AbiType::make_uint(8)};
    EXPECT_EQ(encode(u8, std::vector<AbiValue>{Uint256(256)}).error().code, AbiError::out_of_range);
    EXPECT_EQ(encode(u8, std::vector<AbiValue>{Int256(-1)}).error().code, AbiError::out_of_range);
    EXPECT_EQ(encode(u8, std::vector<AbiValue>{std::string("1")}).error().code,
              AbiError::bad_value);
    EXPECT_EQ(encode(u8, std::vector<AbiValue>{}).error().code, AbiError::count_mismatch);
    const std::vector<AbiType> i8 = {AbiType::make_int(8)};
    EXPECT_EQ(encode(i8, std::vector<AbiValue>{Int256(128)}).error().code, AbiError::out_of_range);
    EXPECT_EQ(encode(i8, std::vector<AbiValue>{Int256(-129)}).error().code, AbiError::out_of_range);
    EXPECT_EQ(encode(i8, std::vector<AbiValue>{Uint256(128)}).error().code, AbiError::out_of_range);
    EXPECT_TRUE(encode(i8, std::vector<AbiValue>{Uint256(127)}).has_value());
    const std::vector<AbiType> b4 = {AbiType::make_fixed_bytes(4)};
    EXPECT_EQ(encode(b4, std::vector<AbiValue>{FixedBytes(Bytes{1, 2, 3})}).error().code,
              AbiError::bad_value);
    const std::vector<AbiType> arr = {*parse_type("uint256[2]")};
    EXPECT_EQ(encode(arr, std::vector<AbiValue>{AbiValue::List{Uint256(1)}}).error().code,
              AbiError::count_mismatch);
    const std::vector<AbiType> tup = {*parse_type("(uint256,bool)")};
    EXPECT_EQ(
        encode(tup, std::vector<AbiValue>{AbiValue::List{Uint256(1), Uint256(1)}}).error().code,
        AbiError::bad_value);
    // Failed encode_into leaves the buffer as it was.
    Bytes buf = {0xaa};
    EXPECT_FALSE(
        encode_into(buf, tup, std::vector<AbiValue>{AbiValue::List{Uint256(1), Uint256(1)}})
            .has_value());
    EXPECT_EQ(buf, Bytes{0xaa});
}

TEST(core_abi, value_words_for_indexed_params) {
    Hash32 w{};
    w[31] = 1;
    EXPECT_EQ(*decode_word(AbiType::make_bool(), w), AbiValue(true));
    w[0] = 1;
    EXPECT_EQ(decode_word(AbiType::make_address(), w).error().code, AbiError::bad_padding);
    EXPECT_EQ(decode_word(AbiType::make_string(), w).error().code, AbiError::unsupported);
}

TEST(core_abi, hand_built_zero_size_types_fail_cleanly) {
    // make_tuple({}) breaks the factory precondition; decoding must still fail, not divide by zero.
    const AbiType empty_array = AbiType::make_array(AbiType::make_tuple({}));
    auto r = decode_one(empty_array, words({"20", "ffffffff"}));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, AbiError::bad_type);
}
