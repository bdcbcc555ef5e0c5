// WalCheckpointer on real SQLite files: checkpoints leave the writer's thread, the log stays
// bounded, a reader's snapshot stalls nothing, and the data is complete after close.
#include <credence/index/wal_checkpointer.hpp>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include <support/scratch.hpp>

namespace credence::index {
namespace {

namespace fs = std::filesystem;

constexpr int kPageSize = 4096;
constexpr WalCheckpointer::Limits kLimits{.request_pages = 8, .max_pages = 64};
constexpr int kRowsPerCommit = 20;  // 20 rows of 1,000 bytes: about 6 pages per commit

std::string fresh_path() {
    static std::atomic<int> counter{0};
    const fs::path p = testing::scratch_dir() / ("wal_" + std::to_string(counter++) + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(p.string() + suffix);
    return p.string();
}

sqlite3* open_file(const std::string& path) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    return db;
}

void exec(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err);
    EXPECT_EQ(rc, SQLITE_OK) << (err != nullptr ? err : "") << " [" << sql << "]";
    sqlite3_free(err);
}

int64_t count_rows(sqlite3* db) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &stmt, nullptr), SQLITE_OK);
    EXPECT_EQ(sqlite3_step(stmt), SQLITE_ROW);
    const int64_t n = sqlite3_column_int64(stmt, 0);
    sqlite3_finalize(stmt);
    return n;
}

// The writer as the SQLite backend sets it up: WAL, synchronous=NORMAL, SQLite's own automatic
// checkpoint replaced by the checkpointer's hook.
sqlite3* open_writer(const std::string& path) {
    sqlite3* db = open_file(path);
    exec(db, "PRAGMA page_size=" + std::to_string(kPageSize));
    exec(db, "PRAGMA journal_mode=WAL");
    exec(db, "PRAGMA synchronous=NORMAL");
    exec(db, "CREATE TABLE t (k INTEGER PRIMARY KEY, v BLOB NOT NULL)");
    return db;
}

void commit_rows(sqlite3* db, int commit) {
    exec(db, "BEGIN IMMEDIATE");
    for (int r = 0; r < kRowsPerCommit; ++r) {
        exec(db, "INSERT INTO t (k, v) VALUES (" + std::to_string(commit * kRowsPerCommit + r) +
                     ", randomblob(1000))");
    }
    exec(db, "COMMIT");
}

uintmax_t wal_bytes(const std::string& path) {
    std::error_code ec;
    const uintmax_t n = fs::file_size(path + "-wal", ec);
    return ec ? 0 : n;
}

// A frame is a 24-byte header and a page; the log's own header is 32 bytes (SQLite file format
// §4.1). Past max_pages the log restarts, so it never holds much more than max_pages plus the
// frames of the commits that run while the last checkpoint finishes.
constexpr uintmax_t kWalBound = 32 + (kLimits.max_pages + 4 * 8) * uintmax_t{kPageSize + 24};

// The writer with a checkpointer attached, as SqliteDatabase holds them. Destroyed in the
// backend's order: the hook goes, the checkpointer stops, then the writer closes, as the last
// connection (which checkpoints the rest and removes the log).
struct CheckedWriter {
    explicit CheckedWriter(const std::string& path)
        : db(open_writer(path)), checkpointer(std::make_unique<WalCheckpointer>(path, kLimits)) {
        checkpointer->attach(db);
    }
    ~CheckedWriter() {
        sqlite3_wal_hook(db, nullptr, nullptr);
        checkpointer.reset();
        sqlite3_close_v2(db);
    }
    CheckedWriter(const CheckedWriter&) = delete;
    CheckedWriter& operator=(const CheckedWriter&) = delete;

    sqlite3* db;
    std::unique_ptr<WalCheckpointer> checkpointer;
};

TEST(index_wal_checkpointer, checkpoints_run_in_the_background_and_the_log_stays_bounded) {
    const std::string path = fresh_path();
    CheckedWriter writer(path);
    uintmax_t largest = 0;
    for (int c = 0; c < 300; ++c) {
        commit_rows(writer.db, c);
        largest = std::max(largest, wal_bytes(path));
    }
    EXPECT_GT(writer.checkpointer->background_runs(), 0);
    EXPECT_LE(largest, kWalBound);
    // 300 commits of about 6 frames each: an unchecked log would hold 1,800 frames.
    EXPECT_LT(largest, uintmax_t{600} * (kPageSize + 24));
    sqlite3* reader = open_file(path);
    EXPECT_EQ(count_rows(reader), 300 * kRowsPerCommit);
    sqlite3_close_v2(reader);
}

TEST(index_wal_checkpointer, a_reader_snapshot_holds_frames_back_but_stalls_no_commit) {
    const std::string path = fresh_path();
    CheckedWriter writer(path);
    commit_rows(writer.db, 0);

    // A read transaction keeps its snapshot: checkpoints cannot copy past it, so the log grows
    // past max_pages, yet every commit returns (PASSIVE checkpoints never wait).
    sqlite3* reader = open_file(path);
    exec(reader, "BEGIN");
    EXPECT_EQ(count_rows(reader), kRowsPerCommit);
    for (int c = 1; c < 100; ++c) commit_rows(writer.db, c);
    EXPECT_EQ(count_rows(reader), kRowsPerCommit);  // still the old snapshot
    EXPECT_GT(wal_bytes(path), kWalBound);
    EXPECT_GT(writer.checkpointer->writer_runs(), 0);
    exec(reader, "COMMIT");

    // Released: the next checkpoints catch up, the log restarts and stops growing.
    for (int c = 100; c < 110; ++c) commit_rows(writer.db, c);
    const uintmax_t held = wal_bytes(path);
    for (int c = 110; c < 300; ++c) commit_rows(writer.db, c);
    EXPECT_EQ(wal_bytes(path), held);
    EXPECT_EQ(count_rows(reader), 300 * kRowsPerCommit);
    sqlite3_close_v2(reader);
}

TEST(index_wal_checkpointer, closing_leaves_every_commit_in_the_database_file) {
    const std::string path = fresh_path();
    {
        CheckedWriter writer(path);
        for (int c = 0; c < 50; ++c) commit_rows(writer.db, c);
    }
    EXPECT_FALSE(fs::exists(path + "-wal"));
    sqlite3* reader = open_file(path);
    EXPECT_EQ(count_rows(reader), 50 * kRowsPerCommit);
    sqlite3_stmt* check = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(reader, "PRAGMA integrity_check", -1, &check, nullptr), SQLITE_OK);
    ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
    EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
    sqlite3_finalize(check);
    sqlite3_close_v2(reader);
}

// SIGKILL while checkpoints run on the other thread (docs/architecture.md §index/): a writer
// process commits without pause, with checkpoints every few commits, and dies at random moments.
// Every commit it reported is in the file, no commit is there in part, and the file passes SQLite's
// integrity check.
TEST(index_wal_checkpointer, sigkill_during_background_checkpoints_loses_no_commit) {
    const std::string path = fresh_path();
    {
        CheckedWriter create(path);
    }  // the table, and a complete file to start from
    std::mt19937 rng(8004);
    int64_t reported = -1;  // the last commit a writer said was done
    for (int life = 0; life < 12; ++life) {
        int fds[2];
        ASSERT_EQ(::pipe(fds), 0);
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::close(fds[0]);
            sqlite3* db = open_file(path);
            WalCheckpointer checkpointer(path, kLimits);
            checkpointer.attach(db);
            for (int c = static_cast<int>(reported + 1);; ++c) {
                commit_rows(db, c);
                if (::write(fds[1], &c, sizeof c) != sizeof c) ::_exit(2);
            }
        }
        ::close(fds[1]);
        // Killed after a random number of further commits rather than a random time, so a
        // loaded machine still makes progress; the kill lands while the next commit and the
        // background checkpoints run.
        const int64_t target = reported + std::uniform_int_distribution<int>(5, 30)(rng);
        int c = 0;
        while (reported < target && ::read(fds[0], &c, sizeof c) == sizeof c)
            reported = std::max<int64_t>(reported, c);
        ::kill(pid, SIGKILL);
        int status = 0;
        ::waitpid(pid, &status, 0);
        ASSERT_TRUE(WIFSIGNALED(status)) << status;
        while (::read(fds[0], &c, sizeof c) == sizeof c) reported = std::max<int64_t>(reported, c);
        ::close(fds[0]);

        sqlite3* reader = open_file(path);
        const int64_t rows = count_rows(reader);
        EXPECT_EQ(rows % kRowsPerCommit, 0) << "a commit is there in part, life " << life;
        EXPECT_GE(rows, (reported + 1) * kRowsPerCommit) << "a reported commit is lost";
        reported = rows / kRowsPerCommit - 1;  // the next life goes on from what is there
        sqlite3_stmt* check = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(reader, "PRAGMA integrity_check", -1, &check, nullptr),
                  SQLITE_OK);
        ASSERT_EQ(sqlite3_step(check), SQLITE_ROW);
        EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(check, 0)), "ok");
        sqlite3_finalize(check);
        sqlite3_close_v2(reader);
    }
    EXPECT_GT(reported, 100) << "the writers hardly committed";
}

}  // namespace
}  // namespace credence::index
