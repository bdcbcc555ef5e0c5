#include <credence/verify/verifiers/payment_verifier.hpp>

#include <string>
#include <utility>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <credence/chain/rpc_codec.hpp>
#include <credence/core/json_lenient.hpp>

namespace credence::verify {
chain::RpcResult<std::optional<PaymentTxn>> read_payment_txn(chain::RpcClient& rpc,
                                                             const core::Hash32& txn_hash) {
    auto j =
        rpc.request("eth_getTransactionByHash", nlohmann::json::array({core::to_hex(txn_hash)}));
    if (!j) return std::unexpected(j.error());
    if (j->is_null()) return std::optional<PaymentTxn>{};
    if (!j->is_object())
        return chain::rpc_fail(chain::RpcErrorKind::bad_response,
                               "eth_getTransactionByHash: not an object");
    PaymentTxn txn;
    txn.txn_hash = txn_hash;
    const auto field = [&](const char* name) -> const nlohmann::json& {
        return core::lenient::member(*j, name);
    };
    auto from = chain::read_address(field("from"));
    if (!from) return std::unexpected(from.error());
    txn.from = *from;
    if (const auto& to = field("to"); !to.is_null()) {
        auto a = chain::read_address(to);
        if (!a) return std::unexpected(a.error());
        txn.to = *a;
    }
    auto value = chain::read_quantity(field("value"));
    if (!value) return std::unexpected(value.error());
    txn.value = *value;
    return std::optional<PaymentTxn>{txn};
}

PaymentVerification verify_payment(const core::ProofOfPayment& proof, const PaymentParties& parties,
                                   const RpcForChain& rpc_for_chain) {
    auto claim = parse_payment_claim(proof);
    if (!claim) return std::move(claim.error());
    const auto with_ids = [&](PaymentVerification v) {
        v.txn_hash = claim->txn_hash;
        v.chain_id = claim->chain_id;
        return v;
    };
    chain::RpcClient* rpc = rpc_for_chain ? rpc_for_chain(claim->chain_id) : nullptr;
    if (!rpc)
        return with_ids(PaymentVerification::unverified(
            PaymentReason::chain_unavailable,
            fmt::format("no RPC endpoint for chain {}: payment not checked", claim->chain_id)));
    auto txn = read_payment_txn(*rpc, claim->txn_hash);
    if (!txn)
        return with_ids(PaymentVerification::unverified(
            PaymentReason::rpc_failure, "eth_getTransactionByHash: " + txn.error().to_string()));
    if (!*txn)
        return with_ids(PaymentVerification::unverified(
            PaymentReason::not_found, fmt::format("no transaction {} on chain {}",
                                                  core::to_hex(claim->txn_hash), claim->chain_id)));
    auto receipt = rpc->get_transaction_receipt(claim->txn_hash);
    if (!receipt)
        return with_ids(PaymentVerification::unverified(
            PaymentReason::rpc_failure,
            "eth_getTransactionReceipt: " + receipt.error().to_string()));
    const std::optional<chain::Receipt>& mined = *receipt;
    const std::optional<PaymentTxn>& found = *txn;
    if (!mined || !found)
        return with_ids(PaymentVerification::unverified(
            PaymentReason::not_found, "the payment transaction has no receipt (still pending)"));
    return evaluate_payment(*claim, *found, *mined, parties);
}

}  // namespace credence::verify
