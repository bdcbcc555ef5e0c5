// The one reader and writer of `fundings` (migration 8, schema.cpp): each reviewer's first funding
// and its funders' (verify/verifiers/funding_tracer.hpp), for the trust engine's funding clusters
// (trust/funding_clusters.hpp, docs/trust.md §Funding).
//
// Thread-safety: none (borrows one Database per call).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <credence/core/address.hpp>
#include <credence/core/bytes.hpp>
#include <credence/index/database.hpp>

namespace credence::index {

struct FundingRecord {
    core::Address address{};
    std::string source;  ///< "transfer", "internal", "genesis", "never", or "error" (not traced)
    std::optional<core::Address> funder;
    uint64_t block_num = 0;
    std::optional<core::Hash32> txn_hash;
    std::string amount = "0";  ///< wei, decimal
    int64_t checked_at = 0;
    uint64_t checked_head = 0;
    uint32_t depth = 0;  ///< 0: a reviewer; n + 1: the funder of a depth-n address
};

struct TraceTarget {
    core::Address address{};
    uint32_t depth = 0;
};

/// Inserts or replaces the record of (chain_id, record.address).
[[nodiscard]] DbResult<void> save_funding(Database& db, uint64_t chain_id,
                                          const FundingRecord& record);

/// The record of one address, if traced.
[[nodiscard]] DbResult<std::optional<FundingRecord>> load_funding(Database& db, uint64_t chain_id,
                                                                  const core::Address& address);

/// Every (address, funder) of a transfer funding on the chain, by address.
[[nodiscard]] DbResult<std::vector<std::pair<core::Address, core::Address>>> read_funding_edges(
    Database& db, uint64_t chain_id);

/// Addresses to trace, at most `limit`: feedback clients and validators with no record (depth 0),
/// then funders
/// named by a record of depth < max_depth - 1 that have none, then 'never' and 'error' records
/// checked below `head` (the address may have been funded since; the node may answer now).
[[nodiscard]] DbResult<std::vector<TraceTarget>> untraced_addresses(Database& db, uint64_t chain_id,
                                                                    uint64_t head,
                                                                    uint32_t max_depth,
                                                                    size_t limit);

/// Deletes the records of fundings past `block_num` (a reorg: rollback_to).
[[nodiscard]] DbResult<void> forget_fundings_after(Database& db, uint64_t chain_id,
                                                   uint64_t block_num);

}  // namespace credence::index
