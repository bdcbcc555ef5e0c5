#include <credence/core/uint256.hpp>

#include <gtest/gtest.h>

using namespace credence::core;

namespace {
// 2^256 - 1 as printed by Python: str(2**256 - 1).
constexpr std::string_view kMaxDec =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";
}  // namespace

TEST(core_uint256, decimal_round_trip_extremes) {
    EXPECT_EQ(Uint256::from_dec(kMaxDec)->to_dec(), kMaxDec);
    EXPECT_EQ(*Uint256::from_dec(kMaxDec), Uint256::max());
    EXPECT_EQ(Uint256{}.to_dec(), "0");
    EXPECT_EQ(Uint256::from_dec("10000000000000000000")->to_dec(), "10000000000000000000");
}

TEST(core_uint256, decimal_overflow_is_an_error) {
    // 2^256
    EXPECT_EQ(Uint256::from_dec(
                  "115792089237316195423570985008687907853269984665640564039457584007913129639936")
                  .error()
                  .code,
              IntError::overflow);
    EXPECT_EQ(Uint256::from_dec("").error().code, IntError::empty);
    EXPECT_EQ(Uint256::from_dec("12a").error().code, IntError::bad_digit);
    EXPECT_EQ(Uint256::parse("-1").error().code, IntError::negative);
}

TEST(core_uint256, hex_parse_and_print) {
    EXPECT_EQ(Uint256::parse("0xff")->to_dec(), "255");
    EXPECT_EQ(Uint256{255}.to_hex(), "0xff");
    EXPECT_EQ(Uint256{}.to_hex(), "0x0");
    EXPECT_EQ(Uint256::from_hex("0x" + std::string(65, 'f')).error().code, IntError::overflow);
    EXPECT_TRUE(Uint256::from_hex("0x00" + std::string(64, 'f')));
}

TEST(core_uint256, checked_arithmetic) {
    EXPECT_FALSE(Uint256::checked_add(Uint256::max(), Uint256{1}));
    EXPECT_FALSE(Uint256::checked_sub(Uint256{1}, Uint256{2}));
    EXPECT_FALSE(Uint256::checked_mul(Uint256{1} << 128, Uint256{1} << 128));
    EXPECT_EQ(*Uint256::checked_mul(Uint256{1} << 127, Uint256{1} << 128), Uint256{1} << 255);
    EXPECT_EQ(Uint256::max() + Uint256{1}, Uint256{});
    const auto dm =
        Uint256::divmod(*Uint256::from_dec(kMaxDec), *Uint256::from_dec("1000000000000000000000"));
    EXPECT_EQ(dm->quot.to_dec(), "115792089237316195423570985008687907853269984665640564039");
    EXPECT_EQ(dm->rem.to_dec(), "457584007913129639935");
    EXPECT_FALSE(Uint256::divmod(Uint256{1}, Uint256{}));
}

TEST(core_uint256, word_round_trip) {
    const Uint256 v =
        *Uint256::parse("0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20");
    const Hash32 w = v.to_word();
    EXPECT_EQ(w[0], 0x01);
    EXPECT_EQ(w[31], 0x20);
    EXPECT_EQ(Uint256::from_word(w.data()), v);
    EXPECT_EQ(Uint256{0x1234}.to_be_bytes_trimmed(), (Bytes{0x12, 0x34}));
    EXPECT_TRUE(Uint256{}.to_be_bytes_trimmed().empty());
}

TEST(core_int256, parse_range_and_print) {
    // -2^255 and 2^255 - 1 as printed by Python.
    const std::string min =
        "-57896044618658097711785492504343953926634992332820282019728792003956564819968";
    const std::string max =
        "57896044618658097711785492504343953926634992332820282019728792003956564819967";
    EXPECT_EQ(Int256::parse(min)->to_dec(), min);
    EXPECT_EQ(Int256::parse(max)->to_dec(), max);
    EXPECT_EQ(*Int256::parse(min), Int256::min());
    EXPECT_EQ(Int256::parse(
                  "-57896044618658097711785492504343953926634992332820282019728792003956564819969")
                  .error()
                  .code,
              IntError::overflow);
    EXPECT_EQ(Int256::parse(
                  "57896044618658097711785492504343953926634992332820282019728792003956564819968")
                  .error()
                  .code,
              IntError::overflow);
    EXPECT_EQ(Int256(-5).to_dec(), "-5");
    EXPECT_EQ(Int256::parse("--5").error().code, IntError::bad_digit);
}

TEST(core_int256, fits_bits_matches_solidity_ranges) {
    EXPECT_TRUE(Int256(127).fits_bits(8));
    EXPECT_FALSE(Int256(128).fits_bits(8));
    EXPECT_TRUE(Int256(-128).fits_bits(8));
    EXPECT_FALSE(Int256(-129).fits_bits(8));
}

TEST(core_int256, checked_arithmetic) {
    EXPECT_FALSE(Int256::checked_add(Int256::max(), Int256(1)));
    EXPECT_FALSE(Int256::checked_sub(Int256::min(), Int256(1)));
    EXPECT_FALSE(Int256::checked_mul(Int256::min(), Int256(-1)));
    EXPECT_FALSE(Int256::checked_div(Int256::min(), Int256(-1)));
    EXPECT_EQ(*Int256::checked_div(Int256(-7), Int256(2)), Int256(-3));  // truncates toward zero
    EXPECT_EQ(*Int256::checked_mul(Int256(-3), Int256(4)), Int256(-12));
    EXPECT_TRUE(Int256(-1) < Int256(0));
}
