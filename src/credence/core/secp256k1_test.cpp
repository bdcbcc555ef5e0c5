#include <credence/core/secp256k1.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <credence/core/keccak.hpp>
#include <credence/core/uint256.hpp>

#include "support/vectors.hpp"

using namespace credence::core;
using namespace credence::core::literals;
using nlohmann::json;

namespace {

// The secp256k1 group order n (SEC 2, §2.4.1): a curve parameter, used to build high-s forms.
const Uint256 kOrder =
    *Uint256::from_hex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141");

Hash32 word(const std::string& hex) {
    auto w = from_hex_fixed<32>(hex);
    EXPECT_TRUE(w) << hex;
    return w ? *w : Hash32{};
}

SecretKey key(const std::string& hex) {
    auto k = SecretKey::from_hex(hex);
    EXPECT_TRUE(k);
    return std::move(*k);
}

// The same signature with s' = n - s and the recovery id flipped: also valid, but high-s.
Signature malleate(const Signature& sig) {
    Signature out = sig;
    out.s = (kOrder - Uint256::from_word(sig.s.data())).to_word();
    out.recovery_id = static_cast<uint8_t>(sig.recovery_id ^ 1);
    return out;
}

}  // namespace

TEST(core_secp256k1, ethers_accounts_key_to_address) {
    const json cases = credence::testing::read_vector_json("ethers/accounts.json");
    ASSERT_EQ(cases.size(), 259u);
    size_t ran = 0;
    for (const auto& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        const SecretKey k = key(c["privateKey"].get<std::string>());
        auto expected = Address::from_hex(c["address"].get<std::string>());
        ASSERT_TRUE(expected);
        EXPECT_EQ(address_of(k), *expected);
        ++ran;
    }
    EXPECT_EQ(ran, 259u);
}

TEST(core_secp256k1, ethereum_tests_keyaddrtest) {
    // sig_of_emptystring is skipped: those signatures do not recover (see vectors/README.md).
    const json cases =
        credence::testing::read_vector_json("ethereum-tests/BasicTests/keyaddrtest.json");
    ASSERT_FALSE(cases.empty());
    for (const auto& c : cases) {
        SCOPED_TRACE(c["seed"].get<std::string>());
        const SecretKey k = key(c["key"].get<std::string>());
        auto expected = Address::from_hex("0x" + c["addr"].get<std::string>());
        ASSERT_TRUE(expected);
        EXPECT_EQ(address_of(k), *expected);
    }
}

TEST(core_secp256k1, eip712_mail_signature_is_rfc6979_and_recovers) {
    const json v = credence::testing::read_vector_json("eip712-mail.json")["expected"];
    const SecretKey k = key(v["privateKey"].get<std::string>());
    const Hash32 digest = word(v["digest"].get<std::string>());
    auto sig = sign_digest(k, digest);
    ASSERT_TRUE(sig);
    EXPECT_EQ(to_hex(sig->r), v["signature"]["r"].get<std::string>());
    EXPECT_EQ(to_hex(sig->s), v["signature"]["s"].get<std::string>());
    EXPECT_EQ(sig->to_bytes_v27()[64], v["signature"]["v"].get<int>());
    auto signer = Address::from_hex(v["signer"].get<std::string>());
    ASSERT_TRUE(signer);
    EXPECT_EQ(*recover_address(digest, *sig), *signer);
    EXPECT_EQ(address_of(k), *signer);
    EXPECT_TRUE(verify(public_key(k), digest, *sig));
}

TEST(core_secp256k1, sign_recover_verify_round_trip_with_generated_keys) {
    for (int i = 0; i < 16; ++i) {
        auto k = SecretKey::generate();
        ASSERT_TRUE(k);
        const Hash32 digest = keccak256("round trip " + std::to_string(i));
        auto sig = sign_digest(*k, digest);
        ASSERT_TRUE(sig);
        EXPECT_TRUE(is_low_s(sig->s));
        EXPECT_LE(sig->recovery_id, 1);
        auto pub = recover_public_key(digest, *sig, SCheck::require_low_s);
        ASSERT_TRUE(pub);
        EXPECT_EQ(*pub, public_key(*k));
        EXPECT_TRUE(verify(*pub, digest, *sig));
        Hash32 other = digest;
        other[0] ^= 1;
        EXPECT_FALSE(verify(*pub, other, *sig));
        // Deterministic (RFC 6979): same key and digest give the same signature.
        EXPECT_EQ(*sign_digest(*k, digest), *sig);
    }
}

TEST(core_secp256k1, recovery_accepts_high_s_only_when_allowed) {
    const SecretKey k = key("0x0000000000000000000000000000000000000000000000000000000000000001");
    const Hash32 digest = keccak256("eip-2");
    auto sig = sign_digest(k, digest);
    ASSERT_TRUE(sig);
    const Signature high = malleate(*sig);
    EXPECT_FALSE(is_low_s(high.s));
    // EVM ecrecover accepts high-s; EIP-2 rejects it.
    EXPECT_EQ(*recover_address(digest, high, SCheck::allow_high_s), address_of(k));
    EXPECT_EQ(recover_address(digest, high, SCheck::require_low_s).error().code,
              Secp256k1Error::high_s);
    EXPECT_FALSE(verify(public_key(k), digest, high, SCheck::require_low_s));
    EXPECT_TRUE(verify(public_key(k), digest, high, SCheck::allow_high_s));
}

TEST(core_secp256k1, secret_key_misuse_is_reported) {
    EXPECT_EQ(SecretKey::from_bytes(Bytes(32, 0)).error().code, Secp256k1Error::invalid_secret_key);
    EXPECT_EQ(SecretKey::from_bytes(Bytes(31, 1)).error().code, Secp256k1Error::invalid_secret_key);
    EXPECT_EQ(SecretKey::from_bytes(Bytes(33, 1)).error().code, Secp256k1Error::invalid_secret_key);
    const Hash32 n = kOrder.to_word();
    EXPECT_EQ(SecretKey::from_bytes(n).error().code, Secp256k1Error::invalid_secret_key);
    const Hash32 n_minus_1 = (kOrder - Uint256{1}).to_word();
    EXPECT_TRUE(SecretKey::from_bytes(n_minus_1));
    EXPECT_EQ(SecretKey::from_hex("0xzz").error().code, Secp256k1Error::invalid_secret_key);
}

TEST(core_secp256k1, signature_misuse_is_reported_separately_from_failure) {
    const SecretKey k = key("0x0000000000000000000000000000000000000000000000000000000000000002");
    const Hash32 digest = keccak256("misuse");
    const Signature good = *sign_digest(k, digest);

    Signature zero_r = good;
    zero_r.r = {};
    EXPECT_EQ(recover_public_key(digest, zero_r).error().code, Secp256k1Error::invalid_signature);
    Signature big_s = good;
    big_s.s = kOrder.to_word();  // s == n is out of range
    EXPECT_EQ(recover_public_key(digest, big_s).error().code, Secp256k1Error::invalid_signature);
    Signature bad_id = good;
    bad_id.recovery_id = 2;
    EXPECT_EQ(recover_public_key(digest, bad_id).error().code, Secp256k1Error::invalid_recovery_id);

    // A well-formed signature whose r is not the x of a curve point: recovery fails (about half
    // of all small x have no point; none of them is misuse).
    size_t failures = 0;
    for (uint8_t x = 1; x <= 16; ++x) {
        Signature sig = good;
        sig.r = {};
        sig.r[31] = x;
        auto r = recover_public_key(digest, sig);
        if (!r) {
            EXPECT_EQ(r.error().code, Secp256k1Error::recovery_failed);
            ++failures;
        }
    }
    EXPECT_GT(failures, 0u);
}

TEST(core_secp256k1, signature_bytes_forms) {
    const SecretKey k = key("0x0000000000000000000000000000000000000000000000000000000000000003");
    const Signature sig = *sign_digest(k, keccak256("bytes"));
    const auto b = sig.to_bytes();
    EXPECT_EQ(b[64], sig.recovery_id);
    EXPECT_TRUE(std::equal(sig.r.begin(), sig.r.end(), b.begin()));
    EXPECT_EQ(*Signature::from_bytes(b), sig);
    EXPECT_EQ(*Signature::from_bytes(sig.to_bytes_v27()), sig);
    auto bad = b;
    bad[64] = 29;
    EXPECT_EQ(Signature::from_bytes(bad).error().code, Secp256k1Error::invalid_recovery_id);
    EXPECT_EQ(Signature::from_bytes(ByteView(b).first(64)).error().code,
              Secp256k1Error::invalid_signature);
}

TEST(core_secp256k1, public_key_parsing) {
    const SecretKey k = key("0x0000000000000000000000000000000000000000000000000000000000000001");
    const PublicKey pub = public_key(k);
    EXPECT_EQ(*PublicKey::from_bytes(pub.xy), pub);
    Bytes prefixed = {0x04};
    prefixed.insert(prefixed.end(), pub.xy.begin(), pub.xy.end());
    EXPECT_EQ(*PublicKey::from_bytes(prefixed), pub);
    auto off_curve = pub.xy;
    off_curve[63] ^= 1;
    EXPECT_EQ(PublicKey::from_bytes(off_curve).error().code, Secp256k1Error::invalid_public_key);
}

TEST(core_secp256k1, secret_key_is_wiped_when_moved_from) {
    auto k = SecretKey::generate();
    ASSERT_TRUE(k);
    SecretKey moved = std::move(*k);
    const auto& old = k->expose_secret();  // NOLINT(bugprone-use-after-move): checking the wipe
    EXPECT_TRUE(std::all_of(old.begin(), old.end(), [](uint8_t b) { return b == 0; }));
    const auto& now = moved.expose_secret();
    EXPECT_FALSE(std::all_of(now.begin(), now.end(), [](uint8_t b) { return b == 0; }));
}

TEST(core_secp256k1, context_is_safe_to_share_across_threads) {
    // The context is created once and only read afterwards: concurrent first use, signing and
    // recovery from several threads must agree.
    const Hash32 digest = keccak256("threads");
    std::vector<std::thread> threads;
    std::vector<int> ok(4, 0);
    threads.reserve(ok.size());
    for (size_t t = 0; t < ok.size(); ++t) {
        threads.emplace_back([&, t] {
            auto k = SecretKey::generate();
            if (!k) return;
            int good = 0;
            for (int i = 0; i < 50; ++i) {
                auto sig = sign_digest(*k, digest);
                if (sig && recover_address(digest, *sig) == address_of(*k)) ++good;
            }
            ok[t] = good;
        });
    }
    for (auto& th : threads) th.join();
    for (int good : ok) EXPECT_EQ(good, 50);
}
