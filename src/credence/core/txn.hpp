// Ethereum transactions: legacy (with and without EIP-155 replay protection), EIP-2930 access
// list (type 1), EIP-1559 dynamic fee (type 2) and EIP-4844 blob (type 3, the canonical form
// without the blob sidecar). One struct with a type tag; fields unused by a type are ignored when
// encoding and left zero/empty when decoding.
//
// Encoding: encode_unsigned() gives the payload whose keccak256 is signed (signing_hash());
// encode_signed() gives the raw transaction (EIP-2718 envelope for typed ones) whose keccak256 is
// the transaction hash. Decoding is strict: canonical RLP only, exact field counts, no trailing
// bytes, so decode_signed(raw) succeeding implies encode_signed(result) == raw.
//
// Ranges: nonce and gas limit are uint64 (as clients store them); chain ids are uint64
// (EIP-2294's bound); amounts, fees, r and s are Uint256.
// Thread-safety: plain value types and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/error.hpp>
#include <credence/core/secp256k1.hpp>
#include <credence/core/uint256.hpp>

namespace credence::core {

enum class TxnError {
    malformed_rlp,       // the RLP is non-canonical, truncated, or of the wrong shape
    unsupported_type,    // an EIP-2718 type byte we do not know, or an invalid first byte
    invalid_v,           // legacy v neither 27/28 nor >= 35 (EIP-155)
    invalid_y_parity,    // typed yParity not 0 or 1
    missing_to,          // blob transactions cannot create contracts (EIP-4844)
    invalid_chain_id,    // chain id too large for v, or missing on a typed transaction
    invalid_signature,   // r/s zero or >= n
    high_s,              // s > n/2 (EIP-2)
    recovery_failed,     // no sender recovers
    invalid_secret_key,  // misuse when signing
};

[[nodiscard]] std::string_view to_string(TxnError e) noexcept;

/// EIP-2718 transaction type.
enum class TxnType : uint8_t {
    legacy = 0,
    access_list = 1,  // EIP-2930
    dynamic_fee = 2,  // EIP-1559
    blob = 3,         // EIP-4844
};

/// EIP-2930 access list entry.
struct AccessListEntry {
    Address address;
    std::vector<Hash32> storage_keys;

    friend bool operator==(const AccessListEntry&, const AccessListEntry&) = default;
};

/// An unsigned transaction.
struct Txn {
    TxnType type = TxnType::legacy;
    /// Legacy: nullopt means pre-EIP-155 (v = 27/28, chain id not signed). Typed: required.
    std::optional<uint64_t> chain_id;
    uint64_t nonce = 0;
    Uint256 gas_price;                 // legacy, access_list
    Uint256 max_priority_fee_per_gas;  // dynamic_fee, blob
    Uint256 max_fee_per_gas;           // dynamic_fee, blob
    uint64_t gas_limit = 0;
    std::optional<Address> to;  // nullopt: contract creation (not for blob)
    Uint256 value;
    Bytes data;
    std::vector<AccessListEntry> access_list;   // typed only
    Uint256 max_fee_per_blob_gas;               // blob
    std::vector<Hash32> blob_versioned_hashes;  // blob

    friend bool operator==(const Txn&, const Txn&) = default;
};

/// A signed transaction: the fields plus (yParity, r, s). For legacy transactions v is derived
/// from y_parity and chain_id (EIP-155: v = y_parity + chain_id * 2 + 35; otherwise 27 + y_parity).
struct SignedTxn {
    Txn txn;
    uint8_t y_parity = 0;
    Uint256 r;
    Uint256 s;

    /// The v value as encoded: 27/28, the EIP-155 value, or y_parity for typed transactions.
    [[nodiscard]] Uint256 v() const;
    /// The (r, s, recovery id) signature.
    [[nodiscard]] Signature signature() const;

    friend bool operator==(const SignedTxn&, const SignedTxn&) = default;
};

/// The payload that is hashed for signing: rlp(fields) for legacy (plus chainId, 0, 0 under
/// EIP-155), type || rlp(fields) for typed transactions.
[[nodiscard]] Bytes encode_unsigned(const Txn& txn);

/// keccak256(encode_unsigned(txn)), the digest the sender signs.
[[nodiscard]] Hash32 signing_hash(const Txn& txn);

/// The raw signed transaction (what eth_sendRawTransaction takes).
[[nodiscard]] Bytes encode_signed(const SignedTxn& stxn);

/// keccak256(encode_signed(stxn)), the transaction hash.
[[nodiscard]] Hash32 txn_hash(const SignedTxn& stxn);

/// Strictly decodes a raw signed transaction.
[[nodiscard]] Result<SignedTxn, TxnError> decode_signed(ByteView raw);

/// Signs `txn` with `key` (RFC 6979, low-s).
[[nodiscard]] Result<SignedTxn, TxnError> sign_txn(const Txn& txn, const SecretKey& key);

/// Recovers the sender. EIP-2 (low-s) is enforced unless `check` says otherwise.
[[nodiscard]] Result<Address, TxnError> recover_sender(const SignedTxn& stxn,
                                                       SCheck check = SCheck::require_low_s);

}  // namespace credence::core
