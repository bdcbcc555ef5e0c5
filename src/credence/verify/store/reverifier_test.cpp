// reverify_due() over a real SQLite index: every due subject checked once and stored, nothing
// re-checked until it changes on chain or ages past the schedule (docs/architecture.md §verify/).
#include <credence/verify/store/reverifier.hpp>

#include <atomic>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <credence/index/store.hpp>
#include <support/scratch.hpp>

namespace credence::verify {
namespace {

using index::DbValue;

constexpr uint64_t kChain = 31337;

core::Bytes id32(uint8_t last) {
    core::Bytes b(32, 0);
    b.back() = last;
    return b;
}

class verify_reverifier : public ::testing::Test {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        auto db = index::open_database(
            (testing::scratch_dir() / ("reverify_" + std::to_string(counter++) + ".sqlite"))
                .string());
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        auto store = index::IndexStore::open(*db_);
        ASSERT_TRUE(store.has_value()) << store.error().to_string();
        for (uint8_t i = 1; i <= 5; ++i) {
            const std::string uri = i % 2 == 1 ? "https://good.example/" + std::to_string(i)
                                               : "https://bad.example/" + std::to_string(i);
            const std::array<DbValue, 5> p{int64_t{kChain}, core::Bytes(20, 0xAA), id32(i), uri,
                                           int64_t{i}};
            ASSERT_TRUE(
                db_->exec("INSERT INTO agents (chain_id, registry, agent_id, agent_uri, "
                          "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, "
                          "$5, 0)",
                          p));
        }
        checks_[SubjectKind::agent] = [this](std::span<const DueSubject> due) {
            ++calls_;
            std::vector<VerificationRecord> out;
            for (const auto& d : due) {
                VerificationRecord rec;
                const bool good = d.uri.find("good") != std::string::npos;
                rec.status = good ? VerificationStatus::verified : VerificationStatus::unverified;
                rec.reason = good ? "" : "domain_not_verified";
                rec.report_json = "{}";
                out.push_back(rec);
            }
            return out;
        };
    }

    ReverifyCounts pass(int64_t now, int64_t max_age, size_t batch = 2) {
        auto r = reverify_due(*db_, kChain, checks_, ReverifyOptions{now, max_age, batch});
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        return r ? *r : ReverifyCounts{};
    }

    std::unique_ptr<index::Database> db_;
    std::map<SubjectKind, BatchCheck> checks_;
    int calls_ = 0;
};

TEST_F(verify_reverifier, checks_every_due_subject_once_in_batches) {
    const auto counts = pass(100, 0, 2);
    EXPECT_EQ(counts.checked, 5U);
    EXPECT_EQ(counts.verified, 3U);
    EXPECT_EQ(counts.unverified, 2U);
    EXPECT_EQ(calls_, 3);  // 2 + 2 + 1
    auto rec = load_verification(*db_, kChain, Subject{SubjectKind::agent, {}, id32(2), {}, 0});
    ASSERT_TRUE(rec.has_value());
    EXPECT_FALSE(rec->has_value());  // the contract is part of the key
    core::Address registry;
    registry.bytes.fill(0xAA);
    rec = load_verification(*db_, kChain, Subject{SubjectKind::agent, registry, id32(2), {}, 0});
    ASSERT_TRUE(rec.has_value() && rec->has_value());
    EXPECT_EQ((*rec)->reason, "domain_not_verified");
    EXPECT_EQ((*rec)->checked_at, 100);
    EXPECT_EQ((*rec)->covers_block_num, 2);

    EXPECT_EQ(pass(101, 0).checked, 0U);
}

TEST_F(verify_reverifier, update_event_and_schedule_make_subjects_due_again) {
    (void)pass(100, 0);
    const std::array<DbValue, 1> p{id32(3)};
    ASSERT_TRUE(db_->exec("UPDATE agents SET updated_block_num = 50 WHERE agent_id = $1", p));
    EXPECT_EQ(pass(110, 0).checked, 1U);
    EXPECT_EQ(pass(111, 60).checked, 0U);
    EXPECT_EQ(pass(161, 60).checked, 4U);  // checked at 100, older than 60 s at 161
}

TEST_F(verify_reverifier, check_returning_the_wrong_count_is_an_error_and_saves_nothing) {
    checks_[SubjectKind::agent] = [](std::span<const DueSubject>) {
        return std::vector<VerificationRecord>{};
    };
    auto r = reverify_due(*db_, kChain, checks_, ReverifyOptions{100, 0, 10});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, index::DbErrorKind::misuse);
    auto due = due_subjects(*db_, kChain, DueQuery{SubjectKind::agent, 100, 0, 100});
    ASSERT_TRUE(due.has_value());
    EXPECT_EQ(due->size(), 5U);
}

}  // namespace
}  // namespace credence::verify
