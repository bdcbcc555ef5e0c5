// score_store against both real backends: a full pass writes every agent's row (score, interval,
// tags, explanation capped at kMaxExplained), an incremental pass rewrites only the agents with
// new evidence, and a failed write leaves the previous pass whole.
#include <credence/trust/score_store.hpp>

#include <array>
#include <atomic>
#include <optional>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/index/store.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::trust {
namespace {

using index::Database;
using index::DbValue;

enum class Backend { sqlite, postgres };

constexpr uint64_t kChain = 31337;
constexpr int64_t kNow = 1'800'000'000;

core::Address addr(uint8_t fill) {
    core::Address a;
    a.bytes.fill(fill);
    return a;
}

core::Address client(uint32_t n) {
    core::Address a;
    a.bytes[0] = 0xC0;
    for (size_t i = 0; i < 4; ++i) a.bytes[19 - i] = static_cast<uint8_t>(n >> (8 * i));
    return a;
}

core::Bytes id32(uint8_t last) {
    core::Bytes b(32, 0);
    b.back() = last;
    return b;
}

core::Bytes bytes_of(const core::Address& a) { return {a.bytes.begin(), a.bytes.end()}; }

class score_store : public ::testing::TestWithParam<Backend> {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        std::string location;
        if (GetParam() == Backend::sqlite) {
            location =
                (testing::scratch_dir() / ("scores_" + std::to_string(counter++) + ".sqlite"))
                    .string();
        } else {
            auto url = testing::postgres_test_url();
            ASSERT_TRUE(url.has_value()) << url.error();
            location = *url;
        }
        auto db = index::open_database(location);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        auto store = index::IndexStore::open(*db_);  // applies the migrations
        ASSERT_TRUE(store.has_value()) << store.error().to_string();
        sources_.chain_id = kChain;
        sources_.identity_registry = addr(0xAA);
        sources_.reputation_registry = addr(0xBB);
        sources_.validation_registry = addr(0xCC);
        sources_.now = kNow;
        sources_.seconds_per_block = 12;
    }

    void exec(std::string_view sql, std::initializer_list<DbValue> params) {
        auto r = db_->exec(sql, std::span<const DbValue>(params.begin(), params.size()));
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }

    void add_agent(uint8_t id, int64_t block) {
        exec(
            "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, "
            "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, 'https://a', $5, 0)",
            {int64_t{kChain}, bytes_of(sources_.identity_registry), id32(id),
             bytes_of(addr(static_cast<uint8_t>(0x10 + id))), block});
    }

    void add_feedback(uint8_t agent, const core::Address& from, int64_t index, int64_t value,
                      int64_t block, std::string tag1 = "starred") {
        exec(
            "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, value, "
            "value_decimals, value_wad, normalized, tag1, tag2, endpoint, feedback_uri, "
            "feedback_hash, revoked, block_num, log_index, txn_hash) VALUES ($1, $2, $3, $4, $5, "
            "$6, 0, $7, $8, $9, '', '', '', $10, 0, $11, $12, $10)",
            {int64_t{kChain}, bytes_of(sources_.reputation_registry), id32(agent), bytes_of(from),
             index, std::to_string(value), std::to_string(value) + "000000000000000000",
             static_cast<double>(value), std::move(tag1), core::Bytes(32, 0), block, index});
    }

    std::optional<StoredScore> stored(uint8_t agent) {
        auto r = load_score(*db_, kChain, sources_.identity_registry, id32(agent));
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        return r ? *r : std::nullopt;
    }

    std::unique_ptr<Database> db_;
    TrustSources sources_;
};

INSTANTIATE_TEST_SUITE_P(backends, score_store,
                         ::testing::Values(Backend::sqlite, Backend::postgres), [](const auto& p) {
                             return p.param == Backend::sqlite ? "sqlite" : "postgres";
                         });

TEST_P(score_store, full_pass_writes_every_agent_with_its_explanation) {
    add_agent(1, 10);
    add_agent(2, 10);
    add_feedback(1, client(1), 1, 95, 20);
    add_feedback(1, client(2), 1, 90, 21);
    add_feedback(1, client(3), 1, 250, 22, "responseTime");  // not a rating: its own unit
    sources_.head_block_num = 30;

    ScoreUpdater updater(TrustConfig{});
    auto pass = updater.full_pass(*db_, sources_);
    ASSERT_TRUE(pass.has_value()) << pass.error().to_string();
    EXPECT_TRUE(pass->full);
    EXPECT_EQ(pass->agents_scored, 2u);
    EXPECT_EQ(pass->reviews, 3u);
    EXPECT_EQ(updater.covered_block_num(), 30u);

    auto one = stored(1);
    ASSERT_TRUE(one.has_value());
    EXPECT_GT(one->score, 0.5);  // two high ratings move the Beta(1,1) prior up
    EXPECT_LT(one->low, one->score);
    EXPECT_GT(one->high, one->score);
    EXPECT_EQ(one->reviews, 3u);  // every counted feedback, ratings or not
    EXPECT_EQ(one->computed_at, kNow);
    EXPECT_EQ(one->covers_block_num, 30u);
    const auto tags = nlohmann::json::parse(one->tags);
    ASSERT_TRUE(tags.is_array());
    bool saw_response_time = false;
    for (const auto& t : tags) {
        if (t["tag"] == "responseTime") {
            saw_response_time = true;
            EXPECT_FALSE(t["isRating"].get<bool>());
            EXPECT_DOUBLE_EQ(t["score"].get<double>(), 250.0);
        }
    }
    EXPECT_TRUE(saw_response_time);
    const auto explanation = nlohmann::json::parse(one->explanation);
    ASSERT_EQ(explanation["contributions"].size(), 3u);
    EXPECT_EQ(explanation["omitted"], 0);
    // Heaviest first.
    EXPECT_GE(explanation["contributions"][0]["weight"].get<double>(),
              explanation["contributions"][1]["weight"].get<double>());
    EXPECT_TRUE(explanation["contributions"][0]["discounts"].is_array());

    auto two = stored(2);  // no feedback: the prior
    ASSERT_TRUE(two.has_value());
    EXPECT_DOUBLE_EQ(two->score, 0.5);
    EXPECT_EQ(two->reviews, 0u);
}

TEST_P(score_store, explanation_keeps_the_top_100_by_weight) {
    add_agent(1, 10);
    for (uint32_t i = 0; i < 130; ++i) add_feedback(1, client(i), 1, 80, 20);
    sources_.head_block_num = 30;
    ScoreUpdater updater(TrustConfig{});
    ASSERT_TRUE(updater.full_pass(*db_, sources_).has_value());
    auto one = stored(1);
    ASSERT_TRUE(one.has_value());
    const auto explanation = nlohmann::json::parse(one->explanation);
    EXPECT_EQ(explanation["contributions"].size(), kMaxExplained);
    EXPECT_EQ(explanation["omitted"], 30);
}

TEST_P(score_store, incremental_pass_rescores_only_agents_with_new_feedback) {
    add_agent(1, 10);
    add_agent(2, 10);
    add_feedback(1, client(1), 1, 90, 20);
    add_feedback(2, client(2), 1, 90, 20);
    sources_.head_block_num = 30;
    ScoreUpdater updater(TrustConfig{});
    ASSERT_TRUE(updater.full_pass(*db_, sources_).has_value());
    const auto before_two = stored(2);
    const auto before_one = stored(1);
    ASSERT_TRUE(before_one && before_two);

    // Nothing new: nothing rewritten.
    sources_.head_block_num = 31;
    sources_.now = kNow + 60;
    auto idle = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(idle.has_value()) << idle.error().to_string();
    EXPECT_FALSE(idle->full);
    EXPECT_EQ(idle->agents_scored, 0u);

    // A low rating of agent 1 at block 35.
    add_feedback(1, client(3), 1, 5, 35);
    sources_.head_block_num = 40;
    sources_.now = kNow + 120;
    auto pass = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(pass.has_value()) << pass.error().to_string();
    EXPECT_FALSE(pass->full);
    EXPECT_EQ(pass->agents_scored, 1u);
    EXPECT_EQ(pass->covers_block_num, 40u);
    auto after_one = stored(1);
    auto after_two = stored(2);
    ASSERT_TRUE(after_one && after_two);
    EXPECT_LT(after_one->score, before_one->score);
    EXPECT_EQ(after_one->reviews, 2u);
    EXPECT_EQ(after_one->covers_block_num, 40u);
    EXPECT_EQ(after_one->computed_at, kNow + 120);
    // Agent 2 untouched: still the full pass's row.
    EXPECT_EQ(after_two->computed_at, kNow);
    EXPECT_EQ(after_two->covers_block_num, 30u);

    // A revocation (FeedbackRevoked at block 45) makes agent 1 due again.
    exec(
        "UPDATE feedback SET revoked = 1, revoked_block_num = 45 WHERE client = $1 AND "
        "chain_id = $2",
        {bytes_of(client(3)), int64_t{kChain}});
    sources_.head_block_num = 50;
    auto revoked = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(revoked.has_value()) << revoked.error().to_string();
    EXPECT_EQ(revoked->agents_scored, 1u);
    auto restored = stored(1);
    ASSERT_TRUE(restored.has_value());
    // Back to the earlier score, up to two minutes more of time decay.
    EXPECT_NEAR(restored->score, before_one->score, 1e-4);
}

TEST_P(score_store, incremental_before_any_full_pass_is_a_full_pass) {
    add_agent(1, 10);
    sources_.head_block_num = 12;
    ScoreUpdater updater(TrustConfig{});
    auto pass = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(pass.has_value()) << pass.error().to_string();
    EXPECT_TRUE(pass->full);
    EXPECT_TRUE(stored(1).has_value());
}

TEST_P(score_store, failed_write_keeps_the_previous_pass_whole) {
    add_agent(1, 10);
    add_agent(2, 10);
    add_feedback(1, client(1), 1, 90, 20);
    sources_.head_block_num = 30;
    ScoreUpdater updater(TrustConfig{});
    ASSERT_TRUE(updater.full_pass(*db_, sources_).has_value());

    // A second write whose last row the database refuses: the row written before it in the same
    // transaction must not survive.
    AgentFacts good;
    good.agent_id = id32(1);
    AgentScore changed;
    changed.score = 0.01;
    AgentFacts bad;
    bad.agent_id = id32(2);
    AgentScore out_of_range;
    // A guard added for the test: scores above 1 are refused.
    if (GetParam() == Backend::postgres) {
        exec("ALTER TABLE agent_scores ADD CONSTRAINT score_range CHECK (score <= 1)", {});
    } else {
        exec(
            "CREATE TRIGGER score_range BEFORE UPDATE ON agent_scores WHEN NEW.score > 1 BEGIN "
            "SELECT RAISE(ABORT, 'score out of range'); END",
            {});
    }
    out_of_range.score = 2.0;
    const std::array<ScoreRow, 2> rows{ScoreRow{&good, &changed}, ScoreRow{&bad, &out_of_range}};
    auto r = save_scores(*db_, kChain, sources_.identity_registry, rows, {}, kNow + 5, 31);
    EXPECT_FALSE(r.has_value());
    EXPECT_FALSE(db_->in_transaction());
    auto one = stored(1);
    ASSERT_TRUE(one.has_value());
    EXPECT_GT(one->score, 0.5);  // not 0.01: the first row rolled back with the failed one
    EXPECT_EQ(one->covers_block_num, 30u);
}

}  // namespace
}  // namespace credence::trust
