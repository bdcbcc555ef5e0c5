// The verifications table's owner against both real backends: records written by
// save_verification (the verifier's writer) round-trip, due_subjects() follows
// docs/architecture.md §verify/ (never checked, changed on chain since, older than the schedule;
// reorgs forget), and the typed readers of the trust engine and the API see those records.
#include <credence/index/verification_table.hpp>

#include <array>
#include <atomic>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <algorithm>

#include <credence/index/in_list.hpp>
#include <credence/index/store.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

using Subject = VerificationSubject;

enum class VerificationBackend { sqlite, postgres };

constexpr uint64_t kChain = 31337;

core::Address filled_addr(uint8_t fill) {
    core::Address a;
    a.bytes.fill(fill);
    return a;
}

core::Bytes id_word(uint8_t last) {
    core::Bytes b(32, 0);
    b.back() = last;
    return b;
}

class verification_table : public ::testing::TestWithParam<VerificationBackend> {
protected:
    void SetUp() override {
        static std::atomic<int> counter{0};
        std::string location;
        if (GetParam() == VerificationBackend::sqlite) {
            location = (testing::scratch_dir() /
                        ("verifications_" + std::to_string(counter++) + ".sqlite"))
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

    void exec(std::string_view sql, std::initializer_list<DbValue> params) {
        auto r = db_->exec(sql, std::span<const DbValue>(params.begin(), params.size()));
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }

    void add_agent(uint8_t id, std::string uri, int64_t updated_block) {
        exec(
            "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, "
            "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, 0)",
            {int64_t{kChain}, core::Bytes(20, 0xAA), id_word(id), core::Bytes(20, 0x01),
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
        rec.flags = VerificationFlag::payment_verified;
        return rec;
    }

    std::unique_ptr<Database> db_;
    std::optional<IndexStore> store_;
};

INSTANTIATE_TEST_SUITE_P(backends, verification_table,
                         ::testing::Values(VerificationBackend::sqlite,
                                           VerificationBackend::postgres),
                         [](const auto& p) {
                             return p.param == VerificationBackend::sqlite ? "sqlite" : "postgres";
                         });

TEST_P(verification_table, record_round_trips_and_upsert_replaces) {
    const Subject subject{SubjectKind::tool, filled_addr(0xBB), id_word(7), {}, 0};
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
    EXPECT_EQ((*loaded)->flags, VerificationFlags(VerificationFlag::payment_verified));

    auto again = record(subject, 200, 6);
    again.status = VerificationStatus::verified;
    again.reason.clear();
    ASSERT_TRUE(save_verification(*db_, kChain, again).has_value());
    loaded = load_verification(*db_, kChain, subject);
    ASSERT_TRUE(loaded.has_value() && loaded->has_value());
    EXPECT_EQ((*loaded)->status, VerificationStatus::verified);
    EXPECT_EQ((*loaded)->checked_at, 200);
}

TEST_P(verification_table, feedback_records_are_keyed_by_agent_client_and_index) {
    const Subject a{SubjectKind::feedback, filled_addr(0xCC), id_word(1), filled_addr(0x11), 1};
    const Subject b{SubjectKind::feedback, filled_addr(0xCC), id_word(1), filled_addr(0x11), 2};
    ASSERT_TRUE(save_verification(*db_, kChain, record(a, 10, 3)).has_value());
    auto other = load_verification(*db_, kChain, b);
    ASSERT_TRUE(other.has_value());
    EXPECT_FALSE(other->has_value());
    auto same = load_verification(*db_, kChain, a);
    ASSERT_TRUE(same.has_value());
    EXPECT_TRUE(same->has_value());
}

// Re-verify when an update event arrives and on a schedule.
TEST_P(verification_table, agent_is_due_when_never_checked_changed_or_stale) {
    add_agent(1, "https://a.example/agent.json", 10);
    add_agent(2, "https://b.example/agent.json", 12);
    add_agent(3, "", 13);  // no agentURI: nothing to check
    auto all = due(SubjectKind::agent, 1000, 0);
    ASSERT_EQ(all.size(), 2U);
    EXPECT_EQ(all[0].subject.id, id_word(1));
    EXPECT_EQ(all[0].uri, "https://a.example/agent.json");
    EXPECT_EQ(all[0].changed_block_num, 10);
    EXPECT_EQ(all[0].subject.contract, filled_addr(0xAA));

    for (const auto& d : all) {
        ASSERT_TRUE(save_verification(*db_, kChain, record(d.subject, 1000, d.changed_block_num)));
    }
    EXPECT_TRUE(due(SubjectKind::agent, 1001, 0).empty());
    // URIUpdated moves the projection's block: only that agent is due again.
    exec("UPDATE agents SET updated_block_num = 20 WHERE agent_id = $1", {id_word(2)});
    auto changed = due(SubjectKind::agent, 1001, 0);
    ASSERT_EQ(changed.size(), 1U);
    EXPECT_EQ(changed[0].subject.id, id_word(2));
    // The schedule: older than max_age is due whatever happened on chain.
    EXPECT_EQ(due(SubjectKind::agent, 1000 + 3600, 3600).size(), 1U);
    EXPECT_EQ(due(SubjectKind::agent, 1001 + 3600, 3600).size(), 2U);
}

// Earlier revisions (docs/compatibility.md §Earlier ERC-8004 revisions): a first-draft agent is
// due with its AgentDomain (its Agent Card's host) and revision; an intermediate-revision agent
// with its agentURI, as a current one.
TEST_P(verification_table, draft_agents_are_due_by_domain_and_score_agents_by_uri) {
    exec(
        "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_address, agent_domain, "
        "revision, updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $4, $5, 'draft', "
        "$6, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xD1), id_word(1), core::Bytes(20, 0x01),
         std::string("server.example"), int64_t{5}});
    exec(
        "INSERT INTO agents (chain_id, registry, agent_id, owner, agent_uri, revision, "
        "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, 'score', 6, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xD2), id_word(1), core::Bytes(20, 0x01),
         std::string("ipfs://score-agent")});
    add_agent(2, "https://a.example/agent.json", 7);
    auto all = due(SubjectKind::agent, 1000, 0);
    ASSERT_EQ(all.size(), 3U);
    EXPECT_EQ(all[0].subject.contract, filled_addr(0xD1));
    EXPECT_EQ(all[0].uri, "server.example");
    EXPECT_EQ(all[0].revision, core::Erc8004Revision::draft);
    EXPECT_EQ(all[1].subject.contract, filled_addr(0xD2));
    EXPECT_EQ(all[1].uri, "ipfs://score-agent");
    EXPECT_EQ(all[1].revision, core::Erc8004Revision::score);
    EXPECT_EQ(all[2].revision, core::Erc8004Revision::current);
    ASSERT_TRUE(save_verification(*db_, kChain, record(all[1].subject, 1000, 6)));
    ASSERT_TRUE(save_verification(*db_, kChain, record(all[0].subject, 1000, 5)));
    // AgentUpdated (a new domain) moves the row's block: due again.
    exec(
        "UPDATE agents SET agent_domain = 'moved.example', updated_block_num = 9 WHERE "
        "revision = 'draft'",
        {});
    auto changed = due(SubjectKind::agent, 1001, 0);
    ASSERT_EQ(changed.size(), 2U);  // the score agent, checked and unchanged, is not due
    EXPECT_TRUE(std::ranges::any_of(changed, [](const DueSubject& d) {
        return d.uri == "moved.example" && d.revision == core::Erc8004Revision::draft;
    }));
    EXPECT_FALSE(std::ranges::any_of(
        changed, [](const DueSubject& d) { return d.revision == core::Erc8004Revision::score; }));
}

TEST_P(verification_table, deregistered_tools_and_incomplete_runs_are_never_due) {
    exec(
        "INSERT INTO tools (chain_id, registry, tool_id, creator, metadata_uri, deregistered, "
        "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xBB), id_word(1), core::Bytes(20, 1),
         std::string("https://t.example/.well-known/ai-tool/a.json"), int64_t{0}, int64_t{4}});
    exec(
        "INSERT INTO tools (chain_id, registry, tool_id, creator, metadata_uri, deregistered, "
        "updated_block_num, updated_log_index) VALUES ($1, $2, $3, $4, $5, $6, $7, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xBB), id_word(2), core::Bytes(20, 1),
         std::string("https://t.example/.well-known/ai-tool/b.json"), int64_t{1}, int64_t{5}});
    auto tools = due(SubjectKind::tool, 0, 0);
    ASSERT_EQ(tools.size(), 1U);
    EXPECT_EQ(tools[0].subject.id, id_word(1));

    exec(
        "INSERT INTO workflow_runs (chain_id, workflow, run_id, status, completed_block_num) "
        "VALUES ($1, $2, $3, 1, 9)",
        {int64_t{kChain}, core::Bytes(20, 0xDD), id_word(1)});
    exec("INSERT INTO workflow_runs (chain_id, workflow, run_id, status) VALUES ($1, $2, $3, 0)",
         {int64_t{kChain}, core::Bytes(20, 0xDD), id_word(2)});
    auto runs = due(SubjectKind::run, 0, 0);
    ASSERT_EQ(runs.size(), 1U);
    EXPECT_EQ(runs[0].subject.id, id_word(1));
    EXPECT_EQ(runs[0].changed_block_num, 9);
}

TEST_P(verification_table, new_validation_response_makes_the_request_due) {
    exec(
        "INSERT INTO validation_requests (chain_id, registry, request_hash, validator, agent_id, "
        "request_uri, block_num, response_count) VALUES ($1, $2, $3, $4, $5, $6, 3, 0)",
        {int64_t{kChain}, core::Bytes(20, 0xEE), id_word(9), core::Bytes(20, 2), id_word(1),
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

TEST_P(verification_table, feedback_due_until_checked) {
    exec(
        "INSERT INTO feedback (chain_id, registry, agent_id, client, feedback_index, value, "
        "value_decimals, value_wad, normalized, tag1, tag2, endpoint, feedback_uri, "
        "feedback_hash, revoked, block_num, log_index, txn_hash) VALUES ($1, $2, $3, $4, 1, "
        "'5', 0, '5000000000000000000', 5.0, '', '', '', $5, $6, 0, 4, 0, $6)",
        {int64_t{kChain}, core::Bytes(20, 0xCC), id_word(1), core::Bytes(20, 0x11),
         std::string("https://c.example/f.json"), core::Bytes(32, 0)});
    auto first = due(SubjectKind::feedback, 0, 0);
    ASSERT_EQ(first.size(), 1U);
    EXPECT_EQ(first[0].subject.client, filled_addr(0x11));
    EXPECT_EQ(first[0].subject.feedback_index, 1U);
    ASSERT_TRUE(save_verification(*db_, kChain, record(first[0].subject, 50, 4)));
    EXPECT_TRUE(due(SubjectKind::feedback, 60, 0).empty());
}

// A reorg past the block a check covered deletes the record (IndexStore::rollback_to).
TEST_P(verification_table, rollback_forgets_checks_past_the_fork_point) {
    const Subject early{SubjectKind::agent, filled_addr(0xAA), id_word(1), {}, 0};
    const Subject late{SubjectKind::agent, filled_addr(0xAA), id_word(2), {}, 0};
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

// ---- the trust engine's readers, over records save_verification wrote ----

TEST_P(verification_table, flagged_subjects_are_those_whose_latest_check_raised_the_flag) {
    const Subject paid{SubjectKind::feedback, filled_addr(0xCC), id_word(1), filled_addr(0x11), 1};
    const Subject unpaid{SubjectKind::feedback, filled_addr(0xCC), id_word(1), filled_addr(0x11),
                         2};
    const Subject other_registry{SubjectKind::feedback, filled_addr(0xCD), id_word(1),
                                 filled_addr(0x11), 1};
    const Subject agent{SubjectKind::agent, filled_addr(0xCC), id_word(1), {}, 0};
    auto with_flags = [&](const Subject& s, VerificationFlags flags) {
        auto rec = record(s, 10, 3);
        rec.flags = flags;
        return rec;
    };
    VerificationFlags both = VerificationFlag::payment_verified;
    both |= VerificationFlag::agent_card;
    ASSERT_TRUE(save_verification(*db_, kChain, with_flags(paid, both)));
    ASSERT_TRUE(save_verification(*db_, kChain, with_flags(unpaid, VerificationFlag::agent_card)));
    ASSERT_TRUE(save_verification(*db_, kChain, with_flags(other_registry, both)));
    ASSERT_TRUE(save_verification(*db_, kChain, with_flags(agent, both)));

    auto flagged = read_flagged_subjects(*db_, kChain, SubjectKind::feedback, filled_addr(0xCC),
                                         VerificationFlag::payment_verified);
    ASSERT_TRUE(flagged.has_value()) << flagged.error().to_string();
    ASSERT_EQ(flagged->size(), 1U);
    EXPECT_EQ(flagged->front(), paid);

    // A later check that no longer raises the flag replaces the record, and the flag with it.
    ASSERT_TRUE(save_verification(*db_, kChain, with_flags(paid, VerificationFlags{})));
    flagged = read_flagged_subjects(*db_, kChain, SubjectKind::feedback, filled_addr(0xCC),
                                    VerificationFlag::payment_verified);
    ASSERT_TRUE(flagged.has_value()) << flagged.error().to_string();
    EXPECT_TRUE(flagged->empty());
    auto cards = read_flagged_subjects(*db_, kChain, SubjectKind::agent, filled_addr(0xCC),
                                       VerificationFlag::agent_card);
    ASSERT_TRUE(cards.has_value()) << cards.error().to_string();
    ASSERT_EQ(cards->size(), 1U);
    EXPECT_EQ(cards->front(), agent);
}

TEST_P(verification_table, checks_since_a_time_carry_their_flags_and_time) {
    const Subject early{SubjectKind::agent, filled_addr(0xAA), id_word(1), {}, 0};
    const Subject late{SubjectKind::agent, filled_addr(0xAA), id_word(2), {}, 0};
    const Subject tool{SubjectKind::tool, filled_addr(0xAA), id_word(3), {}, 0};
    auto late_record = record(late, 20, 4);
    late_record.flags = VerificationFlag::domain_verified;
    ASSERT_TRUE(save_verification(*db_, kChain, record(early, 10, 3)));
    ASSERT_TRUE(save_verification(*db_, kChain, late_record));
    ASSERT_TRUE(save_verification(*db_, kChain, record(tool, 30, 5)));

    auto since = read_checks_since(*db_, kChain, SubjectKind::agent, filled_addr(0xAA), 15);
    ASSERT_TRUE(since.has_value()) << since.error().to_string();
    ASSERT_EQ(since->size(), 1U);
    EXPECT_EQ(since->front().subject, late);
    EXPECT_EQ(since->front().flags, VerificationFlags(VerificationFlag::domain_verified));
    EXPECT_EQ(since->front().checked_at, 20);
    auto all = read_checks_since(*db_, kChain, SubjectKind::agent, filled_addr(0xAA), 10);
    ASSERT_TRUE(all.has_value()) << all.error().to_string();
    EXPECT_EQ(all->size(), 2U);

    const std::array<SubjectKind, 2> kinds{SubjectKind::feedback, SubjectKind::agent};
    auto latest = latest_checked_at(*db_, kChain, kinds);
    ASSERT_TRUE(latest.has_value()) << latest.error().to_string();
    EXPECT_EQ(*latest, 20);  // the tool's later check is another kind
    auto none = latest_checked_at(*db_, kChain + 1, kinds);
    ASSERT_TRUE(none.has_value()) << none.error().to_string();
    EXPECT_EQ(*none, -1);
}

// More ids than one statement takes (in_list.hpp kKeysPerQuery): every chunk is read.
TEST_P(verification_table, subject_flags_of_many_ids_come_from_every_chunk) {
    std::vector<core::Bytes> ids;
    std::set<std::string> checked;  // hex: GCC 12 warns falsely when ordering vector<uint8_t>
    for (size_t i = 0; i < kKeysPerQuery + 50; ++i) {
        core::Bytes id(32, 0);
        id[30] = static_cast<uint8_t>(i >> 8);
        id[31] = static_cast<uint8_t>(i);
        ids.push_back(id);
        if (i == 0 || i == kKeysPerQuery - 1 || i == kKeysPerQuery || i == kKeysPerQuery + 49) {
            checked.insert(core::to_hex(id));
            auto rec = record(Subject{SubjectKind::agent, filled_addr(0xAA), id, {}, 0}, 10, 3);
            rec.flags = VerificationFlag::domain_verified;
            ASSERT_TRUE(save_verification(*db_, kChain, rec));
        }
    }
    auto flags = read_subject_flags(*db_, kChain, SubjectKind::agent, filled_addr(0xAA), ids);
    ASSERT_TRUE(flags.has_value()) << flags.error().to_string();
    std::set<std::string> read;
    for (const SubjectFlags& f : *flags) {
        EXPECT_TRUE(f.flags.has(VerificationFlag::domain_verified));
        read.insert(core::to_hex(f.subject.id));
    }
    EXPECT_EQ(flags->size(), 4U);
    EXPECT_EQ(read, checked);
}

// ---- the API's join ----

TEST_P(verification_table, latest_check_join_gives_each_agent_its_own_check_or_null) {
    add_agent(1, "https://a.example/agent.json", 10);
    add_agent(2, "https://b.example/agent.json", 12);
    auto checked =
        record(Subject{SubjectKind::agent, filled_addr(0xAA), id_word(1), {}, 0}, 10, 10);
    checked.status = VerificationStatus::verified;
    checked.reason.clear();
    ASSERT_TRUE(save_verification(*db_, kChain, checked));
    // Records of agent 2's id that are not its check: another kind, a feedback's key.
    ASSERT_TRUE(save_verification(
        *db_, kChain,
        record(Subject{SubjectKind::tool, filled_addr(0xAA), id_word(2), {}, 0}, 10, 12)));
    ASSERT_TRUE(save_verification(
        *db_, kChain,
        record(Subject{SubjectKind::agent, filled_addr(0xAA), id_word(2), filled_addr(0x11), 1}, 10,
               12)));

    const std::string sql =
        "SELECT a.agent_id, v.status, v.reason FROM agents a " +
        latest_check_join({SubjectKind::agent, "v", "a", "registry", "agent_id", "$2"}) +
        "WHERE a.chain_id = $1 ORDER BY a.agent_id";
    const std::array<DbValue, 2> params{int64_t{kChain}, core::Bytes(20, 0)};
    auto rows = db_->query(sql, params);
    ASSERT_TRUE(rows.has_value()) << rows.error().to_string();
    ASSERT_EQ(rows->size(), 2U);
    EXPECT_EQ((*rows)[0][0], DbValue(id_word(1)));
    EXPECT_EQ((*rows)[0][1], DbValue(std::string("verified")));
    EXPECT_EQ((*rows)[0][2], DbValue(std::string()));
    EXPECT_EQ((*rows)[1][0], DbValue(id_word(2)));
    EXPECT_EQ((*rows)[1][1], DbValue{});  // never checked as an agent
}

TEST(verification_table_names, kinds_and_statuses_round_trip) {
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
}  // namespace credence::index
