// verification_store against both real backends: records round-trip, and due_subjects() follows
// docs/architecture.md §verify/ (never checked, changed on chain since, older than the schedule;
// reorgs forget).
#include <credence/verify/verification_store.hpp>

#include <atomic>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <credence/index/store.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::verify {
namespace {

using index::Database;
using index::DbValue;

enum class Backend { sqlite, postgres };

constexpr uint64_t kChain = 31337;

core::Address addr(uint8_t fill) {
    core::Address a;
    a.bytes.fill(fill);
    return a;
}

core::Bytes id32(uint8_t last) {
    core::Bytes b(32, 0);
    b.back() = last;
    return b;
}

class verify_store : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        std::string location;
        if (GetParam() == Backend::sqlite) {
            location = (testing::scratch_dir() /
                        ("verifications_" + std::to_string(counter++) + ".sqlite"))
                           .string();
        } else {
            auto url = testing::postgres_test_url();
            ASSERT_TRUE(url.has_value()) << url.error();
            location = *url;
        }
        auto db = index::open_database(location);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        auto store = index::IndexStore::open(*db_);
        ASSERT_TRUE(store.has_value()) << store.error().to_string();
        store_.emplace(std::move(*store));
    }

    void exec(std::string_view sql, std::initializer_list<DbValue> params) {
        auto r = db_->exec(sql, std::span<const DbValue>(params.begin(), params.size()));
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }

    void add_agent(uint8_t id, std::string uri, int64_t updated_block) {
        exec(
            "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, "
            "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, 0)",
            {int64_t{kChain}, core::Bytes(20, 0xAA), id32(id), core::Bytes(20, 0x01),
             std::move(uri), updated_block});
    }

    std::vector<DueSubject> due(SubjectKind kind, int64_t now, int64_t max_age) {
        auto r = due_subjects(*db_, kChain, DueQuery{kind, now, max_age, 100});
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        return r ? *r : std::vector<DueSubject>{};
    }

    VerificationRecord record(Subject subject, int64_t checked_at, int64_t covers) {
        VerificationRecord rec;
        rec.subject = std::move(subject);
        rec.status = VerificationStatus::unverified;
        rec.reason = "hash_mismatch";
        rec.detail = "keccak256 differs";
        rec.checked_at = checked_at;
        rec.covers_block_num = covers;
        rec.report_json = R"({"verdict":"unverified"})";
        rec.flags = kFlagPaymentVerified;
        return rec;
    }

    std::unique_ptr<Database> db_;
    std::optional<index::IndexStore> store_;
};

INSTANTIATE_TEST_SUITE_P(backends, verify_store,
                         ::testing::Values(Backend::sqlite, Backend::postgres), [](const auto& p) {
                             return p.param == Backend::sqlite ? "sqlite" : "postgres";
                         });

TEST_P(verify_store, record_round_trips_and_upsert_replaces) {
    const Subject subject{SubjectKind::tool, addr(0xBB), id32(7), {}, 0};
    auto missing = load_verification(*db_, kChain, subject);
    ASSERT_TRUE(missing.has_value()) << missing.error().to_string();
    EXPECT_FALSE(missing->has_value());

    ASSERT_TRUE(save_verification(*db_, kChain, record(subject, 100, 5)).has_value());
    auto loaded = load_verification(*db_, kChain, subject);
    ASSERT_TRUE(loaded.has_value() && loaded->has_value());
    EXPECT_EQ((*loaded)->status, VerificationStatus::unverified);
    EXPECT_EQ((*loaded)->reason, "hash_mismatch");
    EXPECT_EQ((*loaded)->checked_at, 100);
    EXPECT_EQ((*loaded)->covers_block_num, 5);
    EXPECT_EQ((*loaded)->report_json, R"({"verdict":"unverified"})");
    EXPECT_EQ((*loaded)->flags, kFlagPaymentVerified);

    auto again = record(subject, 200, 6);
    again.status = VerificationStatus::verified;
    again.reason.clear();
    ASSERT_TRUE(save_verification(*db_, kChain, again).has_value());
    loaded = load_verification(*db_, kChain, subject);
    ASSERT_TRUE(loaded.has_value() && loaded->has_value());
    EXPECT_EQ((*loaded)->status, VerificationStatus::verified);
    EXPECT_EQ((*loaded)->checked_at, 200);
}

TEST_P(verify_store, feedback_records_are_keyed_by_agent_client_and_index) {
    const Subject a{SubjectKind::feedback, addr(0xCC), id32(1), addr(0x11), 1};
    const Subject b{SubjectKind::feedback, addr(0xCC), id32(1), addr(0x11), 2};
    ASSERT_TRUE(save_verification(*db_, kChain, record(a, 10, 3)).has_value());
    auto other = load_verification(*db_, kChain, b);
    ASSERT_TRUE(other.has_value());
    EXPECT_FALSE(other->has_value());
    auto same = load_verification(*db_, kChain, a);
    ASSERT_TRUE(same.has_value());
    EXPECT_TRUE(same->has_value());
}

// Re-verify when an update event arrives and on a schedule.
TEST_P(verify_store, agent_is_due_when_never_checked_changed_or_stale) {
    add_agent(1, "https://a.example/agent.json", 10);
    add_agent(2, "https://b.example/agent.json", 12);
    add_agent(3, "", 13);  // no agentURI: nothing to check
    auto all = due(SubjectKind::agent, 1000, 0);
    ASSERT_EQ(all.size(), 2U);
    EXPECT_EQ(all[0].subject.id, id32(1));
    EXPECT_EQ(all[0].uri, "https://a.example/agent.json");
    EXPECT_EQ(all[0].changed_block_num, 10);
    EXPECT_EQ(all[0].subject.contract, addr(0xAA));

    for (const auto& d : all) {
        ASSERT_TRUE(save_verification(*db_, kChain, record(d.subject, 1000, d.changed_block_num)));
    }
    EXPECT_TRUE(due(SubjectKind::agent, 1001, 0).empty());
    // URIUpdated moves the projection's block: only that agent is due again.
    exec("UPDATE agents SET updated_block_num = 20 WHERE agent_id = $1", {id32(2)});
    auto changed = due(SubjectKind::agent, 1001, 0);
    ASSERT_EQ(changed.size(), 1U);
    EXPECT_EQ(changed[0].subject.id, id32(2));
    // The schedule: older than max_age is due whatever happened on chain.
    EXPECT_EQ(due(SubjectKind::agent, 1000 + 3600, 3600).size(), 1U);
    EXPECT_EQ(due(SubjectKind::agent, 1001 + 3600, 3600).size(), 2U);
}

TEST_P(verify_store, deregistered_tools_and_incomplete_runs_are_never_due) {
    exec(
        "INSERT INTO tools (chain_id, registry, tool_id, creator, metadata_uri, deregistered, "
        "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xBB), id32(1), core::Bytes(20, 1),
         std::string("https://t.example/.well-known/ai-tool/a.json"), int64_t{0}, int64_t{4}});
    exec(
        "INSERT INTO tools (chain_id, registry, tool_id, creator, metadata_uri, deregistered, "
        "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xBB), id32(2), core::Bytes(20, 1),
         std::string("https://t.example/.well-known/ai-tool/b.json"), int64_t{1}, int64_t{5}});
    auto tools = due(SubjectKind::tool, 0, 0);
    ASSERT_EQ(tools.size(), 1U);
    EXPECT_EQ(tools[0].subject.id, id32(1));

    exec(
        "INSERT INTO workflow_runs (chain_id, workflow, run_id, status, completed_block_num) "
        "VALUES ($1, $2, $3, 1, 9)",
        {int64_t{kChain}, core::Bytes(20, 0xDD), id32(1)});
    exec("INSERT INTO workflow_runs (chain_id, workflow, run_id, status) VALUES ($1, $2, $3, 0)",
         {int64_t{kChain}, core::Bytes(20, 0xDD), id32(2)});
    auto runs = due(SubjectKind::run, 0, 0);
    ASSERT_EQ(runs.size(), 1U);
    EXPECT_EQ(runs[0].subject.id, id32(1));
    EXPECT_EQ(runs[0].changed_block_num, 9);
}

TEST_P(verify_store, new_validation_response_makes_the_request_due) {
    exec(
        "INSERT INTO validation_requests (chain_id, registry, request_hash, validator, agent_id, "
        "request_uri, block_num, response_count) VALUES ($1, $2, $3, $4, $5, $6, 3, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xEE), id32(9), core::Bytes(20, 2), id32(1),
         std::string("https://v.example/req.json")});
    auto first = due(SubjectKind::validation, 0, 0);
    ASSERT_EQ(first.size(), 1U);
    EXPECT_EQ(first[0].changed_block_num, 3);
    ASSERT_TRUE(save_verification(*db_, kChain, record(first[0].subject, 50, 3)));
    EXPECT_TRUE(due(SubjectKind::validation, 51, 0).empty());
    exec("UPDATE validation_requests SET response = 80, response_block_num = 7, response_count = 1",
         {});
    auto again = due(SubjectKind::validation, 51, 0);
    ASSERT_EQ(again.size(), 1U);
    EXPECT_EQ(again[0].changed_block_num, 7);
}

TEST_P(verify_store, feedback_due_until_checked) {
    exec(
        "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, value, "
        "value_decimals, value_wad, normalized, tag1, tag2, endpoint, feedback_uri, "
        "feedback_hash, revoked, block_num, log_index, txn_hash) VALUES ($1, $2, $3, $4, 1, "
        "'5', 0, '5000000000000000000', 5.0, '', '', '', $5, $6, 0, 4, 0, $6)",
        {int64_t{kChain}, core::Bytes(20, 0xCC), id32(1), core::Bytes(20, 0x11),
         std::string("https://c.example/f.json"), core::Bytes(32, 0)});
    auto first = due(SubjectKind::feedback, 0, 0);
    ASSERT_EQ(first.size(), 1U);
    EXPECT_EQ(first[0].subject.client, addr(0x11));
    EXPECT_EQ(first[0].subject.feedback_index, 1U);
    ASSERT_TRUE(save_verification(*db_, kChain, record(first[0].subject, 50, 4)));
    EXPECT_TRUE(due(SubjectKind::feedback, 60, 0).empty());
}

// A reorg past the block a check covered deletes the record (index::IndexStore::rollback_to).
TEST_P(verify_store, rollback_forgets_checks_past_the_fork_point) {
    const Subject early{SubjectKind::agent, addr(0xAA), id32(1), {}, 0};
    const Subject late{SubjectKind::agent, addr(0xAA), id32(2), {}, 0};
    ASSERT_TRUE(save_verification(*db_, kChain, record(early, 10, 5)));
    ASSERT_TRUE(save_verification(*db_, kChain, record(late, 10, 9)));
    auto rolled = store_->rollback_to(kChain, 7);
    ASSERT_TRUE(rolled.has_value()) << rolled.error().to_string();
    auto kept = load_verification(*db_, kChain, early);
    auto gone = load_verification(*db_, kChain, late);
    ASSERT_TRUE(kept.has_value() && gone.has_value());
    EXPECT_TRUE(kept->has_value());
    EXPECT_FALSE(gone->has_value());
}

TEST(verify_store_names, kinds_and_statuses_round_trip) {
    for (auto k : {SubjectKind::agent, SubjectKind::tool, SubjectKind::feedback,
                   SubjectKind::validation, SubjectKind::run}) {
        EXPECT_EQ(subject_kind_from_string(to_string(k)), k);
    }
    for (auto s : {VerificationStatus::verified, VerificationStatus::unverified,
                   VerificationStatus::unreachable}) {
        EXPECT_EQ(verification_status_from_string(to_string(s)), s);
    }
    EXPECT_FALSE(subject_kind_from_string("Agent").has_value());
    EXPECT_FALSE(verification_status_from_string("").has_value());
}

}  // namespace
}  // namespace credence::verify
