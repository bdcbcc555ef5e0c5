#include <credence/core/manifest_checks.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include <credence/core/jcs.hpp>
#include <credence/core/keccak.hpp>

#include "support/erc_examples.hpp"
#include "support/vectors.hpp"

using namespace credence::core;

namespace {

ManifestBytesError error_of(std::string_view text) {
    const auto r = canonicalize_manifest(as_bytes(text));
    EXPECT_FALSE(r.has_value()) << "accepted: " << text;
    return r ? ManifestBytesError::hash_mismatch : r.error().code;  // sentinel, never expected
}

Hash32 hash_from_hex(const std::string& hex) {
    const auto h = from_hex_fixed<32>(hex);
    EXPECT_TRUE(h.has_value()) << hex;
    return h.value_or(Hash32{});
}

// A valid manifest with every hex field of ERC-8257 §Canonical Manifest Bytes present.
// `patch` replaces one placeholder to derive a variant.
std::string full_manifest(std::string_view from = {}, std::string_view to = {}) {
    std::string m = R"({
  "type": "https://ercs.ethereum.org/ERCS/erc-8257#tool-manifest-v1",
  "name": "caf\u00e9-oracle",
  "description": "Sample with every hex field.",
  "endpoint": "https://tools.example.com/x",
  "inputs": {}, "outputs": {},
  "creatorAddress": "0xabcdef0123456789abcdef0123456789abcdef01",
  "pricing": [{"amount": "1", "asset": "eip155:8453/erc20:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
               "protocol": "X402", "recipient": "eip155:8453:0xabcdef0123456789abcdef0123456789abcdef01"},
              {"amount": "2", "asset": "eip155:1/slip44:60", "protocol": "x402",
               "recipient": "eip155:1:0xabcdef0123456789abcdef0123456789abcdef01"}],
  "access": {"logic": "OR", "requirements": [{"kind": "0xabcd1234", "data": "0x00ff", "label": "HOLD ANY"}]},
  "verifiability": {"attestation": {"type": "nitro", "enclaveHash": "0xabcdef"},
                    "reproducibleBuild": {"sourceCodeURI": "https://x.example/ABC", "buildHash": "0x1234ab"}}
})";
    if (!from.empty()) {
        const size_t at = m.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) m.replace(at, from.size(), to);
    }
    return m;
}

}  // namespace

// erc8257/manifest-vectors.json: the NFC / NFD / BOM divergence manifests. JCS bytes, their
// length and keccak256 come from the file; NFD and BOM must then be rejected by the pre-JCS rules.
TEST(core_manifest_checks, erc8257_divergence_vectors) {
    const auto v = credence::testing::read_vector_json("erc8257/manifest-vectors.json");
    size_t checked = 0;
    for (const char* name : {"erc_NFC", "erc_NFD", "erc_BOM"}) {
        SCOPED_TRACE(name);
        const auto& c = v.at(name);
        const std::string served = c.at("manifest").dump(1);  // any JSON form; UTF-8 kept raw
        const std::string expected_jcs = c.at("jcs");
        const Hash32 expected_hash = hash_from_hex(c.at("keccak"));

        // Plain JCS canonicalizes all three identically to the reference bytes.
        const auto jcs = canonicalize(served);
        ASSERT_TRUE(jcs.has_value()) << jcs.error().detail;
        EXPECT_EQ(*jcs, expected_jcs);
        EXPECT_EQ(jcs->size(), c.at("length").get<size_t>());
        EXPECT_EQ(keccak256(*jcs), expected_hash);
        EXPECT_EQ(canonicalize(expected_jcs).value_or("<error>"), expected_jcs);

        const auto checked_manifest = verify_manifest_bytes(as_bytes(served), expected_hash);
        if (std::string(name) == "erc_NFD") {
            // ERC-8257 §Test Cases, NFC vs NFD: MUST reject rather than re-normalize.
            ASSERT_FALSE(checked_manifest.has_value());
            EXPECT_EQ(checked_manifest.error().code, ManifestBytesError::not_nfc);
            EXPECT_NE(checked_manifest.error().detail.find("/name"), std::string::npos);
            // Silent re-normalization would have produced the NFC vector's different hash.
            EXPECT_NE(expected_hash, hash_from_hex(v.at("erc_NFC").at("keccak")));
        } else {
            ASSERT_TRUE(checked_manifest.has_value()) << checked_manifest.error().detail;
            EXPECT_EQ(checked_manifest->jcs, expected_jcs);
            EXPECT_EQ(checked_manifest->manifest_hash, expected_hash);
        }
        if (std::string(name) == "erc_BOM") {
            // ERC-8257 §Test Cases, BOM vs No-BOM: the BOM-prefixed bytes hash differently and
            // MUST be rejected rather than stripped.
            const std::string with_bom = "\xEF\xBB\xBF" + expected_jcs;
            EXPECT_EQ(with_bom.size(), c.at("with_bom_length").get<size_t>());
            EXPECT_EQ(keccak256(with_bom), hash_from_hex(c.at("with_bom_keccak")));
            const auto r = verify_manifest_bytes(as_bytes(with_bom), expected_hash);
            ASSERT_FALSE(r.has_value());
            EXPECT_EQ(r.error().code, ManifestBytesError::bom);
            EXPECT_FALSE(check_no_bom(as_bytes(with_bom)).has_value());
            EXPECT_TRUE(check_no_bom(as_bytes(expected_jcs)).has_value());
        }
        ++checked;
    }
    EXPECT_EQ(checked, 3u);
}

// The Free-Tool and Paid-Tool canonical bytes and manifestHash pinned in ERC-8257 §Test Cases
// (tests/data/erc-examples: the .jcs files and erc-constants.json).
TEST(core_manifest_checks, erc8257_spec_reference_manifests) {
    const auto constants =
        nlohmann::json::parse(credence::testing::read_erc_example("erc-constants.json"));
    size_t checked = 0;
    for (const auto& [file, hash] : constants.at("manifestHash").items()) {
        SCOPED_TRACE(file);
        const std::string jcs_bytes = credence::testing::read_erc_example(file);
        ASSERT_FALSE(jcs_bytes.empty());
        const Hash32 expected = hash_from_hex(hash.get<std::string>());
        const auto m = verify_manifest_bytes(as_bytes(jcs_bytes), expected);
        ASSERT_TRUE(m.has_value()) << m.error().detail;
        EXPECT_EQ(m->jcs, jcs_bytes);  // canonical bytes are a JCS fixed point
        ++checked;
    }
    EXPECT_EQ(checked, 2u);
}

TEST(core_manifest_checks, accepts_lowercase_manifest_and_hashes_jcs) {
    const std::string text = full_manifest();
    const auto m = canonicalize_manifest(as_bytes(text));
    ASSERT_TRUE(m.has_value()) << m.error().detail;
    EXPECT_EQ(m->jcs, canonicalize(text).value_or(""));
    EXPECT_EQ(m->manifest_hash, keccak256(m->jcs));
    EXPECT_EQ(m->document.as_object()[0].key, "type");  // served order kept in the DOM
}

// ERC-8257 §Canonical Manifest Bytes, hex-field casing: each listed field, rejected not fixed.
TEST(core_manifest_checks, rejects_uppercase_hex_in_each_listed_field) {
    const std::pair<std::string_view, std::string_view> cases[] = {
        {"0xabcdef0123456789abcdef0123456789abcdef01\",\n  \"pricing",
         "0xABCDEF0123456789abcdef0123456789abcdef01\",\n  \"pricing"},  // creatorAddress
        {"\"0xabcdef0123456789abcdef0123456789abcdef01\",\n  \"pricing",
         "\"0Xabcdef0123456789abcdef0123456789abcdef01\",\n  \"pricing"},  // 0X prefix
        {"erc20:0x833589fcd6", "erc20:0x833589FCD6"},                      // asset
        {"eip155:8453:0xabcdef", "eip155:8453:0xABCDEF"},                  // recipient
        {"eip155:1:0xabcdef", "eip155:1:0xAbcdef"},                        // second entry
        {"0xabcd1234", "0xABCD1234"},                                      // kind
        {"\"0x00ff\"", "\"0x00FF\""},                                      // data
        {"\"0xabcdef\"}", "\"0xABCDEF\"}"},                                // enclaveHash
        {"0x1234ab", "0x1234AB"},                                          // buildHash
    };
    for (const auto& [from, to] : cases) {
        const std::string text = full_manifest(from, to);
        EXPECT_EQ(error_of(text), ManifestBytesError::uppercase_hex) << to;
        const auto doc = parse_json(text);
        ASSERT_TRUE(doc.has_value());
        EXPECT_FALSE(check_lowercase_hex(*doc).has_value()) << to;
    }
    // Uppercase outside the hex fields is not hex: protocol "X402", label, URL path, slip44.
    EXPECT_TRUE(check_lowercase_hex(*parse_json(full_manifest())).has_value());
    const auto detail = canonicalize_manifest(as_bytes(full_manifest("0x1234ab", "0x1234AB")));
    EXPECT_EQ(detail.error().detail,
              "uppercase hex digit in /verifiability/reproducibleBuild/buildHash");
}

// ERC-8257 §Canonical Manifest Bytes, Unicode normalization: values and member names.
TEST(core_manifest_checks, rejects_non_nfc_strings) {
    EXPECT_EQ(error_of(full_manifest("caf\\u00e9", "cafe\\u0301")), ManifestBytesError::not_nfc);
    EXPECT_EQ(error_of(full_manifest("caf\\u00e9", "cafe\xCC\x81")), ManifestBytesError::not_nfc);
    EXPECT_EQ(error_of(R"({"tags":["ok","\u212b"]})"), ManifestBytesError::not_nfc);
    const auto r = canonicalize_manifest(as_bytes(std::string_view(R"({"a":{"e\u0301":1}})")));
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ManifestBytesError::not_nfc);
    EXPECT_EQ(r.error().detail, "member name not in NFC at /a/e\xCC\x81");
    const auto arr = canonicalize_manifest(as_bytes(std::string_view(R"({"x/y":[1,"A\u030a"]})")));
    ASSERT_FALSE(arr.has_value());
    EXPECT_EQ(arr.error().detail, "string value not in NFC at /x~1y/1");
}

TEST(core_manifest_checks, rejects_bom_before_anything_else) {
    // A BOM in front of an otherwise broken document still reports the BOM: rule order of §7.
    EXPECT_EQ(error_of("\xEF\xBB\xBF{\"name\":\"e\xCC\x81\""), ManifestBytesError::bom);
    EXPECT_EQ(error_of("\xEF\xBB\xBF" + full_manifest()), ManifestBytesError::bom);
}

TEST(core_manifest_checks, rejects_invalid_json_with_reason) {
    const auto dup =
        canonicalize_manifest(as_bytes(std::string_view(R"({"name":"a","name":"a"})")));
    ASSERT_FALSE(dup.has_value());
    EXPECT_EQ(dup.error().code, ManifestBytesError::invalid_json);
    EXPECT_TRUE(dup.error().detail.starts_with("duplicate_key"));
    EXPECT_EQ(error_of("{\"n\":\"\\ud800\"}"), ManifestBytesError::invalid_json);
    EXPECT_EQ(error_of("{\"n\":1e400}"), ManifestBytesError::invalid_json);
    EXPECT_EQ(error_of("{\"n\":\"\xC0\xAF\"}"), ManifestBytesError::invalid_json);
    EXPECT_EQ(error_of(std::string(65, '[') + std::string(65, ']')),
              ManifestBytesError::invalid_json);
}

// ERC-8257 §Manifest Parser Hardening: 1 MiB cap.
TEST(core_manifest_checks, rejects_oversize) {
    std::string big = "{\"description\":\"" + std::string((1u << 20) - 20, 'a') + "\"}";
    EXPECT_LE(big.size(), size_t{1} << 20);
    EXPECT_TRUE(canonicalize_manifest(as_bytes(big)).has_value());
    big.insert(2, 8, 'x');
    EXPECT_GT(big.size(), size_t{1} << 20);
    EXPECT_EQ(error_of(big), ManifestBytesError::too_large);
}

TEST(core_manifest_checks, rejects_hash_mismatch) {
    const std::string text = full_manifest();
    Hash32 wrong{};
    wrong[0] = 1;
    const auto r = verify_manifest_bytes(as_bytes(text), wrong);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ManifestBytesError::hash_mismatch);
    EXPECT_EQ(to_string(ManifestBytesError::hash_mismatch), "hash_mismatch");
}
