#include <credence/core/txn.hpp>

#include <string>

#include <credence/core/keccak.hpp>
#include <credence/core/rlp.hpp>

namespace credence::core {

std::string_view to_string(TxnError e) noexcept {
    switch (e) {
        case TxnError::malformed_rlp:
            return "malformed transaction RLP";
        case TxnError::unsupported_type:
            return "unsupported transaction type";
        case TxnError::invalid_v:
            return "invalid legacy v value";
        case TxnError::invalid_y_parity:
            return "invalid yParity";
        case TxnError::missing_to:
            return "blob transaction without a recipient";
        case TxnError::invalid_chain_id:
            return "invalid chain id";
        case TxnError::invalid_signature:
            return "invalid transaction signature";
        case TxnError::high_s:
            return "signature s above n/2 (EIP-2)";
        case TxnError::recovery_failed:
            return "sender recovery failed";
        case TxnError::invalid_secret_key:
            return "invalid secret key";
    }
    return "transaction error";
}

namespace {

// EIP-155: v = y_parity + chain_id * 2 + 35; pre-EIP-155: v = 27 + y_parity.
constexpr uint64_t kEip155Offset = 35;
constexpr uint64_t kPreEip155Offset = 27;

// ---------------------------------------------------------------------------------------------
// Encoding helpers

void append_to(Bytes& out, const std::optional<Address>& to) {
    if (to) {
        rlp_append_string(out, to->view());
    } else {
        rlp_append_string(out, {});  // contract creation: the empty string
    }
}

void append_access_list(Bytes& out, const std::vector<AccessListEntry>& list) {
    Bytes entries;
    for (const auto& e : list) {
        Bytes keys;
        for (const auto& k : e.storage_keys) rlp_append_string(keys, ByteView(k));
        Bytes entry;
        rlp_append_string(entry, e.address.view());
        rlp_append_header(entry, true, keys.size());
        entry.insert(entry.end(), keys.begin(), keys.end());
        rlp_append_header(entries, true, entry.size());
        entries.insert(entries.end(), entry.begin(), entry.end());
    }
    rlp_append_header(out, true, entries.size());
    out.insert(out.end(), entries.begin(), entries.end());
}

// The fields every type signs, in the type's order, without signature values.
void append_body(Bytes& out, const Txn& t) {
    switch (t.type) {
        case TxnType::legacy:
            rlp_append_uint(out, t.nonce);
            rlp_append_uint(out, t.gas_price);
            rlp_append_uint(out, t.gas_limit);
            append_to(out, t.to);
            rlp_append_uint(out, t.value);
            rlp_append_string(out, t.data);
            return;
        case TxnType::access_list:  // EIP-2930
            rlp_append_uint(out, t.chain_id.value_or(0));
            rlp_append_uint(out, t.nonce);
            rlp_append_uint(out, t.gas_price);
            rlp_append_uint(out, t.gas_limit);
            append_to(out, t.to);
            rlp_append_uint(out, t.value);
            rlp_append_string(out, t.data);
            append_access_list(out, t.access_list);
            return;
        case TxnType::dynamic_fee:  // EIP-1559
        case TxnType::blob:         // EIP-4844
            rlp_append_uint(out, t.chain_id.value_or(0));
            rlp_append_uint(out, t.nonce);
            rlp_append_uint(out, t.max_priority_fee_per_gas);
            rlp_append_uint(out, t.max_fee_per_gas);
            rlp_append_uint(out, t.gas_limit);
            append_to(out, t.to);
            rlp_append_uint(out, t.value);
            rlp_append_string(out, t.data);
            append_access_list(out, t.access_list);
            if (t.type == TxnType::blob) {
                rlp_append_uint(out, t.max_fee_per_blob_gas);
                Bytes hashes;
                for (const auto& h : t.blob_versioned_hashes)
                    rlp_append_string(hashes, ByteView(h));
                rlp_append_header(out, true, hashes.size());
                out.insert(out.end(), hashes.begin(), hashes.end());
            }
            return;
    }
}

// EIP-2718: typed transactions are type || payload; legacy ones are the bare RLP list.
Bytes envelope(TxnType type, const Bytes& payload) {
    Bytes out;
    out.reserve(payload.size() + 10);
    if (type != TxnType::legacy) out.push_back(static_cast<uint8_t>(type));
    rlp_append_header(out, true, payload.size());
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

// ---------------------------------------------------------------------------------------------
// Decoding helpers

std::unexpected<Error<TxnError>> rlp_fail(const Error<RlpError>& e, std::string_view field) {
    std::string detail(field);
    detail += ": ";
    detail += to_string(e.code);
    if (!e.detail.empty()) detail += " (" + e.detail + ")";
    return fail(TxnError::malformed_rlp, std::move(detail));
}

// Declares `var` from an RLP read, or returns the failure tagged with the field name. `var` is a
// declarator, so it cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define CREDENCE_TRY_RLP(var, expr, field) \
    auto var = (expr);                     \
    if (!var) return rlp_fail(var.error(), field)
// NOLINTEND(bugprone-macro-parentheses)

Result<std::optional<Address>, TxnError> read_to(RlpReader& r) {
    CREDENCE_TRY_RLP(s, r.next_string(), "to");
    if (s->empty()) return std::optional<Address>{};
    if (s->size() != Address::kSize) {
        return fail(TxnError::malformed_rlp, "to: must be empty or 20 bytes");
    }
    Address a;
    std::copy(s->begin(), s->end(), a.bytes.begin());
    return std::optional<Address>(a);
}

Result<Hash32, TxnError> read_hash(RlpReader& r, std::string_view field) {
    CREDENCE_TRY_RLP(s, r.next_fixed(32), field);
    Hash32 h;
    std::copy(s->begin(), s->end(), h.begin());
    return h;
}

Result<std::vector<AccessListEntry>, TxnError> read_access_list(RlpReader& r) {
    CREDENCE_TRY_RLP(list, r.next_list(), "accessList");
    std::vector<AccessListEntry> out;
    while (!list->at_end()) {
        CREDENCE_TRY_RLP(entry, list->next_list(), "accessList entry");
        CREDENCE_TRY_RLP(addr, entry->next_fixed(Address::kSize), "accessList address");
        AccessListEntry e;
        std::copy(addr->begin(), addr->end(), e.address.bytes.begin());
        CREDENCE_TRY_RLP(keys, entry->next_list(), "accessList storageKeys");
        while (!keys->at_end()) {
            auto k = read_hash(*keys, "accessList storage key");
            if (!k) return std::unexpected(k.error());
            e.storage_keys.push_back(*k);
        }
        CREDENCE_TRY_RLP(done, entry->finish(), "accessList entry");
        out.push_back(std::move(e));
    }
    return out;
}

Result<std::vector<Hash32>, TxnError> read_blob_hashes(RlpReader& r) {
    CREDENCE_TRY_RLP(list, r.next_list(), "blobVersionedHashes");
    std::vector<Hash32> out;
    while (!list->at_end()) {
        auto h = read_hash(*list, "blob versioned hash");
        if (!h) return std::unexpected(h.error());
        out.push_back(*h);
    }
    return out;
}

// Reads (r, s) after the v / yParity field.
Result<void, TxnError> read_rs(RlpReader& r, SignedTxn& out) {
    CREDENCE_TRY_RLP(rv, r.next_uint256(), "r");
    CREDENCE_TRY_RLP(sv, r.next_uint256(), "s");
    out.r = *rv;
    out.s = *sv;
    CREDENCE_TRY_RLP(done, r.finish(), "transaction");
    return {};
}

Result<SignedTxn, TxnError> decode_legacy(ByteView raw) {
    CREDENCE_TRY_RLP(r, RlpReader::open_list(raw), "legacy transaction");
    SignedTxn out;
    Txn& t = out.txn;
    t.type = TxnType::legacy;
    CREDENCE_TRY_RLP(nonce, r->next_u64(), "nonce");
    t.nonce = *nonce;
    CREDENCE_TRY_RLP(gas_price, r->next_uint256(), "gasPrice");
    t.gas_price = *gas_price;
    CREDENCE_TRY_RLP(gas, r->next_u64(), "gasLimit");
    t.gas_limit = *gas;
    auto to = read_to(*r);
    if (!to) return std::unexpected(to.error());
    t.to = *to;
    CREDENCE_TRY_RLP(value, r->next_uint256(), "value");
    t.value = *value;
    CREDENCE_TRY_RLP(data, r->next_string(), "data");
    t.data.assign(data->begin(), data->end());
    CREDENCE_TRY_RLP(v, r->next_uint256(), "v");
    if (*v == Uint256(kPreEip155Offset) || *v == Uint256(kPreEip155Offset + 1)) {
        out.y_parity = static_cast<uint8_t>(v->limbs[0] - kPreEip155Offset);
    } else if (*v >= Uint256(kEip155Offset)) {
        // EIP-155: chain_id = (v - 35) / 2, y_parity = (v - 35) % 2.
        const Uint256 rest = *v - Uint256(kEip155Offset);
        const Uint256 chain = rest >> 1;
        if (!chain.fits_u64()) return fail(TxnError::invalid_chain_id, "chain id above 2^64");
        t.chain_id = chain.limbs[0];
        out.y_parity = static_cast<uint8_t>(rest.limbs[0] & 1);
    } else {
        return fail(TxnError::invalid_v, "v is " + v->to_dec());
    }
    auto rs = read_rs(*r, out);
    if (!rs) return std::unexpected(rs.error());
    return out;
}

Result<SignedTxn, TxnError> decode_typed(TxnType type, ByteView rlp) {
    CREDENCE_TRY_RLP(r, RlpReader::open_list(rlp), "typed transaction");
    SignedTxn out;
    Txn& t = out.txn;
    t.type = type;
    CREDENCE_TRY_RLP(chain, r->next_u64(), "chainId");
    t.chain_id = *chain;
    CREDENCE_TRY_RLP(nonce, r->next_u64(), "nonce");
    t.nonce = *nonce;
    if (type == TxnType::access_list) {
        CREDENCE_TRY_RLP(gas_price, r->next_uint256(), "gasPrice");
        t.gas_price = *gas_price;
    } else {
        CREDENCE_TRY_RLP(tip, r->next_uint256(), "maxPriorityFeePerGas");
        t.max_priority_fee_per_gas = *tip;
        CREDENCE_TRY_RLP(cap, r->next_uint256(), "maxFeePerGas");
        t.max_fee_per_gas = *cap;
    }
    CREDENCE_TRY_RLP(gas, r->next_u64(), "gasLimit");
    t.gas_limit = *gas;
    auto to = read_to(*r);
    if (!to) return std::unexpected(to.error());
    t.to = *to;
    CREDENCE_TRY_RLP(value, r->next_uint256(), "value");
    t.value = *value;
    CREDENCE_TRY_RLP(data, r->next_string(), "data");
    t.data.assign(data->begin(), data->end());
    auto al = read_access_list(*r);
    if (!al) return std::unexpected(al.error());
    t.access_list = std::move(*al);
    if (type == TxnType::blob) {
        // EIP-4844: `to` is a plain address; blob transactions cannot create contracts.
        if (!t.to) return fail(TxnError::missing_to, "blob transaction must have a recipient");
        CREDENCE_TRY_RLP(blob_fee, r->next_uint256(), "maxFeePerBlobGas");
        t.max_fee_per_blob_gas = *blob_fee;
        auto hashes = read_blob_hashes(*r);
        if (!hashes) return std::unexpected(hashes.error());
        t.blob_versioned_hashes = std::move(*hashes);
    }
    CREDENCE_TRY_RLP(parity, r->next_u64(), "yParity");
    if (*parity > 1) return fail(TxnError::invalid_y_parity, "yParity must be 0 or 1");
    out.y_parity = static_cast<uint8_t>(*parity);
    auto rs = read_rs(*r, out);
    if (!rs) return std::unexpected(rs.error());
    return out;
}

#undef CREDENCE_TRY_RLP

TxnError map_secp(Secp256k1Error e) {
    switch (e) {
        case Secp256k1Error::invalid_secret_key:
            return TxnError::invalid_secret_key;
        case Secp256k1Error::high_s:
            return TxnError::high_s;
        case Secp256k1Error::recovery_failed:
            return TxnError::recovery_failed;
        case Secp256k1Error::invalid_signature:
        case Secp256k1Error::invalid_recovery_id:
        case Secp256k1Error::invalid_public_key:
        case Secp256k1Error::rng_failure:
            return TxnError::invalid_signature;
    }
    return TxnError::invalid_signature;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public API

Uint256 SignedTxn::v() const {
    if (txn.type != TxnType::legacy) return Uint256(y_parity);
    if (!txn.chain_id) return Uint256(kPreEip155Offset + y_parity);
    return (Uint256(*txn.chain_id) << 1) + Uint256(kEip155Offset + y_parity);
}

Signature SignedTxn::signature() const {
    Signature sig;
    sig.r = r.to_word();
    sig.s = s.to_word();
    sig.recovery_id = y_parity;
    return sig;
}

Bytes encode_unsigned(const Txn& txn) {
    Bytes payload;
    append_body(payload, txn);
    if (txn.type == TxnType::legacy && txn.chain_id) {
        // EIP-155: sign rlp([nonce, gasprice, startgas, to, value, data, chainid, 0, 0]).
        rlp_append_uint(payload, *txn.chain_id);
        rlp_append_uint(payload, uint64_t{0});
        rlp_append_uint(payload, uint64_t{0});
    }
    return envelope(txn.type, payload);
}

Hash32 signing_hash(const Txn& txn) { return keccak256(encode_unsigned(txn)); }

Bytes encode_signed(const SignedTxn& stxn) {
    Bytes payload;
    append_body(payload, stxn.txn);
    rlp_append_uint(payload, stxn.v());
    rlp_append_uint(payload, stxn.r);
    rlp_append_uint(payload, stxn.s);
    return envelope(stxn.txn.type, payload);
}

Hash32 txn_hash(const SignedTxn& stxn) { return keccak256(encode_signed(stxn)); }

Result<SignedTxn, TxnError> decode_signed(ByteView raw) {
    if (raw.empty()) return fail(TxnError::malformed_rlp, "empty input");
    const uint8_t first = raw[0];
    // EIP-2718: a first byte >= 0xc0 starts a legacy RLP list; 0x00..0x7f is a type byte.
    if (first >= 0xc0) return decode_legacy(raw);
    switch (first) {
        case 1:
            return decode_typed(TxnType::access_list, raw.subspan(1));
        case 2:
            return decode_typed(TxnType::dynamic_fee, raw.subspan(1));
        case 3:
            return decode_typed(TxnType::blob, raw.subspan(1));
        default:
            break;
    }
    return fail(TxnError::unsupported_type, "first byte " + std::to_string(first));
}

Result<SignedTxn, TxnError> sign_txn(const Txn& txn, const SecretKey& key) {
    if (txn.type != TxnType::legacy && !txn.chain_id) {
        return fail(TxnError::invalid_chain_id, "typed transactions need a chain id");
    }
    if (txn.type == TxnType::blob && !txn.to) {
        return fail(TxnError::missing_to, "blob transaction must have a recipient");
    }
    auto sig = sign_digest(key, signing_hash(txn));
    if (!sig) return fail(map_secp(sig.error().code), sig.error().detail);
    SignedTxn out;
    out.txn = txn;
    out.y_parity = sig->recovery_id;
    out.r = Uint256::from_word(sig->r.data());
    out.s = Uint256::from_word(sig->s.data());
    return out;
}

Result<Address, TxnError> recover_sender(const SignedTxn& stxn, SCheck check) {
    if (stxn.y_parity > 1) return fail(TxnError::invalid_y_parity, "yParity must be 0 or 1");
    auto addr = recover_address(signing_hash(stxn.txn), stxn.signature(), check);
    if (!addr) return fail(map_secp(addr.error().code), addr.error().detail);
    return *addr;
}

}  // namespace credence::core
