#include <credence/chain/keystore.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include <credence/core/json.hpp>
#include <credence/core/keccak.hpp>

namespace credence::chain {

using core::ByteView;
using core::fail;
using core::JsonValue;

std::string_view to_string(KeystoreError e) noexcept {
    switch (e) {
        case KeystoreError::malformed_json:
            return "malformed keystore";
        case KeystoreError::unsupported_version:
            return "unsupported keystore version";
        case KeystoreError::unsupported_kdf:
            return "unsupported kdf";
        case KeystoreError::unsupported_cipher:
            return "unsupported cipher";
        case KeystoreError::bad_params:
            return "bad keystore parameters";
        case KeystoreError::mac_mismatch:
            return "mac mismatch (wrong password?)";
        case KeystoreError::invalid_key:
            return "invalid secret key in keystore";
        case KeystoreError::address_mismatch:
            return "keystore address mismatch";
        case KeystoreError::crypto_failure:
            return "crypto failure";
        case KeystoreError::io_error:
            return "keystore i/o error";
    }
    return "unknown keystore error";
}

namespace {

constexpr size_t kDkLen = 32;

/// Fixed-size secret buffer wiped on every exit path.
template <size_t N>
struct Wiped {
    std::array<uint8_t, N> bytes{};
    Wiped() = default;
    Wiped(const Wiped&) = delete;
    Wiped& operator=(const Wiped&) = delete;
    ~Wiped() { core::secure_wipe(bytes.data(), bytes.size()); }
};

// --- JSON field access -------------------------------------------------------------------------

KeystoreResult<const JsonValue*> member(const JsonValue& obj, std::string_view key,
                                        std::string_view where) {
    const JsonValue* v = obj.find(key);
    if (v == nullptr)
        return fail(KeystoreError::malformed_json,
                    "missing \"" + std::string(key) + "\" in " + std::string(where));
    return v;
}

KeystoreResult<std::string> string_member(const JsonValue& obj, std::string_view key,
                                          std::string_view where) {
    auto v = member(obj, key, where);
    if (!v) return std::unexpected(v.error());
    if (!(*v)->is_string())
        return fail(KeystoreError::malformed_json, "\"" + std::string(key) + "\" must be a string");
    return (*v)->as_string();
}

/// A non-negative integer written without fraction or exponent (JSON numbers are doubles; the
/// literal keeps large values exact).
KeystoreResult<uint64_t> uint_member(const JsonValue& obj, std::string_view key,
                                     std::string_view where) {
    auto v = member(obj, key, where);
    if (!v) return std::unexpected(v.error());
    if (!(*v)->is_number())
        return fail(KeystoreError::malformed_json, "\"" + std::string(key) + "\" must be a number");
    const std::string& text = (*v)->as_number().text;
    if (text.empty() || text.size() > 19 ||
        text.find_first_not_of("0123456789") != std::string::npos)
        return fail(KeystoreError::bad_params,
                    "\"" + std::string(key) + "\" must be a non-negative integer below 10^19");
    uint64_t out = 0;
    for (char c : text) out = out * 10 + static_cast<uint64_t>(c - '0');
    return out;
}

template <size_t N>
KeystoreResult<std::array<uint8_t, N>> hex_member(const JsonValue& obj, std::string_view key,
                                                  std::string_view where) {
    auto s = string_member(obj, key, where);
    if (!s) return std::unexpected(s.error());
    auto bytes = core::from_hex_fixed<N>(*s);
    if (!bytes)
        return fail(KeystoreError::bad_params,
                    "\"" + std::string(key) + "\" must be " + std::to_string(N) + " bytes of hex");
    return *bytes;
}

/// geth writes "crypto"; files from old Mist/MyEtherWallet versions write "Crypto".
const JsonValue* find_crypto(const JsonValue& root) {
    if (const JsonValue* c = root.find("crypto")) return c;
    return root.find("Crypto");
}

KeystoreResult<void> check_scrypt(const ScryptParams& s) {
    // scrypt (RFC 7914 §2): N a power of two greater than 1, r·p < 2^30; plus our cost bounds.
    if (s.n < 2 || (s.n & (s.n - 1)) != 0)
        return fail(KeystoreError::bad_params, "scrypt n must be a power of two >= 2");
    if (s.n > kMaxScryptN)
        return fail(KeystoreError::bad_params, "scrypt n above the limit of 2^20");
    if (s.r < 1 || s.r > kMaxScryptR)
        return fail(KeystoreError::bad_params, "scrypt r must be in [1, 32]");
    // RFC 7914 §2: N < 2^(128·r/8). OpenSSL and the Rust scrypt crate (cast) enforce it.
    if (16 * s.r < 64 && s.n >= (uint64_t{1} << (16 * s.r)))
        return fail(KeystoreError::bad_params, "scrypt n must be below 2^(16*r) (RFC 7914)");
    if (s.p < 1 || s.p > kMaxScryptP)
        return fail(KeystoreError::bad_params, "scrypt p must be in [1, 16]");
    // Products cannot overflow: n <= 2^20, r <= 2^5, p <= 2^4.
    if (128 * s.n * s.r > kMaxScryptMemory)
        return fail(KeystoreError::bad_params, "scrypt memory 128*n*r above the limit of 256 MiB");
    if (s.n * s.r * s.p > kMaxScryptWork)
        return fail(KeystoreError::bad_params, "scrypt work n*r*p above the limit of 2^22");
    return {};
}

KeystoreResult<void> derive_key(const KeystoreFile& file, std::string_view password,
                                std::array<uint8_t, kDkLen>& out) {
    if (file.kdf == KdfKind::scrypt) {
        if (auto ok = check_scrypt(file.scrypt); !ok) return ok;
        const ScryptParams& s = file.scrypt;
        // OpenSSL needs 128·r·(n + p + 2) bytes; allow that plus slack, never more.
        const uint64_t maxmem = 128 * s.r * (s.n + s.p + 2) + (uint64_t{1} << 20);
        if (EVP_PBE_scrypt(password.data(), password.size(), file.salt.data(), file.salt.size(),
                           s.n, s.r, s.p, maxmem, out.data(), out.size()) != 1)
            return fail(KeystoreError::crypto_failure, "scrypt failed");
        return {};
    }
    if (file.pbkdf2_iterations < 1 || file.pbkdf2_iterations > kMaxPbkdf2Iterations)
        return fail(KeystoreError::bad_params, "pbkdf2 c must be in [1, 2^23]");
    if (PKCS5_PBKDF2_HMAC(password.data(), static_cast<int>(password.size()), file.salt.data(),
                          static_cast<int>(file.salt.size()),
                          static_cast<int>(file.pbkdf2_iterations), EVP_sha256(),
                          static_cast<int>(out.size()), out.data()) != 1)
        return fail(KeystoreError::crypto_failure, "pbkdf2 failed");
    return {};
}

core::Hash32 compute_mac(const std::array<uint8_t, kDkLen>& dk, ByteView ciphertext) {
    // Web3 Secret Storage v3: mac = keccak256(DK[16..32] || ciphertext).
    core::Keccak256 h;
    h.update(ByteView(dk.data() + 16, 16));
    h.update(ciphertext);
    return h.finalize();
}

/// AES-128-CTR with key DK[0..16]; encryption and decryption are the same operation.
KeystoreResult<void> aes128_ctr(const std::array<uint8_t, kDkLen>& dk,
                                const std::array<uint8_t, 16>& iv, ByteView in, uint8_t* out) {
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                        &EVP_CIPHER_CTX_free);
    if (!ctx) return fail(KeystoreError::crypto_failure, "cipher context");
    int len = 0;
    int final_len = 0;
    if (EVP_EncryptInit_ex(ctx.get(), EVP_aes_128_ctr(), nullptr, dk.data(), iv.data()) != 1 ||
        EVP_EncryptUpdate(ctx.get(), out, &len, in.data(), static_cast<int>(in.size())) != 1 ||
        EVP_EncryptFinal_ex(ctx.get(), out + len, &final_len) != 1 ||
        static_cast<size_t>(len) + static_cast<size_t>(final_len) != in.size())
        return fail(KeystoreError::crypto_failure, "aes-128-ctr failed");
    return {};
}

KeystoreResult<void> random_bytes(uint8_t* out, size_t n) {
    if (RAND_bytes(out, static_cast<int>(n)) != 1)
        return fail(KeystoreError::crypto_failure, "CSPRNG failed");
    return {};
}

/// RFC 9562 §5.4 UUID version 4 in its 8-4-4-4-12 text form.
KeystoreResult<std::string> make_uuid_v4() {
    std::array<uint8_t, 16> u{};
    if (auto ok = random_bytes(u.data(), u.size()); !ok) return std::unexpected(ok.error());
    u[6] = static_cast<uint8_t>((u[6] & 0x0f) | 0x40);  // version 4
    u[8] = static_cast<uint8_t>((u[8] & 0x3f) | 0x80);  // variant 10
    const std::string hex = core::to_hex(u, false);
    return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
           hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace

KeystoreResult<KeystoreFile> parse_keystore(std::string_view json_text) {
    core::ParseLimits limits;
    limits.max_bytes = 64 * 1024;  // real keystores are under 1 KiB
    limits.max_depth = 8;
    auto root = core::parse_json(json_text, limits);
    if (!root)
        return fail(KeystoreError::malformed_json,
                    "not valid JSON: " + std::string(core::to_string(root.error().code)));
    if (!root->is_object()) return fail(KeystoreError::malformed_json, "not a JSON object");

    KeystoreFile file;
    auto version = uint_member(*root, "version", "keystore");
    if (!version) return std::unexpected(version.error());
    if (*version != 3)
        return fail(KeystoreError::unsupported_version,
                    "version " + std::to_string(*version) + " (only 3 is supported)");
    if (const JsonValue* id = root->find("id"); id != nullptr && id->is_string())
        file.id = id->as_string();
    if (const JsonValue* a = root->find("address"); a != nullptr && a->is_string())
        file.address = a->as_string();

    const JsonValue* crypto = find_crypto(*root);
    if (crypto == nullptr) return fail(KeystoreError::malformed_json, "missing \"crypto\"");
    if (!crypto->is_object())
        return fail(KeystoreError::malformed_json, "\"crypto\" not an object");

    auto cipher = string_member(*crypto, "cipher", "crypto");
    if (!cipher) return std::unexpected(cipher.error());
    if (*cipher != "aes-128-ctr")
        return fail(KeystoreError::unsupported_cipher,
                    "cipher must be aes-128-ctr");  // the file's value is not echoed: untrusted
    auto cipherparams = member(*crypto, "cipherparams", "crypto");
    if (!cipherparams) return std::unexpected(cipherparams.error());
    if (!(*cipherparams)->is_object())
        return fail(KeystoreError::malformed_json, "\"cipherparams\" not an object");
    auto iv = hex_member<16>(**cipherparams, "iv", "cipherparams");
    if (!iv) return std::unexpected(iv.error());
    file.iv = *iv;
    auto ciphertext = hex_member<32>(*crypto, "ciphertext", "crypto");
    if (!ciphertext) return std::unexpected(ciphertext.error());
    file.ciphertext = *ciphertext;
    auto mac = hex_member<32>(*crypto, "mac", "crypto");
    if (!mac) return std::unexpected(mac.error());
    file.mac = *mac;

    auto kdf = string_member(*crypto, "kdf", "crypto");
    if (!kdf) return std::unexpected(kdf.error());
    auto kdfparams = member(*crypto, "kdfparams", "crypto");
    if (!kdfparams) return std::unexpected(kdfparams.error());
    const JsonValue& kp = **kdfparams;
    if (!kp.is_object()) return fail(KeystoreError::malformed_json, "\"kdfparams\" not an object");

    if (*kdf == "scrypt") {
        file.kdf = KdfKind::scrypt;
        auto n = uint_member(kp, "n", "kdfparams");
        if (!n) return std::unexpected(n.error());
        auto r = uint_member(kp, "r", "kdfparams");
        if (!r) return std::unexpected(r.error());
        auto p = uint_member(kp, "p", "kdfparams");
        if (!p) return std::unexpected(p.error());
        file.scrypt = {*n, *r, *p};
        if (auto ok = check_scrypt(file.scrypt); !ok) return std::unexpected(ok.error());
    } else if (*kdf == "pbkdf2") {
        file.kdf = KdfKind::pbkdf2;
        auto prf = string_member(kp, "prf", "kdfparams");
        if (!prf) return std::unexpected(prf.error());
        if (*prf != "hmac-sha256")
            return fail(KeystoreError::unsupported_kdf, "pbkdf2 prf must be hmac-sha256");
        auto c = uint_member(kp, "c", "kdfparams");
        if (!c) return std::unexpected(c.error());
        if (*c < 1 || *c > kMaxPbkdf2Iterations)
            return fail(KeystoreError::bad_params, "pbkdf2 c must be in [1, 2^23]");
        file.pbkdf2_iterations = *c;
    } else {
        return fail(KeystoreError::unsupported_kdf, "kdf must be scrypt or pbkdf2");
    }
    auto dklen = uint_member(kp, "dklen", "kdfparams");
    if (!dklen) return std::unexpected(dklen.error());
    if (*dklen != kDkLen) return fail(KeystoreError::bad_params, "dklen must be 32");
    auto salt_hex = string_member(kp, "salt", "kdfparams");
    if (!salt_hex) return std::unexpected(salt_hex.error());
    auto salt = core::from_hex(*salt_hex);
    if (!salt) return fail(KeystoreError::bad_params, "salt is not hex");
    if (salt->size() > kMaxSaltSize)
        return fail(KeystoreError::bad_params, "salt longer than 1024 bytes");
    file.salt = std::move(*salt);
    return file;
}

KeystoreResult<core::SecretKey> unlock_keystore(const KeystoreFile& file,
                                                std::string_view password) {
    Wiped<kDkLen> dk;
    if (auto ok = derive_key(file, password, dk.bytes); !ok) return std::unexpected(ok.error());
    // Authenticate before decrypting (Web3 Secret Storage v3 §Definition), in constant time so
    // the comparison leaks nothing about the expected MAC.
    const core::Hash32 mac = compute_mac(dk.bytes, file.ciphertext);
    if (CRYPTO_memcmp(mac.data(), file.mac.data(), mac.size()) != 0)
        return fail(KeystoreError::mac_mismatch, "wrong password or corrupted keystore");
    Wiped<32> plain;
    if (auto ok = aes128_ctr(dk.bytes, file.iv, file.ciphertext, plain.bytes.data()); !ok)
        return std::unexpected(ok.error());
    auto key = core::SecretKey::from_bytes(plain.bytes);
    if (!key) return fail(KeystoreError::invalid_key, "decrypted bytes are not a valid secret key");
    if (!file.address.empty()) {
        std::string_view written = file.address;
        if (written.starts_with("0x") || written.starts_with("0X")) written.remove_prefix(2);
        auto expected =
            core::Address::from_hex("0x" + std::string(written), core::ChecksumMode::ignore);
        if (!expected || *expected != core::address_of(*key))
            return fail(KeystoreError::address_mismatch,
                        "the file's \"address\" is not the address of the key it holds");
    }
    return std::move(*key);
}

KeystoreResult<core::SecretKey> decrypt_keystore(std::string_view json_text,
                                                 std::string_view password) {
    auto file = parse_keystore(json_text);
    if (!file) return std::unexpected(file.error());
    return unlock_keystore(*file, password);
}

KeystoreResult<core::SecretKey> read_keystore_file(const std::filesystem::path& path,
                                                   std::string_view password) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return fail(KeystoreError::io_error, "cannot open keystore " + path.string());
    std::string text;
    // Bounded read: anything past 64 KiB is not a keystore.
    constexpr size_t kMaxFile = 64 * 1024;
    text.resize(kMaxFile + 1);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<size_t>(in.gcount()));
    if (in.bad()) return fail(KeystoreError::io_error, "cannot read keystore " + path.string());
    if (text.size() > kMaxFile)
        return fail(KeystoreError::malformed_json, path.string() + " is too large for a keystore");
    auto key = decrypt_keystore(text, password);
    if (!key) {
        auto err = key.error();
        err.detail = "keystore " + path.string() + ": " + err.detail;
        return std::unexpected(std::move(err));
    }
    return key;
}

KeystoreResult<std::string> encrypt_keystore(const core::SecretKey& key, std::string_view password,
                                             const ScryptParams& params) {
    if (auto ok = check_scrypt(params); !ok) return std::unexpected(ok.error());
    KeystoreFile file;
    file.kdf = KdfKind::scrypt;
    file.scrypt = params;
    file.salt.resize(32);
    if (auto ok = random_bytes(file.salt.data(), file.salt.size()); !ok)
        return std::unexpected(ok.error());
    if (auto ok = random_bytes(file.iv.data(), file.iv.size()); !ok)
        return std::unexpected(ok.error());
    auto uuid = make_uuid_v4();
    if (!uuid) return std::unexpected(uuid.error());

    Wiped<kDkLen> dk;
    if (auto ok = derive_key(file, password, dk.bytes); !ok) return std::unexpected(ok.error());
    if (auto ok = aes128_ctr(dk.bytes, file.iv, key.expose_secret(), file.ciphertext.data()); !ok)
        return std::unexpected(ok.error());
    file.mac = compute_mac(dk.bytes, file.ciphertext);

    std::string address = core::address_of(key).to_lower_hex().substr(2);
    // Field order follows geth's output; every value is hex, digits or a UUID (no escaping).
    std::string out;
    out.reserve(600);
    out += R"({"address":")" + address + R"(","crypto":{"cipher":"aes-128-ctr",)";
    out += R"("ciphertext":")" + core::to_hex(file.ciphertext, false) + R"(",)";
    out += R"("cipherparams":{"iv":")" + core::to_hex(file.iv, false) + R"("},)";
    out += R"("kdf":"scrypt","kdfparams":{"dklen":32,)";
    out += R"("n":)" + std::to_string(params.n) + R"(,"p":)" + std::to_string(params.p) +
           R"(,"r":)" + std::to_string(params.r) + R"(,"salt":")" + core::to_hex(file.salt, false) +
           R"("},)";
    out += R"("mac":")" + core::to_hex(file.mac, false) + R"("},)";
    out += R"("id":")" + *uuid + R"(","version":3})";
    return out;
}

KeystoreResult<std::filesystem::path> write_keystore_file(const std::filesystem::path& dir,
                                                          const core::SecretKey& key,
                                                          std::string_view password,
                                                          const ScryptParams& params) {
    auto json = encrypt_keystore(key, password, params);
    if (!json) return std::unexpected(json.error());
    auto parsed = parse_keystore(*json);
    if (!parsed) return std::unexpected(parsed.error());
    std::filesystem::path path = dir / parsed->id;
    // O_EXCL: never overwrite an existing key file; 0600: the file is a secret (geth, cast).
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(KeystoreError::io_error,
                    "cannot create " + path.string() + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < json->size()) {
        const ssize_t n = ::write(fd, json->data() + done, json->size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int saved = errno;
            ::close(fd);
            std::error_code ignored;
            std::filesystem::remove(path, ignored);
            return fail(KeystoreError::io_error,
                        "cannot write " + path.string() + ": " + std::strerror(saved));
        }
        done += static_cast<size_t>(n);
    }
    if (::close(fd) != 0) return fail(KeystoreError::io_error, "cannot close " + path.string());
    return path;
}

}  // namespace credence::chain
