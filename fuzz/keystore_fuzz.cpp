// libFuzzer target for the keystore parser (chain/keystore.hpp): untrusted keystore JSON.
//
// Checks: parse_keystore never crashes, hangs or allocates beyond its bounds on any input; a file
// it accepts has parameters inside the documented KDF limits; when those parameters are tiny
// (so the fuzzer stays fast) unlocking with a password runs end to end and either fails with
// mac_mismatch / invalid_key / address_mismatch or yields a key that re-encrypts and unlocks to the
// same bytes.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <credence/chain/keystore.hpp>

using namespace credence::chain;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto file = parse_keystore(text);
    if (!file) return 0;
    if (file->kdf == KdfKind::scrypt) {
        const auto& s = file->scrypt;
        if (s.n > kMaxScryptN || s.r > kMaxScryptR || s.p > kMaxScryptP ||
            128 * s.n * s.r > kMaxScryptMemory || s.n * s.r * s.p > kMaxScryptWork)
            std::abort();  // accepted a file outside the documented bounds
        if (s.n * s.r * s.p > 256) return 0;
    } else {
        if (file->pbkdf2_iterations > kMaxPbkdf2Iterations) std::abort();
        if (file->pbkdf2_iterations > 256) return 0;
    }
    if (file->salt.size() > kMaxSaltSize) std::abort();
    auto key = unlock_keystore(*file, "password");
    if (!key) {
        if (key.error().code != KeystoreError::mac_mismatch &&
            key.error().code != KeystoreError::invalid_key &&
            key.error().code != KeystoreError::address_mismatch)
            std::abort();
        return 0;
    }
    auto again = encrypt_keystore(*key, "password", {2, 1, 1});
    if (!again) std::abort();
    auto back = decrypt_keystore(*again, "password");
    if (!back || back->expose_secret() != key->expose_secret()) std::abort();
    return 0;
}
