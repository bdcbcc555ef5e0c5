// score_store against both real backends: a full pass writes every agent's row (score, interval,
// tags, explanation capped at kMaxExplained), an incremental pass rewrites only the agents with
// new evidence, and a failed write leaves the previous pass whole.
#include <credence/trust/score_store.hpp>

#include <array>
#include <atomic>
#include <map>
#include <optional>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/core/abi.hpp>
#include <credence/core/keccak.hpp>
#include <credence/index/store.hpp>
#include <credence/index/verification_table.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::trust {
namespace {

using index::Database;
using index::DbValue;

enum class Backend { sqlite, postgres };

constexpr uint64_t kChain = 31337;
constexpr int64_t kStoreNow = 1'800'000'000;

core::Address filled_addr(uint8_t fill) {
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

core::Hash32 word_of(const core::Address& a) {
    core::Hash32 w{};
    std::copy(a.bytes.begin(), a.bytes.end(), w.begin() + 12);
    return w;
}

core::Hash32 hash32(const core::Bytes& b) {
    core::Hash32 h{};
    std::copy(b.begin(), b.end(), h.begin());
    return h;
}

/// ERC-8004 registry logs, ABI-encoded as the contracts emit them, committed block by block
/// through the real IndexStore (projector, block hashes, cursor) and rolled back by it.
class LogChain {
public:
    LogChain(index::IndexStore& store, const TrustSources& sources)
        : store_(store), sources_(sources) {}

    void registered(uint8_t agent, const core::Address& owner) {
        namespace idr = chain::bindings::identity_registry;
        add(sources_.identity_registry, index::ContractKind::identity_registry,
            {idr::kRegisteredTopic, hash32(id32(agent)), word_of(owner)},
            encode("(string)", {core::AbiValue(std::string("https://agent"))}));
    }

    void feedback(uint8_t agent, const core::Address& client, uint64_t index, int64_t value,
                  const std::string& tag1 = "starred") {
        namespace rep = chain::bindings::reputation_registry;
        add(sources_.reputation_registry, index::ContractKind::reputation_registry,
            {rep::kNewFeedbackTopic, hash32(id32(agent)), word_of(client), core::keccak256(tag1)},
            encode(
                "(uint64,int128,uint8,string,string,string,string,bytes32)",
                {core::AbiValue(core::Uint256(index)), core::AbiValue(core::Int256(value)),
                 core::AbiValue(core::Uint256(0)), core::AbiValue(tag1),
                 core::AbiValue(std::string()), core::AbiValue(std::string()),
                 core::AbiValue(std::string()), core::AbiValue(core::FixedBytes(core::Hash32{}))}));
    }

    void revoke(uint8_t agent, const core::Address& client, uint64_t index) {
        namespace rep = chain::bindings::reputation_registry;
        add(sources_.reputation_registry, index::ContractKind::reputation_registry,
            {rep::kFeedbackRevokedTopic, hash32(id32(agent)), word_of(client),
             core::Uint256(index).to_word()},
            {});
    }

    void validation(uint8_t agent, uint8_t request, uint8_t response) {
        namespace val = chain::bindings::validation_registry;
        const core::Hash32 hash = core::keccak256("request " + std::to_string(request));
        const core::Hash32 validator = word_of(filled_addr(0x77));
        add(sources_.validation_registry, index::ContractKind::validation_registry,
            {val::kValidationRequestTopic, validator, hash32(id32(agent)), hash},
            encode("(string)", {core::AbiValue(std::string("https://request"))}));
        add(sources_.validation_registry, index::ContractKind::validation_registry,
            {val::kValidationResponseTopic, validator, hash32(id32(agent)), hash},
            encode("(uint8,string,bytes32,string)",
                   {core::AbiValue(core::Uint256(response)), core::AbiValue(std::string()),
                    core::AbiValue(core::FixedBytes(core::Hash32{})),
                    core::AbiValue(std::string("hard"))}));
    }

    /// Commits the pending logs as the next block.
    void commit() {
        ++block_;
        index::Batch batch;
        batch.chain_id = kChain;
        batch.to_block = block_;
        index::BlockHeader header;
        header.block_num = block_;
        header.parent_hash = block_hash(block_ - 1);
        header.hash = block_hash(block_);
        batch.headers.push_back(header);
        for (size_t i = 0; i < pending_.size(); ++i) {
            pending_[i].log.block_num = block_;
            pending_[i].log.block_hash = header.hash;
            pending_[i].log.log_index = i;
            pending_[i].log.txn_index = i;
            pending_[i].log.txn_hash =
                core::keccak256("txn " + std::to_string(block_) + " " + std::to_string(i) + " " +
                                std::to_string(fork_));
        }
        batch.logs = std::move(pending_);
        pending_.clear();
        auto r = store_.commit_batch(batch);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
        ASSERT_TRUE(r->rejected.empty()) << r->rejected.front().reason;
    }

    /// A reorg: the index rolls back to `block`, and later blocks get new hashes.
    void rollback_to(uint64_t block) {
        auto r = store_.rollback_to(kChain, block);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
        block_ = block;
        ++fork_;
        hashes_.erase(hashes_.upper_bound(block), hashes_.end());
    }

    [[nodiscard]] uint64_t block() const { return block_; }

private:
    // Event data is abi.encode of the non-indexed parameters.
    static core::Bytes encode(std::string_view types, const std::vector<core::AbiValue>& values) {
        auto parsed = core::parse_type_list(types);
        EXPECT_TRUE(parsed.has_value());
        if (!parsed) return {};
        auto out = core::encode(*parsed, values);
        EXPECT_TRUE(out.has_value());
        return out ? *out : core::Bytes{};
    }

    core::Hash32 block_hash(uint64_t block) {
        auto [it, fresh] = hashes_.try_emplace(block);
        if (fresh) {
            it->second = core::keccak256("block " + std::to_string(block) + " fork " +
                                         std::to_string(fork_));
        }
        return it->second;
    }

    void add(const core::Address& address, index::ContractKind kind,
             std::vector<core::Hash32> topics, core::Bytes data) {
        index::IngestLog in;
        in.log.address = address;
        in.log.topics = std::move(topics);
        in.log.data = std::move(data);
        in.kind = kind;
        pending_.push_back(std::move(in));
    }

    index::IndexStore& store_;
    TrustSources sources_;
    std::vector<index::IngestLog> pending_;
    uint64_t block_ = 0;
    uint64_t fork_ = 0;
    std::map<uint64_t, core::Hash32> hashes_;
};

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
        store_.emplace(std::move(*store));
        sources_.chain_id = kChain;
        sources_.identity_registry = filled_addr(0xAA);
        sources_.reputation_registry = filled_addr(0xBB);
        sources_.validation_registry = filled_addr(0xCC);
        sources_.now = kStoreNow;
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
             bytes_of(filled_addr(static_cast<uint8_t>(0x10 + id))), block});
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

    /// A check of the verifier, as it writes one (index/verification_table.hpp).
    void check(index::SubjectKind kind, const core::Address& contract, const core::Bytes& subject,
               const core::Address& client, uint64_t index, index::VerificationFlags flags,
               int64_t checked_at, int64_t covers_block_num) {
        index::VerificationRecord rec;
        rec.subject = {kind, contract, subject, client, index};
        rec.status = index::VerificationStatus::verified;
        rec.checked_at = checked_at;
        rec.covers_block_num = covers_block_num;
        rec.flags = flags;
        rec.report_json = "{}";
        auto r = index::save_verification(*db_, kChain, rec);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }

    /// Every stored row equals a full recomputation at the updater's time reference.
    void expect_rows_match_a_full_recompute(const ScoreUpdater& updater,
                                            const TrustConfig& config) {
        const TrustSources& reference = updater.time_reference();
        auto inputs = load_trust_inputs(*db_, reference);
        ASSERT_TRUE(inputs.has_value()) << inputs.error().to_string();
        TrustConfig c = config;
        c.now = reference.now;
        const TrustResult full = compute_trust(*inputs, c);
        for (size_t g = 0; g < inputs->agents.size(); ++g) {
            auto row =
                load_score(*db_, kChain, sources_.identity_registry, inputs->agents[g].agent_id);
            ASSERT_TRUE(row.has_value()) << row.error().to_string();
            ASSERT_TRUE(row->has_value()) << "agent " << g << " has no row";
            const StoredScore& kept = **row;
            const AgentScore& want = full.agents[g];
            EXPECT_NEAR(kept.score, want.score, kTolerance) << "agent " << g;
            EXPECT_NEAR(kept.low, want.low, kTolerance) << "agent " << g;
            EXPECT_NEAR(kept.high, want.high, kTolerance) << "agent " << g;
            EXPECT_NEAR(kept.evidence, want.evidence, kTolerance) << "agent " << g;
            EXPECT_NEAR(kept.effective_reviewers, want.effective_reviewers,
                        kTolerance * std::max(1.0, want.effective_reviewers))
                << "agent " << g;
            EXPECT_EQ(kept.reviews, want.reviews) << "agent " << g;
            EXPECT_EQ(nlohmann::json::parse(kept.tags).size(), want.tags.size()) << "agent " << g;
        }
    }

    // Scores of a chain of incremental passes vs a full recompute (score_incremental.hpp).
    static constexpr double kTolerance = 1e-6;

    std::unique_ptr<Database> db_;
    std::optional<index::IndexStore> store_;
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
    EXPECT_EQ(one->computed_at, kStoreNow);
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
    LogChain chain(*store_, sources_);
    chain.registered(1, filled_addr(0x11));
    chain.registered(2, filled_addr(0x12));
    chain.commit();
    chain.feedback(1, client(1), 1, 90);
    chain.feedback(2, client(2), 1, 90);
    chain.commit();
    sources_.head_block_num = chain.block();
    // A trusted seed set: a newcomer's review moves nobody else's standing.
    TrustConfig config;
    config.trusted = {client(1), client(2)};
    ScoreUpdater updater(config);
    ASSERT_TRUE(updater.full_pass(*db_, sources_).has_value());
    const auto before_two = stored(2);
    const auto before_one = stored(1);
    ASSERT_TRUE(before_one && before_two);

    // Nothing new: nothing rewritten.
    chain.commit();
    sources_.head_block_num = chain.block();
    sources_.now = kStoreNow + 60;
    auto idle = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(idle.has_value()) << idle.error().to_string();
    EXPECT_FALSE(idle->full);
    EXPECT_EQ(idle->agents_scored, 0u);
    EXPECT_EQ(idle->reviews, 0u);

    // A low rating of agent 1 (ERC-8004 NewFeedback).
    chain.feedback(1, client(3), 1, 5);
    chain.commit();
    const uint64_t low_block = chain.block();
    sources_.head_block_num = chain.block();
    sources_.now = kStoreNow + 120;
    auto pass = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(pass.has_value()) << pass.error().to_string();
    EXPECT_FALSE(pass->full);
    EXPECT_EQ(pass->agents_scored, 1u);
    EXPECT_EQ(pass->reviews, 1u);  // only the new row was read
    EXPECT_EQ(pass->covers_block_num, low_block);
    auto after_one = stored(1);
    auto after_two = stored(2);
    ASSERT_TRUE(after_one && after_two);
    EXPECT_LT(after_one->score, before_one->score);
    EXPECT_EQ(after_one->reviews, 2u);
    EXPECT_EQ(after_one->covers_block_num, low_block);
    EXPECT_EQ(after_one->computed_at, kStoreNow + 120);
    // Agent 2 untouched: still the full pass's row.
    EXPECT_EQ(after_two->computed_at, kStoreNow);
    EXPECT_EQ(after_two->covers_block_num, 2u);

    // A revocation (ERC-8004 FeedbackRevoked) makes agent 1 due again.
    chain.revoke(1, client(3), 1);
    chain.commit();
    sources_.head_block_num = chain.block();
    auto revoked = updater.incremental_pass(*db_, sources_);
    ASSERT_TRUE(revoked.has_value()) << revoked.error().to_string();
    EXPECT_EQ(revoked->agents_scored, 1u);
    auto restored = stored(1);
    ASSERT_TRUE(restored.has_value());
    // Back to the earlier score: the clock of the scores is the full pass's until the next one.
    EXPECT_NEAR(restored->score, before_one->score, 1e-9);
    expect_rows_match_a_full_recompute(updater, config);
}

// A chain of incremental passes over random appends, revocations, validation
// responses, verifier flags, new agents and one reorg gives a full recompute's scores.
TEST_P(score_store, incremental_passes_equal_a_full_recompute_through_a_rollback) {
    std::mt19937_64 rng(GetParam() == Backend::sqlite ? 8004 : 8301);
    LogChain chain(*store_, sources_);
    uint8_t agents = 12;
    for (uint8_t a = 1; a <= agents; ++a)
        chain.registered(a, filled_addr(static_cast<uint8_t>(0x40 + a)));
    chain.commit();
    struct Given {
        uint8_t agent;
        uint32_t client;
        uint64_t index;
    };
    std::vector<Given> given;
    std::map<std::pair<uint8_t, uint32_t>, uint64_t> last_index;
    auto give = [&] {
        const auto agent = static_cast<uint8_t>(1 + rng() % agents);
        const auto c = static_cast<uint32_t>(rng() % 25);
        const uint64_t index = ++last_index[{agent, c}];
        chain.feedback(agent, client(c), index, static_cast<int64_t>(rng() % 101),
                       rng() % 5 == 0 ? "responseTime" : "starred");
        given.push_back({agent, c, index});
    };
    for (int b = 0; b < 4; ++b) {
        for (int i = 0; i < 30; ++i) give();
        chain.commit();
    }
    const TrustConfig config;
    ScoreUpdater updater(config);
    sources_.head_block_num = chain.block();
    ASSERT_TRUE(updater.full_pass(*db_, sources_).has_value());
    int64_t checked_at = kStoreNow;
    size_t rescored = 0, passes = 0;
    for (int step = 0; step < 16; ++step) {
        const bool reorg = step == 10;
        if (reorg) {
            // Three blocks replaced by four others: the cursor ends past the covered block.
            chain.rollback_to(chain.block() - 3);
            for (int b = 0; b < 3; ++b) {
                for (int i = 0; i < 5; ++i) give();
                chain.commit();
            }
        }
        const int appends = static_cast<int>(rng() % 8);
        for (int i = 0; i < appends; ++i) give();
        if (rng() % 2 == 0) {
            const Given& g = given[rng() % given.size()];
            chain.revoke(g.agent, client(g.client), g.index);
        }
        if (rng() % 3 == 0) {
            chain.validation(static_cast<uint8_t>(1 + rng() % agents),
                             static_cast<uint8_t>(rng() % 6), static_cast<uint8_t>(rng() % 101));
        }
        if (rng() % 4 == 0 && agents < 20) {
            ++agents;
            chain.registered(agents, filled_addr(static_cast<uint8_t>(0x40 + agents)));
        }
        chain.commit();
        // The verifier's checks arrive on their own clock.
        if (rng() % 2 == 0) {
            const Given& g = given[rng() % given.size()];
            const index::VerificationFlags paid =
                rng() % 3 == 0
                    ? index::VerificationFlags{}
                    : index::VerificationFlags(index::VerificationFlag::payment_verified);
            check(index::SubjectKind::feedback, sources_.reputation_registry, id32(g.agent),
                  client(g.client), g.index, paid, ++checked_at,
                  static_cast<int64_t>(chain.block()));
        }
        if (rng() % 4 == 0) {
            const core::Bytes agent = id32(static_cast<uint8_t>(1 + rng() % agents));
            const index::VerificationFlags domain =
                rng() % 2 == 0 ? index::VerificationFlags(index::VerificationFlag::domain_verified)
                               : index::VerificationFlags{};
            check(index::SubjectKind::agent, sources_.identity_registry, agent, core::Address{}, 0,
                  domain, ++checked_at, static_cast<int64_t>(chain.block()));
        }
        sources_.head_block_num = chain.block();
        sources_.now += 12;
        auto pass = updater.incremental_pass(*db_, sources_);
        ASSERT_TRUE(pass.has_value()) << pass.error().to_string();
        EXPECT_EQ(pass->full, reorg) << "step " << step;
        EXPECT_EQ(pass->after_rollback, reorg) << "step " << step;
        EXPECT_EQ(pass->covers_block_num, chain.block());
        if (!reorg) {
            rescored += pass->agents_scored;
            ++passes;
        }
        expect_rows_match_a_full_recompute(updater, config);
        if (HasFailure()) return;
    }
    EXPECT_GT(passes, 0u);
    EXPECT_GT(rescored, 0u);
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
    auto r = save_scores(*db_, kChain, sources_.identity_registry, rows, {}, kStoreNow + 5, 31);
    EXPECT_FALSE(r.has_value());
    EXPECT_FALSE(db_->in_transaction());
    auto one = stored(1);
    ASSERT_TRUE(one.has_value());
    EXPECT_GT(one->score, 0.5);  // not 0.01: the first row rolled back with the failed one
    EXPECT_EQ(one->covers_block_num, 30u);
}

}  // namespace
}  // namespace credence::trust
