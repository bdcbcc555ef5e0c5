// Whether a connection reads a PostgreSQL hot standby, and how far behind its primary it is: what
// an API node on a read replica reports on its status page (an answer from a lagging replica is
// older than the chain's head says).
//
// The lag (PostgreSQL 15 docs §9.27.4 "Recovery Control Functions", §27.2.5.2 "Monitoring"): 0 when
// everything the standby has received is replayed (pg_last_wal_receive_lsn() =
// pg_last_wal_replay_lsn()); otherwise the time since the last transaction it replayed committed
// on the primary (now - pg_last_xact_replay_timestamp()). That timestamp alone keeps growing while
// the primary is idle, which is not lag; hence the comparison first. WAL the standby has not
// received is invisible to it: `streaming` says whether its WAL receiver is connected.
// Thread-safety: as the Database it reads (one thread).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <credence/index/database.hpp>

namespace credence::index {

struct ReplicationStatus {
    /// pg_is_in_recovery(): a standby (read-only). False on a primary and on SQLite.
    bool standby = false;
    /// A standby's WAL receiver is streaming from its primary (pg_stat_wal_receiver, whose
    /// status only superusers and pg_read_all_stats see: false for other roles).
    bool streaming = false;
    /// A standby's replay lag in seconds as above (>= 0); nullopt when it has replayed no
    /// transaction since it started, or on a primary.
    std::optional<double> lag_seconds;
    /// Received but not yet replayed WAL in bytes (0 when caught up or not a standby).
    int64_t replay_lag_bytes = 0;
    /// The last WAL location received and replayed ("0/3000148"); "" on a primary or SQLite.
    std::string receive_lsn;
    std::string replay_lsn;
};

/// The replication status of `db`'s server: one query on PostgreSQL, none on SQLite.
[[nodiscard]] DbResult<ReplicationStatus> replication_status(Database& db);

}  // namespace credence::index
