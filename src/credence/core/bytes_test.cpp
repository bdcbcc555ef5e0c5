#include <credence/core/bytes.hpp>

#include <gtest/gtest.h>

using namespace credence::core;

TEST(core_bytes, hex_round_trip) {
    const auto b = from_hex("0x00ff10Ab");
    ASSERT_TRUE(b);
    EXPECT_EQ(*b, (Bytes{0x00, 0xff, 0x10, 0xab}));
    EXPECT_EQ(to_hex(*b), "0x00ff10ab");
    EXPECT_EQ(to_hex(*b, false), "00ff10ab");
}

TEST(core_bytes, hex_empty_is_zero_bytes) {
    EXPECT_EQ(from_hex("0x")->size(), 0u);
    EXPECT_EQ(from_hex("")->size(), 0u);
}

TEST(core_bytes, hex_rejects_odd_length_and_bad_digits) {
    EXPECT_EQ(from_hex("0x123").error().code, HexError::odd_length);
    EXPECT_EQ(from_hex("0xzz").error().code, HexError::bad_digit);
    EXPECT_EQ(from_hex("0x1 ").error().code, HexError::bad_digit);
    EXPECT_EQ(from_hex("0x12 ").error().code, HexError::odd_length);
    EXPECT_EQ(from_prefixed_hex("12").error().code, HexError::missing_prefix);
}

TEST(core_bytes, hex_fixed_checks_length) {
    EXPECT_TRUE((from_hex_fixed<2>("0xabcd")));
    EXPECT_EQ((from_hex_fixed<2>("0xab").error().code), HexError::wrong_length);
}
