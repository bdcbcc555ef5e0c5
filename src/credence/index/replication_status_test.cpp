// Reading a real streaming-replication hot standby (tests/support/postgres_standby.hpp) of the
// test server: what replicates, what the standby says about itself, and that a reader never
// writes to it.
#include <credence/index/replication_status.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include <fmt/format.h>

#include <credence/index/schema.hpp>
#include <credence/index/store.hpp>
#include <credence/index/writer_election.hpp>
#include <support/postgres.hpp>
#include <support/postgres_standby.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

using std::chrono::milliseconds;

// Polls `read` on the standby until it returns `want`; how long that took, or nullopt past 30 s.
template <typename Read>
std::optional<milliseconds> until_replayed(Read read, int64_t want) {
    const auto start = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - start < std::chrono::seconds(30)) {
        if (read() == want)
            return std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() -
                                                            start);
        std::this_thread::sleep_for(milliseconds(10));
    }
    return std::nullopt;
}

int64_t count_rows(Database& db, std::string_view table) {
    auto rows = db.query(fmt::format("SELECT count(*) FROM {}", table));
    if (!rows || rows->empty()) return -1;  // not replicated yet: the table is missing
    return std::get<int64_t>(rows->front()[0]);
}

TEST(index_replication, standby_replays_primary_writes_and_reports_its_lag) {
    CREDENCE_POSTGRES_URL(url);
    auto standby_url = testing::postgres_standby_url(url);
    ASSERT_TRUE(standby_url) << standby_url.error();
    auto primary = open_database(url);
    ASSERT_TRUE(primary) << primary.error().to_string();
    auto replica = open_database(*standby_url, OpenMode::read_only);
    ASSERT_TRUE(replica) << replica.error().to_string();

    ASSERT_TRUE((*primary)->exec_script("CREATE TABLE replicated (x BIGINT)"));
    ASSERT_TRUE((*primary)->begin());
    for (int64_t i = 0; i < 3; ++i) {
        const DbValue x[] = {i};
        ASSERT_TRUE((*primary)->exec("INSERT INTO replicated (x) VALUES ($1)", x));
    }
    ASSERT_TRUE((*primary)->commit());
    const auto took = until_replayed([&] { return count_rows(**replica, "replicated"); }, 3);
    ASSERT_TRUE(took) << "the standby did not show the primary's rows within 30 s";
    std::printf("primary commit visible on the standby after %lld ms\n",
                static_cast<long long>(took->count()));

    auto on_standby = replication_status(**replica);
    ASSERT_TRUE(on_standby) << on_standby.error().to_string();
    EXPECT_TRUE(on_standby->standby);
    EXPECT_TRUE(on_standby->streaming);
    ASSERT_TRUE(on_standby->lag_seconds.has_value());  // it has replayed our commit
    EXPECT_GE(*on_standby->lag_seconds, 0.0);
    EXPECT_LT(*on_standby->lag_seconds, 60.0);
    EXPECT_GE(on_standby->replay_lag_bytes, 0);
    EXPECT_NE(on_standby->receive_lsn.find('/'), std::string::npos) << on_standby->receive_lsn;
    EXPECT_NE(on_standby->replay_lsn.find('/'), std::string::npos) << on_standby->replay_lsn;
    std::printf("standby lag %.3f s, %lld bytes, receive %s replay %s\n", *on_standby->lag_seconds,
                static_cast<long long>(on_standby->replay_lag_bytes),
                on_standby->receive_lsn.c_str(), on_standby->replay_lsn.c_str());

    auto on_primary = replication_status(**primary);
    ASSERT_TRUE(on_primary) << on_primary.error().to_string();
    EXPECT_FALSE(on_primary->standby);
    EXPECT_FALSE(on_primary->streaming);
    EXPECT_FALSE(on_primary->lag_seconds.has_value());
    EXPECT_EQ(on_primary->receive_lsn, "");
    EXPECT_EQ(on_primary->replay_lsn, "");

    const testing::TempDir dir;
    auto sqlite = open_database((dir.path() / "index.sqlite").string());
    ASSERT_TRUE(sqlite) << sqlite.error().to_string();
    auto on_sqlite = replication_status(**sqlite);
    ASSERT_TRUE(on_sqlite);
    EXPECT_FALSE(on_sqlite->standby);
}

// Replay paused on the standby (pg_wal_replay_pause, PostgreSQL 15 docs §9.27.4): WAL still
// arrives, so the lag is the time since the last replayed commit; once replay resumes it is 0
// again.
TEST(index_replication, lag_counts_while_replay_is_paused_and_is_zero_once_caught_up) {
    CREDENCE_POSTGRES_URL(url);
    auto standby_url = testing::postgres_standby_url(url);
    ASSERT_TRUE(standby_url) << standby_url.error();
    auto primary = open_database(url);
    ASSERT_TRUE(primary) << primary.error().to_string();
    auto replica = open_database(*standby_url, OpenMode::read_only);
    ASSERT_TRUE(replica) << replica.error().to_string();
    ASSERT_TRUE((*primary)->exec_script("CREATE TABLE replicated (x BIGINT)"));
    ASSERT_TRUE(until_replayed([&] { return count_rows(**replica, "replicated"); }, 0));

    ASSERT_TRUE((*replica)->query("SELECT pg_wal_replay_pause()"));
    struct Resume {
        Database& db;
        ~Resume() { ignore_failure(db.exec_script("SELECT pg_wal_replay_resume()")); }
    } resume{**replica};
    auto paused = [&] {
        auto r = (*replica)->query("SELECT pg_get_wal_replay_pause_state() = 'paused'");
        return r && !r->empty() ? std::get<int64_t>(r->front()[0]) : -1;
    };
    ASSERT_TRUE(until_replayed(paused, 1));
    std::this_thread::sleep_for(milliseconds(1100));  // the last replayed commit ages
    const DbValue x[] = {int64_t{1}};
    ASSERT_TRUE((*primary)->exec("INSERT INTO replicated (x) VALUES ($1)", x));
    auto behind = [&] {
        auto status = replication_status(**replica);
        return status && status->receive_lsn != status->replay_lsn ? 1 : 0;
    };
    ASSERT_TRUE(until_replayed(behind, 1)) << "the standby did not receive the insert";
    auto lagging = replication_status(**replica);
    ASSERT_TRUE(lagging) << lagging.error().to_string();
    ASSERT_TRUE(lagging->lag_seconds.has_value());
    EXPECT_GE(*lagging->lag_seconds, 1.0);
    EXPECT_GT(lagging->replay_lag_bytes, 0);
    EXPECT_EQ(count_rows(**replica, "replicated"), 0);
    std::printf("paused standby: lag %.3f s, %lld bytes behind\n", *lagging->lag_seconds,
                static_cast<long long>(lagging->replay_lag_bytes));

    ASSERT_TRUE((*replica)->query("SELECT pg_wal_replay_resume()"));
    ASSERT_TRUE(until_replayed([&] { return count_rows(**replica, "replicated"); }, 1));
    auto caught_up = [&] {
        auto status = replication_status(**replica);
        return status && status->lag_seconds == 0.0 && status->replay_lag_bytes == 0 ? 1 : 0;
    };
    EXPECT_TRUE(until_replayed(caught_up, 1)) << "the lag did not return to 0";
}

TEST(index_replication, a_standby_refuses_writes_and_writers) {
    CREDENCE_POSTGRES_URL(url);
    auto standby_url = testing::postgres_standby_url(url);
    ASSERT_TRUE(standby_url) << standby_url.error();
    auto primary = open_database(url);
    ASSERT_TRUE(primary) << primary.error().to_string();
    ASSERT_TRUE((*primary)->exec_script("CREATE TABLE replicated (x BIGINT)"));
    // Even opened for writing, the standby's connection cannot write: the server refuses.
    auto replica = open_database(*standby_url);
    ASSERT_TRUE(replica) << replica.error().to_string();
    ASSERT_TRUE(until_replayed([&] { return count_rows(**replica, "replicated"); }, 0));

    const DbValue x[] = {int64_t{1}};
    auto write = (*replica)->exec("INSERT INTO replicated (x) VALUES ($1)", x);
    ASSERT_FALSE(write);
    EXPECT_NE(write.error().message.find("cannot execute INSERT in a read-only transaction"),
              std::string::npos)
        << write.error().to_string();
    // A standby cannot be a chain's writer: refused before any lock is taken.
    auto writer = try_become_writer(**replica, 1);
    ASSERT_FALSE(writer);
    EXPECT_EQ(writer.error().kind, DbErrorKind::misuse);
    EXPECT_NE(writer.error().message.find("read-only standby"), std::string::npos)
        << writer.error().to_string();
    auto holder = current_writer(**replica, 1);
    ASSERT_TRUE(holder) << holder.error().to_string();
    EXPECT_FALSE(holder->has_value());
}

TEST(index_replication, readers_open_the_standby_without_migrating) {
    CREDENCE_POSTGRES_URL(url);
    auto standby_url = testing::postgres_standby_url(url);
    ASSERT_TRUE(standby_url) << standby_url.error();

    // Nothing migrated yet: a reader refuses in one line instead of querying missing tables.
    auto early = open_index_read_only(*standby_url);
    ASSERT_FALSE(early);
    EXPECT_EQ(early.error().kind, DbErrorKind::migration);
    EXPECT_NE(early.error().message.find("is at schema version 0, this program reads version"),
              std::string::npos)
        << early.error().to_string();
    // IndexStore::open migrates, which a standby cannot do: readers must not use it.
    auto plain = open_database(*standby_url);
    ASSERT_TRUE(plain) << plain.error().to_string();
    auto store = IndexStore::open(**plain);
    ASSERT_FALSE(store);
    EXPECT_NE(store.error().message.find("read-only transaction"), std::string::npos)
        << store.error().to_string();

    // The writer migrates the primary; once replayed, readers open the standby.
    auto primary = open_database(url);
    ASSERT_TRUE(primary) << primary.error().to_string();
    ASSERT_TRUE(IndexStore::open(**primary));
    const auto wanted = static_cast<int64_t>(index_migrations().size());
    ASSERT_TRUE(until_replayed([&] { return schema_version(**plain).value_or(-1); }, wanted));
    auto reader = open_index_read_only(*standby_url);
    ASSERT_TRUE(reader) << reader.error().to_string();
    EXPECT_EQ(schema_version(**reader).value_or(-1), wanted);
    auto cursor_rows = (*reader)->query("SELECT count(*) FROM cursors");
    ASSERT_TRUE(cursor_rows) << cursor_rows.error().to_string();
}

}  // namespace
}  // namespace credence::index
