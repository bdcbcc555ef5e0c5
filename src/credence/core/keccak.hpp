// Keccak-256, the original Keccak padding (0x01) that Ethereum uses, not FIPS-202 SHA3-256.
//
// Own implementation: hashing sits on every hot path (ABI selectors, log topics, trie-free
// verification of manifests and evidence chains), and bench/keccak_bench.cpp holds it against
// Crypto++ side by side.
#pragma once

#include <array>
#include <cstdint>

#include <credence/core/bytes.hpp>

namespace credence::core {

/// keccak256 of `data` in one shot.
[[nodiscard]] Hash32 keccak256(ByteView data) noexcept;

/// keccak256 of the UTF-8 bytes of `text`.
[[nodiscard]] inline Hash32 keccak256(std::string_view text) noexcept {
    return keccak256(as_bytes(text));
}

/// Incremental keccak256. Not thread-safe; cheap to copy (copying forks the hash state).
class Keccak256 {
public:
    static constexpr size_t kRate = 136;  // (1600 - 2*256) / 8

    /// Absorbs more input. May be called any number of times before finalize().
    void update(ByteView data) noexcept;
    void update(std::string_view text) noexcept { update(as_bytes(text)); }

    /// Pads, squeezes and returns the digest. The object must not be updated afterwards.
    [[nodiscard]] Hash32 finalize() noexcept;

private:
    std::array<uint64_t, 25> state_{};
    std::array<uint8_t, kRate> buffer_{};
    size_t buffered_ = 0;
};

}  // namespace credence::core
