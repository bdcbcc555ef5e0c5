#include <credence/core/txn.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>

#include <credence/core/keccak.hpp>
#include <credence/core/rlp.hpp>

#include "support/vectors.hpp"

using namespace credence::core;
using namespace credence::core::literals;
using nlohmann::json;

namespace {

Uint256 quantity(const json& j) {
    if (j.is_number_unsigned()) return Uint256(j.get<uint64_t>());
    const std::string s = j.get<std::string>();
    if (s == "0x" || s.empty()) return Uint256{};  // ethers writes zero as "0x"
    auto v = Uint256::from_hex(s);
    EXPECT_TRUE(v) << s;
    return v ? *v : Uint256{};
}

uint64_t quantity_u64(const json& j) {
    const Uint256 v = quantity(j);
    EXPECT_TRUE(v.fits_u64());
    return v.limbs[0];
}

// How one vector file fills fields its "transaction" object leaves out.
struct Defaults {
    uint64_t typed_chain_id;  // chainId used by the Berlin/London/Cancun forms when absent
    // ethers v5 writes an EIP-155 chainId of 0 as the byte 0x00 (non-canonical RLP) and signs
    // that; we never produce it, so those forms get the checks of check_eip155_zero_quirk.
    bool eip155_zero_quirk;
};

// The five serializations the ethers vectors give per transaction.
struct Variant {
    const char* name;  // suffix of unsignedX / signedX / signatureX
    TxnType type;
    bool eip155;
};
constexpr Variant kVariants[] = {
    {"Legacy", TxnType::legacy, false},      {"Eip155", TxnType::legacy, true},
    {"Berlin", TxnType::access_list, false}, {"London", TxnType::dynamic_fee, false},
    {"Cancun", TxnType::blob, false},
};

Txn build(const json& t, const Variant& variant, const Defaults& d) {
    Txn txn;
    txn.type = variant.type;
    const bool has_chain = t.contains("chainId");
    const uint64_t chain = has_chain ? quantity_u64(t["chainId"]) : 0;
    if (variant.type == TxnType::legacy) {
        if (variant.eip155) txn.chain_id = chain;
    } else {
        txn.chain_id = has_chain ? chain : d.typed_chain_id;
    }
    if (t.contains("nonce")) txn.nonce = quantity_u64(t["nonce"]);
    if (t.contains("gasLimit")) txn.gas_limit = quantity_u64(t["gasLimit"]);
    if (t.contains("gasPrice")) txn.gas_price = quantity(t["gasPrice"]);
    if (t.contains("maxFeePerGas")) txn.max_fee_per_gas = quantity(t["maxFeePerGas"]);
    if (t.contains("maxPriorityFeePerGas")) {
        txn.max_priority_fee_per_gas = quantity(t["maxPriorityFeePerGas"]);
    }
    if (t.contains("to") && !t["to"].get<std::string>().empty()) {
        // transactions.json uses checksummed addresses: parse them strictly.
        auto to = Address::from_hex(t["to"].get<std::string>());
        EXPECT_TRUE(to);
        txn.to = *to;
    }
    if (t.contains("value")) txn.value = quantity(t["value"]);
    if (t.contains("data")) txn.data = *from_hex(t["data"].get<std::string>());
    if (t.contains("accessList")) {
        for (const auto& e : t["accessList"]) {
            AccessListEntry entry;
            entry.address = *Address::from_hex(e["address"].get<std::string>());
            for (const auto& k : e["storageKeys"]) {
                entry.storage_keys.push_back(*from_hex_fixed<32>(k.get<std::string>()));
            }
            txn.access_list.push_back(std::move(entry));
        }
    }
    if (t.contains("maxFeePerBlobGas")) txn.max_fee_per_blob_gas = quantity(t["maxFeePerBlobGas"]);
    if (t.contains("blobVersionedHashes")) {
        for (const auto& h : t["blobVersionedHashes"]) {
            txn.blob_versioned_hashes.push_back(*from_hex_fixed<32>(h.get<std::string>()));
        }
    }
    return txn;
}

// Clears the fields the transaction's type does not encode, as decoding leaves them.
Txn normalized(Txn t) {
    const bool legacy = t.type == TxnType::legacy;
    const bool fee_market = t.type == TxnType::dynamic_fee || t.type == TxnType::blob;
    if (fee_market) t.gas_price = Uint256{};
    if (!fee_market) {
        t.max_fee_per_gas = Uint256{};
        t.max_priority_fee_per_gas = Uint256{};
    }
    if (legacy) t.access_list.clear();
    if (t.type != TxnType::blob) {
        t.max_fee_per_blob_gas = Uint256{};
        t.blob_versioned_hashes.clear();
    }
    return t;
}

struct Counts {
    size_t unsigned_checked = 0;
    size_t signed_checked = 0;
    size_t decoded = 0;
    size_t recovered = 0;
    size_t signature_fields = 0;
    size_t skipped_quirk = 0;
};

// ethers v5's EIP-155 form with chainId 0: the unsigned payload ends in [0x00, 0x80, 0x80], which
// strict decoding must reject as a scalar; the signed form (v = 35/36) is canonical and must
// round-trip; its signature recovers the sender over the vector's own payload.
void check_eip155_zero_quirk(const std::string& unsigned_hex, const std::string& signed_hex,
                             const Txn& txn, const Address& sender) {
    const Bytes unsigned_raw = *from_hex(unsigned_hex);
    auto r = RlpReader::open_list(unsigned_raw);
    ASSERT_TRUE(r);
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(r->next_string());
    EXPECT_EQ(r->next_u64().error().code, RlpError::leading_zero_scalar);

    const Bytes raw = *from_hex(signed_hex);
    auto decoded = decode_signed(raw);
    ASSERT_TRUE(decoded) << to_string(decoded.error().code);
    EXPECT_TRUE(decoded->txn == txn);
    EXPECT_EQ(encode_signed(*decoded), raw);
    auto from = recover_address(keccak256(unsigned_raw), decoded->signature());
    ASSERT_TRUE(from);
    EXPECT_EQ(*from, sender);
}

// Runs every check the vector supports for one transaction and variant.
void check_variant(const json& c, const Variant& v, const Defaults& d, Counts& n) {
    const std::string unsigned_hex = c.value(std::string("unsigned") + v.name, std::string());
    const std::string signed_hex = c.value(std::string("signed") + v.name, std::string());
    if (unsigned_hex.empty() && signed_hex.empty()) return;  // not applicable (e.g. blob create)
    SCOPED_TRACE(v.name);
    const Txn txn = normalized(build(c.value("transaction", json::object()), v, d));
    const SecretKey key = *SecretKey::from_hex(c["privateKey"].get<std::string>());
    const Address sender = address_of(key);
    if (v.eip155 && d.eip155_zero_quirk && txn.chain_id == 0u) {
        check_eip155_zero_quirk(unsigned_hex, signed_hex, txn, sender);
        ++n.skipped_quirk;
        return;
    }

    if (!unsigned_hex.empty()) {
        EXPECT_EQ(to_hex(encode_unsigned(txn)), unsigned_hex);
        EXPECT_EQ(signing_hash(txn), keccak256(*from_hex(unsigned_hex)));
        ++n.unsigned_checked;
    }
    if (signed_hex.empty()) return;
    const Bytes raw = *from_hex(signed_hex);

    // Signing is RFC 6979 deterministic, so our signature must reproduce the vector's bytes.
    auto signed_txn = sign_txn(txn, key);
    ASSERT_TRUE(signed_txn) << to_string(signed_txn.error().code);
    EXPECT_EQ(to_hex(encode_signed(*signed_txn)), signed_hex);
    ++n.signed_checked;

    auto decoded = decode_signed(raw);
    ASSERT_TRUE(decoded) << to_string(decoded.error().code) << ": " << decoded.error().detail;
    EXPECT_TRUE(decoded->txn == txn);
    EXPECT_EQ(encode_signed(*decoded), raw);
    EXPECT_EQ(txn_hash(*decoded), keccak256(raw));
    ++n.decoded;

    auto from = recover_sender(*decoded);
    ASSERT_TRUE(from) << to_string(from.error().code);
    EXPECT_EQ(*from, sender);
    ++n.recovered;

    const std::string sig_key = std::string("signature") + v.name;
    if (c.contains(sig_key) && !c[sig_key]["r"].get<std::string>().empty()) {
        EXPECT_EQ(decoded->r, quantity(c[sig_key]["r"]));
        EXPECT_EQ(decoded->s, quantity(c[sig_key]["s"]));
        EXPECT_EQ(decoded->v(), quantity(c[sig_key]["v"]));
        ++n.signature_fields;
    }
}

}  // namespace

// ethers v5 test suite: chainId absent means 1 for typed transactions.
TEST(core_txn, ethers_transaction_vectors) {
    const json cases = credence::testing::read_vector_json("ethers/transaction.json.gz");
    ASSERT_EQ(cases.size(), 896u);
    Counts n;
    for (const auto& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        for (const auto& v : kVariants) check_variant(c, v, Defaults{1, true}, n);
    }
    std::printf(
        "transaction.json.gz: %zu unsigned, %zu signed, %zu decoded, %zu recovered, "
        "%zu EIP-155 chainId-0 quirk\n",
        n.unsigned_checked, n.signed_checked, n.decoded, n.recovered, n.skipped_quirk);
    EXPECT_EQ(n.recovered + n.skipped_quirk, 896u * 4);
}

// ethers v6 test suite: chainId absent means 0; also gives (r, s, v) per form.
TEST(core_txn, ethers_transactions_vectors) {
    const json cases = credence::testing::read_vector_json("ethers/transactions.json.gz");
    ASSERT_EQ(cases.size(), 3200u);
    Counts n;
    for (const auto& c : cases) {
        SCOPED_TRACE(c["name"].get<std::string>());
        for (const auto& v : kVariants) check_variant(c, v, Defaults{0, false}, n);
    }
    std::printf(
        "transactions.json.gz: %zu unsigned, %zu signed, %zu decoded, %zu recovered, "
        "%zu with r/s/v\n",
        n.unsigned_checked, n.signed_checked, n.decoded, n.recovered, n.signature_fields);
    EXPECT_GT(n.recovered, 3200u * 3);
    EXPECT_EQ(n.recovered, n.signature_fields);
}

// ethereum/tests BasicTests/txtest.json: pre-EIP-155 transactions signed by pyethereum. Their
// "unsigned" field is the 9-item form with empty v, r, s; the first six items are what is signed.
TEST(core_txn, ethereum_tests_txtest) {
    const json cases = credence::testing::read_vector_json("ethereum-tests/BasicTests/txtest.json");
    ASSERT_FALSE(cases.empty());
    size_t ran = 0;
    for (const auto& c : cases) {
        const SecretKey key = *SecretKey::from_hex(c["key"].get<std::string>());
        const Bytes raw = *from_hex(c["signed"].get<std::string>());
        auto decoded = decode_signed(raw);
        ASSERT_TRUE(decoded) << to_string(decoded.error().code) << ": " << decoded.error().detail;
        EXPECT_EQ(encode_signed(*decoded), raw);
        const Txn& t = decoded->txn;
        EXPECT_EQ(t.type, TxnType::legacy);
        EXPECT_FALSE(t.chain_id.has_value());
        EXPECT_EQ(t.nonce, c["nonce"].get<uint64_t>());
        EXPECT_EQ(t.gas_price, Uint256(c["gasprice"].get<uint64_t>()));
        EXPECT_EQ(t.gas_limit, c["startgas"].get<uint64_t>());
        EXPECT_EQ(t.value, Uint256(c["value"].get<uint64_t>()));
        EXPECT_EQ(to_hex(t.data, false), c["data"].get<std::string>());
        EXPECT_EQ(t.to ? to_hex(t.to->view(), false) : std::string(), c["to"].get<std::string>());

        // The signed payload: the first six items of "unsigned", re-wrapped as a list.
        const Bytes unsigned9 = *from_hex(c["unsigned"].get<std::string>());
        auto items = rlp_decode(unsigned9);
        ASSERT_TRUE(items);
        ASSERT_EQ(items->items.size(), 9u);
        Bytes six;
        for (size_t i = 0; i < 6; ++i) {
            six.insert(six.end(), items->items[i].encoded.begin(), items->items[i].encoded.end());
        }
        EXPECT_EQ(encode_unsigned(t), rlp_encode_list_payload(six));

        // pyethereum did not normalize s: a high-s signature fails EIP-2 but recovers without it.
        const bool low = is_low_s(decoded->signature().s);
        auto strict = recover_sender(*decoded);
        if (low) {
            ASSERT_TRUE(strict);
            EXPECT_EQ(*strict, address_of(key));
        } else {
            ASSERT_FALSE(strict);
            EXPECT_EQ(strict.error().code, TxnError::high_s);
        }
        auto lax = recover_sender(*decoded, SCheck::allow_high_s);
        ASSERT_TRUE(lax);
        EXPECT_EQ(*lax, address_of(key));
        ++ran;
    }
    EXPECT_EQ(ran, cases.size());
}

// --- Rejection rules ---

namespace {

constexpr std::string_view kTestKey =
    "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";

SignedTxn sample(TxnType type) {
    Txn t;
    t.type = type;
    t.chain_id = 8453;
    t.nonce = 7;
    t.gas_price = 1000;
    t.max_priority_fee_per_gas = 2;
    t.max_fee_per_gas = 3000;
    t.gas_limit = 21000;
    t.to = *Address::from_hex("0x8004a169fb4a3325136eb29fa0ceb6d2e539a432");
    t.value = 12345;
    t.data = {0xca, 0xfe};
    if (type != TxnType::legacy) {
        AccessListEntry e;
        e.address = *t.to;
        e.storage_keys.push_back(Hash32{});
        t.access_list.push_back(e);
    }
    if (type == TxnType::blob) {
        t.max_fee_per_blob_gas = 9;
        Hash32 h{};
        h[0] = 0x01;
        t.blob_versioned_hashes.push_back(h);
    }
    const SecretKey key = *SecretKey::from_hex(kTestKey);
    return *sign_txn(normalized(t), key);
}

// Decodes the RLP list of a raw txn (after the type byte), lets `edit` change it, re-encodes.
template <typename Edit>
Bytes mutate(const Bytes& raw, Edit edit) {
    const bool typed = raw[0] < 0xc0;
    ByteView body = typed ? ByteView(raw).subspan(1) : ByteView(raw);
    RlpValue v = *rlp_decode_value(body);
    auto items = v.items();
    edit(items);
    Bytes out;
    if (typed) out.push_back(raw[0]);
    const Bytes enc = rlp_encode(RlpValue(std::move(items)));
    out.insert(out.end(), enc.begin(), enc.end());
    return out;
}

TxnError decode_error(const Bytes& raw) {
    auto r = decode_signed(raw);
    EXPECT_FALSE(r) << "accepted " << to_hex(raw);
    return r ? TxnError{} : r.error().code;
}

}  // namespace

TEST(core_txn, sample_transactions_round_trip) {
    for (auto type : {TxnType::legacy, TxnType::access_list, TxnType::dynamic_fee, TxnType::blob}) {
        const SignedTxn s = sample(type);
        const Bytes raw = encode_signed(s);
        auto d = decode_signed(raw);
        ASSERT_TRUE(d);
        EXPECT_EQ(*d, s);
        EXPECT_EQ(*recover_sender(*d), address_of(*SecretKey::from_hex(kTestKey)));
        EXPECT_EQ(txn_hash(*d), keccak256(raw));
    }
    // EIP-155: v = y_parity + chain_id * 2 + 35.
    const SignedTxn legacy = sample(TxnType::legacy);
    EXPECT_EQ(legacy.v(), Uint256(8453u * 2 + 35 + legacy.y_parity));
}

TEST(core_txn, decode_rejects_empty_and_unknown_types) {
    EXPECT_EQ(decode_error({}), TxnError::malformed_rlp);
    for (uint8_t first : std::initializer_list<uint8_t>{0x00, 0x04, 0x7f, 0x80, 0xb7, 0xbf}) {
        Bytes raw = encode_signed(sample(TxnType::dynamic_fee));
        raw[0] = first;
        EXPECT_EQ(decode_error(raw), TxnError::unsupported_type) << int(first);
    }
}

TEST(core_txn, decode_rejects_trailing_bytes) {
    for (auto type : {TxnType::legacy, TxnType::dynamic_fee}) {
        Bytes raw = encode_signed(sample(type));
        raw.push_back(0x80);
        EXPECT_EQ(decode_error(raw), TxnError::malformed_rlp);
    }
}

TEST(core_txn, decode_rejects_wrong_field_counts) {
    for (auto type : {TxnType::legacy, TxnType::access_list, TxnType::dynamic_fee, TxnType::blob}) {
        const Bytes raw = encode_signed(sample(type));
        EXPECT_EQ(decode_error(mutate(raw, [](auto& f) { f.push_back(RlpValue(Bytes{})); })),
                  TxnError::malformed_rlp);
        EXPECT_EQ(decode_error(mutate(raw, [](auto& f) { f.pop_back(); })),
                  TxnError::malformed_rlp);
    }
}

TEST(core_txn, decode_rejects_non_canonical_scalars) {
    const Bytes legacy = encode_signed(sample(TxnType::legacy));
    // nonce 7 written as 0x0007
    EXPECT_EQ(decode_error(mutate(legacy, [](auto& f) { f[0] = RlpValue(Bytes{0x00, 0x07}); })),
              TxnError::malformed_rlp);
    // value zero written as the byte 0x00 instead of the empty string
    EXPECT_EQ(decode_error(mutate(legacy, [](auto& f) { f[4] = RlpValue(Bytes{0x00}); })),
              TxnError::malformed_rlp);
    // r with a leading zero
    EXPECT_EQ(decode_error(mutate(legacy,
                                  [](auto& f) {
                                      Bytes r = f[7].bytes();
                                      r.insert(r.begin(), 0x00);
                                      f[7] = RlpValue(r);
                                  })),
              TxnError::malformed_rlp);
    // gas limit wider than 64 bits
    EXPECT_EQ(decode_error(mutate(legacy, [](auto& f) { f[2] = RlpValue(Bytes(9, 0x01)); })),
              TxnError::malformed_rlp);
    // a scalar field given as a list
    const Bytes typed = encode_signed(sample(TxnType::dynamic_fee));
    EXPECT_EQ(
        decode_error(mutate(typed, [](auto& f) { f[1] = RlpValue(std::vector<RlpValue>{}); })),
        TxnError::malformed_rlp);
    // non-canonical RLP inside the envelope: short string in long form
    EXPECT_EQ(decode_error(Bytes{0xf8, 0x03, 0x80, 0x80, 0x80}), TxnError::malformed_rlp);
}

TEST(core_txn, decode_rejects_bad_addresses_and_hashes) {
    const Bytes typed = encode_signed(sample(TxnType::dynamic_fee));
    EXPECT_EQ(decode_error(mutate(typed, [](auto& f) { f[5] = RlpValue(Bytes(19, 0x11)); })),
              TxnError::malformed_rlp);
    EXPECT_EQ(decode_error(
                  mutate(typed,
                         [](auto& f) {
                             f[8] = RlpValue(std::vector<RlpValue>{RlpValue(std::vector<RlpValue>{
                                 RlpValue(Bytes(20, 0x11)),
                                 RlpValue(std::vector<RlpValue>{RlpValue(Bytes(31, 0x22))})})});
                         })),
              TxnError::malformed_rlp);
    EXPECT_EQ(
        decode_error(mutate(
            typed,
            [](auto& f) { f[8] = RlpValue(std::vector<RlpValue>{RlpValue(Bytes(20, 0x11))}); })),
        TxnError::malformed_rlp);
    const Bytes blob = encode_signed(sample(TxnType::blob));
    EXPECT_EQ(
        decode_error(mutate(
            blob,
            [](auto& f) { f[10] = RlpValue(std::vector<RlpValue>{RlpValue(Bytes(33, 0x01))}); })),
        TxnError::malformed_rlp);
}

TEST(core_txn, decode_rejects_invalid_legacy_v) {
    const Bytes legacy = encode_signed(sample(TxnType::legacy));
    for (uint8_t v : std::initializer_list<uint8_t>{0, 1, 26, 29, 34}) {
        EXPECT_EQ(decode_error(mutate(
                      legacy, [&](auto& f) { f[6] = RlpValue(v == 0 ? Bytes{} : Bytes{v}); })),
                  TxnError::invalid_v)
            << int(v);
    }
    // chain id above 2^64: v = 35 + 2 * 2^64
    Bytes huge = {0x02, 0, 0, 0, 0, 0, 0, 0, 0x23};
    EXPECT_EQ(decode_error(mutate(legacy, [&](auto& f) { f[6] = RlpValue(huge); })),
              TxnError::invalid_chain_id);
}

TEST(core_txn, decode_rejects_invalid_y_parity) {
    const Bytes typed = encode_signed(sample(TxnType::access_list));
    EXPECT_EQ(decode_error(mutate(typed, [](auto& f) { f[8] = RlpValue(Bytes{0x02}); })),
              TxnError::invalid_y_parity);
    EXPECT_EQ(decode_error(mutate(typed, [](auto& f) { f[8] = RlpValue(Bytes{0x1b}); })),
              TxnError::invalid_y_parity);
}

TEST(core_txn, blob_transactions_need_a_recipient) {
    const Bytes blob = encode_signed(sample(TxnType::blob));
    EXPECT_EQ(decode_error(mutate(blob, [](auto& f) { f[5] = RlpValue(Bytes{}); })),
              TxnError::missing_to);
    Txn t = sample(TxnType::blob).txn;
    t.to.reset();
    EXPECT_EQ(sign_txn(t, *SecretKey::from_hex(kTestKey)).error().code, TxnError::missing_to);
}

TEST(core_txn, typed_signing_needs_a_chain_id) {
    Txn t = sample(TxnType::dynamic_fee).txn;
    t.chain_id.reset();
    EXPECT_EQ(sign_txn(t, *SecretKey::from_hex(kTestKey)).error().code, TxnError::invalid_chain_id);
}

TEST(core_txn, recover_sender_reports_bad_signatures) {
    SignedTxn s = sample(TxnType::dynamic_fee);
    SignedTxn zero_r = s;
    zero_r.r = Uint256{};
    EXPECT_EQ(recover_sender(zero_r).error().code, TxnError::invalid_signature);
    SignedTxn huge_s = s;
    huge_s.s = Uint256::max();
    EXPECT_EQ(recover_sender(huge_s, SCheck::allow_high_s).error().code,
              TxnError::invalid_signature);
    EXPECT_EQ(recover_sender(huge_s).error().code, TxnError::high_s);
    // A changed field changes the signing hash: recovery yields some other address.
    SignedTxn tampered = s;
    tampered.txn.value = tampered.txn.value + Uint256{1};
    auto other = recover_sender(tampered);
    if (other) {
        EXPECT_NE(*other, address_of(*SecretKey::from_hex(kTestKey)));
    }
}

TEST(core_txn, contract_creation_encodes_empty_to) {
    Txn t = sample(TxnType::legacy).txn;
    t.to.reset();
    const SignedTxn s = *sign_txn(t, *SecretKey::from_hex(kTestKey));
    const Bytes raw = encode_signed(s);
    auto d = decode_signed(raw);
    ASSERT_TRUE(d);
    EXPECT_FALSE(d->txn.to.has_value());
    auto fields = rlp_decode(raw);
    ASSERT_TRUE(fields);
    EXPECT_TRUE(fields->items[3].payload.empty());
}
