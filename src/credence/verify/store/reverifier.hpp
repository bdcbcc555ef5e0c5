// The re-verification loop (docs/architecture.md §verify/): asks the index which subjects are due
// (never checked, changed on chain since their last check, or older than the schedule's max age),
// runs the check of their kind, and stores each result with its status, reason and time.
//
// Checks are injected per kind as batch functions, so fetch-bound kinds can fetch a whole batch
// concurrently (Fetcher::fetch_all) while the index stays free for the indexer: the loop reads a
// batch of due subjects, runs the check without holding a database transaction, then writes the
// results in one transaction. A check that cannot run (network down, RPC error) returns status
// `unreachable`; it is stored like any result, so the schedule retries it after max_age and a
// broken URL cannot starve the others.
//
// Thread-safety: none (one Database per thread). Ownership: borrows the Database.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <vector>

#include <credence/index/database.hpp>
#include <credence/verify/store/verification_store.hpp>

namespace credence::verify {

/// Checks a batch of due subjects of one kind; result i is for subject i. Records must carry
/// their subject, status, reason, detail and report; the loop fills checked_at and
/// covers_block_num.
using BatchCheck = std::function<std::vector<VerificationRecord>(std::span<const DueSubject>)>;

struct ReverifyOptions {
    int64_t now = 0;                ///< unix seconds, the records' checked_at
    int64_t max_age = 0;            ///< seconds; 0: re-check only on on-chain changes
    size_t batch_size = 64;         ///< subjects per check call (and per write transaction)
    size_t max_subjects = 100'000;  ///< per kind per pass, bounds one pass
};

struct ReverifyCounts {
    size_t checked = 0;
    size_t verified = 0;
    size_t unverified = 0;
    size_t unreachable = 0;
};

/// One pass over every kind in `checks`: each due subject is checked once and its record saved.
[[nodiscard]] index::DbResult<ReverifyCounts> reverify_due(
    index::Database& db, uint64_t chain_id, const std::map<SubjectKind, BatchCheck>& checks,
    const ReverifyOptions& options);

}  // namespace credence::verify
