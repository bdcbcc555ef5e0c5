// The SQLite backend of database.hpp, over the sqlite3 C API (docs/architecture.md §index/: "SQLite
// (WAL) is the embedded default: one file under the data directory").
//
// Placeholders: SQLite reads "$1" as a *named* parameter, so parameter numbers are resolved with
// sqlite3_bind_parameter_index() once per prepared statement; "$2 ... $1 ... $2" binds correctly.
// Transactions: BEGIN IMMEDIATE takes the write lock up front (the busy handler then waits for it,
// instead of failing on a read-to-write upgrade). To give callers the same semantics as the
// PostgreSQL backend (where any failed statement aborts the transaction), a failed statement
// inside a transaction poisons it: commit() then fails with that error and rolls back.
#include <sqlite3.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <credence/index/database.hpp>
#include <credence/index/detail/sql_text.hpp>
#include <credence/index/wal_checkpointer.hpp>

namespace credence::index {

namespace {

constexpr int kBusyTimeoutMs = 5000;

using detail::first_words;

DbErrorKind kind_of(int rc) {
    switch (rc & 0xff) {
        case SQLITE_CONSTRAINT:
            return DbErrorKind::constraint;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return DbErrorKind::busy;
        case SQLITE_MISUSE:
            return DbErrorKind::misuse;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            return DbErrorKind::corrupt;
        default:
            return DbErrorKind::sql;
    }
}

struct CachedStatement {
    sqlite3_stmt* stmt = nullptr;
    std::vector<int> slots;  // slots[i] = SQLite's index of parameter "$<i+1>"
};

class SqliteDatabase final : public Database {
public:
    SqliteDatabase(sqlite3* db, std::filesystem::path path) : db_(db), path_(std::move(path)) {}
    ~SqliteDatabase() override {
        for (auto& [sql, cached] : cache_) sqlite3_finalize(cached.stmt);
        sqlite3_wal_hook(db_, nullptr, nullptr);
        checkpointer_.reset();  // before the writer closes: its last checkpoint ends the log
        sqlite3_close_v2(db_);
    }
    SqliteDatabase(const SqliteDatabase&) = delete;
    SqliteDatabase& operator=(const SqliteDatabase&) = delete;

    [[nodiscard]] Dialect dialect() const noexcept override { return Dialect::sqlite; }
    [[nodiscard]] std::string describe() const override { return "sqlite:" + path_.string(); }

    DbResult<void> begin() override {
        if (in_tx_) return misuse("begin() inside a transaction");
        if (auto r = raw_exec("BEGIN IMMEDIATE"); !r) return r;
        in_tx_ = true;
        tx_error_.reset();
        return {};
    }

    DbResult<void> begin_read() override {
        if (in_tx_) return misuse("begin_read() inside a transaction");
        // A cached prepared statement: an API answer opens one per request.
        if (auto r = run("BEGIN DEFERRED", {}, nullptr); !r) return std::unexpected(r.error());
        in_tx_ = true;
        tx_error_.reset();
        return {};
    }

    DbResult<void> commit() override {
        if (!in_tx_) return misuse("commit() without begin()");
        if (tx_error_) {
            DbError e = std::move(*tx_error_);
            ignore_failure(rollback());
            return std::unexpected(std::move(e));
        }
        if (auto r = raw_exec("COMMIT"); !r) {
            // A commit that failed (e.g. busy) must not leave the transaction open (database.hpp).
            ignore_failure(rollback());
            return r;
        }
        in_tx_ = false;
        return {};
    }

    DbResult<void> rollback() override {
        tx_error_.reset();
        if (!in_tx_) return {};
        in_tx_ = false;
        if (sqlite3_get_autocommit(db_) != 0) return {};  // SQLite already rolled back
        // A cached prepared statement: every API answer ends its read snapshot here.
        auto r = run("ROLLBACK", {}, nullptr);
        if (!r) return std::unexpected(r.error());
        return {};
    }

    [[nodiscard]] bool in_transaction() const noexcept override { return in_tx_; }
    void interrupt() noexcept override { sqlite3_interrupt(db_); }

    DbResult<void> exec(std::string_view sql, std::span<const DbValue> params) override {
        auto r = run(sql, params, nullptr);
        if (!r) return std::unexpected(r.error());
        return {};
    }

    DbResult<std::vector<DbRow>> query(std::string_view sql,
                                       std::span<const DbValue> params) override {
        std::vector<DbRow> rows;
        auto r = run(sql, params, &rows);
        if (!r) return std::unexpected(r.error());
        return rows;
    }

    DbResult<void> exec_script(std::string_view sql) override {
        const std::string text(sql);
        char* err = nullptr;
        const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
        if (rc == SQLITE_OK) return {};
        std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        return fail(DbError{kind_of(rc), fmt::format("{} [{}]", msg, first_words(sql))});
    }

    DbResult<void> configure() {
        sqlite3_extended_result_codes(db_, 1);
        sqlite3_busy_timeout(db_, kBusyTimeoutMs);
        // journal_mode returns the mode actually set: a read-only medium would silently keep the
        // rollback journal, which the crash-safety argument does not cover.
        // 32 KiB pages (a new file only; an existing one keeps its size): raw logs are large rows,
        // and bigger pages mean fewer B-tree splits and WAL frames per batch (measured: 19k ->
        // 32k events/s on a 200k-event sync against 4 KiB pages; docs/benchmarks.md).
        if (auto r = exec_script("PRAGMA page_size=32768"); !r) return r;
        // Switching needs an exclusive lock, and SQLite answers SQLITE_BUSY at once rather than
        // call the busy handler when another connection holds a write lock (deadlock avoidance):
        // two processes opening one new file (two chains' indexers) meet here. Retry within the
        // busy timeout.
        auto mode = query("PRAGMA journal_mode=WAL", {});
        for (int waited = 0;
             !mode && mode.error().kind == DbErrorKind::busy && waited < kBusyTimeoutMs;
             waited += 10) {
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
            mode = query("PRAGMA journal_mode=WAL", {});
        }
        if (!mode) return std::unexpected(mode.error());
        const auto* m = mode->empty() || mode->front().empty()
                            ? nullptr
                            : std::get_if<std::string>(&mode->front()[0]);
        if (m == nullptr || *m != "wal")
            return std::unexpected(DbError{DbErrorKind::open, "cannot switch to WAL mode"});
        // WAL + NORMAL: a crash loses at most the last commits, never consistency (SQLite docs,
        // "Write-Ahead Logging"); the indexer's cursor is in the same transaction as its data.
        if (auto r = exec_script("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON"); !r) return r;
        // Throughput (docs/benchmarks.md): the default 2 MiB page cache sends nearly every
        // B-tree page of a batch through the kernel. A 64 MiB cache keeps the work in memory.
        // No mmap: mapped pages count in the resident set, which must stay under 300 MB. Temporary
        // files on disk (the OS caches them): a CREATE INDEX sorts every row, and in memory that
        // sort alone would take more than the page cache. PRAGMA threads: one helper thread for
        // such a sort.
        if (auto r = exec_script(fmt::format("PRAGMA cache_size=-{}; PRAGMA mmap_size=0; "
                                             "PRAGMA temp_store=FILE; PRAGMA threads=1",
                                             kSqliteCacheKib));
            !r) {
            return r;
        }
        // Checkpoints on a thread of their own, every 4,096 pages (128 MiB at 32 KiB pages)
        // instead of the default 1,000 (wal_checkpointer.hpp); no durability guarantee changes.
        checkpointer_ = std::make_unique<WalCheckpointer>(path_, WalCheckpointer::Limits{});
        checkpointer_->attach(db_);
        return {};
    }

private:
    DbResult<void> misuse(std::string msg) {
        return std::unexpected(DbError{DbErrorKind::misuse, std::move(msg)});
    }

    // Records a failure inside a transaction so that commit() refuses (see the file comment).
    std::unexpected<DbError> fail(DbError e) {
        if (in_tx_ && !tx_error_) tx_error_ = e;
        return std::unexpected(std::move(e));
    }

    DbError error_here(int rc, std::string_view sql) const {
        return DbError{kind_of(rc), fmt::format("{} [{}]", sqlite3_errmsg(db_), first_words(sql))};
    }

    DbResult<void> raw_exec(const char* sql) {
        char* err = nullptr;
        const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
        if (rc == SQLITE_OK) return {};
        std::string msg = err != nullptr ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        return std::unexpected(DbError{kind_of(rc), fmt::format("{} [{}]", msg, sql)});
    }

    DbResult<CachedStatement*> prepare(std::string_view sql) {
        if (auto it = cache_.find(sql); it != cache_.end()) return &it->second;
        sqlite3_stmt* stmt = nullptr;
        const char* tail = nullptr;
        const int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                                          SQLITE_PREPARE_PERSISTENT, &stmt, &tail);
        if (rc != SQLITE_OK) return fail(error_here(rc, sql));
        if (stmt == nullptr)
            return fail(DbError{DbErrorKind::misuse, fmt::format("empty statement [{}]", sql)});
        // sqlite3_prepare compiles the first statement only; PostgreSQL refuses several in a
        // prepared statement, and so does this backend instead of ignoring the rest.
        const std::string_view rest(tail, static_cast<size_t>(sql.data() + sql.size() - tail));
        if (rest.find_first_not_of(" \t\r\n;") != std::string_view::npos) {
            sqlite3_finalize(stmt);
            return fail(DbError{DbErrorKind::sql, fmt::format("several statements given to exec() "
                                                              "or query() [{}]",
                                                              first_words(sql))});
        }
        CachedStatement cached{stmt, {}};
        const int count = sqlite3_bind_parameter_count(stmt);
        for (int i = 1; i <= count; ++i) {
            const std::string name = "$" + std::to_string(i);
            const int slot = sqlite3_bind_parameter_index(stmt, name.c_str());
            if (slot == 0) {
                sqlite3_finalize(stmt);
                // database.hpp: numbering starts at $1 and each number is used at least once.
                return fail(DbError{DbErrorKind::misuse, fmt::format("parameter {} missing [{}]",
                                                                     name, first_words(sql))});
            }
            cached.slots.push_back(slot);
        }
        auto [it, inserted] = cache_.emplace(std::string(sql), std::move(cached));
        return &it->second;
    }

    DbResult<void> bind(const CachedStatement& cached, std::span<const DbValue> params,
                        std::string_view sql) {
        if (params.size() != cached.slots.size())
            return fail(DbError{DbErrorKind::misuse,
                                fmt::format("{} parameters given, statement takes {} [{}]",
                                            params.size(), cached.slots.size(), first_words(sql))});
        for (size_t i = 0; i < params.size(); ++i) {
            const int slot = cached.slots[i];
            const auto& v = params[i];
            int rc = SQLITE_OK;
            // SQLITE_STATIC: the values outlive the statement's execution (reset before return).
            if (std::holds_alternative<std::monostate>(v)) {
                rc = sqlite3_bind_null(cached.stmt, slot);
            } else if (const auto* n = std::get_if<int64_t>(&v)) {
                rc = sqlite3_bind_int64(cached.stmt, slot, *n);
            } else if (const auto* d = std::get_if<double>(&v)) {
                rc = sqlite3_bind_double(cached.stmt, slot, *d);
            } else if (const auto* s = std::get_if<std::string>(&v)) {
                rc = sqlite3_bind_text64(cached.stmt, slot, s->data(), s->size(), SQLITE_STATIC,
                                         SQLITE_UTF8);
            } else if (const auto* b = std::get_if<core::Bytes>(&v)) {
                // A zero-length blob with a null pointer would bind NULL: use zeroblob(0).
                rc = b->empty() ? sqlite3_bind_zeroblob(cached.stmt, slot, 0)
                                : sqlite3_bind_blob64(cached.stmt, slot, b->data(), b->size(),
                                                      SQLITE_STATIC);
            }
            if (rc != SQLITE_OK) return fail(error_here(rc, sql));
        }
        return {};
    }

    static DbValue column(sqlite3_stmt* stmt, int i) {
        switch (sqlite3_column_type(stmt, i)) {
            case SQLITE_INTEGER:
                return int64_t{sqlite3_column_int64(stmt, i)};
            case SQLITE_FLOAT:
                return sqlite3_column_double(stmt, i);
            case SQLITE_TEXT: {
                const auto* p = sqlite3_column_text(stmt, i);
                const auto n = static_cast<size_t>(sqlite3_column_bytes(stmt, i));
                return p == nullptr ? std::string()
                                    : std::string(reinterpret_cast<const char*>(p), n);
            }
            case SQLITE_BLOB: {
                const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt, i));
                const auto n = static_cast<size_t>(sqlite3_column_bytes(stmt, i));
                return p == nullptr ? core::Bytes() : core::Bytes(p, p + n);
            }
            default:
                return std::monostate{};
        }
    }

    DbResult<void> run(std::string_view sql, std::span<const DbValue> params,
                       std::vector<DbRow>* rows) {
        // Like PostgreSQL's aborted transaction: nothing runs until rollback().
        if (in_tx_ && tx_error_) return std::unexpected(*tx_error_);
        auto cached = prepare(sql);
        if (!cached) return std::unexpected(cached.error());
        sqlite3_stmt* stmt = (*cached)->stmt;
        struct Reset {
            sqlite3_stmt* s;
            ~Reset() {
                sqlite3_reset(s);
                sqlite3_clear_bindings(s);
            }
        } reset{stmt};
        if (auto r = bind(**cached, params, sql); !r) return r;
        const int ncols = sqlite3_column_count(stmt);
        for (;;) {
            const int rc = sqlite3_step(stmt);
            if (rc == SQLITE_DONE) return {};
            if (rc != SQLITE_ROW) return fail(error_here(rc, sql));
            if (rows == nullptr) continue;
            DbRow row;
            row.reserve(static_cast<size_t>(ncols));
            for (int i = 0; i < ncols; ++i) row.push_back(column(stmt, i));
            rows->push_back(std::move(row));
        }
    }

    sqlite3* db_;
    std::filesystem::path path_;
    std::unique_ptr<WalCheckpointer> checkpointer_;  // attached by configure()
    std::unordered_map<std::string, CachedStatement, detail::StringHash, std::equal_to<>> cache_;
    bool in_tx_ = false;
    std::optional<DbError> tx_error_;
};

}  // namespace

DbResult<std::unique_ptr<Database>> open_sqlite(const std::filesystem::path& path) {
    sqlite3* db = nullptr;
    const int rc =
        sqlite3_open_v2(path.c_str(), &db,
                        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
        sqlite3_close_v2(db);
        return std::unexpected(
            DbError{DbErrorKind::open, fmt::format("cannot open {}: {}", path.string(), msg)});
    }
    auto out = std::make_unique<SqliteDatabase>(db, path);
    if (auto r = out->configure(); !r) {
        // A damaged file stays "corrupt", so that the caller can say what to do about it.
        const DbErrorKind kind =
            r.error().kind == DbErrorKind::corrupt ? DbErrorKind::corrupt : DbErrorKind::open;
        return std::unexpected(
            DbError{kind, fmt::format("cannot open {}: {}", path.string(), r.error().message)});
    }
    return out;
}

}  // namespace credence::index
