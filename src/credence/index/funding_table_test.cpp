// The fundings table (index/funding_table.hpp) against both real backends: records round-trip,
// the trace queue holds reviewers, then their funders up to the depth bound, then stale 'never'
// records, and a reorg forgets fundings past the fork point.
#include <credence/index/funding_table.hpp>

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <credence/index/store.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

enum class FundingBackend { sqlite, postgres };

constexpr uint64_t kFundingChain = 31337;

core::Address funding_addr(uint8_t fill) {
    core::Address a;
    a.bytes.fill(fill);
    return a;
}

class funding_table : public ::testing::TestWithParam<FundingBackend> {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        std::string location;
        if (GetParam() == FundingBackend::sqlite) {
            location =
                (testing::scratch_dir() / ("fundings_" + std::to_string(counter++) + ".sqlite"))
                    .string();
        } else {
            auto url = testing::postgres_test_url();
            ASSERT_TRUE(url.has_value()) << url.error();
            location = *url;
        }
        auto db = open_database(location);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        auto store = IndexStore::open(*db_);
        ASSERT_TRUE(store.has_value()) << store.error().to_string();
        store_.emplace(std::move(*store));
    }

    void add_feedback(uint8_t client, uint64_t index) {
        const std::array<DbValue, 4> params{int64_t{kFundingChain}, core::Bytes(32, 0),
                                            core::Bytes(20, client), static_cast<int64_t>(index)};
        auto r = db_->exec(
            "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, value, "
            "value_decimals, value_wad, normalized, tag1, tag2, endpoint, feedback_uri, "
            "feedback_hash, revoked, block_num, log_index, txn_hash) VALUES ($1, $3, $2, $3, $4, "
            "'5', 0, '5000000000000000000', 5.0, '', '', '', '', $2, 0, 4, $4, $2)",
            params);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }

    std::vector<TraceTarget> queue(uint64_t head) {
        auto r = untraced_addresses(*db_, kFundingChain, head, 3, 100);
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        return r ? *r : std::vector<TraceTarget>{};
    }

    static FundingRecord transfer(uint8_t who, uint8_t from, uint64_t block, uint32_t depth) {
        FundingRecord r;
        r.address = funding_addr(who);
        r.source = "transfer";
        r.funder = funding_addr(from);
        r.block_num = block;
        r.txn_hash = core::Hash32{};
        r.txn_hash->fill(who);
        r.amount = "1000000000000000000";
        r.checked_at = 100;
        r.checked_head = 50;
        r.depth = depth;
        return r;
    }

    std::unique_ptr<Database> db_;
    std::optional<IndexStore> store_;
};

INSTANTIATE_TEST_SUITE_P(backends, funding_table,
                         ::testing::Values(FundingBackend::sqlite, FundingBackend::postgres),
                         [](const auto& p) {
                             return p.param == FundingBackend::sqlite ? "sqlite" : "postgres";
                         });

TEST_P(funding_table, records_round_trip) {
    const FundingRecord saved = transfer(0x11, 0xEE, 7, 0);
    ASSERT_TRUE(save_funding(*db_, kFundingChain, saved));
    auto loaded = load_funding(*db_, kFundingChain, funding_addr(0x11));
    ASSERT_TRUE(loaded.has_value()) << loaded.error().to_string();
    ASSERT_TRUE(loaded->has_value());
    const FundingRecord& r = **loaded;
    EXPECT_EQ(r.source, "transfer");
    EXPECT_EQ(r.funder, funding_addr(0xEE));
    EXPECT_EQ(r.block_num, 7U);
    EXPECT_EQ(r.txn_hash, saved.txn_hash);
    EXPECT_EQ(r.amount, "1000000000000000000");
    EXPECT_EQ(r.checked_head, 50U);
    auto edges = read_funding_edges(*db_, kFundingChain);
    ASSERT_TRUE(edges.has_value());
    ASSERT_EQ(edges->size(), 1U);
    EXPECT_EQ(edges->front().second, funding_addr(0xEE));
    auto none = load_funding(*db_, kFundingChain, funding_addr(0x12));
    ASSERT_TRUE(none.has_value());
    EXPECT_FALSE(none->has_value());
}

TEST_P(funding_table, the_queue_climbs_from_reviewers_to_their_funders_up_to_the_depth) {
    add_feedback(0x11, 1);
    add_feedback(0x11, 2);  // one reviewer, two feedback: traced once
    add_feedback(0x12, 1);
    auto first = queue(60);
    ASSERT_EQ(first.size(), 2U);
    EXPECT_EQ(first[0].address, funding_addr(0x11));
    EXPECT_EQ(first[0].depth, 0U);
    // Reviewer 0x11 funded by 0xA1, which the queue then names at depth 1.
    ASSERT_TRUE(save_funding(*db_, kFundingChain, transfer(0x11, 0xA1, 5, 0)));
    FundingRecord never;
    never.address = funding_addr(0x12);
    never.source = "never";
    never.checked_head = 60;
    ASSERT_TRUE(save_funding(*db_, kFundingChain, never));
    auto second = queue(60);
    ASSERT_EQ(second.size(), 1U);
    EXPECT_EQ(second[0].address, funding_addr(0xA1));
    EXPECT_EQ(second[0].depth, 1U);
    // 0xA1 funded by 0xA2 (depth 2), and 0xA2 by 0xA3: at max depth 3 the queue stops at 0xA2.
    ASSERT_TRUE(save_funding(*db_, kFundingChain, transfer(0xA1, 0xA2, 3, 1)));
    auto third = queue(60);
    ASSERT_EQ(third.size(), 1U);
    EXPECT_EQ(third[0].address, funding_addr(0xA2));
    EXPECT_EQ(third[0].depth, 2U);
    ASSERT_TRUE(save_funding(*db_, kFundingChain, transfer(0xA2, 0xA3, 1, 2)));
    EXPECT_TRUE(queue(60).empty());
    // The chain moved: the 'never' reviewer is traced again.
    auto later = queue(61);
    ASSERT_EQ(later.size(), 1U);
    EXPECT_EQ(later[0].address, funding_addr(0x12));
}

TEST_P(funding_table, rollback_forgets_fundings_past_the_fork_point) {
    ASSERT_TRUE(save_funding(*db_, kFundingChain, transfer(0x11, 0xEE, 5, 0)));
    ASSERT_TRUE(save_funding(*db_, kFundingChain, transfer(0x12, 0xEE, 9, 0)));
    auto rolled = store_->rollback_to(kFundingChain, 7);
    ASSERT_TRUE(rolled.has_value()) << rolled.error().to_string();
    auto kept = load_funding(*db_, kFundingChain, funding_addr(0x11));
    auto gone = load_funding(*db_, kFundingChain, funding_addr(0x12));
    ASSERT_TRUE(kept.has_value() && gone.has_value());
    EXPECT_TRUE(kept->has_value());
    EXPECT_FALSE(gone->has_value());
}

}  // namespace
}  // namespace credence::index
