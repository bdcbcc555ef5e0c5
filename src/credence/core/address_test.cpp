#include <credence/core/address.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>

#include <credence/core/keccak.hpp>

#include "support/vectors.hpp"

using namespace credence::core;
using namespace credence::core::literals;
using nlohmann::json;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

std::string upper_digits(const std::string& s) {
    std::string out = "0x";
    for (size_t i = 2; i < s.size(); ++i) {
        out.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(s[i]))));
    }
    return out;
}

bool mixed_case(const std::string& s) {
    const bool lo =
        std::any_of(s.begin() + 2, s.end(), [](char c) { return c >= 'a' && c <= 'f'; });
    const bool up =
        std::any_of(s.begin() + 2, s.end(), [](char c) { return c >= 'A' && c <= 'F'; });
    return lo && up;
}

}  // namespace

TEST(core_address, ethers_accounts_eip55_checksum) {
    const json cases = credence::testing::read_vector_json("ethers/accounts.json");
    ASSERT_EQ(cases.size(), 259u);
    size_t ran = 0;
    size_t flipped = 0;
    for (const auto& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const std::string checksummed = c["address"].get<std::string>();
        auto a = Address::from_hex(checksummed, ChecksumMode::strict);
        ASSERT_TRUE(a);
        EXPECT_EQ(a->to_checksum_hex(), checksummed);
        EXPECT_EQ(a->to_lower_hex(), lower(checksummed));
        // EIP-55: single-case forms carry no checksum and are accepted.
        EXPECT_EQ(*Address::from_hex(lower(checksummed)), *a);
        EXPECT_EQ(*Address::from_hex(upper_digits(checksummed)), *a);
        EXPECT_TRUE(is_valid_checksum(checksummed));
        // Flipping the case of one letter breaks the checksum (when the result is still mixed).
        for (size_t i = 2; i < checksummed.size(); ++i) {
            std::string bad = checksummed;
            const char ch = bad[i];
            if (ch >= 'a' && ch <= 'f') {
                bad[i] = static_cast<char>(ch - 'a' + 'A');
            } else if (ch >= 'A' && ch <= 'F') {
                bad[i] = static_cast<char>(ch - 'A' + 'a');
            } else {
                continue;
            }
            if (!mixed_case(bad)) continue;
            EXPECT_EQ(Address::from_hex(bad).error().code, AddressError::bad_checksum);
            EXPECT_FALSE(is_valid_checksum(bad));
            EXPECT_EQ(*Address::from_hex(bad, ChecksumMode::ignore), *a);
            ++flipped;
            break;
        }
        ++ran;
    }
    EXPECT_EQ(ran, 259u);
    EXPECT_GT(flipped, 250u);
}

TEST(core_address, ethers_create2_vectors) {
    const json groups = credence::testing::read_vector_json("ethers/create2.json");
    ASSERT_FALSE(groups.empty());
    size_t ran = 0;
    for (const auto& g : groups) {
        auto sender = Address::from_hex(g["sender"].get<std::string>());
        ASSERT_TRUE(sender);
        for (const auto& c : g["creates"]) {
            SCOPED_TRACE(c["name"].get<std::string>());
            const Hash32 salt = *from_hex_fixed<32>(c["salt"].get<std::string>());
            const Bytes init_code = *from_hex(c["initCode"].get<std::string>());
            const Hash32 init_hash = *from_hex_fixed<32>(c["initCodeHash"].get<std::string>());
            auto expected = Address::from_hex(c["address"].get<std::string>());
            ASSERT_TRUE(expected);
            EXPECT_EQ(keccak256(init_code), init_hash);
            EXPECT_EQ(create2_address(*sender, salt, init_code), *expected);
            EXPECT_EQ(create2_address_from_hash(*sender, salt, init_hash), *expected);
            ++ran;
        }
    }
    EXPECT_EQ(ran, 128u);
}

TEST(core_address, create_address_is_keccak_of_rlp_sender_nonce) {
    // No external CREATE vector is available; build rlp([sender, nonce]) by hand from the Yellow
    // Paper rules (a 20-byte string is 0x94 ++ bytes; the list header is 0xc0 + payload length).
    const Address sender = *Address::from_hex("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0");
    const auto expect = [&](uint64_t nonce, const Bytes& nonce_rlp) {
        Bytes list = {static_cast<uint8_t>(0xc0 + 21 + nonce_rlp.size()), 0x94};
        list.insert(list.end(), sender.bytes.begin(), sender.bytes.end());
        list.insert(list.end(), nonce_rlp.begin(), nonce_rlp.end());
        const Hash32 h = keccak256(list);
        Address a;
        std::copy(h.begin() + 12, h.end(), a.bytes.begin());
        EXPECT_EQ(create_address(sender, nonce), a) << nonce;
    };
    expect(0, "80"_hex);
    expect(1, "01"_hex);
    expect(0x7f, "7f"_hex);
    expect(0x80, "8180"_hex);
    expect(0x0100, "820100"_hex);
    expect(0xffffffffffffffffULL, "88ffffffffffffffff"_hex);
}

TEST(core_address, from_hex_rejects_bad_input) {
    EXPECT_EQ(Address::from_hex("6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0").error().code,
              AddressError::missing_prefix);
    EXPECT_EQ(Address::from_hex("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf").error().code,
              AddressError::wrong_length);
    EXPECT_EQ(Address::from_hex("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf000").error().code,
              AddressError::wrong_length);
    EXPECT_EQ(Address::from_hex("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbfg").error().code,
              AddressError::bad_digit);
    EXPECT_EQ(Address::from_hex("0x").error().code, AddressError::wrong_length);
    EXPECT_EQ(Address::from_bytes(Bytes(19, 0)).error().code, AddressError::wrong_length);
    EXPECT_TRUE(Address::from_bytes(Bytes(20, 0))->is_zero());
}
