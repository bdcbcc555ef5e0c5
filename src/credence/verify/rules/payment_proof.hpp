// The rules a feedback file's `proofOfPayment` must meet, judged over facts already read from the
// chain it names (docs/architecture.md §verify/; the reads are verifiers/payment_verifier.hpp).
//
// ERC-8004 §Off-Chain Feedback File Structure gives proofOfPayment as {fromAddress, toAddress,
// chainId, txHash} ("this can be used for x402 proof of payment") and leaves its checking to the
// reader. A payment is verified when the transaction exists on that chain, succeeded (EIP-658
// status 1), and moved value from the feedback's client to the agent: either
//   - ETH: txn.from == client, txn.to is a payee, txn.value > 0; or
//   - ERC-20: a log with topic0 = keccak256("Transfer(address,address,uint256)"), exactly three
//     topics (ERC-721's Transfer has four and moves no amount), from == client, to a payee, and a
//     32-byte amount > 0 (x402's transferWithAuthorization is sent by a facilitator, so the txn's
//     own sender does not matter here, only the log);
// where the payees are the agent's wallet (IdentityRegistry.getAgentWallet, ERC-8004 §agentWallet)
// and its owner (ownerOf). When the file's fromAddress / toAddress are present they must name the
// transfer that was found: a proof that claims other parties is not a proof of this payment.
// A verified payment is a strong signal for the reputation engine (PaymentVerification::verified).
//
// evaluate_payment() is pure (facts in, verdict out). Nothing throws. Thread-safety: pure
// functions.
#pragma once

#include <cstdint>
#include <expected>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <credence/chain/rpc_types.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/core/uint256.hpp>

namespace credence::verify {

enum class PaymentReason {
    bad_proof,          ///< proofOfPayment's chainId / txHash / addresses do not parse
    chain_unavailable,  ///< no RPC for the payment's chain: not checked (not a failure)
    rpc_failure,        ///< the node failed to answer: not checked (not a failure)
    not_found,          ///< no such transaction (or no receipt: still pending)
    failed,             ///< the transaction reverted (receipt status 0)
    wrong_parties,      ///< no ETH or ERC-20 transfer from the client to the agent's wallet/owner
    no_value,           ///< the right parties, but nothing moved (amount 0)
    claim_mismatch,     ///< fromAddress / toAddress in the file name other parties than the txn
};
[[nodiscard]] std::string_view to_string(PaymentReason r) noexcept;
/// True for the reasons that mean the proof was checked and is false (not merely unchecked).
[[nodiscard]] bool is_failure(PaymentReason r) noexcept;

enum class PaymentKind { eth, erc20 };
[[nodiscard]] std::string_view to_string(PaymentKind k) noexcept;

/// keccak256("Transfer(address,address,uint256)"), the ERC-20 Transfer event topic.
[[nodiscard]] const core::Hash32& erc20_transfer_topic() noexcept;

/// Who must pay whom: the feedback's client, and the agent's wallet and owner.
struct PaymentParties {
    core::Address client;
    std::vector<core::Address> payees;  // agent wallet (when set) and owner
};

/// The parts of an eth_getTransactionByHash answer the check reads.
struct PaymentTxn {
    core::Hash32 txn_hash{};
    core::Address from;
    std::optional<core::Address> to;  // nullopt: contract creation
    core::Uint256 value;
};

struct PaymentVerification {
    bool verified = false;
    std::optional<PaymentReason> reason;  // set when !verified
    std::string detail;                   // one line for humans
    // The transfer found (or, when none matched, the txn's own ETH fields).
    std::optional<PaymentKind> kind;
    std::optional<core::Address> token;  // erc20 only
    core::Uint256 amount;
    std::optional<core::Address> from;
    std::optional<core::Address> to;
    std::optional<core::Hash32> txn_hash;
    std::optional<uint64_t> chain_id;
    std::optional<uint64_t> block_num;
    [[nodiscard]] nlohmann::json to_json() const;
    /// Not verified, for `reason`, with one line for humans.
    [[nodiscard]] static PaymentVerification unverified(PaymentReason reason, std::string detail);
};

/// The parsed proofOfPayment. chainId may be decimal ("1") or CAIP-2 ("eip155:1").
struct PaymentClaim {
    uint64_t chain_id = 0;
    core::Hash32 txn_hash{};
    std::optional<core::Address> from;  // fromAddress, when present
    std::optional<core::Address> to;    // toAddress, when present
};
/// Fails (bad_proof, with a detail) when a member does not parse. Addresses may be plain hex or
/// CAIP-10 "eip155:<chain>:0x..".
[[nodiscard]] std::expected<PaymentClaim, PaymentVerification> parse_payment_claim(
    const core::ProofOfPayment& proof);

/// Pure verdict from the transaction and its receipt (ERC-20 logs included).
[[nodiscard]] PaymentVerification evaluate_payment(const PaymentClaim& claim, const PaymentTxn& txn,
                                                   const chain::Receipt& receipt,
                                                   const PaymentParties& parties);

}  // namespace credence::verify
