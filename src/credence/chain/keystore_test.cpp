// Keystore tests: interop with the real cast binary both ways, the Web3 Secret Storage test
// vectors (tests/data/keystore/), MAC-before-decrypt failures, and the KDF cost bounds.
#include <credence/chain/keystore.hpp>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/process.hpp"

#include <support/scratch.hpp>

namespace {

namespace fs = std::filesystem;
using credence::chain::KeystoreError;
using credence::chain::ScryptParams;
using credence::core::SecretKey;

// Anvil's first dev key (public, well known): never a real secret.
constexpr const char* kDevKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
constexpr const char* kDevAddress = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";
// Cheap scrypt for tests (2^12, 4 MiB); the format is the same as the default's.
constexpr ScryptParams kCheap{uint64_t{1} << 12, 8, 1};

fs::path data_dir() { return credence::testing::source_dir() / "tests/data/keystore"; }

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

/// Runs the real cast with `args`; stdout and stderr together in `out`.
struct CastRun {
    int status = -1;
    std::string out;
};
CastRun cast_combined(const std::vector<std::string>& args) {
    auto r = credence::testing::run_command(credence::testing::cast_binary(), args);
    return {r.exit_code, r.out + r.err};
}

using credence::testing::TempDir;

SecretKey dev_key() { return std::move(*SecretKey::from_hex(kDevKey)); }

/// Replaces the hex string value of `field` inside the JSON text.
std::string with_field(const std::string& json, const nlohmann::json::json_pointer& ptr,
                       const nlohmann::json& value) {
    auto j = nlohmann::json::parse(json);
    j[ptr] = value;
    return j.dump();
}

// Web3 Secret Storage §Test vectors; cast 1.7.1 writes n = 2^13 keystores.
TEST(chain_keystore, cast_created_keystore_unlocks_with_matching_address) {
    TempDir dir;
    const auto r = cast_combined(
        {"wallet", "new", dir.path().string(), "--unsafe-password", "correct horse", "--json"});
    ASSERT_EQ(r.status, 0) << r.out;
    const auto out = nlohmann::json::parse(r.out.substr(r.out.find('[')));
    ASSERT_EQ(out.size(), 1u);
    const std::string cast_address = out[0]["address"];
    const std::string file = out[0]["path"];

    auto key = credence::chain::read_keystore_file(file, "correct horse");
    ASSERT_TRUE(key) << key.error().detail;
    EXPECT_EQ(credence::core::address_of(*key).to_checksum_hex(), cast_address);

    auto wrong = credence::chain::read_keystore_file(file, "correct horsf");
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().code, KeystoreError::mac_mismatch);
}

TEST(chain_keystore, our_keystore_decrypts_with_cast) {
    TempDir dir;
    auto path = credence::chain::write_keystore_file(dir.path(), dev_key(), "s3cret pw", kCheap);
    ASSERT_TRUE(path) << path.error().detail;

    // The file is private to its owner, like geth's and cast's.
    struct stat st{};
    ASSERT_EQ(::stat(path->c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777u, 0600u);

    const auto decrypted =
        cast_combined({"wallet", "decrypt-keystore", path->filename().string(), "-k",
                       dir.path().string(), "--unsafe-password", "s3cret pw"});
    ASSERT_EQ(decrypted.status, 0) << decrypted.out;
    EXPECT_NE(decrypted.out.find(std::string("0x") + kDevKey), std::string::npos) << decrypted.out;

    const auto address = cast_combined(
        {"wallet", "address", "--keystore", path->string(), "--password", "s3cret pw"});
    ASSERT_EQ(address.status, 0) << address.out;
    EXPECT_EQ(address.out.substr(0, 42), kDevAddress);

    const auto wrong =
        cast_combined({"wallet", "address", "--keystore", path->string(), "--password", "other"});
    EXPECT_NE(wrong.status, 0);
}

// Web3 Secret Storage v3 §Definition: the fields every v3 file carries.
TEST(chain_keystore, created_file_has_the_v3_fields) {
    auto json = credence::chain::encrypt_keystore(dev_key(), "pw", kCheap);
    ASSERT_TRUE(json) << json.error().detail;
    const auto j = nlohmann::json::parse(*json);
    EXPECT_EQ(j["version"], 3);
    EXPECT_EQ(j["address"], "f39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    const std::string id = j["id"];
    ASSERT_EQ(id.size(), 36u);
    EXPECT_EQ(id[14], '4');                                          // UUID version 4
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos);  // RFC 9562 variant
    const auto& c = j["crypto"];
    EXPECT_EQ(c["cipher"], "aes-128-ctr");
    EXPECT_EQ(c["kdf"], "scrypt");
    EXPECT_EQ(c["kdfparams"]["dklen"], 32);
    EXPECT_EQ(c["kdfparams"]["n"], 4096);
    EXPECT_EQ(c["kdfparams"]["r"], 8);
    EXPECT_EQ(c["kdfparams"]["p"], 1);
    EXPECT_EQ(c["kdfparams"]["salt"].get<std::string>().size(), 64u);
    EXPECT_EQ(c["cipherparams"]["iv"].get<std::string>().size(), 32u);
    EXPECT_EQ(c["ciphertext"].get<std::string>().size(), 64u);
    EXPECT_EQ(c["mac"].get<std::string>().size(), 64u);

    // Fresh salt, IV and UUID each time.
    auto again = credence::chain::encrypt_keystore(dev_key(), "pw", kCheap);
    ASSERT_TRUE(again);
    const auto j2 = nlohmann::json::parse(*again);
    EXPECT_NE(j2["id"], j["id"]);
    EXPECT_NE(j2["crypto"]["kdfparams"]["salt"], c["kdfparams"]["salt"]);
    EXPECT_NE(j2["crypto"]["cipherparams"]["iv"], c["cipherparams"]["iv"]);

    auto key = credence::chain::decrypt_keystore(*json, "pw");
    ASSERT_TRUE(key);
    EXPECT_EQ(credence::core::address_of(*key).to_checksum_hex(), kDevAddress);
}

TEST(chain_keystore, default_params_are_the_standard_scrypt_setting) {
    auto json = credence::chain::encrypt_keystore(dev_key(), "pw");
    ASSERT_TRUE(json) << json.error().detail;
    const auto j = nlohmann::json::parse(*json);
    EXPECT_EQ(j["crypto"]["kdfparams"]["n"], 262144);
    EXPECT_EQ(j["crypto"]["kdfparams"]["r"], 8);
    EXPECT_EQ(j["crypto"]["kdfparams"]["p"], 1);
    auto key = credence::chain::decrypt_keystore(*json, "pw");
    ASSERT_TRUE(key) << key.error().detail;
    EXPECT_EQ(credence::core::address_of(*key).to_checksum_hex(), kDevAddress);
}

TEST(chain_keystore, wrong_password_is_mac_mismatch) {
    auto json = credence::chain::encrypt_keystore(dev_key(), "right", kCheap);
    ASSERT_TRUE(json);
    auto key = credence::chain::decrypt_keystore(*json, "wrong");
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().code, KeystoreError::mac_mismatch);
    EXPECT_EQ(key.error().detail.find("wrong password or"), 0u);
    // The error names neither password.
    EXPECT_EQ(key.error().detail.find("right"), std::string::npos);
}

TEST(chain_keystore, tampered_ciphertext_is_mac_mismatch) {
    auto json = credence::chain::encrypt_keystore(dev_key(), "pw", kCheap);
    ASSERT_TRUE(json);
    auto j = nlohmann::json::parse(*json);
    std::string ct = j["crypto"]["ciphertext"];
    ct[10] = ct[10] == '0' ? '1' : '0';
    const auto tampered = with_field(*json, "/crypto/ciphertext"_json_pointer, ct);
    auto key = credence::chain::decrypt_keystore(tampered, "pw");
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().code, KeystoreError::mac_mismatch);

    // The MAC does not cover "address": a swapped one is caught after decryption.
    auto swapped = credence::chain::decrypt_keystore(
        with_field(*json, "/address"_json_pointer, "70997970c51812dc3a010c7d01b50e0d17dc79c8"),
        "pw");
    ASSERT_FALSE(swapped);
    EXPECT_EQ(swapped.error().code, KeystoreError::address_mismatch);

    // A flipped MAC byte, too.
    std::string mac = j["crypto"]["mac"];
    mac[0] = mac[0] == 'f' ? 'e' : 'f';
    auto key2 =
        credence::chain::decrypt_keystore(with_field(*json, "/crypto/mac"_json_pointer, mac), "pw");
    ASSERT_FALSE(key2);
    EXPECT_EQ(key2.error().code, KeystoreError::mac_mismatch);
}

TEST(chain_keystore, hostile_scrypt_params_rejected_before_any_work) {
    auto json = credence::chain::encrypt_keystore(dev_key(), "pw", kCheap);
    ASSERT_TRUE(json);
    const auto start = std::chrono::steady_clock::now();
    const std::pair<const char*, nlohmann::json> cases[] = {
        {"/crypto/kdfparams/n", uint64_t{1} << 40},  // 128 TiB of memory
        {"/crypto/kdfparams/n", uint64_t{1} << 21},  // above the n bound
        {"/crypto/kdfparams/n", 1000},               // not a power of two
        {"/crypto/kdfparams/n", 0},
        {"/crypto/kdfparams/r", 1000000},
        {"/crypto/kdfparams/p", 1u << 30},  // hours of CPU
        {"/crypto/kdfparams/r", 0},
        {"/crypto/kdfparams/n", -4096},
        {"/crypto/kdfparams/n", 4096.5},
        {"/crypto/kdfparams/n", "4096"},
        {"/crypto/kdfparams/dklen", 64},
    };
    for (const auto& [ptr, value] : cases) {
        const auto hostile = with_field(*json, nlohmann::json::json_pointer(ptr), value);
        auto key = credence::chain::decrypt_keystore(hostile, "pw");
        ASSERT_FALSE(key) << ptr << " = " << value.dump();
        EXPECT_TRUE(key.error().code == KeystoreError::bad_params ||
                    key.error().code == KeystoreError::malformed_json)
            << ptr << " = " << value.dump() << ": " << key.error().detail;
    }
    // n = 2^20 with r = 8 passes the n bound but needs 1 GiB: the memory bound catches it.
    auto j = nlohmann::json::parse(*json);
    j["crypto"]["kdfparams"]["n"] = uint64_t{1} << 20;
    auto big = credence::chain::decrypt_keystore(j.dump(), "pw");
    ASSERT_FALSE(big);
    EXPECT_EQ(big.error().code, KeystoreError::bad_params);
    EXPECT_NE(big.error().detail.find("memory"), std::string::npos);
    // n = 2^18, r = 8, p = 4: 256 MiB but 4 * 2^21 work units.
    j["crypto"]["kdfparams"]["n"] = uint64_t{1} << 18;
    j["crypto"]["kdfparams"]["p"] = 4;
    auto slow = credence::chain::decrypt_keystore(j.dump(), "pw");
    ASSERT_FALSE(slow);
    EXPECT_NE(slow.error().detail.find("work"), std::string::npos);
    // pbkdf2 with 2^40 iterations.
    auto pb = nlohmann::json::parse(read_file(data_dir() / "pbkdf2_vector.json"));
    pb["crypto"]["kdfparams"]["c"] = uint64_t{1} << 40;
    auto pbkey = credence::chain::decrypt_keystore(pb.dump(), "testpassword");
    ASSERT_FALSE(pbkey);
    EXPECT_EQ(pbkey.error().code, KeystoreError::bad_params);

    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_LT(elapsed, std::chrono::seconds(2));  // no KDF ran
    // Creating with out-of-bound params is refused too.
    auto made = credence::chain::encrypt_keystore(dev_key(), "pw", {uint64_t{1} << 40, 8, 1});
    ASSERT_FALSE(made);
    EXPECT_EQ(made.error().code, KeystoreError::bad_params);
}

// Web3 Secret Storage §Test vectors, PBKDF2-SHA-256 (tests/data/keystore/README.md).
TEST(chain_keystore, spec_pbkdf2_vector_unlocks) {
    const std::string json = read_file(data_dir() / "pbkdf2_vector.json");
    ASSERT_FALSE(json.empty()) << data_dir();
    auto file = credence::chain::parse_keystore(json);
    ASSERT_TRUE(file) << file.error().detail;
    EXPECT_EQ(file->kdf, credence::chain::KdfKind::pbkdf2);
    EXPECT_EQ(file->pbkdf2_iterations, 262144u);
    auto key = credence::chain::unlock_keystore(*file, "testpassword");
    ASSERT_TRUE(key) << key.error().detail;
    EXPECT_EQ(credence::core::to_hex(key->expose_secret(), false),
              "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d");
    EXPECT_EQ(credence::core::address_of(*key).to_lower_hex(),
              "0x008aeeda4d805471df9b2a5b0f38a0c3bcba786b");
    auto wrong = credence::chain::unlock_keystore(*file, "testpassword2");
    ASSERT_FALSE(wrong);
    EXPECT_EQ(wrong.error().code, KeystoreError::mac_mismatch);

    // cast reads the same vector to the same address.
    const auto r =
        cast_combined({"wallet", "address", "--keystore",
                       (data_dir() / "pbkdf2_vector.json").string(), "--password", "testpassword"});
    ASSERT_EQ(r.status, 0) << r.out;
    EXPECT_EQ(r.out.substr(0, 42), "0x008AeEda4D805471dF9b2A5B0f38A0C3bCBA786b");
}

// Web3 Secret Storage §Test vectors, scrypt: n = 2^18 with r = 1 breaks RFC 7914 §2
// (N < 2^(16·r)). OpenSSL refuses such parameters and so does cast; we reject the file as
// bad_params up front, like cast, instead of failing inside the KDF.
TEST(chain_keystore, spec_scrypt_vector_is_rejected_like_cast_does) {
    const auto path = data_dir() / "scrypt_vector.json";
    auto key = credence::chain::decrypt_keystore(read_file(path), "testpassword");
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().code, KeystoreError::bad_params);
    EXPECT_NE(key.error().detail.find("RFC 7914"), std::string::npos) << key.error().detail;
    const auto r = cast_combined(
        {"wallet", "address", "--keystore", path.string(), "--password", "testpassword"});
    EXPECT_NE(r.status, 0) << r.out;
}

TEST(chain_keystore, malformed_and_unsupported_files_have_clear_errors) {
    auto json = credence::chain::encrypt_keystore(dev_key(), "pw", kCheap);
    ASSERT_TRUE(json);
    using P = nlohmann::json::json_pointer;
    struct Case {
        std::string text;
        KeystoreError code;
    };
    const Case cases[] = {
        {"", KeystoreError::malformed_json},
        {"{", KeystoreError::malformed_json},
        {"[]", KeystoreError::malformed_json},
        {R"({"version":3})", KeystoreError::malformed_json},
        {with_field(*json, P("/version"), 1), KeystoreError::unsupported_version},
        {with_field(*json, P("/crypto/kdf"), "argon2id"), KeystoreError::unsupported_kdf},
        {with_field(*json, P("/crypto/cipher"), "aes-128-cbc"), KeystoreError::unsupported_cipher},
        {with_field(*json, P("/crypto/cipherparams/iv"), "00"), KeystoreError::bad_params},
        {with_field(*json, P("/crypto/ciphertext"), "zz"), KeystoreError::bad_params},
        {with_field(*json, P("/crypto/mac"), 5), KeystoreError::malformed_json},
        {with_field(*json, P("/crypto/kdfparams/salt"), "abc"), KeystoreError::bad_params},
        {with_field(*json, P("/crypto/kdfparams"), nlohmann::json::array()),
         KeystoreError::malformed_json},
    };
    for (const auto& c : cases) {
        auto key = credence::chain::decrypt_keystore(c.text, "pw");
        ASSERT_FALSE(key) << c.text;
        EXPECT_EQ(key.error().code, c.code) << c.text << " -> " << key.error().detail;
        EXPECT_FALSE(key.error().detail.empty());
    }
    // Old Mist files spell the member "Crypto".
    auto j = nlohmann::json::parse(*json);
    j["Crypto"] = j["crypto"];
    j.erase("crypto");
    auto key = credence::chain::decrypt_keystore(j.dump(), "pw");
    ASSERT_TRUE(key) << key.error().detail;

    auto missing = credence::chain::read_keystore_file("/nonexistent/credence/ks.json", "pw");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, KeystoreError::io_error);
}

}  // namespace
