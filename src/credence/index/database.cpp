// The backend-independent half of database.hpp: error names, schema tokens, the URL switch,
// versioned migrations and the canonical dump (docs/architecture.md §index/).
#include <credence/index/database.hpp>

#include <algorithm>
#include <compare>
#include <cstddef>
#include <system_error>
#include <utility>

#include <fmt/format.h>

namespace credence::index {

std::string_view to_string(DbErrorKind kind) noexcept {
    switch (kind) {
        case DbErrorKind::open:
            return "open";
        case DbErrorKind::sql:
            return "sql";
        case DbErrorKind::constraint:
            return "constraint";
        case DbErrorKind::busy:
            return "busy";
        case DbErrorKind::connection:
            return "connection";
        case DbErrorKind::migration:
            return "migration";
        case DbErrorKind::misuse:
            return "misuse";
        case DbErrorKind::corrupt:
            return "corrupt";
    }
    return "unknown";
}

std::string DbError::to_string() const {
    return fmt::format("database {} error: {}", index::to_string(kind), message);
}

DbResult<void> Database::copy_in(std::string_view table,
                                 std::span<const std::string_view> /*columns*/,
                                 std::span<const DbValue> /*values*/) {
    return std::unexpected(DbError{DbErrorKind::misuse,
                                   fmt::format("copy_in({}): not a path this backend has", table)});
}

std::string apply_dialect(std::string_view sql, Dialect dialect) {
    struct Token {
        std::string_view token;
        std::string_view sqlite;
        std::string_view postgres;
    };
    static constexpr Token kTokens[] = {
        {"{{BLOB}}", "BLOB", "BYTEA"},
        {"{{REAL}}", "REAL", "DOUBLE PRECISION"},
        // instr(text, part) / strpos(text, part): 1-based position of part, 0 when absent.
        {"{{INSTR}}", "instr", "strpos"},
    };
    std::string out;
    out.reserve(sql.size() + 16);
    size_t pos = 0;
    while (pos < sql.size()) {
        const size_t brace = sql.find("{{", pos);
        if (brace == std::string_view::npos) break;
        out.append(sql.substr(pos, brace - pos));
        const Token* hit = nullptr;
        for (const auto& t : kTokens)
            if (sql.substr(brace, t.token.size()) == t.token) hit = &t;
        if (hit == nullptr) {
            // Not a schema token: copied verbatim (it may be inside a string literal).
            out.append("{{");
            pos = brace + 2;
            continue;
        }
        out.append(dialect == Dialect::sqlite ? hit->sqlite : hit->postgres);
        pos = brace + hit->token.size();
    }
    if (pos < sql.size()) out.append(sql.substr(pos));
    return out;
}

DbResult<std::unique_ptr<Database>> open_database(std::string_view location, OpenMode mode) {
    const bool read_only = mode == OpenMode::read_only;
    DbResult<std::unique_ptr<Database>> db;
    if (is_postgres_location(location)) {
        db = open_postgres(location);
        // Session-wide, autocommit statements included (PostgreSQL 15 docs §20.11.1).
        if (db && read_only) {
            if (auto r = (*db)->exec_script("SET SESSION default_transaction_read_only = on"); !r)
                return std::unexpected(DbError{DbErrorKind::open, r.error().message});
        }
        return db;
    }
    if (location.starts_with("sqlite:")) location.remove_prefix(7);
    if (location.empty())
        return std::unexpected(DbError{DbErrorKind::open, "empty database location"});
    const std::filesystem::path path(location);
    if (read_only) {
        std::error_code ec;
        if (!std::filesystem::is_regular_file(path, ec))
            return std::unexpected(DbError{
                DbErrorKind::open,
                fmt::format("no database at {}: a writer creates it, a reader only opens it",
                            path.string())});
    }
    db = open_sqlite(path);
    if (db && read_only) {
        if (auto r = (*db)->exec_script("PRAGMA query_only=1"); !r)
            return std::unexpected(DbError{DbErrorKind::open, r.error().message});
    }
    return db;
}

namespace {

DbError migration_error(const Migration& m, const DbError& cause) {
    return DbError{DbErrorKind::migration,
                   fmt::format("migration {} ({}) failed: {}", m.version, m.name, cause.message)};
}

/// Serialises migrating processes within the caller's transaction: SQLite's BEGIN IMMEDIATE has
/// already taken the write lock; PostgreSQL takes an advisory lock released at commit.
DbResult<void> lock_migrations(Database& db) {
    if (db.dialect() != Dialect::postgres) return {};
    constexpr int64_t kMigrationLock = 0x8004'8257'8301;  // any constant shared by every Credence
    const DbValue key[] = {kMigrationLock};
    return db.exec("SELECT pg_advisory_xact_lock($1)", key);
}

/// Whether schema_migrations records `version` (read inside the migration's transaction).
DbResult<bool> migration_applied(Database& db, int version) {
    if (auto r = lock_migrations(db); !r) return std::unexpected(r.error());
    const DbValue v[] = {int64_t{version}};
    auto rows = db.query("SELECT 1 FROM schema_migrations WHERE version = $1", v);
    if (!rows) return std::unexpected(rows.error());
    return !rows->empty();
}

}  // namespace

DbResult<int> migrate(Database& db, std::span<const Migration> migrations) {
    // The caller's list must be 1, 2, 3, ...: a gap would make "the database's version" ambiguous.
    for (size_t i = 0; i < migrations.size(); ++i) {
        if (migrations[i].version != static_cast<int>(i) + 1)
            return std::unexpected(DbError{
                DbErrorKind::misuse, fmt::format("migration #{} has version {}, expected {}", i,
                                                 migrations[i].version, i + 1)});
    }
    if (db.in_transaction())
        return std::unexpected(DbError{DbErrorKind::misuse, "migrate() inside a transaction"});

    // Under the migration lock too: PostgreSQL's CREATE TABLE IF NOT EXISTS is not safe against
    // a concurrent one (both may pass the check, and one fails on the catalog's unique key).
    auto created = [&]() -> DbResult<void> {
        if (auto r = db.begin(); !r) return r;
        auto r = lock_migrations(db);
        if (r) {
            r = db.exec_script(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                "version BIGINT PRIMARY KEY, name TEXT NOT NULL)");
        }
        if (r) r = db.commit();
        if (!r) ignore_failure(db.rollback());
        return r;
    }();
    if (!created) return std::unexpected(created.error());
    auto rows = db.query("SELECT version FROM schema_migrations ORDER BY version");
    if (!rows) return std::unexpected(rows.error());
    int64_t current = 0;
    for (const auto& row : *rows) {
        const auto* v = row.empty() ? nullptr : std::get_if<int64_t>(&row[0]);
        if (v == nullptr)
            return std::unexpected(
                DbError{DbErrorKind::migration, "schema_migrations holds a non-integer version"});
        current = std::max(current, *v);
    }
    if (current > static_cast<int64_t>(migrations.size()))
        return std::unexpected(
            DbError{DbErrorKind::migration,
                    fmt::format("database {} is at schema version {}, newer than this program's {}",
                                db.describe(), current, migrations.size())});

    for (const auto& m : migrations) {
        if (m.version <= current) continue;
        // One transaction per step: a failed step leaves the previous version intact.
        if (auto r = db.begin(); !r) return std::unexpected(migration_error(m, r.error()));
        // Another process may be migrating the same database (the indexers of two chains sharing
        // one file, say): under the write lock (SQLite's BEGIN IMMEDIATE; on PostgreSQL a
        // transaction-scoped advisory lock), a step applied meanwhile is skipped, not run twice.
        auto applied = migration_applied(db, m.version);
        if (!applied) {
            ignore_failure(db.rollback());
            return std::unexpected(migration_error(m, applied.error()));
        }
        if (*applied) {
            ignore_failure(db.rollback());
            current = m.version;
            continue;
        }
        auto step = db.exec_script(apply_dialect(m.sql, db.dialect()));
        if (step) {
            const DbValue params[] = {int64_t{m.version}, std::string(m.name)};
            step = db.exec("INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", params);
        }
        if (step) step = db.commit();
        if (!step) {
            ignore_failure(db.rollback());
            return std::unexpected(migration_error(m, step.error()));
        }
        current = m.version;
    }
    return static_cast<int>(current);
}

DbResult<int> schema_version(Database& db) {
    const std::string_view exists =
        db.dialect() == Dialect::postgres
            ? "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
              " AND tablename = 'schema_migrations'"
            : "SELECT count(*) FROM sqlite_master WHERE type = 'table'"
              " AND name = 'schema_migrations'";
    auto found = db.query(exists);
    if (!found) return std::unexpected(found.error());
    const auto* n = found->empty() ? nullptr : std::get_if<int64_t>(&found->front()[0]);
    if (n == nullptr || *n == 0) return 0;
    auto rows = db.query("SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
    if (!rows) return std::unexpected(rows.error());
    const auto* v = rows->empty() ? nullptr : std::get_if<int64_t>(&rows->front()[0]);
    if (v == nullptr)
        return std::unexpected(
            DbError{DbErrorKind::migration, "schema_migrations holds a non-integer version"});
    return static_cast<int>(*v);
}

DbResult<int> require_schema(Database& db, std::span<const Migration> migrations) {
    auto version = schema_version(db);
    if (!version) return version;
    const auto wanted = static_cast<int>(migrations.size());
    if (*version == wanted) return version;
    if (*version > wanted)
        return std::unexpected(DbError{
            DbErrorKind::migration,
            fmt::format("database {} is at schema version {}, newer than this program's {}: "
                        "upgrade this program",
                        db.describe(), *version, wanted)});
    return std::unexpected(DbError{
        DbErrorKind::migration,
        fmt::format("database {} is at schema version {}, this program reads version {}: start "
                    "its writer (which migrates it) first",
                    db.describe(), *version, wanted)});
}

namespace {

// A total order over DbValue that does not depend on the backend's collation or NULL placement:
// NULL < integer < real < text < blob; text and blobs compare bytewise.
std::strong_ordering compare_values(const DbValue& a, const DbValue& b) {
    if (a.index() != b.index()) return a.index() <=> b.index();
    switch (a.index()) {
        case 1:
            return std::get<int64_t>(a) <=> std::get<int64_t>(b);
        case 2: {
            const double x = std::get<double>(a);
            const double y = std::get<double>(b);
            // NaN sorts last; equal NaNs are equivalent.
            if (x < y) return std::strong_ordering::less;
            if (y < x) return std::strong_ordering::greater;
            const bool xn = x != x;
            const bool yn = y != y;
            return xn <=> yn;
        }
        case 3:
            return std::get<std::string>(a).compare(std::get<std::string>(b)) <=> 0;
        case 4: {
            const auto& x = std::get<core::Bytes>(a);
            const auto& y = std::get<core::Bytes>(b);
            return std::lexicographical_compare_three_way(x.begin(), x.end(), y.begin(), y.end());
        }
        default:
            return std::strong_ordering::equal;
    }
}

bool row_less(const DbRow& a, const DbRow& b) {
    const size_t n = std::min(a.size(), b.size());
    for (size_t i = 0; i < n; ++i) {
        const auto c = compare_values(a[i], b[i]);
        if (c != 0) return c < 0;
    }
    return a.size() < b.size();
}

void append_json_string(std::string& out, const std::string& s) {
    static constexpr char kHex[] = "0123456789abcdef";
    out.push_back('"');
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
            case '"':
                out.append("\\\"");
                break;
            case '\\':
                out.append("\\\\");
                break;
            case '\n':
                out.append("\\n");
                break;
            case '\r':
                out.append("\\r");
                break;
            case '\t':
                out.append("\\t");
                break;
            default:
                if (c < 0x20) {
                    out.append("\\u00");
                    out.push_back(kHex[c >> 4]);
                    out.push_back(kHex[c & 0x0f]);
                } else {
                    out.push_back(ch);  // UTF-8 passes through unchanged
                }
        }
    }
    out.push_back('"');
}

void append_value(std::string& out, const DbValue& v) {
    switch (v.index()) {
        case 0:
            out.append("NULL");
            break;
        case 1:
            fmt::format_to(std::back_inserter(out), "{}", std::get<int64_t>(v));
            break;
        case 2:
            fmt::format_to(std::back_inserter(out), "{:.17g}", std::get<double>(v));
            break;
        case 3:
            append_json_string(out, std::get<std::string>(v));
            break;
        case 4:
            out.append(core::to_hex(std::get<core::Bytes>(v), true));
            break;
        default:
            break;
    }
}

bool is_identifier(std::string_view name) {
    if (name.empty()) return false;
    return std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_';
    });
}

}  // namespace

DbResult<std::string> canonical_dump(Database& db, std::span<const std::string_view> tables) {
    std::string out;
    for (const auto table : tables) {
        // The name is spliced into SQL: only plain identifiers are accepted.
        if (!is_identifier(table))
            return std::unexpected(
                DbError{DbErrorKind::misuse, fmt::format("bad table name '{}'", table)});
        auto rows = db.query(fmt::format("SELECT * FROM {}", table));
        if (!rows) return std::unexpected(rows.error());
        // Sorted here rather than with ORDER BY: text collation and NULL placement differ between
        // SQLite and PostgreSQL, and the dump must not.
        std::sort(rows->begin(), rows->end(), row_less);
        fmt::format_to(std::back_inserter(out), "# {}\n", table);
        for (const auto& row : *rows) {
            for (size_t i = 0; i < row.size(); ++i) {
                if (i != 0) out.push_back('|');
                append_value(out, row[i]);
            }
            out.push_back('\n');
        }
    }
    return out;
}

}  // namespace credence::index
