// JSON-RPC over a SyntheticChain: the node the indexer benchmark syncs from (docs/benchmarks.md).
// It answers what the indexer asks a real node, the way real nodes answer it:
//   eth_chainId, net_version, eth_blockNumber,
//   eth_getBlockByNumber / eth_getBlockByHash (header fields and txn hashes; never full txns),
//   eth_getLogs (fromBlock/toBlock or blockHash, address string or list, topics with null and
//     OR-lists), refused with -32005 "query returned more than 10000 results" past 10,000 logs,
//     as Infura, Alchemy and others do, so the indexer's adaptive range is exercised,
//   eth_getCode (a placeholder runtime for each registry, "0x" elsewhere),
//   eth_call of getAgentTask(bytes32) / getAgentReply(bytes32) on the workflow (reverting with
//     UnknownTask / UnknownReply, as AgentWorkflow does, for an unknown hash).
// Single requests and batches (JSON arrays) are both accepted. The state served is the whole
// chain: there is no reorg and the head does not move.
//
// Requests are small and parsed with nlohmann; eth_getLogs bodies (tens of MiB) are written by
// hand straight into one preallocated string, so that the server costs far less CPU than the
// indexer it feeds.
//
// Thread-safety: handle() is const and may run on many threads at once. Ownership: borrows the
// chain, which must outlive it.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "synthetic_chain.hpp"

namespace credence::bench {

class SyntheticRpc {
public:
    /// The providers' cap on one eth_getLogs answer.
    static constexpr size_t kMaxLogs = 10'000;

    explicit SyntheticRpc(const SyntheticChain& chain);

    /// The response body for one HTTP request body. Never throws; a malformed request gets a
    /// JSON-RPC error object (-32700 parse error, -32600 invalid request, -32602 bad params).
    [[nodiscard]] std::string handle(std::string_view body) const;

private:
    const SyntheticChain& chain_;
    std::array<std::string, kRegistryCount> address_hex_;  // "0x" + lowercase hex
    std::array<std::string, kRegistryCount> code_hex_;
};

}  // namespace credence::bench
