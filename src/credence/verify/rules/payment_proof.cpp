#include <credence/verify/rules/payment_proof.hpp>

#include <algorithm>
#include <utility>

#include <fmt/core.h>

#include <credence/core/caip.hpp>
#include <credence/core/keccak.hpp>

namespace credence::verify {
namespace {

std::optional<uint64_t> parse_decimal_u64(std::string_view s) {
    if (s.empty() || (s.size() > 1 && s.front() == '0')) return std::nullopt;
    // Decimal digits only; at most 19 so that the value fits 64 bits without overflow checks.
    if (s.size() > 19) return std::nullopt;
    uint64_t out = 0;
    for (const char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        out = out * 10 + static_cast<uint64_t>(c - '0');
    }
    return out;
}

// "1" or CAIP-2 "eip155:1".
std::optional<uint64_t> parse_claim_chain(std::string_view s) {
    if (auto n = parse_decimal_u64(s)) return n;
    auto chain = core::parse_chain_id(s);
    if (!chain) return std::nullopt;
    auto id = core::eip155_chain_id(*chain);
    if (!id || *id == 0) return std::nullopt;
    return *id;
}

// "0x.." (any case: the spec's example is "0x00...", not necessarily checksummed) or CAIP-10.
std::optional<core::Address> parse_claim_address(std::string_view s) {
    if (auto a = core::Address::from_hex(s, core::ChecksumMode::ignore)) return *a;
    auto account = core::parse_account_id(s);
    if (!account) return std::nullopt;
    auto bytes = core::eip155_address(*account);
    if (!bytes) return std::nullopt;
    return core::Address{*bytes};
}

bool is_payee(const PaymentParties& parties, const core::Address& a) {
    return std::ranges::find(parties.payees, a) != parties.payees.end();
}

struct ValueMovement {
    PaymentKind kind;
    std::optional<core::Address> token;
    core::Address from;
    core::Address to;
    core::Uint256 amount;
};

// Every value movement the txn shows: its own ETH value, then each ERC-20 Transfer log.
std::vector<ValueMovement> transfers_of(const PaymentTxn& txn, const chain::Receipt& receipt) {
    std::vector<ValueMovement> out;
    if (txn.to) out.push_back({PaymentKind::eth, std::nullopt, txn.from, *txn.to, txn.value});
    for (const auto& log : receipt.logs) {
        // ERC-20: Transfer(address indexed from, address indexed to, uint256 value). ERC-721's
        // Transfer shares topic0 but indexes the token id as a fourth topic: not a payment.
        if (log.topics.size() != 3 || log.topics[0] != erc20_transfer_topic() ||
            log.data.size() != 32)
            continue;
        ValueMovement t{PaymentKind::erc20, log.address, {}, {}, {}};
        std::copy_n(log.topics[1].begin() + 12, 20, t.from.bytes.begin());
        std::copy_n(log.topics[2].begin() + 12, 20, t.to.bytes.begin());
        t.amount = core::Uint256::from_word(log.data.data());
        out.push_back(t);
    }
    return out;
}

void describe(PaymentVerification& v, const ValueMovement& t) {
    v.kind = t.kind;
    v.token = t.token;
    v.amount = t.amount;
    v.from = t.from;
    v.to = t.to;
}

}  // namespace

std::string_view to_string(PaymentReason r) noexcept {
    switch (r) {
        case PaymentReason::bad_proof:
            return "bad_proof";
        case PaymentReason::chain_unavailable:
            return "chain_unavailable";
        case PaymentReason::rpc_failure:
            return "rpc_failure";
        case PaymentReason::not_found:
            return "not_found";
        case PaymentReason::failed:
            return "failed";
        case PaymentReason::wrong_parties:
            return "wrong_parties";
        case PaymentReason::no_value:
            return "no_value";
        case PaymentReason::claim_mismatch:
            return "claim_mismatch";
    }
    return "unknown";
}

bool is_failure(PaymentReason r) noexcept {
    return r != PaymentReason::chain_unavailable && r != PaymentReason::rpc_failure;
}

std::string_view to_string(PaymentKind k) noexcept {
    return k == PaymentKind::eth ? "eth" : "erc20";
}

const core::Hash32& erc20_transfer_topic() noexcept {
    static const core::Hash32 kTopic = core::keccak256("Transfer(address,address,uint256)");
    return kTopic;
}

PaymentVerification PaymentVerification::unverified(PaymentReason reason, std::string detail) {
    PaymentVerification v;
    v.reason = reason;
    v.detail = std::move(detail);
    return v;
}

nlohmann::json PaymentVerification::to_json() const {
    nlohmann::json j = nlohmann::json::object();
    j["verified"] = verified;
    if (reason) j["reason"] = std::string(to_string(*reason));
    if (!detail.empty()) j["detail"] = detail;
    if (kind) j["kind"] = std::string(to_string(*kind));
    if (token) j["token"] = token->to_checksum_hex();
    if (kind) j["amount"] = amount.to_dec();
    if (from) j["from"] = from->to_checksum_hex();
    if (to) j["to"] = to->to_checksum_hex();
    if (txn_hash) j["txnHash"] = core::to_hex(*txn_hash);
    if (chain_id) j["chainId"] = *chain_id;
    if (block_num) j["blockNum"] = *block_num;
    return j;
}

std::expected<PaymentClaim, PaymentVerification> parse_payment_claim(
    const core::ProofOfPayment& proof) {
    PaymentClaim claim;
    auto chain = parse_claim_chain(proof.chain_id);
    if (!chain)
        return std::unexpected(PaymentVerification::unverified(
            PaymentReason::bad_proof,
            fmt::format("proofOfPayment.chainId '{}' is not a chain id", proof.chain_id)));
    claim.chain_id = *chain;
    auto hash = core::from_hex_fixed<32>(proof.tx_hash);
    if (!hash)
        return std::unexpected(PaymentVerification::unverified(
            PaymentReason::bad_proof,
            fmt::format("proofOfPayment.txHash '{}' is not 0x + 64 hex digits", proof.tx_hash)));
    claim.txn_hash = *hash;
    const std::pair<const std::string*, std::optional<core::Address>*> members[] = {
        {&proof.from_address, &claim.from}, {&proof.to_address, &claim.to}};
    for (const auto& [text, out] : members) {
        if (text->empty()) continue;
        *out = parse_claim_address(*text);
        if (!*out)
            return std::unexpected(PaymentVerification::unverified(
                PaymentReason::bad_proof,
                fmt::format("proofOfPayment address '{}' is not an address", *text)));
    }
    return claim;
}

PaymentVerification evaluate_payment(const PaymentClaim& claim, const PaymentTxn& txn,
                                     const chain::Receipt& receipt, const PaymentParties& parties) {
    PaymentVerification v;
    v.txn_hash = claim.txn_hash;
    v.chain_id = claim.chain_id;
    v.block_num = receipt.block_num;
    v.kind = PaymentKind::eth;
    v.from = txn.from;
    v.to = txn.to;
    v.amount = txn.value;
    // EIP-658: a reverted txn moved nothing, whatever its fields say.
    if (!receipt.status) {
        v.reason = PaymentReason::failed;
        v.detail = "the payment transaction reverted (receipt status 0)";
        return v;
    }
    const auto transfers = transfers_of(txn, receipt);
    const ValueMovement* zero_value = nullptr;
    for (const auto& t : transfers) {
        if (t.from != parties.client || !is_payee(parties, t.to)) continue;
        if (t.amount.is_zero()) {
            if (!zero_value) zero_value = &t;
            continue;
        }
        describe(v, t);
        // The file's own claim must name this transfer (ERC-8004 proofOfPayment fromAddress /
        // toAddress): a proof of some other payment is not this one's.
        if ((claim.from && *claim.from != t.from) || (claim.to && *claim.to != t.to)) {
            v.reason = PaymentReason::claim_mismatch;
            v.detail = fmt::format("proofOfPayment names {} -> {}, the transaction paid {} -> {}",
                                   claim.from ? claim.from->to_checksum_hex() : "?",
                                   claim.to ? claim.to->to_checksum_hex() : "?",
                                   t.from.to_checksum_hex(), t.to.to_checksum_hex());
            return v;
        }
        v.verified = true;
        return v;
    }
    if (zero_value) {
        describe(v, *zero_value);
        v.reason = PaymentReason::no_value;
        v.detail = "the transaction moved no value from the client to the agent";
        return v;
    }
    v.reason = PaymentReason::wrong_parties;
    v.detail = fmt::format(
        "no ETH or ERC-20 transfer from the client {} to the agent's wallet or "
        "owner (txn {} -> {})",
        parties.client.to_checksum_hex(), txn.from.to_checksum_hex(),
        txn.to ? txn.to->to_checksum_hex() : "contract creation");
    return v;
}

}  // namespace credence::verify
