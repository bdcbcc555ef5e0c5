#include <credence/core/keccak.hpp>

#include <algorithm>
#include <bit>
#include <cstring>

namespace credence::core {
namespace {

constexpr uint64_t kRoundConstants[24] = {
    0x0000000000000001, 0x0000000000008082, 0x800000000000808a, 0x8000000080008000,
    0x000000000000808b, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008a, 0x0000000000000088, 0x0000000080008009, 0x000000008000000a,
    0x000000008000808b, 0x800000000000008b, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800a, 0x800000008000000a,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
};

inline uint64_t rol(uint64_t x, unsigned n) noexcept { return (x << n) | (x >> ((64 - n) & 63)); }

// One round of Keccak-f[1600] from lanes `a` into lanes `e` (index x + 5*y). theta, rho, pi, chi
// and iota are fused per output row; the rotation offsets are the rho table of FIPS 202 §3.2.2.
inline void keccak_round(uint64_t* a, uint64_t* e, uint64_t rc) noexcept {
    const uint64_t c0 = a[0] ^ a[5] ^ a[10] ^ a[15] ^ a[20];
    const uint64_t c1 = a[1] ^ a[6] ^ a[11] ^ a[16] ^ a[21];
    const uint64_t c2 = a[2] ^ a[7] ^ a[12] ^ a[17] ^ a[22];
    const uint64_t c3 = a[3] ^ a[8] ^ a[13] ^ a[18] ^ a[23];
    const uint64_t c4 = a[4] ^ a[9] ^ a[14] ^ a[19] ^ a[24];
    const uint64_t d0 = c4 ^ rol(c1, 1);
    const uint64_t d1 = c0 ^ rol(c2, 1);
    const uint64_t d2 = c1 ^ rol(c3, 1);
    const uint64_t d3 = c2 ^ rol(c4, 1);
    const uint64_t d4 = c3 ^ rol(c0, 1);

    uint64_t b0, b1, b2, b3, b4;
    b0 = a[0] ^ d0;
    b1 = rol(a[6] ^ d1, 44);
    b2 = rol(a[12] ^ d2, 43);
    b3 = rol(a[18] ^ d3, 21);
    b4 = rol(a[24] ^ d4, 14);
    e[0] = b0 ^ (~b1 & b2) ^ rc;
    e[1] = b1 ^ (~b2 & b3);
    e[2] = b2 ^ (~b3 & b4);
    e[3] = b3 ^ (~b4 & b0);
    e[4] = b4 ^ (~b0 & b1);

    b0 = rol(a[3] ^ d3, 28);
    b1 = rol(a[9] ^ d4, 20);
    b2 = rol(a[10] ^ d0, 3);
    b3 = rol(a[16] ^ d1, 45);
    b4 = rol(a[22] ^ d2, 61);
    e[5] = b0 ^ (~b1 & b2);
    e[6] = b1 ^ (~b2 & b3);
    e[7] = b2 ^ (~b3 & b4);
    e[8] = b3 ^ (~b4 & b0);
    e[9] = b4 ^ (~b0 & b1);

    b0 = rol(a[1] ^ d1, 1);
    b1 = rol(a[7] ^ d2, 6);
    b2 = rol(a[13] ^ d3, 25);
    b3 = rol(a[19] ^ d4, 8);
    b4 = rol(a[20] ^ d0, 18);
    e[10] = b0 ^ (~b1 & b2);
    e[11] = b1 ^ (~b2 & b3);
    e[12] = b2 ^ (~b3 & b4);
    e[13] = b3 ^ (~b4 & b0);
    e[14] = b4 ^ (~b0 & b1);

    b0 = rol(a[4] ^ d4, 27);
    b1 = rol(a[5] ^ d0, 36);
    b2 = rol(a[11] ^ d1, 10);
    b3 = rol(a[17] ^ d2, 15);
    b4 = rol(a[23] ^ d3, 56);
    e[15] = b0 ^ (~b1 & b2);
    e[16] = b1 ^ (~b2 & b3);
    e[17] = b2 ^ (~b3 & b4);
    e[18] = b3 ^ (~b4 & b0);
    e[19] = b4 ^ (~b0 & b1);

    b0 = rol(a[2] ^ d2, 62);
    b1 = rol(a[8] ^ d3, 55);
    b2 = rol(a[14] ^ d4, 39);
    b3 = rol(a[15] ^ d0, 41);
    b4 = rol(a[21] ^ d1, 2);
    e[20] = b0 ^ (~b1 & b2);
    e[21] = b1 ^ (~b2 & b3);
    e[22] = b2 ^ (~b3 & b4);
    e[23] = b3 ^ (~b4 & b0);
    e[24] = b4 ^ (~b0 & b1);
}

// Cloned for x86-64-v3 (BMI1 andn, BMI2 rorx), picked at load time by an ifunc resolver: chi's
// ~b & c becomes one instruction and rotations stop clobbering their source.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void keccak_f1600(uint64_t* state) noexcept {
    uint64_t tmp[25];
    for (size_t r = 0; r < 24; r += 2) {
        keccak_round(state, tmp, kRoundConstants[r]);
        keccak_round(tmp, state, kRoundConstants[r + 1]);
    }
}

inline uint64_t load_le64(const uint8_t* p) noexcept {
    uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
}

inline void absorb_block(uint64_t* state, const uint8_t* block) noexcept {
    for (size_t i = 0; i < Keccak256::kRate / 8; ++i) state[i] ^= load_le64(block + 8 * i);
    keccak_f1600(state);
}

Hash32 squeeze(const uint64_t* state) noexcept {
    Hash32 out;
    for (size_t i = 0; i < 4; ++i) {
        uint64_t v = state[i];
        if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
        std::memcpy(out.data() + 8 * i, &v, 8);
    }
    return out;
}

}  // namespace

Hash32 keccak256(ByteView data) noexcept {
    uint64_t state[25] = {};
    const uint8_t* p = data.data();
    size_t n = data.size();
    for (; n >= Keccak256::kRate; n -= Keccak256::kRate, p += Keccak256::kRate)
        absorb_block(state, p);
    uint8_t last[Keccak256::kRate] = {};
    if (n > 0) std::memcpy(last, p, n);
    last[n] ^= 0x01;  // Keccak padding pad10*1 with domain bits 01 (pre-FIPS Keccak)
    last[Keccak256::kRate - 1] ^= 0x80;
    absorb_block(state, last);
    return squeeze(state);
}

void Keccak256::update(ByteView data) noexcept {
    if (data.empty()) return;  // an empty span may carry a null pointer, which memcpy must not see
    const uint8_t* p = data.data();
    size_t n = data.size();
    if (buffered_ > 0) {
        const size_t take = std::min(n, kRate - buffered_);
        std::memcpy(buffer_.data() + buffered_, p, take);
        buffered_ += take;
        p += take;
        n -= take;
        if (buffered_ < kRate) return;
        absorb_block(state_.data(), buffer_.data());
        buffered_ = 0;
    }
    for (; n >= kRate; n -= kRate, p += kRate) absorb_block(state_.data(), p);
    if (n > 0) {
        std::memcpy(buffer_.data(), p, n);
        buffered_ = n;
    }
}

Hash32 Keccak256::finalize() noexcept {
    std::memset(buffer_.data() + buffered_, 0, kRate - buffered_);
    buffer_[buffered_] ^= 0x01;
    buffer_[kRate - 1] ^= 0x80;
    absorb_block(state_.data(), buffer_.data());
    buffered_ = 0;
    return squeeze(state_.data());
}

}  // namespace credence::core
