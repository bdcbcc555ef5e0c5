// Web3 Secret Storage Definition v3 keystores (the JSON key files of geth, cast and ethers):
// https://ethereum.org/en/developers/docs/data-structures-and-encoding/web3-secret-storage/
//
// Create: scrypt (n = 2^18, r = 8, p = 1 by default, dklen 32) over a random 32-byte salt derives
// DK; the 32-byte secret key is encrypted with AES-128-CTR under DK[0..16] and a random 16-byte IV;
// mac = keccak256(DK[16..32] || ciphertext). The file carries a random UUID v4, version 3 and the
// lowercase address without 0x.
// Unlock: kdf "scrypt" or "pbkdf2" (prf "hmac-sha256"), cipher "aes-128-ctr". The MAC is checked
// in constant time BEFORE anything is decrypted; a mismatch means a wrong password (or a tampered
// file) and is reported as mac_mismatch.
//
// Untrusted files: parse_keystore checks every field and bounds the KDF cost before any work is
// done, so a hostile file cannot make unlock allocate gigabytes or run for hours:
//   scrypt: n a power of two in [2, 2^20] and below 2^(16·r) (RFC 7914 §2), r in [1, 32],
//           p in [1, 16], memory 128·n·r <= 256 MiB and work n·r·p <= 2^22 (twice the default
//           2^18·8·1: about 2 s on a laptop core, 256 MiB at most);
//   pbkdf2: c in [1, 2^23] (32 times geth's 262144);
//   salt at most 1024 bytes, dklen exactly 32, iv 16 bytes, ciphertext 32 bytes, mac 32 bytes.
// The defaults of geth (n = 2^18) and cast (n = 2^13) fit well inside these bounds.
//
// Secrets: derived keys and plaintext are wiped (core::secure_wipe) on every path; the result is a
// core::SecretKey. No error message ever contains the password, the derived key or the plaintext.
// Thread-safety: every function is reentrant; KeystoreFile is a plain value.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/secp256k1.hpp>

namespace credence::chain {

enum class KeystoreError {
    malformed_json,       // not JSON, or a required field is missing or of the wrong type
    unsupported_version,  // "version" is not 3
    unsupported_kdf,      // kdf other than scrypt / pbkdf2, or a pbkdf2 prf other than hmac-sha256
    unsupported_cipher,   // cipher other than aes-128-ctr
    bad_params,           // a KDF/cipher parameter is out of range (see the bounds above)
    mac_mismatch,         // wrong password, or the file was tampered with
    invalid_key,          // the decrypted bytes are not a valid secp256k1 secret key
    address_mismatch,     // the file's "address" is not the decrypted key's (as geth checks)
    crypto_failure,       // OpenSSL or the CSPRNG failed
    io_error,             // the file could not be read or written
};

[[nodiscard]] std::string_view to_string(KeystoreError e) noexcept;

template <typename T>
using KeystoreResult = core::Result<T, KeystoreError>;

/// Hard limits on the KDF parameters of files we unlock (see the header comment).
inline constexpr uint64_t kMaxScryptN = uint64_t{1} << 20;
inline constexpr uint64_t kMaxScryptR = 32;
inline constexpr uint64_t kMaxScryptP = 16;
inline constexpr uint64_t kMaxScryptMemory = uint64_t{256} << 20;  // 128 * n * r bytes
inline constexpr uint64_t kMaxScryptWork = uint64_t{1} << 22;      // n * r * p
inline constexpr uint64_t kMaxPbkdf2Iterations = uint64_t{1} << 23;
inline constexpr size_t kMaxSaltSize = 1024;

enum class KdfKind : uint8_t { scrypt, pbkdf2 };

/// scrypt cost parameters. The default is the Web3 Secret Storage / geth "standard" setting;
/// tests and throwaway dev keys may use a cheaper n (cast itself writes n = 2^13).
struct ScryptParams {
    uint64_t n = uint64_t{1} << 18;
    uint64_t r = 8;
    uint64_t p = 1;
};

/// A parsed, validated keystore file (nothing decrypted yet).
struct KeystoreFile {
    std::string id;       // "id" (a UUID); may be empty when the file omits it
    std::string address;  // "address" as written (lowercase hex, no 0x), may be empty
    KdfKind kdf = KdfKind::scrypt;
    ScryptParams scrypt;             // when kdf == scrypt
    uint64_t pbkdf2_iterations = 0;  // "c", when kdf == pbkdf2
    core::Bytes salt;
    std::array<uint8_t, 16> iv{};
    std::array<uint8_t, 32> ciphertext{};
    core::Hash32 mac{};
};

/// Parses and validates a keystore JSON text. Never runs the KDF; cheap on any input.
[[nodiscard]] KeystoreResult<KeystoreFile> parse_keystore(std::string_view json_text);

/// Derives the key from `password`, checks the MAC (constant time), then decrypts. When the file
/// carries an "address" (geth and we write one; cast does not), it must be the key's address: the
/// MAC does not cover it, so a swapped address would otherwise mislead whoever reads the file.
[[nodiscard]] KeystoreResult<core::SecretKey> unlock_keystore(const KeystoreFile& file,
                                                              std::string_view password);

/// parse_keystore + unlock_keystore.
[[nodiscard]] KeystoreResult<core::SecretKey> decrypt_keystore(std::string_view json_text,
                                                               std::string_view password);

/// Reads a keystore file and unlocks it. The path (never the password) appears in errors.
[[nodiscard]] KeystoreResult<core::SecretKey> read_keystore_file(const std::filesystem::path& path,
                                                                 std::string_view password);

/// Encrypts `key` into a v3 keystore JSON text (scrypt, aes-128-ctr, fresh salt, IV and UUID v4).
/// Returns crypto_failure if the CSPRNG fails, bad_params if `params` is outside the bounds above.
[[nodiscard]] KeystoreResult<std::string> encrypt_keystore(const core::SecretKey& key,
                                                           std::string_view password,
                                                           const ScryptParams& params = {});

/// Encrypts `key` and writes it to `dir`/<uuid> (mode 0600, like geth and cast). Returns the path.
[[nodiscard]] KeystoreResult<std::filesystem::path> write_keystore_file(
    const std::filesystem::path& dir, const core::SecretKey& key, std::string_view password,
    const ScryptParams& params = {});

}  // namespace credence::chain
