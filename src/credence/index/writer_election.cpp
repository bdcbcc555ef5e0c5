#include <credence/index/writer_election.hpp>

#include <array>
#include <utility>

#include <fmt/format.h>

namespace credence::index {

namespace {

// The lock's row in pg_locks, for this database (advisory locks are per database). classid and
// objid are oids, i.e. the keys as unsigned 32-bit values: compared as bigint.
constexpr std::string_view kWriterLockRow =
    "l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
    " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    " AND l.classid::bigint = $1 AND l.objid::bigint = $2";

// $1, $2: the keys as pg_locks shows them (unsigned); $3, $4: as the int4 lock functions take them.
std::array<DbValue, 4> election_keys(uint64_t chain_id) {
    const int32_t chain_key = writer_lock_chain_key(chain_id);
    return {int64_t{static_cast<uint32_t>(kWriterLockNamespace)},
            int64_t{static_cast<uint32_t>(chain_key)}, int64_t{kWriterLockNamespace},
            int64_t{chain_key}};
}

DbResult<void> require_postgres(const Database& db, std::string_view what) {
    if (db.dialect() == Dialect::postgres) return {};
    return std::unexpected(DbError{
        DbErrorKind::misuse,
        fmt::format("{}: the writer election is PostgreSQL's (a SQLite writer takes WriterLock)",
                    what)});
}

bool truthy(const std::vector<DbRow>& rows, size_t column) {
    if (rows.empty() || rows.front().size() <= column) return false;
    const auto* v = std::get_if<int64_t>(&rows.front()[column]);
    return v != nullptr && *v != 0;
}

}  // namespace

DbResult<bool> try_become_writer(Database& db, uint64_t chain_id) {
    if (auto r = require_postgres(db, "try_become_writer"); !r) return std::unexpected(r.error());
    // One round trip. CASE evaluates only the branch it needs (PostgreSQL 15 docs §9.18.1), so a
    // lock already held is not stacked a second time and a standby takes none.
    static const std::string kSql = fmt::format(
        "SELECT pg_is_in_recovery(), CASE WHEN pg_is_in_recovery() THEN false"
        " WHEN EXISTS (SELECT 1 FROM pg_locks l WHERE {} AND l.pid = pg_backend_pid()) THEN true"
        " ELSE pg_try_advisory_lock($3, $4) END",
        kWriterLockRow);
    const auto keys = election_keys(chain_id);
    auto rows = db.query(kSql, keys);
    if (!rows) return std::unexpected(rows.error());
    if (truthy(*rows, 0)) {
        return std::unexpected(DbError{
            DbErrorKind::misuse,
            fmt::format("{} is a read-only standby (in recovery): chain {}'s writer needs the "
                        "primary",
                        db.describe(), chain_id)});
    }
    return truthy(*rows, 1);
}

DbResult<bool> still_writer(Database& db, uint64_t chain_id) {
    if (auto r = require_postgres(db, "still_writer"); !r) return std::unexpected(r.error());
    static const std::string kSql = fmt::format(
        "SELECT EXISTS (SELECT 1 FROM pg_locks l WHERE {} AND l.pid = pg_backend_pid())",
        kWriterLockRow);
    const auto keys = election_keys(chain_id);
    auto rows = db.query(kSql, std::span(keys).first(2));
    if (!rows) {
        if (rows.error().kind == DbErrorKind::connection) return false;
        return std::unexpected(rows.error());
    }
    return truthy(*rows, 0);
}

DbResult<void> resign_writer(Database& db, uint64_t chain_id) {
    if (auto r = require_postgres(db, "resign_writer"); !r) return r;
    const auto keys = election_keys(chain_id);
    // Unlocking a lock not held returns false with a WARNING (dropped by the connection).
    auto rows = db.query("SELECT pg_advisory_unlock($1, $2)", std::span(keys).subspan(2));
    if (!rows) return std::unexpected(rows.error());
    return {};
}

DbResult<std::optional<WriterHolder>> current_writer(Database& db, uint64_t chain_id) {
    if (auto r = require_postgres(db, "current_writer"); !r) return std::unexpected(r.error());
    static const std::string kSql = fmt::format(
        "SELECT l.pid, COALESCE(host(a.client_addr), ''), COALESCE(a.application_name, ''),"
        " COALESCE(EXTRACT(EPOCH FROM a.backend_start)::bigint, 0)"
        " FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE {}",
        kWriterLockRow);
    const auto keys = election_keys(chain_id);
    auto rows = db.query(kSql, std::span(keys).first(2));
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty()) return std::optional<WriterHolder>{};
    const DbRow& row = rows->front();
    WriterHolder holder;
    if (const auto* v = std::get_if<int64_t>(&row[0])) holder.backend_pid = *v;
    if (const auto* v = std::get_if<std::string>(&row[1])) holder.client_addr = *v;
    if (const auto* v = std::get_if<std::string>(&row[2])) holder.application_name = *v;
    if (const auto* v = std::get_if<int64_t>(&row[3])) holder.backend_start_unix = *v;
    return holder;
}

WriterElection::WriterElection(Database& db, uint64_t chain_id,
                               std::chrono::milliseconds retry_interval)
    : db_(&db), chain_id_(chain_id), retry_interval_(retry_interval) {}

DbResult<WriterRole> WriterElection::poll() {
    if (db_->dialect() == Dialect::sqlite) return role_ = WriterRole::writer;
    if (role_ == WriterRole::writer) {
        // The advisory lock lives as long as the session: check that it still does.
        auto held = still_writer(*db_, chain_id_);
        if (!held) return std::unexpected(held.error());
        if (*held) return role_;
        role_ = WriterRole::standby;
        last_attempt_ = std::chrono::steady_clock::now();
        return role_;
    }
    const auto now = std::chrono::steady_clock::now();
    if (last_attempt_ && now - *last_attempt_ < retry_interval_) return role_;
    last_attempt_ = now;
    auto won = try_become_writer(*db_, chain_id_);
    if (!won) return std::unexpected(won.error());
    if (*won) role_ = WriterRole::writer;
    return role_;
}

}  // namespace credence::index
