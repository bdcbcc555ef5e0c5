// The database layer against both real backends: a SQLite file in the scratch directory and a
// fresh database on a real PostgreSQL server (tests/support/postgres.hpp, docs/architecture.md
// §index/: PostgreSQL in tests). The same tests run on both, so the store above can rely on one
// behaviour.
#include <credence/index/database.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::index {
namespace {

using core::Bytes;

std::string fresh_sqlite_path() {
    static std::atomic<int> counter{0};
    return (testing::scratch_dir() / ("db_" + std::to_string(counter++) + ".sqlite")).string();
}

class database : public ::testing::TestWithParam<Dialect> {
protected:
    void SetUp() override {
        if (GetParam() == Dialect::sqlite) {
            location_ = fresh_sqlite_path();
        } else {
            auto url = testing::postgres_test_url();
            ASSERT_TRUE(url.has_value()) << "PostgreSQL test server: " << url.error();
            location_ = *url;
        }
        auto db = open_database(location_);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        db_ = std::move(*db);
        ASSERT_EQ(db_->dialect(), GetParam());
    }

    void exec_ok(std::string_view sql, std::initializer_list<DbValue> params = {}) {
        auto r = db_->exec(sql, std::span<const DbValue>(params.begin(), params.size()));
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }
    void script_ok(std::string_view sql) {
        auto r = db_->exec_script(apply_dialect(sql, db_->dialect()));
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }
    std::vector<DbRow> rows(std::string_view sql, std::initializer_list<DbValue> params = {}) {
        auto r = db_->query(sql, std::span<const DbValue>(params.begin(), params.size()));
        EXPECT_TRUE(r.has_value()) << r.error().to_string();
        return r ? *r : std::vector<DbRow>{};
    }
    int64_t count(std::string_view table) {
        auto r = rows("SELECT COUNT(*) FROM " + std::string(table));
        if (r.size() != 1 || r[0].size() != 1 || !std::holds_alternative<int64_t>(r[0][0]))
            return -1;
        return std::get<int64_t>(r[0][0]);
    }

    std::string location_;
    std::unique_ptr<Database> db_;
};

// What API-only nodes open (OpenMode::read_only): reads work, every write is refused.
TEST_P(database, read_only_open_reads_and_refuses_writes) {
    script_ok("CREATE TABLE t (x BIGINT)");
    exec_ok("INSERT INTO t (x) VALUES ($1)", {int64_t{1}});
    auto reader = open_database(location_, OpenMode::read_only);
    ASSERT_TRUE(reader) << reader.error().to_string();
    auto read = (*reader)->query("SELECT x FROM t");
    ASSERT_TRUE(read) << read.error().to_string();
    EXPECT_EQ(*read, (std::vector<DbRow>{{int64_t{1}}}));

    const DbValue two[] = {int64_t{2}};
    auto autocommit = (*reader)->exec("INSERT INTO t (x) VALUES ($1)", two);
    ASSERT_FALSE(autocommit);
    EXPECT_NE(autocommit.error().message.find(GetParam() == Dialect::postgres
                                                  ? "read-only transaction"
                                                  : "attempt to write a readonly database"),
              std::string::npos)
        << autocommit.error().to_string();
    // A write transaction: SQLite refuses its BEGIN IMMEDIATE, PostgreSQL its first write.
    if (GetParam() == Dialect::sqlite) {
        EXPECT_FALSE((*reader)->begin());
    } else {
        ASSERT_TRUE((*reader)->begin());
        ignore_failure((*reader)->exec("INSERT INTO t (x) VALUES ($1)", two));
        EXPECT_FALSE((*reader)->commit());
    }
    ASSERT_TRUE((*reader)->begin_read());
    EXPECT_EQ((*reader)->query("SELECT count(*) FROM t").value_or(std::vector<DbRow>{}),
              (std::vector<DbRow>{{int64_t{1}}}));
    ASSERT_TRUE((*reader)->rollback());
    EXPECT_FALSE((*reader)->exec_script("CREATE TABLE u (x BIGINT)"));
    EXPECT_EQ(count("t"), 1);
}

TEST_P(database, require_schema_accepts_only_the_newest_version) {
    constexpr Migration kSteps[] = {{1, "one", "CREATE TABLE one (x BIGINT)"},
                                    {2, "two", "CREATE TABLE two (x BIGINT)"}};
    const std::span<const Migration> steps(kSteps);
    EXPECT_EQ(schema_version(*db_).value_or(-1), 0);
    auto empty = require_schema(*db_, steps);
    ASSERT_FALSE(empty);
    EXPECT_EQ(empty.error().kind, DbErrorKind::migration);
    EXPECT_NE(empty.error().message.find("is at schema version 0, this program reads version 2: "
                                         "start its writer (which migrates it) first"),
              std::string::npos)
        << empty.error().to_string();

    ASSERT_EQ(migrate(*db_, steps.first(1)).value_or(-1), 1);
    EXPECT_EQ(schema_version(*db_).value_or(-1), 1);
    EXPECT_EQ(require_schema(*db_, steps.first(1)).value_or(-1), 1);
    EXPECT_FALSE(require_schema(*db_, steps));
    ASSERT_EQ(migrate(*db_, steps).value_or(-1), 2);
    auto newer = require_schema(*db_, steps.first(1));
    ASSERT_FALSE(newer);
    EXPECT_NE(newer.error().message.find("is at schema version 2, newer than this program's 1"),
              std::string::npos)
        << newer.error().to_string();
}

INSTANTIATE_TEST_SUITE_P(backends, database, ::testing::Values(Dialect::sqlite, Dialect::postgres),
                         [](const auto& param_info) {
                             return param_info.param == Dialect::sqlite ? "sqlite" : "postgres";
                         });

TEST_P(database, round_trip_of_every_value_type) {
    script_ok("CREATE TABLE v (k BIGINT PRIMARY KEY, i BIGINT, r {{REAL}}, s TEXT, b {{BLOB}})");
    Bytes large(1 << 20);
    for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<uint8_t>(i * 131 + 7);
    const std::vector<DbRow> want = {
        {int64_t{1}, std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{}},
        {int64_t{2}, std::numeric_limits<int64_t>::min(), -1.5e300, std::string(), Bytes{}},
        {int64_t{3}, std::numeric_limits<int64_t>::max(), 0.1,
         std::string("h\xc3\xa9llo \xe2\x9c\x93 \xe6\x97\xa5"), Bytes{0x00, 0xff, 0x00}},
        {int64_t{4}, int64_t{-1}, -0.0, std::string("quote\" back\\ tab\t nl\n"), large},
        {int64_t{5}, int64_t{0}, 1.0 / 3.0, std::string(10000, 'x'), Bytes{0x5c, 0x78}},
    };
    for (const auto& row : want)
        exec_ok("INSERT INTO v VALUES ($1, $2, $3, $4, $5)",
                {row[0], row[1], row[2], row[3], row[4]});
    const auto got = rows("SELECT k, i, r, s, b FROM v ORDER BY k");
    ASSERT_EQ(got.size(), want.size());
    for (size_t r = 0; r < want.size(); ++r) {
        for (size_t c = 0; c < want[r].size(); ++c)
            EXPECT_EQ(got[r][c], want[r][c]) << "row " << r << " column " << c;
    }
    // (-0.0 compares equal to 0.0: SQLite stores integral reals as integers and loses the sign.)
    // Values also work as parameters of a query, not only of an insert.
    const auto by_blob = rows("SELECT k FROM v WHERE b = $1", {Bytes{}});
    ASSERT_EQ(by_blob.size(), 1U);
    EXPECT_EQ(by_blob[0][0], DbValue(int64_t{2}));
    const auto by_text = rows("SELECT k FROM v WHERE s = $1", {want[2][3]});
    ASSERT_EQ(by_text.size(), 1U);
    EXPECT_EQ(by_text[0][0], DbValue(int64_t{3}));
}

TEST_P(database, placeholders_out_of_order_and_repeated) {
    script_ok("CREATE TABLE p (a BIGINT, b TEXT, c BIGINT)");
    exec_ok("INSERT INTO p (b, a, c) VALUES ($2, $1, $1)", {int64_t{7}, std::string("seven")});
    exec_ok("INSERT INTO p (c, b, a) VALUES ($3, $2, $1)",
            {int64_t{8}, std::string("eight"), int64_t{80}});
    const auto got =
        rows("SELECT a, b, c FROM p WHERE a = $2 OR c = $1 ORDER BY a", {int64_t{80}, int64_t{7}});
    ASSERT_EQ(got.size(), 2U);
    EXPECT_EQ(got[0], (DbRow{int64_t{7}, std::string("seven"), int64_t{7}}));
    EXPECT_EQ(got[1], (DbRow{int64_t{8}, std::string("eight"), int64_t{80}}));
}

TEST_P(database, wrong_parameter_count_is_misuse) {
    script_ok("CREATE TABLE w (a BIGINT, b BIGINT)");
    auto r = db_->exec("INSERT INTO w VALUES ($1, $2)", std::vector<DbValue>{int64_t{1}});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, DbErrorKind::misuse) << r.error().to_string();
    EXPECT_EQ(count("w"), 0);
}

TEST_P(database, invalid_sql_is_sql_error_with_statement) {
    auto r = db_->query("SELECT * FROM no_such_table", {});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, DbErrorKind::sql);
    EXPECT_NE(r.error().message.find("no_such_table"), std::string::npos) << r.error().message;
    // The connection stays usable after an error.
    EXPECT_EQ(rows("SELECT 1"), (std::vector<DbRow>{{int64_t{1}}}));
}

TEST_P(database, one_statement_per_exec) {
    script_ok("CREATE TABLE o (a BIGINT)");
    auto r = db_->exec("INSERT INTO o VALUES (1); INSERT INTO o VALUES (2)", {});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, DbErrorKind::sql) << r.error().to_string();
    EXPECT_EQ(count("o"), 0);
    exec_ok("INSERT INTO o VALUES (3);");  // a trailing semicolon is fine
    EXPECT_EQ(count("o"), 1);
}

TEST_P(database, constraint_violation_kind) {
    script_ok("CREATE TABLE c (k BIGINT PRIMARY KEY, v TEXT NOT NULL)");
    exec_ok("INSERT INTO c VALUES ($1, $2)", {int64_t{1}, std::string("a")});
    auto dup = db_->exec("INSERT INTO c VALUES ($1, $2)",
                         std::vector<DbValue>{int64_t{1}, std::string("b")});
    ASSERT_FALSE(dup.has_value());
    EXPECT_EQ(dup.error().kind, DbErrorKind::constraint) << dup.error().to_string();
    auto null = db_->exec("INSERT INTO c VALUES ($1, $2)",
                          std::vector<DbValue>{int64_t{2}, std::monostate{}});
    ASSERT_FALSE(null.has_value());
    EXPECT_EQ(null.error().kind, DbErrorKind::constraint) << null.error().to_string();
    EXPECT_EQ(count("c"), 1);
}

TEST_P(database, upsert_on_conflict_runs_on_both) {
    script_ok("CREATE TABLE u (k BIGINT PRIMARY KEY, n BIGINT NOT NULL)");
    for (int i = 0; i < 3; ++i)
        exec_ok("INSERT INTO u (k, n) VALUES ($1, 1) ON CONFLICT (k) DO UPDATE SET n = u.n + 1",
                {int64_t{42}});
    EXPECT_EQ(rows("SELECT n FROM u WHERE k = $1", {int64_t{42}}),
              (std::vector<DbRow>{{int64_t{3}}}));
}

TEST_P(database, rollback_really_discards) {
    script_ok("CREATE TABLE r (k BIGINT PRIMARY KEY)");
    ASSERT_TRUE(db_->begin().has_value());
    EXPECT_TRUE(db_->in_transaction());
    for (int64_t k = 0; k < 10; ++k) exec_ok("INSERT INTO r VALUES ($1)", {k});
    EXPECT_EQ(count("r"), 10);  // visible inside the transaction
    ASSERT_TRUE(db_->rollback().has_value());
    EXPECT_FALSE(db_->in_transaction());
    EXPECT_EQ(count("r"), 0);
    // And a committed transaction stays.
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO r VALUES ($1)", {int64_t{99}});
    ASSERT_TRUE(db_->commit().has_value());
    EXPECT_EQ(count("r"), 1);
}

TEST_P(database, failed_exec_in_transaction_makes_commit_fail_and_stores_nothing) {
    script_ok("CREATE TABLE f (k BIGINT PRIMARY KEY)");
    exec_ok("INSERT INTO f VALUES ($1)", {int64_t{5}});
    ASSERT_TRUE(db_->begin().has_value());
    // On PostgreSQL these are pipelined: the duplicate's error may only surface at commit().
    for (int64_t k = 0; k < 10; ++k)
        (void)db_->exec("INSERT INTO f VALUES ($1)", std::vector<DbValue>{k});
    // Once a statement failed, the transaction is aborted: a query returns that error too.
    auto q = db_->query("SELECT COUNT(*) FROM f");
    ASSERT_FALSE(q.has_value());
    EXPECT_EQ(q.error().kind, DbErrorKind::constraint) << q.error().to_string();
    auto c = db_->commit();
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.error().kind, DbErrorKind::constraint) << c.error().to_string();
    EXPECT_FALSE(db_->in_transaction());
    EXPECT_EQ(count("f"), 1);
    // The connection is usable again and the next transaction commits.
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO f VALUES ($1)", {int64_t{6}});
    ASSERT_TRUE(db_->commit().has_value());
    EXPECT_EQ(count("f"), 2);
}

// copy_in (database.hpp): on PostgreSQL a binary COPY in the middle of a pipelined transaction,
// every value type round-tripping as an INSERT stores it; a key already there fails the copy and
// the transaction, and the connection goes on. SQLite has no such path and says so.
TEST_P(database, copy_in_appends_rows_inside_a_transaction) {
    script_ok("CREATE TABLE c (k BIGINT PRIMARY KEY, i BIGINT, r {{REAL}}, s TEXT, b {{BLOB}})");
    const std::array<std::string_view, 5> columns{"k", "i", "r", "s", "b"};
    Bytes large(300'000);
    for (size_t i = 0; i < large.size(); ++i) large[i] = static_cast<uint8_t>(i * 131 + 7);
    std::vector<DbValue> values{int64_t{1},
                                std::monostate{},
                                std::monostate{},
                                std::monostate{},
                                std::monostate{},
                                int64_t{2},
                                std::numeric_limits<int64_t>::min(),
                                -1.5e300,
                                std::string(),
                                Bytes{},
                                int64_t{3},
                                int64_t{-1},
                                0.1,
                                std::string("h\xc3\xa9llo\ttab\\ nl\n"),
                                large};
    for (int64_t k = 4; k < 3000; ++k) {  // more than one 1 MiB chunk of data
        values.insert(values.end(), {k, k * k, 1.0 / static_cast<double>(k),
                                     std::string(static_cast<size_t>(k % 50), 'x'),
                                     Bytes(static_cast<size_t>(k % 700), 0xab)});
    }
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO c (k) VALUES ($1)", {int64_t{5000}});  // queued in the pipeline
    auto copied = db_->copy_in("c", columns, values);
    if (GetParam() == Dialect::sqlite) {
        ASSERT_FALSE(copied.has_value());
        EXPECT_EQ(copied.error().kind, DbErrorKind::misuse);
        ASSERT_TRUE(db_->rollback().has_value());
        return;
    }
    ASSERT_TRUE(copied.has_value()) << copied.error().to_string();
    exec_ok("INSERT INTO c (k) VALUES ($1)", {int64_t{5001}});  // back in the pipeline
    ASSERT_TRUE(db_->commit().has_value());
    EXPECT_EQ(count("c"), 2999 + 2);
    const auto got = rows("SELECT k, i, r, s, b FROM c WHERE k <= 3 OR k = 2999 ORDER BY k");
    ASSERT_EQ(got.size(), 4U);
    for (size_t r = 0; r < 3; ++r) {
        for (size_t c = 0; c < columns.size(); ++c)
            EXPECT_EQ(got[r][c], values[r * columns.size() + c]) << "row " << r << " column " << c;
    }
    EXPECT_EQ(got[3][1], DbValue(int64_t{2999} * 2999));
    EXPECT_EQ(got[3][4], DbValue(Bytes(2999 % 700, 0xab)));

    // A key already there: the copy fails as a constraint, the transaction with it.
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO c (k) VALUES ($1)", {int64_t{6000}});
    const std::vector<DbValue> twice{
        int64_t{7000}, std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{},
        int64_t{1},    std::monostate{}, std::monostate{}, std::monostate{}, std::monostate{}};
    auto dup = db_->copy_in("c", columns, twice);
    ASSERT_FALSE(dup.has_value());
    EXPECT_EQ(dup.error().kind, DbErrorKind::constraint) << dup.error().to_string();
    EXPECT_FALSE(db_->commit().has_value());
    EXPECT_EQ(count("c"), 2999 + 2);
    // Values that do not fill whole rows are refused before anything is sent.
    auto ragged = db_->copy_in("c", columns, std::span<const DbValue>(values).first(7));
    ASSERT_FALSE(ragged.has_value());
    EXPECT_EQ(ragged.error().kind, DbErrorKind::misuse);
    exec_ok("INSERT INTO c (k) VALUES ($1)", {int64_t{8000}});
    EXPECT_EQ(count("c"), 2999 + 3);
}

// A script as a transaction's last statement (IndexStore::build_secondary_indexes): commit() must
// read COMMIT's result, and the connection stays usable.
TEST_P(database, script_as_the_last_statement_of_a_transaction_commits) {
    script_ok("CREATE TABLE d (k BIGINT PRIMARY KEY, v BIGINT)");
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO d VALUES ($1, $2)", {int64_t{1}, int64_t{2}});
    ASSERT_TRUE(db_->exec_script("CREATE INDEX d_by_v ON d (v)").has_value());
    auto c = db_->commit();
    ASSERT_TRUE(c.has_value()) << c.error().to_string();
    EXPECT_FALSE(db_->in_transaction());
    EXPECT_EQ(count("d"), 1);
    // A script right after begin(), then another transaction on the same connection.
    ASSERT_TRUE(db_->begin().has_value());
    ASSERT_TRUE(db_->exec_script("DROP INDEX d_by_v").has_value());
    c = db_->commit();
    ASSERT_TRUE(c.has_value()) << c.error().to_string();
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO d VALUES ($1, $2)", {int64_t{2}, int64_t{3}});
    ASSERT_TRUE(db_->commit().has_value());
    EXPECT_EQ(count("d"), 2);
}

// The API reads each answer in one snapshot while the indexer commits (Database::begin_read).
TEST_P(database, read_snapshot_ignores_later_commits_of_another_connection) {
    script_ok("CREATE TABLE s (k BIGINT PRIMARY KEY)");
    exec_ok("INSERT INTO s VALUES ($1)", {int64_t{1}});
    auto writer = open_database(location_);
    ASSERT_TRUE(writer.has_value()) << writer.error().to_string();

    ASSERT_TRUE(db_->begin_read().has_value());
    EXPECT_TRUE(db_->in_transaction());
    EXPECT_EQ(count("s"), 1);  // the snapshot starts here at the latest
    // The writer is not blocked by the reader (SQLite: WAL; PostgreSQL: MVCC).
    ASSERT_TRUE((*writer)->begin().has_value());
    const std::vector<DbValue> two{int64_t{2}};
    ASSERT_TRUE((*writer)->exec("INSERT INTO s VALUES ($1)", two).has_value());
    auto committed = (*writer)->commit();
    ASSERT_TRUE(committed.has_value()) << committed.error().to_string();
    EXPECT_EQ(count("s"), 1);  // still the snapshot
    EXPECT_EQ(db_->begin_read().error().kind, DbErrorKind::misuse);
    ASSERT_TRUE(db_->rollback().has_value());
    EXPECT_FALSE(db_->in_transaction());
    EXPECT_EQ(count("s"), 2);
    // The connection writes again afterwards.
    ASSERT_TRUE(db_->begin().has_value());
    exec_ok("INSERT INTO s VALUES ($1)", {int64_t{3}});
    ASSERT_TRUE(db_->commit().has_value());
    EXPECT_EQ(count("s"), 3);
}

TEST_P(database, many_statements_in_one_transaction) {
    script_ok("CREATE TABLE m (k BIGINT PRIMARY KEY, h {{BLOB}}, s TEXT)");
    constexpr int64_t kRows = 20000;
    ASSERT_TRUE(db_->begin().has_value());
    for (int64_t k = 0; k < kRows; ++k) {
        const std::vector<DbValue> params{k, Bytes(32, static_cast<uint8_t>(k)), std::to_string(k)};
        auto r = db_->exec("INSERT INTO m VALUES ($1, $2, $3)", params);
        ASSERT_TRUE(r.has_value()) << r.error().to_string();
    }
    // A query in the middle of a pipelined transaction sees every earlier statement.
    EXPECT_EQ(count("m"), kRows);
    ASSERT_TRUE(db_->commit().has_value());
    EXPECT_EQ(count("m"), kRows);
    EXPECT_EQ(rows("SELECT s FROM m WHERE k = $1", {int64_t{12345}}),
              (std::vector<DbRow>{{std::string("12345")}}));
}

TEST_P(database, error_after_a_pipeline_sync_point_still_fails_commit) {
    script_ok("CREATE TABLE g (k BIGINT PRIMARY KEY)");
    ASSERT_TRUE(db_->begin().has_value());
    // Past PostgreSQL's periodic Sync (every 4096 queued statements), then a duplicate key.
    for (int64_t k = 0; k < 6000; ++k)
        (void)db_->exec("INSERT INTO g VALUES ($1)", std::vector<DbValue>{k % 5000});
    auto c = db_->commit();
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.error().kind, DbErrorKind::constraint) << c.error().to_string();
    EXPECT_NE(c.error().message.find("INSERT INTO g"), std::string::npos) << c.error().message;
    EXPECT_EQ(count("g"), 0);
}

TEST_P(database, transaction_misuse) {
    auto c = db_->commit();
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.error().kind, DbErrorKind::misuse);
    ASSERT_TRUE(db_->begin().has_value());
    auto nested = db_->begin();
    ASSERT_FALSE(nested.has_value());
    EXPECT_EQ(nested.error().kind, DbErrorKind::misuse);
    EXPECT_TRUE(db_->in_transaction());
    EXPECT_TRUE(db_->rollback().has_value());
    EXPECT_FALSE(db_->in_transaction());
}

constexpr Migration kMigrations[] = {
    {1, "items", "CREATE TABLE items (id BIGINT PRIMARY KEY, body {{BLOB}});"},
    {2, "items.score", "ALTER TABLE items ADD COLUMN score {{REAL}};"},
    {3, "tags",
     "CREATE TABLE tags (item BIGINT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (item, tag));"
     "CREATE INDEX tags_by_tag ON tags (tag);"},
};

TEST_P(database, migrate_applies_in_order_and_is_idempotent) {
    auto v = migrate(*db_, std::span(kMigrations).first(2));
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    EXPECT_EQ(*v, 2);
    exec_ok("INSERT INTO items (id, body, score) VALUES ($1, $2, $3)",
            {int64_t{1}, Bytes{1, 2}, 0.5});
    v = migrate(*db_, kMigrations);
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    EXPECT_EQ(*v, 3);
    v = migrate(*db_, kMigrations);  // nothing left to do; nothing re-run
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    EXPECT_EQ(*v, 3);
    EXPECT_EQ(rows("SELECT version, name FROM schema_migrations ORDER BY version"),
              (std::vector<DbRow>{{int64_t{1}, std::string("items")},
                                  {int64_t{2}, std::string("items.score")},
                                  {int64_t{3}, std::string("tags")}}));
    EXPECT_EQ(count("items"), 1);
    exec_ok("INSERT INTO tags VALUES ($1, $2)", {int64_t{1}, std::string("x")});
}

// Processes that migrate one fresh database at once (the indexers of two chains sharing a file),
// here four connections on four threads: each succeeds and every step runs exactly once.
TEST_P(database, concurrent_migrations_apply_each_step_once) {
    std::vector<DbResult<int>> results(4, 0);
    std::vector<std::thread> threads;
    for (auto& result : results) {
        threads.emplace_back([&] {
            auto db = open_database(location_);
            if (!db) {
                result = std::unexpected(db.error());
                return;
            }
            result = migrate(**db, kMigrations);
        });
    }
    for (auto& t : threads) t.join();
    for (const auto& result : results) {
        ASSERT_TRUE(result.has_value()) << result.error().to_string();
        EXPECT_EQ(*result, 3);
    }
    EXPECT_EQ(count("schema_migrations"), 3);
    exec_ok("INSERT INTO tags VALUES ($1, $2)", {int64_t{1}, std::string("x")});
}

TEST_P(database, migrate_refuses_a_newer_database) {
    ASSERT_TRUE(migrate(*db_, kMigrations).has_value());
    auto v = migrate(*db_, std::span(kMigrations).first(2));
    ASSERT_FALSE(v.has_value());
    EXPECT_EQ(v.error().kind, DbErrorKind::migration);
    EXPECT_NE(v.error().message.find("version 3"), std::string::npos) << v.error().message;
}

TEST_P(database, failed_migration_keeps_previous_version) {
    const Migration broken[] = {
        kMigrations[0],
        {2, "broken", "CREATE TABLE half (x BIGINT); CREATE TABLE oops (;"},
    };
    auto v = migrate(*db_, broken);
    ASSERT_FALSE(v.has_value());
    EXPECT_EQ(v.error().kind, DbErrorKind::migration);
    EXPECT_NE(v.error().message.find("broken"), std::string::npos) << v.error().message;
    EXPECT_FALSE(db_->in_transaction());
    EXPECT_EQ(rows("SELECT MAX(version) FROM schema_migrations"),
              (std::vector<DbRow>{{int64_t{1}}}));
    // The half-applied step was rolled back with its transaction.
    EXPECT_FALSE(db_->query("SELECT * FROM half").has_value());
    // A fixed program then upgrades the same database.
    v = migrate(*db_, kMigrations);
    ASSERT_TRUE(v.has_value()) << v.error().to_string();
    EXPECT_EQ(*v, 3);
}

// The exact dump format of database.hpp, byte for byte.
constexpr std::string_view kDumpSchema =
    "CREATE TABLE d1 (k BIGINT, r {{REAL}}, s TEXT, b {{BLOB}});"
    "CREATE TABLE d2 (x TEXT);"
    "CREATE TABLE d3 (y BIGINT);";
const std::vector<std::vector<DbValue>> kDumpRows = {
    {int64_t{2}, 0.1, std::string("b\"\\\n\x01\xc3\xa9"), Bytes{0xde, 0xad}},
    {int64_t{-3}, std::monostate{}, std::string("a"), Bytes{}},
    {std::monostate{}, 1e300, std::string("Z"), std::monostate{}},
    {int64_t{2}, -2.5, std::string("B"), Bytes{0x00}},
    {int64_t{2}, -2.5, std::string("a"), Bytes{0x00}},
};
constexpr std::string_view kDumpText =
    "# d1\n"
    "NULL|1.0000000000000001e+300|\"Z\"|NULL\n"
    "-3|NULL|\"a\"|0x\n"
    "2|-2.5|\"B\"|0x00\n"
    "2|-2.5|\"a\"|0x00\n"
    "2|0.10000000000000001|\"b\\\"\\\\\\n\\u0001\xc3\xa9\"|0xdead\n"
    "# d2\n"
    "\"A\"\n"
    "\"a\"\n"
    "\"b\"\n"
    "# d3\n";

void fill_dump_tables(Database& db) {
    ASSERT_TRUE(db.exec_script(apply_dialect(kDumpSchema, db.dialect())).has_value());
    for (const auto& row : kDumpRows)
        ASSERT_TRUE(db.exec("INSERT INTO d1 VALUES ($1, $2, $3, $4)", row).has_value());
    // Mixed case: a locale collation would put "a" before "B"; the dump must not.
    for (const char* x : {"b", "A", "a"})
        ASSERT_TRUE(db.exec("INSERT INTO d2 VALUES ($1)", std::vector<DbValue>{std::string(x)})
                        .has_value());
}

constexpr std::string_view kDumpTables[] = {"d1", "d2", "d3"};

TEST_P(database, canonical_dump_format) {
    fill_dump_tables(*db_);
    auto dump = canonical_dump(*db_, kDumpTables);
    ASSERT_TRUE(dump.has_value()) << dump.error().to_string();
    EXPECT_EQ(*dump, kDumpText);
    const std::string_view bad[] = {"d1; DROP TABLE d1"};
    auto refused = canonical_dump(*db_, bad);
    ASSERT_FALSE(refused.has_value());
    EXPECT_EQ(refused.error().kind, DbErrorKind::misuse);
}

TEST(database_cross, canonical_dump_identical_on_sqlite_and_postgres) {
    auto url = testing::postgres_test_url();
    ASSERT_TRUE(url.has_value()) << "PostgreSQL test server: " << url.error();
    auto pg = open_database(*url);
    ASSERT_TRUE(pg.has_value()) << pg.error().to_string();
    auto lite = open_database("sqlite:" + fresh_sqlite_path());
    ASSERT_TRUE(lite.has_value()) << lite.error().to_string();
    for (auto* db : {pg->get(), lite->get()}) {
        ASSERT_TRUE(migrate(*db, kMigrations).has_value());
        fill_dump_tables(*db);
        // A larger, pseudo-random body: every byte value, reals, repeated keys.
        ASSERT_TRUE(db->begin().has_value());
        uint64_t x = 0x9e3779b97f4a7c15ULL;
        for (int64_t id = 0; id < 500; ++id) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            Bytes body(static_cast<size_t>(x % 70));
            for (size_t i = 0; i < body.size(); ++i) body[i] = static_cast<uint8_t>(x >> (i % 56));
            const double score = static_cast<double>(x % 100000) / 7.0 - 5000.0;
            const std::vector<DbValue> params{id, body, score};
            ASSERT_TRUE(db->exec("INSERT INTO items (id, body, score) VALUES ($1, $2, $3)", params)
                            .has_value());
            const std::vector<DbValue> tag{id % 37,
                                           std::string(1, static_cast<char>('A' + x % 58))};
            ASSERT_TRUE(db->exec("INSERT INTO tags VALUES ($1, $2) ON CONFLICT DO NOTHING", tag)
                            .has_value());
        }
        ASSERT_TRUE(db->commit().has_value());
    }
    const std::string_view tables[] = {"schema_migrations", "items", "tags", "d1", "d2", "d3"};
    auto a = canonical_dump(**pg, tables);
    auto b = canonical_dump(**lite, tables);
    ASSERT_TRUE(a.has_value()) << a.error().to_string();
    ASSERT_TRUE(b.has_value()) << b.error().to_string();
    EXPECT_GT(a->size(), 10000U);
    EXPECT_EQ(*a, *b);
}

TEST(database_open, sqlite_bad_path_is_open_error) {
    const auto path = (testing::scratch_dir() / "no_such_dir" / "x.sqlite").string();
    auto db = open_database(path);
    ASSERT_FALSE(db.has_value());
    EXPECT_EQ(db.error().kind, DbErrorKind::open);
    EXPECT_NE(db.error().message.find(path), std::string::npos) << db.error().message;
    // A directory is not a database file either.
    auto dir = open_database("sqlite:" + testing::scratch_dir().string());
    ASSERT_FALSE(dir.has_value());
    EXPECT_EQ(dir.error().kind, DbErrorKind::open);
}

TEST(database_open, sqlite_describe_and_reopen) {
    const auto path = fresh_sqlite_path();
    {
        auto db = open_database("sqlite:" + path);
        ASSERT_TRUE(db.has_value()) << db.error().to_string();
        EXPECT_EQ((*db)->describe(), "sqlite:" + path);
        ASSERT_TRUE((*db)->exec_script("CREATE TABLE t (x BIGINT); INSERT INTO t VALUES (1)"));
        // The pragmas of database.hpp are in force.
        auto mode = (*db)->query("PRAGMA journal_mode");
        ASSERT_TRUE(mode.has_value());
        EXPECT_EQ(*mode, (std::vector<DbRow>{{std::string("wal")}}));
        auto fk = (*db)->query("PRAGMA foreign_keys");
        ASSERT_TRUE(fk.has_value());
        EXPECT_EQ(*fk, (std::vector<DbRow>{{int64_t{1}}}));
    }
    auto db = open_database(path);
    ASSERT_TRUE(db.has_value()) << db.error().to_string();
    auto r = (*db)->query("SELECT x FROM t");
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r, (std::vector<DbRow>{{int64_t{1}}}));
}

TEST(database_open, postgres_unreachable_is_open_error) {
    // Port 1 on loopback: nothing listens there (and connecting needs no privileges).
    auto db = open_database("postgresql://postgres@127.0.0.1:1/credence");
    ASSERT_FALSE(db.has_value());
    EXPECT_EQ(db.error().kind, DbErrorKind::open);
    EXPECT_NE(db.error().message.find("127.0.0.1"), std::string::npos) << db.error().message;
    auto bad = open_database("postgresql://[not a url");
    ASSERT_FALSE(bad.has_value());
    EXPECT_EQ(bad.error().kind, DbErrorKind::open);
}

TEST(database_open, read_only_sqlite_needs_an_existing_file) {
    const std::string path = fresh_sqlite_path();
    auto db = open_database(path, OpenMode::read_only);
    ASSERT_FALSE(db);
    EXPECT_EQ(db.error().kind, DbErrorKind::open);
    EXPECT_EQ(db.error().message,
              "no database at " + path + ": a writer creates it, a reader only opens it");
    EXPECT_FALSE(std::filesystem::exists(path));
}

int64_t backend_pid(Database& db) {
    auto r = db.query("SELECT pg_backend_pid()");
    if (!r || r->size() != 1 || !std::holds_alternative<int64_t>((*r)[0][0])) return -1;
    return std::get<int64_t>((*r)[0][0]);
}

bool terminate_backend(Database& admin, int64_t pid) {
    auto r = admin.query("SELECT pg_terminate_backend($1)", std::vector<DbValue>{pid});
    return r.has_value() && r->size() == 1 && (*r)[0][0] == DbValue(int64_t{1});
}

TEST(database_postgres, lost_connection_is_connection_error) {
    CREDENCE_POSTGRES_URL(url);
    auto victim = open_database(url);
    auto admin = open_database(url);
    ASSERT_TRUE(victim.has_value() && admin.has_value());
    EXPECT_EQ((*victim)->describe().rfind("postgresql://postgres@127.0.0.1:", 0), 0U)
        << (*victim)->describe();
    const int64_t pid = backend_pid(**victim);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(terminate_backend(**admin, pid));
    auto r = (*victim)->query("SELECT 1");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().kind, DbErrorKind::connection) << r.error().to_string();
    // Every later call says the same, without hanging or crashing.
    auto b = (*victim)->begin();
    ASSERT_FALSE(b.has_value());
    EXPECT_EQ(b.error().kind, DbErrorKind::connection);
    EXPECT_FALSE((*victim)->in_transaction());
}

TEST(database_postgres, connection_lost_mid_pipeline_fails_commit) {
    CREDENCE_POSTGRES_URL(url);
    auto victim = open_database(url);
    auto admin = open_database(url);
    ASSERT_TRUE(victim.has_value() && admin.has_value());
    Database& db = **victim;
    ASSERT_TRUE(db.exec_script("CREATE TABLE k (x BIGINT PRIMARY KEY)").has_value());
    const int64_t pid = backend_pid(db);
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(db.begin().has_value());
    for (int64_t x = 0; x < 100; ++x)
        ASSERT_TRUE(db.exec("INSERT INTO k VALUES ($1)", std::vector<DbValue>{x}).has_value());
    ASSERT_TRUE(terminate_backend(**admin, pid));
    for (int64_t x = 100; x < 200; ++x)
        (void)db.exec("INSERT INTO k VALUES ($1)", std::vector<DbValue>{x});
    auto c = db.commit();
    ASSERT_FALSE(c.has_value());
    EXPECT_EQ(c.error().kind, DbErrorKind::connection) << c.error().to_string();
    EXPECT_FALSE(db.in_transaction());
    auto n = (*admin)->query("SELECT COUNT(*) FROM k");
    ASSERT_TRUE(n.has_value());
    EXPECT_EQ(*n, (std::vector<DbRow>{{int64_t{0}}}));
}

TEST(database_postgres, parameters_follow_the_inferred_types) {
    CREDENCE_POSTGRES_URL(url);
    auto db = open_database(url);
    ASSERT_TRUE(db.has_value());
    ASSERT_TRUE((*db)
                    ->exec_script("CREATE TABLE n (a INTEGER, b SMALLINT, c REAL, d NUMERIC, "
                                  "e BOOLEAN, f VARCHAR(10))")
                    .has_value());
    // int4/int2/float4/numeric/bool columns: encoded per the described parameter types.
    auto ins = (*db)->exec("INSERT INTO n VALUES ($1, $2, $3, $4, $5, $6)",
                           std::vector<DbValue>{int64_t{-7}, int64_t{300}, 0.5, int64_t{12345},
                                                int64_t{1}, std::string("v")});
    ASSERT_TRUE(ins.has_value()) << ins.error().to_string();
    auto got = (*db)->query("SELECT a, b, c, d, e, f, SUM(a) OVER () FROM n");
    ASSERT_TRUE(got.has_value()) << got.error().to_string();
    EXPECT_EQ(*got, (std::vector<DbRow>{{int64_t{-7}, int64_t{300}, 0.5, int64_t{12345}, int64_t{1},
                                         std::string("v"), int64_t{-7}}}));
    // Out of range for the column type: an error, not a silent wrap.
    auto big = (*db)->exec("INSERT INTO n (a) VALUES ($1)", std::vector<DbValue>{int64_t{1} << 40});
    ASSERT_FALSE(big.has_value());
    EXPECT_EQ(big.error().kind, DbErrorKind::sql) << big.error().to_string();
}

TEST(database_misc, apply_dialect_and_error_names) {
    EXPECT_EQ(apply_dialect("a {{BLOB}}, b {{REAL}}, c '{{x}}'", Dialect::sqlite),
              "a BLOB, b REAL, c '{{x}}'");
    EXPECT_EQ(apply_dialect("a {{BLOB}}, b {{REAL}}", Dialect::postgres),
              "a BYTEA, b DOUBLE PRECISION");
    EXPECT_EQ(apply_dialect("{{INSTR}}(x, ',')", Dialect::sqlite), "instr(x, ',')");
    EXPECT_EQ(apply_dialect("{{INSTR}}(x, ',')", Dialect::postgres), "strpos(x, ',')");
    EXPECT_EQ(to_string(DbErrorKind::constraint), "constraint");
    EXPECT_EQ((DbError{DbErrorKind::busy, "locked"}).to_string(), "database busy error: locked");
}

}  // namespace
}  // namespace credence::index
