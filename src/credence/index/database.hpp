// A small SQL database interface with two backends: SQLite (the embedded default, WAL, one file)
// and PostgreSQL (selected by a connection URL, for scale). The indexer's store, its tests and the
// canonical dump all speak through it, so the same schema and the same queries run on both.
//
// SQL dialect rules for callers (so one text runs on both backends):
//   - placeholders are $1, $2, ... (SQLite accepts them as named parameters; numbering must start
//     at $1 and each number be used at least once);
//   - column types come from the schema tokens in apply_dialect(): {{BLOB}} (BLOB / BYTEA),
//     {{REAL}} (REAL / DOUBLE PRECISION); integers are BIGINT, strings TEXT, booleans BIGINT 0/1;
//   - {{INSTR}}(text, part) is the 1-based position of part in text, 0 when absent (SQLite
//     instr, PostgreSQL strpos; the only function the two spell differently that we need);
//   - upserts use INSERT ... ON CONFLICT (...) DO UPDATE/NOTHING (both support it).
//
// Transactions: begin() / commit() / rollback(). On PostgreSQL, exec() inside a transaction may be
// pipelined (libpq pipeline mode): its error then surfaces at the latest at the next query() or at
// commit(), which fails and leaves the transaction rolled back. A failed commit() never leaves a
// partial transaction behind (the indexer relies on this: a batch commits whole or not at all).
//
// Errors: every call returns DbResult; nothing throws. Statements are prepared once per distinct
// SQL text and cached for the connection's lifetime.
// Thread-safety: one Database per thread; not thread-safe. Ownership: owns its connection.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <credence/core/bytes.hpp>

namespace credence::index {

enum class DbErrorKind {
    open,        // cannot open the file / connect to the server
    sql,         // the statement is invalid (syntax, unknown table) or failed
    constraint,  // a UNIQUE / PRIMARY KEY / NOT NULL constraint was violated
    busy,        // locked by another process past the busy timeout
    connection,  // the server connection was lost
    migration,   // a migration failed or the database is newer than this program
    misuse,      // wrong call order (commit without begin, nested begin, ...)
    corrupt,     // the file or a page is damaged (SQLite CORRUPT / NOTADB, PostgreSQL XX001/XX002)
};

[[nodiscard]] std::string_view to_string(DbErrorKind kind) noexcept;

struct DbError {
    DbErrorKind kind = DbErrorKind::sql;
    std::string message;  // one line: the backend's message, with the statement's first words

    [[nodiscard]] std::string to_string() const;
};

template <typename T>
using DbResult = std::expected<T, DbError>;

/// Drops the outcome of a best-effort step (a ROLLBACK or cleanup on an error path, a write whose
/// failure the next pass retries): the error that matters is reported by the caller.
inline void ignore_failure(const DbResult<void>& /*outcome*/) noexcept {}

/// NULL, INTEGER, REAL, TEXT or BLOB. Reads return the same alternatives: a BIGINT column comes
/// back as int64_t, {{REAL}} as double, TEXT as std::string, {{BLOB}} as core::Bytes.
using DbValue = std::variant<std::monostate, int64_t, double, std::string, core::Bytes>;
using DbRow = std::vector<DbValue>;

enum class Dialect { sqlite, postgres };

/// Replaces the schema tokens ({{BLOB}}, {{REAL}}, {{INSTR}}) for `dialect`.
[[nodiscard]] std::string apply_dialect(std::string_view sql, Dialect dialect);

class Database {
public:
    virtual ~Database() = default;

    [[nodiscard]] virtual Dialect dialect() const noexcept = 0;
    /// "sqlite:/path/to/file" or "postgresql://user@host:port/db" (password elided).
    [[nodiscard]] virtual std::string describe() const = 0;

    [[nodiscard]] virtual DbResult<void> begin() = 0;
    /// A snapshot for reading: every query until rollback() sees one state of the database while
    /// other connections commit, and no writer waits for it (SQLite: BEGIN DEFERRED, a WAL reader;
    /// PostgreSQL: REPEATABLE READ, READ ONLY, pipelined like begin()). End it with rollback().
    [[nodiscard]] virtual DbResult<void> begin_read() = 0;
    [[nodiscard]] virtual DbResult<void> commit() = 0;
    /// Always leaves no transaction open, even when it fails.
    [[nodiscard]] virtual DbResult<void> rollback() = 0;
    [[nodiscard]] virtual bool in_transaction() const noexcept = 0;

    /// A statement that returns no rows (INSERT/UPDATE/DELETE). May be pipelined (see above).
    [[nodiscard]] virtual DbResult<void> exec(std::string_view sql,
                                              std::span<const DbValue> params = {}) = 0;
    /// A statement that returns rows, in the order the SQL asks for.
    [[nodiscard]] virtual DbResult<std::vector<DbRow>> query(
        std::string_view sql, std::span<const DbValue> params = {}) = 0;
    /// Several statements without parameters (DDL, migrations). Schema tokens already applied.
    [[nodiscard]] virtual DbResult<void> exec_script(std::string_view sql) = 0;
    /// Appends rows to `table` by the fastest path the backend has (PostgreSQL: COPY ... FROM
    /// STDIN in binary format, no statement per row); `values` holds the rows one after another,
    /// columns.size() values each, typed as the columns are (int64_t for BIGINT, core::Bytes for
    /// {{BLOB}}, std::string for TEXT, double for {{REAL}}, monostate for NULL). Rows, not
    /// upserts: a key already there fails the call (and the transaction). SQLite has no such path
    /// and answers misuse (its inserts are statements already prepared, in process).
    [[nodiscard]] virtual DbResult<void> copy_in(std::string_view table,
                                                 std::span<const std::string_view> columns,
                                                 std::span<const DbValue> values);
    /// Makes the statement running on this connection fail soon (SQLite: sqlite3_interrupt).
    /// The one member that may be called from another thread; a no-op where unsupported.
    virtual void interrupt() noexcept {}
};

/// The page cache of a SQLite connection opened by open_sqlite(), in KiB (PRAGMA cache_size).
inline constexpr int64_t kSqliteCacheKib = 65'536;
/// The page cache while IndexStore builds an index: the sorter keeps up to a cache's worth of rows
/// in memory before it spills to temporary files, and that memory counts in the resident set.
inline constexpr int64_t kSqliteSortCacheKib = 16'384;

/// Opens (creating if needed) a SQLite database file in WAL mode with synchronous=NORMAL, foreign
/// keys on and a busy timeout; the parent directory must exist.
[[nodiscard]] DbResult<std::unique_ptr<Database>> open_sqlite(const std::filesystem::path& path);
/// Connects to PostgreSQL: a libpq URL, e.g. "postgresql://postgres@127.0.0.1:5433/credence".
[[nodiscard]] DbResult<std::unique_ptr<Database>> open_postgres(std::string_view url);
enum class OpenMode {
    read_write,  ///< the indexer's: SQLite creates a missing file
    /// A reader's (API-only nodes, a PostgreSQL hot standby): every statement on the connection is
    /// refused if it would write (PostgreSQL: default_transaction_read_only for the session, so
    /// writes fail with "cannot execute ... in a read-only transaction"; SQLite: PRAGMA
    /// query_only, and a missing file is an open error, not created). A guard against mistakes,
    /// not a permission: a reader's PostgreSQL role should have no write grants either.
    read_only,
};

/// Whether `location` names a PostgreSQL database ("postgres://..." or "postgresql://...");
/// anything else is a SQLite file.
[[nodiscard]] constexpr bool is_postgres_location(std::string_view location) noexcept {
    return location.starts_with("postgres://") || location.starts_with("postgresql://");
}
/// "postgres://..." or "postgresql://..." opens PostgreSQL; anything else (optionally prefixed
/// "sqlite:") is a SQLite file path. Opening never migrates or writes (IndexStore::open migrates).
[[nodiscard]] DbResult<std::unique_ptr<Database>> open_database(
    std::string_view location, OpenMode mode = OpenMode::read_write);

/// One schema step. Versions start at 1 and increase by one; `sql` uses the schema tokens.
struct Migration {
    int version = 0;
    std::string_view name;
    std::string_view sql;
};

/// Applies every migration newer than the database's version, each in its own transaction, and
/// records it in schema_migrations(version, name). Fails with DbErrorKind::migration when the
/// database holds a version this program does not know (a newer Credence wrote it).
[[nodiscard]] DbResult<int> migrate(Database& db, std::span<const Migration> migrations);

/// The schema version schema_migrations records (0 when the table does not exist). Reads only.
[[nodiscard]] DbResult<int> schema_version(Database& db);

/// What a reader checks instead of migrating: that the database is exactly at the newest of
/// `migrations`. Returns that version, else DbErrorKind::migration in one line (older: a writer
/// must migrate it first; newer: this program is older than the writer's).
[[nodiscard]] DbResult<int> require_schema(Database& db, std::span<const Migration> migrations);

/// A deterministic text dump of `tables` (every row, ordered by all columns), identical across
/// SQLite and PostgreSQL for identical contents. Used to prove that crash recovery and reorg
/// handling leave the database equal to an uninterrupted, fresh index.
/// Format: "# <table>\n" then one line per row, values separated by '|': NULL, integers in
/// decimal, reals with %.17g, text JSON-escaped in quotes, blobs as 0x-hex.
[[nodiscard]] DbResult<std::string> canonical_dump(Database& db,
                                                   std::span<const std::string_view> tables);

}  // namespace credence::index
