#include <credence/core/rlp.hpp>

#include <gtest/gtest.h>

#include <string>

#include "support/vectors.hpp"

using namespace credence::core;
using namespace credence::core::literals;
using nlohmann::json;

namespace {

Bytes hex(const std::string& s) {
    auto b = from_hex(s);
    EXPECT_TRUE(b) << "bad hex in vector: " << s;
    return b ? *b : Bytes{};
}

// Decimal string -> minimal big-endian bytes (the vectors' "#123..." big integers exceed 256
// bits, so Uint256 cannot hold them). This converts vector *input*, not expected output.
Bytes decimal_to_be(const std::string& dec) {
    Bytes be;  // big-endian, minimal
    for (char c : dec) {
        unsigned carry = static_cast<unsigned>(c - '0');
        for (size_t i = be.size(); i > 0; --i) {
            const unsigned v = be[i - 1] * 10u + carry;
            be[i - 1] = static_cast<uint8_t>(v & 0xff);
            carry = v >> 8;
        }
        while (carry != 0) {
            be.insert(be.begin(), static_cast<uint8_t>(carry & 0xff));
            carry >>= 8;
        }
    }
    return be;
}

Bytes u64_to_be(uint64_t v) {
    Bytes be;
    while (v != 0) {
        be.insert(be.begin(), static_cast<uint8_t>(v & 0xff));
        v >>= 8;
    }
    return be;
}

// ethereum/tests RLPTests "in": strings are raw bytes, integers are scalars, "#..." big integers.
RlpValue from_ethereum_tests(const json& j) {
    if (j.is_array()) {
        std::vector<RlpValue> items;
        for (const auto& e : j) items.push_back(from_ethereum_tests(e));
        return RlpValue(std::move(items));
    }
    if (j.is_number_unsigned() || j.is_number_integer())
        return RlpValue(u64_to_be(j.get<uint64_t>()));
    const auto s = j.get<std::string>();
    if (!s.empty() && s[0] == '#') return RlpValue(decimal_to_be(s.substr(1)));
    return RlpValue(Bytes(s.begin(), s.end()));
}

// ethers rlp.json "decoded": hex strings and nested arrays.
RlpValue from_ethers(const json& j) {
    if (j.is_array()) {
        std::vector<RlpValue> items;
        for (const auto& e : j) items.push_back(from_ethers(e));
        return RlpValue(std::move(items));
    }
    return RlpValue(hex(j.get<std::string>()));
}

}  // namespace

TEST(core_rlp, ethers_vectors_encode_and_decode) {
    const json cases = credence::testing::read_vector_json("ethers/rlp.json");
    ASSERT_EQ(cases.size(), 61u);
    size_t ran = 0;
    for (const auto& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const RlpValue decoded = from_ethers(c["decoded"]);
        const Bytes encoded = hex(c["encoded"].get<std::string>());
        EXPECT_EQ(to_hex(rlp_encode(decoded)), to_hex(encoded));
        auto back = rlp_decode_value(encoded);
        ASSERT_TRUE(back) << to_string(back.error().code) << " " << back.error().detail;
        EXPECT_TRUE(*back == decoded);
        ++ran;
    }
    EXPECT_EQ(ran, 61u);
}

TEST(core_rlp, ethereum_tests_valid_vectors) {
    const json cases = credence::testing::read_vector_json("ethereum-tests/RLPTests/rlptest.json");
    ASSERT_FALSE(cases.empty());
    size_t ran = 0;
    for (const auto& [name, c] : cases.items()) {
        SCOPED_TRACE(name);
        const RlpValue in = from_ethereum_tests(c["in"]);
        const Bytes out = hex(c["out"].get<std::string>());
        EXPECT_EQ(to_hex(rlp_encode(in)), to_hex(out));
        auto back = rlp_decode_value(out);
        ASSERT_TRUE(back) << to_string(back.error().code) << " " << back.error().detail;
        EXPECT_TRUE(*back == in);
        ++ran;
    }
    EXPECT_EQ(ran, cases.size());
}

TEST(core_rlp, ethereum_tests_invalid_vectors_are_rejected) {
    const json cases =
        credence::testing::read_vector_json("ethereum-tests/RLPTests/invalidRLPTest.json");
    ASSERT_FALSE(cases.empty());
    size_t ran = 0;
    for (const auto& [name, c] : cases.items()) {
        SCOPED_TRACE(name);
        ASSERT_EQ(c["in"], "INVALID");
        const Bytes out = hex(c["out"].get<std::string>());
        auto r = rlp_decode(out);
        EXPECT_FALSE(r) << "accepted invalid RLP";
        ++ran;
    }
    EXPECT_EQ(ran, cases.size());
}

// --- One test per strictness rule (Yellow Paper appendix B canonical form) ---

TEST(core_rlp, decode_rejects_single_byte_with_0x81_prefix) {
    EXPECT_EQ(rlp_decode("8100"_hex).error().code, RlpError::non_canonical_size);
    EXPECT_EQ(rlp_decode("817f"_hex).error().code, RlpError::non_canonical_size);
    EXPECT_TRUE(rlp_decode("8180"_hex));  // 0x80 itself needs the prefix
}

TEST(core_rlp, decode_rejects_long_form_for_short_payload) {
    EXPECT_EQ(rlp_decode("b801ff"_hex).error().code, RlpError::non_canonical_size);
    EXPECT_EQ(rlp_decode("f803112233"_hex).error().code, RlpError::non_canonical_size);
    Bytes s55 = "b7"_hex;
    s55.resize(56, 0x61);
    EXPECT_TRUE(rlp_decode(s55));  // 55 bytes: short form is canonical
    Bytes l55 = "b837"_hex;
    l55.resize(2 + 55, 0x61);
    EXPECT_EQ(rlp_decode(l55).error().code, RlpError::non_canonical_size);
}

TEST(core_rlp, decode_rejects_leading_zero_in_length) {
    Bytes b = "b90038"_hex;
    b.resize(3 + 56, 0x61);
    EXPECT_EQ(rlp_decode(b).error().code, RlpError::leading_zero_in_length);
    EXPECT_EQ(rlp_decode("f800"_hex).error().code, RlpError::leading_zero_in_length);
}

TEST(core_rlp, decode_rejects_length_past_end) {
    EXPECT_EQ(rlp_decode("83646f"_hex).error().code, RlpError::input_too_short);
    EXPECT_EQ(rlp_decode("c5010203"_hex).error().code, RlpError::input_too_short);
    EXPECT_EQ(rlp_decode("b9"_hex).error().code, RlpError::input_too_short);
    // A huge declared length must fail before any allocation.
    EXPECT_EQ(rlp_decode("bfffffffffffffffff00"_hex).error().code, RlpError::input_too_short);
    EXPECT_EQ(rlp_decode("ffffffffffffffffff00"_hex).error().code, RlpError::input_too_short);
    EXPECT_EQ(rlp_decode(Bytes{}).error().code, RlpError::input_too_short);
}

TEST(core_rlp, decode_rejects_trailing_bytes) {
    EXPECT_EQ(rlp_decode("8000"_hex).error().code, RlpError::trailing_bytes);
    EXPECT_EQ(rlp_decode("c0c0"_hex).error().code, RlpError::trailing_bytes);
    EXPECT_EQ(RlpReader::open_list("c08000"_hex).error().code, RlpError::trailing_bytes);
}

TEST(core_rlp, decode_rejects_list_items_overrunning_the_list) {
    // The list says 2 bytes of payload, but its item claims 3.
    EXPECT_EQ(rlp_decode("c2830102"_hex).error().code, RlpError::input_too_short);
}

TEST(core_rlp, decode_limits_depth) {
    Bytes nested = "c0"_hex;
    for (size_t i = 0; i < kRlpMaxDepth; ++i) nested = rlp_encode_list_payload(nested);
    EXPECT_EQ(rlp_decode(nested).error().code, RlpError::too_deep);
    Bytes shallow = "c0"_hex;
    for (size_t i = 0; i + 1 < kRlpMaxDepth; ++i) shallow = rlp_encode_list_payload(shallow);
    EXPECT_TRUE(rlp_decode(shallow));
}

TEST(core_rlp, scalar_rejects_leading_zero) {
    EXPECT_EQ(rlp_scalar_to_uint256("00"_hex).error().code, RlpError::leading_zero_scalar);
    EXPECT_EQ(rlp_scalar_to_uint256("0001"_hex).error().code, RlpError::leading_zero_scalar);
    EXPECT_EQ(rlp_scalar_to_u64("00ff"_hex).error().code, RlpError::leading_zero_scalar);
    EXPECT_EQ(*rlp_scalar_to_u64(Bytes{}), 0u);
    EXPECT_EQ(*rlp_scalar_to_u64("0100"_hex), 256u);
    const Bytes zero_byte = "00"_hex;  // the string "\0", not the scalar zero
    RlpReader r(zero_byte);
    EXPECT_EQ(r.next_u64().error().code, RlpError::leading_zero_scalar);
}

TEST(core_rlp, scalar_rejects_overflow) {
    Bytes nine(9, 0x01);
    EXPECT_EQ(rlp_scalar_to_u64(nine).error().code, RlpError::scalar_overflow);
    Bytes wide(33, 0x01);
    EXPECT_EQ(rlp_scalar_to_uint256(wide).error().code, RlpError::scalar_overflow);
    Bytes max(32, 0xff);
    EXPECT_EQ(*rlp_scalar_to_uint256(max), Uint256::max());
}

TEST(core_rlp, scalar_encoding_is_minimal) {
    EXPECT_EQ(rlp_encode_uint(Uint256{0}), "80"_hex);
    EXPECT_EQ(rlp_encode_uint(Uint256{0x7f}), "7f"_hex);
    EXPECT_EQ(rlp_encode_uint(Uint256{0x80}), "8180"_hex);
    EXPECT_EQ(rlp_encode_uint(Uint256{0x0400}), "820400"_hex);
    Bytes out;
    rlp_append_uint(out, uint64_t{0x0400});
    EXPECT_EQ(out, "820400"_hex);
}

TEST(core_rlp, reader_checks_kinds_sizes_and_counts) {
    const Bytes list = "c783646f67c20102"_hex;  // ["dog", [1, 2]]
    auto r = RlpReader::open_list(list);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->next_list().error().code, RlpError::unexpected_string);
    auto r2 = RlpReader::open_list(list);
    EXPECT_EQ(r2->next_fixed(4).error().code, RlpError::wrong_size);
    auto r3 = RlpReader::open_list(list);
    EXPECT_TRUE(r3->next_fixed(3));
    EXPECT_EQ(r3->next_string().error().code, RlpError::unexpected_list);
    EXPECT_EQ(RlpReader::open_list("83646f67"_hex).error().code, RlpError::unexpected_string);

    EXPECT_EQ(rlp_decode_string_fields("c3010203"_hex, 3)->size(), 3u);
    EXPECT_EQ(rlp_decode_string_fields("c3010203"_hex, 2).error().code,
              RlpError::wrong_field_count);
    EXPECT_EQ(rlp_decode_string_fields("c3010203"_hex, 4).error().code,
              RlpError::wrong_field_count);
}

TEST(core_rlp, item_views_point_into_the_input) {
    const Bytes in = "c783646f67c20102"_hex;
    auto item = rlp_decode(in);
    ASSERT_TRUE(item);
    ASSERT_TRUE(item->list);
    ASSERT_EQ(item->items.size(), 2u);
    EXPECT_EQ(item->items[0].payload.data(), in.data() + 2);
    EXPECT_EQ(Bytes(item->items[1].encoded.begin(), item->items[1].encoded.end()), "c20102"_hex);
    EXPECT_EQ(item->items[1].items.size(), 2u);
}
