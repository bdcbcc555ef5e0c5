#include <credence/index/replication_status.hpp>

namespace credence::index {

DbResult<ReplicationStatus> replication_status(Database& db) {
    ReplicationStatus out;
    if (db.dialect() != Dialect::postgres) return out;
    // clock_timestamp(), not now(): inside a long read transaction now() stands still.
    constexpr std::string_view kSql =
        "SELECT pg_is_in_recovery(),"
        " EXISTS (SELECT 1 FROM pg_stat_wal_receiver WHERE status = 'streaming'),"
        " CASE WHEN NOT pg_is_in_recovery() THEN NULL"
        "  WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0::float8"
        "  ELSE GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() -"
        "   pg_last_xact_replay_timestamp()))::float8 END,"
        " COALESCE(pg_wal_lsn_diff(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn()), "
        "0)::bigint,"
        " COALESCE(pg_last_wal_receive_lsn()::text, ''), COALESCE(pg_last_wal_replay_lsn()::text, "
        "'')";
    auto rows = db.query(kSql);
    if (!rows) return std::unexpected(rows.error());
    if (rows->empty() || rows->front().size() != 6)
        return std::unexpected(DbError{DbErrorKind::sql, "replication status: no row"});
    const DbRow& row = rows->front();
    const auto flag = [&](size_t i) {
        const auto* v = std::get_if<int64_t>(&row[i]);
        return v != nullptr && *v != 0;
    };
    out.standby = flag(0);
    out.streaming = flag(1);
    if (const auto* v = std::get_if<double>(&row[2])) out.lag_seconds = *v;
    if (const auto* v = std::get_if<int64_t>(&row[3])) out.replay_lag_bytes = *v;
    if (const auto* v = std::get_if<std::string>(&row[4])) out.receive_lsn = *v;
    if (const auto* v = std::get_if<std::string>(&row[5])) out.replay_lsn = *v;
    return out;
}

}  // namespace credence::index
