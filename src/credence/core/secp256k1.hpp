// secp256k1 keys and recoverable ECDSA signatures, as Ethereum uses them, on top of
// bitcoin-core's libsecp256k1.
//
// Invariants:
// - One library context, created on first use (thread-safe static) and randomized from
//   getrandom(2) against side channels. It is never mutated afterwards, so every function here is
//   safe to call from any thread.
// - SecretKey always holds a valid scalar (1 <= k < n), cannot be copied or printed, and wipes its
//   bytes when destroyed or moved from. Temporaries holding key material are wiped too.
// - Signatures we produce are RFC 6979 deterministic and low-s (EIP-2); recovery ids are 0/1.
// - Recovery accepts high-s by default (the EVM's ecrecover precompile does); callers that need
//   EIP-2 rules pass SCheck::require_low_s or call is_low_s().
// - Misuse (key bytes that are not a valid scalar, bad lengths) is reported as
//   invalid_secret_key / invalid_signature; a well-formed input that does not work out (no point
//   recovers) is recovery_failed.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>

namespace credence::core {

enum class Secp256k1Error {
    invalid_secret_key,   // misuse: not 32 bytes, zero, or >= the group order
    invalid_signature,    // misuse: r or s zero or >= the group order, or wrong length
    invalid_recovery_id,  // misuse: v is not 0/1 (or 27/28 where accepted)
    invalid_public_key,   // misuse: bytes that are not a point on the curve
    high_s,               // s > n/2 where low-s was required (EIP-2)
    recovery_failed,      // well-formed signature from which no public key recovers
    rng_failure,          // the operating system's CSPRNG failed
};

[[nodiscard]] std::string_view to_string(Secp256k1Error e) noexcept;

/// A secp256k1 secret key. Move-only; wiped on destruction and after being moved from.
/// Never printed: it has no operator<< and no to_hex; use expose_secret() only to hand the bytes
/// to a signer or an encrypted keystore.
class SecretKey {
public:
    static constexpr size_t kSize = 32;

    /// Checks that `bytes` is a valid scalar. Returns invalid_secret_key otherwise.
    [[nodiscard]] static Result<SecretKey, Secp256k1Error> from_bytes(ByteView bytes);
    /// Parses 64 hex digits (optional 0x); the intermediate buffer is wiped.
    [[nodiscard]] static Result<SecretKey, Secp256k1Error> from_hex(std::string_view hex);
    /// A fresh key from getrandom(2).
    [[nodiscard]] static Result<SecretKey, Secp256k1Error> generate();

    SecretKey(const SecretKey&) = delete;
    SecretKey& operator=(const SecretKey&) = delete;
    SecretKey(SecretKey&& other) noexcept;
    SecretKey& operator=(SecretKey&& other) noexcept;
    ~SecretKey();

    /// The raw 32 bytes. Do not log, print or copy them into unwiped memory.
    [[nodiscard]] const std::array<uint8_t, kSize>& expose_secret() const noexcept { return key_; }

private:
    SecretKey() = default;
    std::array<uint8_t, kSize> key_{};
};

/// Uncompressed public key without the 0x04 prefix: x || y, 32 bytes each.
struct PublicKey {
    std::array<uint8_t, 64> xy{};

    /// Parses 64 bytes (x||y), 65 bytes (0x04||x||y) or 33 compressed bytes.
    [[nodiscard]] static Result<PublicKey, Secp256k1Error> from_bytes(ByteView bytes);

    friend bool operator==(const PublicKey&, const PublicKey&) = default;
};

/// A recoverable ECDSA signature: r, s as 32-byte big-endian words and the recovery id (0/1).
struct Signature {
    Hash32 r{};
    Hash32 s{};
    uint8_t recovery_id = 0;

    /// r || s || v with v = recovery id (0/1).
    [[nodiscard]] std::array<uint8_t, 65> to_bytes() const noexcept;
    /// r || s || v with v = 27 + recovery id (the eth_sign / ecrecover convention).
    [[nodiscard]] std::array<uint8_t, 65> to_bytes_v27() const noexcept;
    /// Parses 65 bytes r || s || v; v may be 0/1 or 27/28.
    [[nodiscard]] static Result<Signature, Secp256k1Error> from_bytes(ByteView bytes);

    friend bool operator==(const Signature&, const Signature&) = default;
};

/// Whether recovery and verification insist on s <= n/2.
enum class SCheck {
    allow_high_s,   // the EVM ecrecover precompile's rule
    require_low_s,  // EIP-2 (transactions since Homestead) and every signature we produce
};

/// True when 0 < s <= n/2 (EIP-2).
[[nodiscard]] bool is_low_s(const Hash32& s) noexcept;

/// The public key of `key`.
[[nodiscard]] PublicKey public_key(const SecretKey& key);

/// keccak256(x || y)[12:], the account address of a public key.
[[nodiscard]] Address address_of(const PublicKey& pub);

/// Account address of a secret key.
[[nodiscard]] Address address_of(const SecretKey& key);

/// Signs a 32-byte digest: RFC 6979 nonce, low-s, recovery id 0/1.
[[nodiscard]] Result<Signature, Secp256k1Error> sign_digest(const SecretKey& key,
                                                            const Hash32& digest);

/// Recovers the public key that signed `digest`.
[[nodiscard]] Result<PublicKey, Secp256k1Error> recover_public_key(
    const Hash32& digest, const Signature& sig, SCheck check = SCheck::allow_high_s);

/// Recovers the signer's address.
[[nodiscard]] Result<Address, Secp256k1Error> recover_address(const Hash32& digest,
                                                              const Signature& sig,
                                                              SCheck check = SCheck::allow_high_s);

/// Verifies (r, s) over `digest` against `pub` (recovery id ignored). High-s is rejected unless
/// `check` is allow_high_s, in which case the signature is normalized first.
[[nodiscard]] bool verify(const PublicKey& pub, const Hash32& digest, const Signature& sig,
                          SCheck check = SCheck::require_low_s);

}  // namespace credence::core
