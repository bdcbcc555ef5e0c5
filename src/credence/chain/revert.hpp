// Revert data decoding: turns the bytes a reverted call returns into one readable line.
//
//   Error(string)  selector 0x08c379a0  ->  reason: "not the owner"
//   Panic(uint256) selector 0x4e487b71  ->  panic 0x11: arithmetic overflow or underflow
//   a custom error found by selector in the given ABIs (Solidity >= 0.8.4)
//                                       ->  NotToolCreator(toolId=3, caller=0xAb…)
//   no data                             ->  execution reverted (no data)
//   anything else                       ->  unknown error 0x12345678 (36 bytes of data)
// (Solidity docs, "Error handling: Assert, Require, Revert and Exceptions" and "Panic via assert
// and Error via require".) Values print with core::format_value: decimal integers, EIP-55
// checksummed addresses, 0x-hex bytes; strings are quoted. Control characters and other
// non-printable bytes in reasons and strings are escaped (\n, \xNN), so the result is always one
// line that a terminal shows as-is. "N bytes of data" counts all revert bytes, selector included.
//
// Revert data comes from whoever deployed the contract: it is untrusted, and no input crashes,
// throws or allocates more than a small multiple of its size.
//
// describe_credence_revert() is the one describer of the reverts of Credence's own contracts
// (every CLI command, worker and verifier uses it): the custom errors of every contract with
// bindings (bindings/all.hpp), whichever contract raised the revert.
// Thread-safety: pure functions; the Credence ABIs are parsed once, on first use, behind a
// thread-safe static.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <credence/core/abi_json.hpp>
#include <credence/core/bytes.hpp>

namespace credence::chain {

enum class RevertKind : uint8_t {
    empty,         // no revert data (revert(), require(false) without a reason, out of gas, ...)
    error_string,  // Error(string)
    panic,         // Panic(uint256)
    custom,        // a custom error from one of the ABIs
    unknown,       // selector not known, or data that does not decode as its error's params
};

struct DecodedRevert {
    RevertKind kind = RevertKind::empty;
    std::string text;  // the one-line description
};

/// Error(string)'s selector, keccak256("Error(string)")[0..4].
inline constexpr std::array<uint8_t, 4> kErrorStringSelector{0x08, 0xc3, 0x79, 0xa0};
/// Panic(uint256)'s selector, keccak256("Panic(uint256)")[0..4].
inline constexpr std::array<uint8_t, 4> kPanicSelector{0x4e, 0x48, 0x7b, 0x71};

/// Meaning of a Solidity panic code, or "" when the code is not one Solidity defines.
[[nodiscard]] std::string_view panic_meaning(uint64_t code) noexcept;

/// Decodes `data` against the builtin errors and then the custom errors of `abis`, in order.
[[nodiscard]] DecodedRevert decode_revert(core::ByteView data,
                                          std::span<const core::AbiDocument> abis = {});

/// decode_revert(...).text.
[[nodiscard]] std::string describe_revert(core::ByteView data,
                                          std::span<const core::AbiDocument> abis = {});

/// The ABIs of every Credence contract (bindings/all.hpp), parsed once.
[[nodiscard]] std::span<const core::AbiDocument> credence_abis();

/// decode_revert against every Credence contract's custom errors.
[[nodiscard]] DecodedRevert decode_credence_revert(core::ByteView data);

/// decode_credence_revert(...).text, e.g. "ERC721NonexistentToken(tokenId=7)".
[[nodiscard]] std::string describe_credence_revert(core::ByteView data);

}  // namespace credence::chain
