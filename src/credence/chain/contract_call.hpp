// Contract calls over the JSON-RPC client: the bindings' Caller (bindings/support.hpp) for the
// generated call helpers, so an eth_call site reads like a function call with a typed error:
//
//   chain::ContractCaller caller(rpc);                     // latest block
//   auto wallet = idr::call::get_agent_wallet(caller, registry, agent_id);
//   if (!wallet) return wallet.error().message();
//   // "getAgentWallet reverted: ERC721NonexistentToken(tokenId=7)"
//
// A revert (rpc_error.hpp is_revert) becomes CallErrorKind::reverted with its data, described by
// the one describer of Credence reverts (revert.hpp describe_credence_revert); every other RPC
// failure is rpc_failure with the client's one-line error. call_answer() does the same for one
// answer of a JSON-RPC batch, for the paths that batch their eth_calls and decode each answer
// with <contract>::call::<function>_answer.
//
// Thread-safety: as the RpcClient it wraps (not thread-safe). Ownership: borrows the client,
// which must outlive the caller.
#pragma once

#include <nlohmann/json.hpp>

#include <credence/chain/bindings/support.hpp>
#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>

namespace credence::chain {

using bindings::CallError;
using bindings::CallErrorKind;
using bindings::CallResult;

/// The CallError of a failed eth_call: reverted (data kept, described against every Credence
/// contract) or rpc_failure. Its `function` is empty: the call helper names it.
[[nodiscard]] CallError call_error(const RpcError& error);

/// One eth_call answer of a JSON-RPC batch: the return data, or call_error().
[[nodiscard]] CallResult<core::Bytes> call_answer(const RpcResult<nlohmann::json>& answer);

/// eth_call at one block (`block`, the latest by default) for every call helper given it.
class ContractCaller final : public bindings::Caller {
public:
    explicit ContractCaller(RpcClient& rpc, BlockId block = BlockId::latest())
        : rpc_(rpc), block_(block) {}

    [[nodiscard]] CallResult<core::Bytes> call(const core::Address& to, core::Bytes data) override;

private:
    RpcClient& rpc_;
    BlockId block_;
};

}  // namespace credence::chain
