// Checking a feedback file's `proofOfPayment` against the chain it names (docs/architecture.md
// §verify/): the transaction and its receipt read over RPC, then judged by the rules of
// rules/payment_proof.hpp (ERC-8004 §Off-Chain Feedback File Structure).
//
// Nothing throws: a chain we have no RPC for, or a node that fails, is a PaymentVerification
// whose reason says the payment was not checked (is_failure() is false for those).
// Thread-safety: verify_payment uses the given RpcClient, which is not thread-safe
// (rpc_client.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include <credence/chain/rpc_client.hpp>
#include <credence/core/bytes.hpp>
#include <credence/core/feedback_file.hpp>
#include <credence/verify/rules/payment_proof.hpp>

namespace credence::verify {

/// The RPC client for a chain, or nullptr when we have none (payment_chain_unavailable).
using RpcForChain = std::function<chain::RpcClient*(uint64_t chain_id)>;

/// Parses the proof, reads the txn and its receipt from the chain it names, and evaluates.
[[nodiscard]] PaymentVerification verify_payment(const core::ProofOfPayment& proof,
                                                 const PaymentParties& parties,
                                                 const RpcForChain& rpc_for_chain);

/// eth_getTransactionByHash, the fields above; nullopt when the node does not know the txn.
[[nodiscard]] chain::RpcResult<std::optional<PaymentTxn>> read_payment_txn(
    chain::RpcClient& rpc, const core::Hash32& txn_hash);

}  // namespace credence::verify
