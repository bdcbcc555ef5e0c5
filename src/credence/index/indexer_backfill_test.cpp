// A registry added to an indexed chain gets its whole history (source_cursors.hpp): on a real
// devnet, an index that followed only the IdentityRegistry is given the ReputationRegistry and
// ValidationRegistry later; it must backfill them while the IdentityRegistry keeps following the
// head, and end equal to an index that followed all three from the start. The same for a registry
// dropped from the configuration and added back, on SQLite and PostgreSQL; plus the table's rules.
#include <credence/index/indexer.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <credence/chain/bindings/identity_registry.hpp>
#include <credence/chain/bindings/reputation_registry.hpp>
#include <credence/chain/bindings/validation_registry.hpp>
#include <credence/index/source_cursors.hpp>

#include "support/devnet.hpp"
#include "support/postgres.hpp"
#include "support/scratch.hpp"

namespace credence::index {
namespace {

namespace ir = chain::bindings::identity_registry;
namespace rr = chain::bindings::reputation_registry;
namespace vr = chain::bindings::validation_registry;

using Opener = std::function<std::unique_ptr<Database>(const std::string& name)>;

class IndexerBackfill : public testing::DevnetFixture {
protected:
    // Agents registered by account 1, each rated twice by account 2 and validated by account 3.
    void traffic(unsigned agents) {
        auto& d = devnet();
        for (unsigned a = 0; a < agents; ++a) {
            d.send(1, d.address("IdentityRegistry"),
                   ir::register_1("ipfs://agent-" + std::to_string(next_agent_)).value());
            const core::Uint256 id{next_agent_++};
            for (int64_t f = 1; f <= 2; ++f) {
                d.send(2, d.address("ReputationRegistry"),
                       rr::give_feedback(id, core::Int256{f * 10}, 0, "quality", "", "", "",
                                         core::Hash32{})
                           .value());
            }
            core::Hash32 request{};
            request[0] = static_cast<uint8_t>(id.limbs[0] + 1);
            d.send(1, d.address("ValidationRegistry"),
                   vr::validation_request(d.dev_address(3), id, "", request).value());
            d.send(3, d.address("ValidationRegistry"),
                   vr::validation_response(request, 90, "", core::Hash32{}, "").value());
        }
    }

    // Small ranges: several batches per registry, so the backfill and the cursor interleave.
    IndexerOptions options(const std::vector<std::string>& names) {
        IndexerOptions o;
        o.chain_id = devnet().chain_id();
        for (const RegistrySource& s : sources_from_deployment(devnet().deployment())) {
            if (std::ranges::find(names, s.name) != names.end()) o.sources.push_back(s);
        }
        EXPECT_EQ(o.sources.size(), names.size());
        o.finality_depth = 4;
        o.range.initial_blocks = 4;
        o.range.max_blocks = 4;
        o.batch_logs = 8;
        return o;
    }

    std::vector<StepReport> sync(Database& db, const std::vector<std::string>& names,
                                 std::vector<std::string>* warnings = nullptr) {
        Indexer indexer(options(names), devnet().rpc(), db);
        auto started = indexer.start();
        EXPECT_TRUE(started) << started.error().message;
        if (started && warnings != nullptr) *warnings = *started;
        std::vector<StepReport> reports;
        auto done = indexer.run(std::stop_token{}, false, std::chrono::milliseconds(10),
                                [&](const StepReport& r) { reports.push_back(r); });
        EXPECT_TRUE(done) << done.error().message;
        return reports;
    }

    static std::string dump(Database& db) {
        auto text = canonical_dump(db, IndexStore::data_tables());
        EXPECT_TRUE(text) << text.error().to_string();
        return text ? *text : std::string();
    }

    void registry_added_later(const Opener& open);
    void registry_dropped_and_added_back(const Opener& open);

    uint64_t next_agent_ = 0;
};

const std::vector<std::string> kAll{"IdentityRegistry", "ReputationRegistry", "ValidationRegistry"};

void IndexerBackfill::registry_added_later(const Opener& open) {
    traffic(4);
    auto db = open("added");
    ASSERT_TRUE(db);
    sync(*db, {"IdentityRegistry"});
    traffic(3);  // new blocks for the IdentityRegistry to follow while the others backfill

    std::vector<std::string> warnings;
    const std::vector<StepReport> reports = sync(*db, kAll, &warnings);
    size_t backfill_batches = 0;
    size_t followed_meanwhile = 0;
    bool joined = false;
    for (const StepReport& r : reports) {
        if (!r.backfilled.empty()) {
            ++backfill_batches;
            joined = joined || r.joined;
        } else if (!joined && r.stored > 0) {
            ++followed_meanwhile;  // the cursor moved on before the backfill was done
        }
    }
    EXPECT_GE(backfill_batches, 3U);
    EXPECT_TRUE(joined);
    EXPECT_GE(followed_meanwhile, 1U);
    size_t announced = 0;
    for (const auto& w : warnings) announced += w.find("backfilling it from block") != w.npos;
    EXPECT_EQ(announced, 2U);
    auto cursors = read_source_cursors(*db, devnet().chain_id());
    ASSERT_TRUE(cursors);
    ASSERT_EQ(cursors->size(), 3U);
    for (const SourceCursor& c : *cursors) EXPECT_TRUE(c.following);

    traffic(1);  // and afterwards all three follow together
    sync(*db, kAll);
    auto fresh = open("fresh");
    ASSERT_TRUE(fresh);
    sync(*fresh, kAll);
    const std::string expected = dump(*fresh);
    EXPECT_NE(expected.find("feedback"), std::string::npos);
    EXPECT_EQ(dump(*db), expected);
}

void IndexerBackfill::registry_dropped_and_added_back(const Opener& open) {
    traffic(2);
    auto db = open("dropped");
    ASSERT_TRUE(db);
    sync(*db, kAll);
    traffic(2);
    sync(*db, {"IdentityRegistry", "ValidationRegistry"});  // the ReputationRegistry dropped
    traffic(2);
    std::vector<std::string> warnings;
    sync(*db, kAll, &warnings);  // and back: the blocks it missed are backfilled
    ASSERT_EQ(warnings.size(), 1U);
    EXPECT_NE(warnings[0].find(devnet().address("ReputationRegistry").to_checksum_hex()),
              std::string::npos);
    auto fresh = open("fresh-dropped");
    ASSERT_TRUE(fresh);
    sync(*fresh, kAll);
    EXPECT_EQ(dump(*db), dump(*fresh));
}

std::unique_ptr<Database> sqlite_named(const std::string& name) {
    static int counter = 0;
    const auto path =
        testing::scratch_dir() / ("backfill-" + name + "-" + std::to_string(::getpid()) + "-" +
                                  std::to_string(counter++) + ".sqlite");
    auto db = open_sqlite(path);
    EXPECT_TRUE(db) << db.error().to_string();
    return db ? std::move(*db) : nullptr;
}

TEST_F(IndexerBackfill, a_registry_added_later_gets_its_history_on_sqlite) {
    registry_added_later(sqlite_named);
}

TEST_F(IndexerBackfill, a_registry_added_later_gets_its_history_on_postgres) {
    CREDENCE_POSTGRES_URL(url);
    // One fresh database per call (postgres_test_url names a new one each time).
    registry_added_later([](const std::string&) -> std::unique_ptr<Database> {
        auto u = testing::postgres_test_url();
        if (!u) return nullptr;
        auto db = open_postgres(*u);
        EXPECT_TRUE(db) << db.error().to_string();
        return db ? std::move(*db) : nullptr;
    });
    (void)url;
}

TEST_F(IndexerBackfill, a_registry_dropped_and_added_back_gets_the_blocks_it_missed) {
    registry_dropped_and_added_back(sqlite_named);
}

TEST(source_cursors, track_backfill_drop_and_rewind) {
    auto db = sqlite_named("rules");
    ASSERT_TRUE(db);
    ASSERT_TRUE(IndexStore::open(*db));
    core::Address a;
    a.bytes.fill(0xaa);
    core::Address b;
    b.bytes.fill(0xbb);
    const std::vector<RegistrySource> first{{ContractKind::identity_registry, a, 10, "A"}};
    // A chain never indexed: the source follows from its start.
    auto t = track_sources(*db, 1, std::nullopt, first);
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->backfill.empty());
    // Indexed to block 100: a new source backfills from its start; an earlier start for A warns.
    const std::vector<RegistrySource> both{{ContractKind::identity_registry, a, 5, "A"},
                                           {ContractKind::reputation_registry, b, 20, "B"}};
    t = track_sources(*db, 1, 100, both);
    ASSERT_TRUE(t);
    ASSERT_EQ(t->backfill.size(), 1U);
    EXPECT_EQ(t->backfill[0], (SourceCursor{b, 20, 20, false}));
    ASSERT_EQ(t->warnings.size(), 1U);
    EXPECT_NE(t->warnings[0].find("indexed from block 10, not from block 5"), std::string::npos);
    // Halfway, a reorg to block 30 rewinds the backfill; then it joins.
    ASSERT_TRUE(db->begin());
    ASSERT_TRUE(advance_backfill(*db, 1, std::vector{b}, 60, false));
    ASSERT_TRUE(rewind_backfills(*db, 1, 30));
    ASSERT_TRUE(db->commit());
    auto rows = read_source_cursors(*db, 1);
    ASSERT_TRUE(rows);
    ASSERT_EQ(rows->size(), 2U);
    EXPECT_EQ((*rows)[1], (SourceCursor{b, 20, 31, false}));
    ASSERT_TRUE(db->begin());
    ASSERT_TRUE(advance_backfill(*db, 1, std::vector{b}, 100, true));
    ASSERT_TRUE(db->commit());
    // A dropped from the configuration at cursor 120: it stops there.
    t = track_sources(*db, 1, 120, std::vector<RegistrySource>{both[1]});
    ASSERT_TRUE(t);
    EXPECT_TRUE(t->backfill.empty());
    rows = read_source_cursors(*db, 1);
    ASSERT_TRUE(rows);
    EXPECT_EQ((*rows)[0], (SourceCursor{a, 10, 121, false}));
    EXPECT_EQ((*rows)[1], (SourceCursor{b, 20, 101, true}));
    // Another chain is untouched.
    auto other = read_source_cursors(*db, 2);
    ASSERT_TRUE(other);
    EXPECT_TRUE(other->empty());
}

}  // namespace
}  // namespace credence::index
