// The funding pass (docs/trust.md §Funding): traces the first funding of every reviewer the index
// holds, and of the funders above them up to a bounded depth, into the fundings table
// (index/funding_table.hpp), for the trust engine's funding clusters. Run by the node's verifier
// after each verification pass and by `credence verify pending`.
//
// A trace that fails (a pruned node without old state, a node error) is stored as source 'error'
// with the head it ran to, so one bad address never blocks the queue; it is traced again once
// the chain has moved.
//
// Thread-safety: none (one Database and one RpcClient per thread).
#pragma once

#include <cstddef>
#include <cstdint>

#include <credence/chain/rpc_client.hpp>
#include <credence/index/database.hpp>
#include <credence/verify/verifiers/funding_tracer.hpp>

namespace credence::verify {

struct FundingPassOptions {
    int64_t now = 0;             ///< unix seconds, the records' checked_at
    uint64_t head = 0;           ///< the block every trace searches up to
    uint32_t max_depth = 3;      ///< reviewers are depth 0; funders are traced while depth < this
    size_t max_addresses = 256;  ///< per pass, so a pass stays short
    FundingLimits limits;
};

struct FundingPassCounts {
    size_t traced = 0;     ///< records written
    size_t transfers = 0;  ///< of which a funder was found
    size_t failed = 0;     ///< of which the trace failed ('error')
};

/// One pass: traces the queue (reviewers first, then, round by round, the funders the records
/// name, up to max_depth levels and max_addresses in all) and saves each record.
[[nodiscard]] index::DbResult<FundingPassCounts> trace_fundings(index::Database& db,
                                                                chain::RpcClient& rpc,
                                                                uint64_t chain_id,
                                                                const FundingPassOptions& options);

}  // namespace credence::verify
