#include <credence/verify/store/funding_pass.hpp>

#include <algorithm>
#include <vector>

#include <credence/index/funding_table.hpp>

namespace credence::verify {
namespace {

// Traces each target and saves its record ('error' when the trace failed).
index::DbResult<void> trace_queue(index::Database& db, chain::RpcClient& rpc, uint64_t chain_id,
                                  const FundingPassOptions& options,
                                  const std::vector<index::TraceTarget>& queue,
                                  FundingPassCounts& counts) {
    for (const index::TraceTarget& target : queue) {
        index::FundingRecord record;
        record.address = target.address;
        record.depth = target.depth;
        record.checked_at = options.now;
        record.checked_head = options.head;
        auto funding = trace_first_funding(rpc, target.address, options.head, options.limits);
        if (funding) {
            record.source = std::string(to_string(funding->source));
            record.funder = funding->funder;
            record.block_num = funding->block_num;
            record.txn_hash = funding->txn_hash;
            record.amount = funding->amount.to_dec();
            if (funding->funder) ++counts.transfers;
        } else {
            record.source = "error";
            ++counts.failed;
        }
        if (auto saved = index::save_funding(db, chain_id, record); !saved) {
            return std::unexpected(saved.error());
        }
        ++counts.traced;
    }
    return {};
}

}  // namespace

index::DbResult<FundingPassCounts> trace_fundings(index::Database& db, chain::RpcClient& rpc,
                                                  uint64_t chain_id,
                                                  const FundingPassOptions& options) {
    FundingPassCounts counts;
    // A traced address names its funder, which the queue then holds one level up: one round per
    // level, so one pass reaches the funders of the reviewers it traced.
    for (uint32_t round = 0; round < std::max(options.max_depth, 1U); ++round) {
        if (counts.traced >= options.max_addresses) break;
        auto queue = index::untraced_addresses(db, chain_id, options.head, options.max_depth,
                                               options.max_addresses - counts.traced);
        if (!queue) return std::unexpected(queue.error());
        if (queue->empty()) break;
        if (auto r = trace_queue(db, rpc, chain_id, options, *queue, counts); !r) {
            return std::unexpected(r.error());
        }
    }
    return counts;
}

}  // namespace credence::verify
