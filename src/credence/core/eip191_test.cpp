#include <credence/core/eip191.hpp>

#include <gtest/gtest.h>

#include <string>

#include <credence/core/keccak.hpp>
#include <credence/core/secp256k1.hpp>

#include "support/vectors.hpp"

using namespace credence::core;
using nlohmann::json;

TEST(core_eip191, version_01_matches_eip712_mail_digest) {
    const json v = credence::testing::read_vector_json("eip712-mail.json")["expected"];
    const Hash32 domain = *from_hex_fixed<32>(v["domainSeparator"].get<std::string>());
    const Hash32 st = *from_hex_fixed<32>(v["structHash"].get<std::string>());
    EXPECT_EQ(to_hex(eip191_typed_data_hash(domain, st)), v["digest"].get<std::string>());
}

TEST(core_eip191, version_01_depends_on_argument_order) {
    const Hash32 a{1};
    const Hash32 b{2};
    EXPECT_NE(eip191_typed_data_hash(a, b), eip191_typed_data_hash(b, a));
}

TEST(core_eip191, personal_message_prefix_uses_decimal_byte_length) {
    // No external personal_sign vector is available: check the EIP-191 layout by hand.
    const std::string msg = "hello";
    EXPECT_EQ(eip191_personal_message_hash(as_bytes(msg)),
              keccak256(std::string("\x19"
                                    "Ethereum Signed Message:\n5hello")));
    const std::string long_msg(1000, 'x');
    EXPECT_EQ(eip191_personal_message_hash(as_bytes(long_msg)),
              keccak256(std::string("\x19"
                                    "Ethereum Signed Message:\n1000") +
                        long_msg));
    EXPECT_EQ(eip191_personal_message_hash({}),
              keccak256(std::string("\x19"
                                    "Ethereum Signed Message:\n0")));
}

TEST(core_eip191, personal_message_sign_and_recover) {
    auto key = SecretKey::generate();
    ASSERT_TRUE(key);
    const Hash32 digest = eip191_personal_message_hash(as_bytes(std::string_view("credence")));
    auto sig = sign_digest(*key, digest);
    ASSERT_TRUE(sig);
    EXPECT_EQ(*recover_address(digest, *sig), address_of(*key));
}

TEST(core_eip191, version_00_layout) {
    const Address validator = *Address::from_hex("0x8004a169fb4a3325136eb29fa0ceb6d2e539a432");
    const Bytes data = {0xde, 0xad};
    Bytes pre = {0x19, 0x00};
    pre.insert(pre.end(), validator.bytes.begin(), validator.bytes.end());
    pre.insert(pre.end(), data.begin(), data.end());
    EXPECT_EQ(eip191_validator_hash(validator, data), keccak256(pre));
}
