#include <credence/verify/store/reverifier.hpp>

#include <credence/verify/store/profile_store.hpp>

#include <algorithm>
#include <string>

namespace credence::verify {
namespace {

index::DbResult<void> save_all(index::Database& db, uint64_t chain_id,
                               std::span<const DueSubject> due,
                               std::vector<VerificationRecord>& records, int64_t now) {
    if (auto r = db.begin(); !r) return r;
    for (size_t i = 0; i < records.size(); ++i) {
        VerificationRecord& rec = records[i];
        rec.subject = due[i].subject;  // the key is the loop's, whatever the check wrote
        rec.checked_at = now;
        rec.covers_block_num = due[i].changed_block_num;
        if (auto r = save_verification(db, chain_id, rec); !r) {
            index::ignore_failure(db.rollback());
            return r;
        }
        // The API's read model (profile_store.hpp) next to the record, in the same transaction.
        if (auto r = save_profile(db, chain_id, rec); !r) {
            index::ignore_failure(db.rollback());
            return r;
        }
    }
    return db.commit();
}

void count(ReverifyCounts& counts, const std::vector<VerificationRecord>& records) {
    for (const auto& rec : records) {
        ++counts.checked;
        switch (rec.status) {
            case VerificationStatus::verified:
                ++counts.verified;
                break;
            case VerificationStatus::unverified:
                ++counts.unverified;
                break;
            case VerificationStatus::unreachable:
                ++counts.unreachable;
                break;
        }
    }
}

}  // namespace

index::DbResult<ReverifyCounts> reverify_due(index::Database& db, uint64_t chain_id,
                                             const std::map<SubjectKind, BatchCheck>& checks,
                                             const ReverifyOptions& options) {
    ReverifyCounts counts;
    const size_t batch = std::max<size_t>(options.batch_size, 1);
    for (const auto& [kind, check] : checks) {
        if (!check) continue;
        // Every saved record stops its subject from being due, so each query returns the next
        // subjects; the cap bounds a pass even if a check keeps failing to store.
        size_t done = 0;
        while (done < options.max_subjects) {
            const size_t want = std::min(batch, options.max_subjects - done);
            auto due =
                due_subjects(db, chain_id, DueQuery{kind, options.now, options.max_age, want});
            if (!due) return std::unexpected(due.error());
            if (due->empty()) break;
            std::vector<VerificationRecord> records = check(*due);
            if (records.size() != due->size()) {
                return std::unexpected(index::DbError{
                    index::DbErrorKind::misuse,
                    "reverify: the " + std::string(to_string(kind)) + " check returned " +
                        std::to_string(records.size()) + " records for " +
                        std::to_string(due->size()) + " subjects"});
            }
            if (auto r = save_all(db, chain_id, *due, records, options.now); !r) {
                return std::unexpected(r.error());
            }
            count(counts, records);
            done += due->size();
            if (due->size() < want) break;
        }
    }
    return counts;
}

}  // namespace credence::verify
