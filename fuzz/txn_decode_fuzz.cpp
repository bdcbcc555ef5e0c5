// Fuzzes strict raw-transaction decoding: an accepted input must re-encode to exactly itself, and
// hashing and sender recovery must not crash whatever the signature values are.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <credence/core/txn.hpp>

using namespace credence::core;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    auto txn = decode_signed(ByteView(data, size));
    if (!txn) return 0;
    const Bytes again = encode_signed(*txn);
    if (again.size() != size || std::memcmp(again.data(), data, size) != 0) std::abort();
    (void)txn_hash(*txn);
    (void)signing_hash(txn->txn);
    // EIP-2 recovery is the lax one plus a low-s check: when it succeeds, both must agree.
    auto strict = recover_sender(*txn);
    auto lax = recover_sender(*txn, SCheck::allow_high_s);
    if (strict && (!lax || *strict != *lax)) std::abort();
    return 0;
}
