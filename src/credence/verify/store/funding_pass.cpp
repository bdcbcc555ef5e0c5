#include <credence/verify/store/funding_pass.hpp>

#include <credence/index/funding_table.hpp>

namespace credence::verify {

index::DbResult<FundingPassCounts> trace_fundings(index::Database& db, chain::RpcClient& rpc,
                                                  uint64_t chain_id,
                                                  const FundingPassOptions& options) {
    FundingPassCounts counts;
    auto queue = index::untraced_addresses(db, chain_id, options.head, options.max_depth,
                                           options.max_addresses);
    if (!queue) return std::unexpected(queue.error());
    for (const index::TraceTarget& target : *queue) {
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
    return counts;
}

}  // namespace credence::verify
