// Where a reviewer's funds came from (docs/trust.md §Funding): the first transfer that funded an
// address, found with standard JSON-RPC only.
//
// JSON-RPC has no "transactions by address". An externally owned account can only lose its whole
// balance by sending a transaction, so "has a balance or has sent a transaction" (eth_getBalance
// > 0 or eth_getTransactionCount > 0 at a block) is false before its first funding and true at
// every block after. A binary search over that predicate finds the funding block in about
// log2(head) steps, each one JSON-RPC batch of two state reads; that block's transactions
// (eth_getBlockByNumber with bodies) name the funder: the sender of a value transfer to the
// address. Cost on Ethereum mainnet (head ~ 2^25): ~25 batched requests and one block body per
// address, and it needs an archive node for old state; a pruned node answers "missing trie node"
// for old blocks, which is an error here, never a guess.
//
// A funding with no such transfer in its block came through a contract (an internal call, a
// withdrawal, a block reward): its funder is not known (FundingSource::internal). An address with
// a balance at block 0 was funded at genesis (FundingSource::genesis).
//
// Thread-safety: uses the given RpcClient, which is not thread-safe. Nothing throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include <credence/chain/rpc_client.hpp>
#include <credence/core/address.hpp>
#include <credence/core/uint256.hpp>

namespace credence::verify {

enum class FundingSource : uint8_t {
    transfer,  ///< a value transfer from `funder` in `block_num`
    internal,  ///< the balance appeared in `block_num` without a transfer to it (a contract call)
    genesis,   ///< funded in the genesis block
    never,     ///< no balance and no transaction up to the head
};
[[nodiscard]] std::string_view to_string(FundingSource s) noexcept;

struct Funding {
    core::Address address{};
    FundingSource source = FundingSource::never;
    std::optional<core::Address> funder;  ///< FundingSource::transfer only
    uint64_t block_num = 0;
    std::optional<core::Hash32> txn_hash;
    core::Uint256 amount;   ///< the transfer's value (wei)
    unsigned requests = 0;  ///< JSON-RPC requests made (batches count once)
};

struct FundingLimits {
    /// The search stops with an error past this many requests (a node that answers
    /// inconsistently must not keep the verifier busy).
    unsigned max_requests = 80;
};

/// The first funding of `address` at or before `head`.
[[nodiscard]] chain::RpcResult<Funding> trace_first_funding(chain::RpcClient& rpc,
                                                            const core::Address& address,
                                                            uint64_t head,
                                                            const FundingLimits& limits = {});

}  // namespace credence::verify
