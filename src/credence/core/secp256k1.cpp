#include <credence/core/secp256k1.hpp>

#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include <credence/core/keccak.hpp>

namespace credence::core {

std::string_view to_string(Secp256k1Error e) noexcept {
    switch (e) {
        case Secp256k1Error::invalid_secret_key:
            return "invalid secp256k1 secret key";
        case Secp256k1Error::invalid_signature:
            return "invalid secp256k1 signature";
        case Secp256k1Error::invalid_recovery_id:
            return "invalid recovery id";
        case Secp256k1Error::invalid_public_key:
            return "invalid secp256k1 public key";
        case Secp256k1Error::high_s:
            return "signature s value above n/2 (EIP-2)";
        case Secp256k1Error::recovery_failed:
            return "public key recovery failed";
        case Secp256k1Error::rng_failure:
            return "system random number generator failed";
    }
    return "secp256k1 error";
}

namespace {

// Fills `out` from getrandom(2), retrying on EINTR and short reads.
bool fill_random(uint8_t* out, size_t size) noexcept {
    size_t done = 0;
    while (done < size) {
        const ssize_t n = getrandom(out + done, size - done, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<size_t>(n);
    }
    return true;
}

struct Context {
    secp256k1_context* ctx;

    Context() : ctx(secp256k1_context_create(SECP256K1_CONTEXT_NONE)) {
        if (ctx == nullptr) std::abort();
        // Randomization blinds signing and key generation against timing and power side channels;
        // failure to get a seed leaves the context usable but unblinded, so it is not fatal.
        std::array<uint8_t, 32> seed{};
        if (fill_random(seed.data(), seed.size())) {
            if (secp256k1_context_randomize(ctx, seed.data()) != 1) std::abort();
        }
        secure_wipe(seed.data(), seed.size());
    }
    ~Context() { secp256k1_context_destroy(ctx); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
};

// Created once, thread-safe (C++11 magic statics); only read afterwards.
const secp256k1_context* context() {
    static const Context kContext;
    return kContext.ctx;
}

// n/2 for secp256k1, big-endian (EIP-2 upper bound for s).
constexpr Hash32 kHalfOrder = {0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                               0xff, 0xff, 0xff, 0xff, 0xff, 0x5d, 0x57, 0x6e, 0x73, 0x57, 0xa4,
                               0x50, 0x1d, 0xdf, 0xe9, 0x2f, 0x46, 0x68, 0x1b, 0x20, 0xa0};

PublicKey serialize_public(const secp256k1_pubkey& pk) {
    std::array<uint8_t, 65> buf{};
    size_t len = buf.size();
    secp256k1_ec_pubkey_serialize(context(), buf.data(), &len, &pk, SECP256K1_EC_UNCOMPRESSED);
    PublicKey out;
    std::copy(buf.begin() + 1, buf.end(), out.xy.begin());
    return out;
}

bool is_zero(const Hash32& w) noexcept {
    return std::all_of(w.begin(), w.end(), [](uint8_t b) { return b == 0; });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// SecretKey

Result<SecretKey, Secp256k1Error> SecretKey::from_bytes(ByteView bytes) {
    if (bytes.size() != kSize) return fail(Secp256k1Error::invalid_secret_key, "must be 32 bytes");
    SecretKey k;
    std::copy(bytes.begin(), bytes.end(), k.key_.begin());
    if (secp256k1_ec_seckey_verify(context(), k.key_.data()) != 1) {
        return fail(Secp256k1Error::invalid_secret_key, "zero or not below the group order");
    }
    return k;
}

Result<SecretKey, Secp256k1Error> SecretKey::from_hex(std::string_view hex) {
    auto bytes = credence::core::from_hex(hex);
    if (!bytes) return fail(Secp256k1Error::invalid_secret_key, "not hex");
    auto k = from_bytes(*bytes);
    secure_wipe(bytes->data(), bytes->size());
    return k;
}

Result<SecretKey, Secp256k1Error> SecretKey::generate() {
    SecretKey k;
    // A uniform 32-byte string is a valid scalar with probability 1 - 2^-128; loop anyway.
    for (int attempt = 0; attempt < 64; ++attempt) {
        if (!fill_random(k.key_.data(), k.key_.size())) {
            return fail(Secp256k1Error::rng_failure, "getrandom failed");
        }
        if (secp256k1_ec_seckey_verify(context(), k.key_.data()) == 1) return k;
    }
    return fail(Secp256k1Error::rng_failure, "no valid key from the CSPRNG");
}

SecretKey::SecretKey(SecretKey&& other) noexcept : key_(other.key_) {
    secure_wipe(other.key_.data(), other.key_.size());
}

SecretKey& SecretKey::operator=(SecretKey&& other) noexcept {
    if (this != &other) {
        key_ = other.key_;
        secure_wipe(other.key_.data(), other.key_.size());
    }
    return *this;
}

SecretKey::~SecretKey() { secure_wipe(key_.data(), key_.size()); }

// ---------------------------------------------------------------------------------------------
// PublicKey, Signature

Result<PublicKey, Secp256k1Error> PublicKey::from_bytes(ByteView bytes) {
    std::array<uint8_t, 65> buf{};
    ByteView in = bytes;
    if (bytes.size() == 64) {
        buf[0] = 0x04;
        std::copy(bytes.begin(), bytes.end(), buf.begin() + 1);
        in = ByteView(buf);
    }
    secp256k1_pubkey pk;
    if (secp256k1_ec_pubkey_parse(context(), &pk, in.data(), in.size()) != 1) {
        return fail(Secp256k1Error::invalid_public_key, "not a curve point");
    }
    return serialize_public(pk);
}

std::array<uint8_t, 65> Signature::to_bytes() const noexcept {
    std::array<uint8_t, 65> out{};
    std::copy(r.begin(), r.end(), out.begin());
    std::copy(s.begin(), s.end(), out.begin() + 32);
    out[64] = recovery_id;
    return out;
}

std::array<uint8_t, 65> Signature::to_bytes_v27() const noexcept {
    auto out = to_bytes();
    out[64] = static_cast<uint8_t>(27 + recovery_id);
    return out;
}

Result<Signature, Secp256k1Error> Signature::from_bytes(ByteView bytes) {
    if (bytes.size() != 65) return fail(Secp256k1Error::invalid_signature, "must be 65 bytes");
    Signature sig;
    std::copy(bytes.begin(), bytes.begin() + 32, sig.r.begin());
    std::copy(bytes.begin() + 32, bytes.begin() + 64, sig.s.begin());
    uint8_t v = bytes[64];
    if (v == 27 || v == 28) v = static_cast<uint8_t>(v - 27);
    if (v > 1) return fail(Secp256k1Error::invalid_recovery_id, "v must be 0, 1, 27 or 28");
    sig.recovery_id = v;
    return sig;
}

bool is_low_s(const Hash32& s) noexcept {
    return !is_zero(s) &&
           !std::lexicographical_compare(kHalfOrder.begin(), kHalfOrder.end(), s.begin(), s.end());
}

// ---------------------------------------------------------------------------------------------
// Keys and signatures

PublicKey public_key(const SecretKey& key) {
    secp256k1_pubkey pk;
    // Cannot fail: SecretKey always holds a valid scalar.
    if (secp256k1_ec_pubkey_create(context(), &pk, key.expose_secret().data()) != 1) std::abort();
    return serialize_public(pk);
}

Address address_of(const PublicKey& pub) {
    const Hash32 h = keccak256(ByteView(pub.xy));
    Address a;
    std::copy(h.begin() + 12, h.end(), a.bytes.begin());
    return a;
}

Address address_of(const SecretKey& key) { return address_of(public_key(key)); }

Result<Signature, Secp256k1Error> sign_digest(const SecretKey& key, const Hash32& digest) {
    secp256k1_ecdsa_recoverable_signature rsig;
    // nullptr nonce function = RFC 6979 (libsecp256k1's default); output is always low-s.
    if (secp256k1_ecdsa_sign_recoverable(context(), &rsig, digest.data(),
                                         key.expose_secret().data(), nullptr, nullptr) != 1) {
        return fail(Secp256k1Error::invalid_secret_key, "signing failed");
    }
    std::array<uint8_t, 64> compact{};
    int recid = 0;
    secp256k1_ecdsa_recoverable_signature_serialize_compact(context(), compact.data(), &recid,
                                                            &rsig);
    Signature sig;
    std::copy(compact.begin(), compact.begin() + 32, sig.r.begin());
    std::copy(compact.begin() + 32, compact.end(), sig.s.begin());
    sig.recovery_id = static_cast<uint8_t>(recid);
    // Ethereum's v carries one bit; recovery ids 2/3 (r >= n - p) have probability ~2^-127.
    if (recid > 1 || !is_low_s(sig.s)) {
        return fail(Secp256k1Error::invalid_signature, "unusable signature");
    }
    return sig;
}

Result<PublicKey, Secp256k1Error> recover_public_key(const Hash32& digest, const Signature& sig,
                                                     SCheck check) {
    if (sig.recovery_id > 1) return fail(Secp256k1Error::invalid_recovery_id, "must be 0 or 1");
    if (is_zero(sig.r) || is_zero(sig.s)) {
        return fail(Secp256k1Error::invalid_signature, "r or s is zero");
    }
    if (check == SCheck::require_low_s && !is_low_s(sig.s)) {
        return fail(Secp256k1Error::high_s, "s above n/2");
    }
    std::array<uint8_t, 64> compact{};
    std::copy(sig.r.begin(), sig.r.end(), compact.begin());
    std::copy(sig.s.begin(), sig.s.end(), compact.begin() + 32);
    secp256k1_ecdsa_recoverable_signature rsig;
    if (secp256k1_ecdsa_recoverable_signature_parse_compact(context(), &rsig, compact.data(),
                                                            sig.recovery_id) != 1) {
        return fail(Secp256k1Error::invalid_signature, "r or s not below the group order");
    }
    secp256k1_pubkey pk;
    if (secp256k1_ecdsa_recover(context(), &pk, &rsig, digest.data()) != 1) {
        return fail(Secp256k1Error::recovery_failed, "no public key recovers");
    }
    return serialize_public(pk);
}

Result<Address, Secp256k1Error> recover_address(const Hash32& digest, const Signature& sig,
                                                SCheck check) {
    auto pub = recover_public_key(digest, sig, check);
    if (!pub) return std::unexpected(pub.error());
    return address_of(*pub);
}

bool verify(const PublicKey& pub, const Hash32& digest, const Signature& sig, SCheck check) {
    std::array<uint8_t, 65> buf{};
    buf[0] = 0x04;
    std::copy(pub.xy.begin(), pub.xy.end(), buf.begin() + 1);
    secp256k1_pubkey pk;
    if (secp256k1_ec_pubkey_parse(context(), &pk, buf.data(), buf.size()) != 1) return false;
    std::array<uint8_t, 64> compact{};
    std::copy(sig.r.begin(), sig.r.end(), compact.begin());
    std::copy(sig.s.begin(), sig.s.end(), compact.begin() + 32);
    secp256k1_ecdsa_signature esig;
    if (secp256k1_ecdsa_signature_parse_compact(context(), &esig, compact.data()) != 1) {
        return false;
    }
    // libsecp256k1 verification only accepts low-s; normalize when the caller allows high-s.
    if (check == SCheck::allow_high_s) secp256k1_ecdsa_signature_normalize(context(), &esig, &esig);
    return secp256k1_ecdsa_verify(context(), &esig, digest.data(), &pk) == 1;
}

}  // namespace credence::core
