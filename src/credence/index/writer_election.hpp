// One writer per chain among the processes that share a PostgreSQL index (scale-out: several
// writer-capable nodes on one database, one of them indexing each chain, the others standing by).
// Two indexers of one chain would each commit their own view of the head (writer_lock.hpp says
// why); on PostgreSQL the nodes may sit on different hosts, so a flock cannot separate them.
//
// The lock is a session-level advisory lock, pg_try_advisory_lock(int4, int4) (PostgreSQL 15 docs
// §9.27.10 "Advisory Lock Functions"), with the two keys:
//   key 1 = kWriterLockNamespace (0x43524544, "CRED"): every Credence writer lock, so no other
//           application's advisory locks on the database collide with ours;
//   key 2 = writer_lock_chain_key(chain_id): the chain id folded to 32 bits (low XOR high half);
//           every chain id below 2^32 (all real ones) is its own key.
// pg_locks shows it as locktype 'advisory', classid = key 1, objid = key 2 (both as unsigned oids),
// objsubid = 2. Advisory locks belong to one database: indexes in two databases elect apart.
//
// The lock MUST be taken on the connection the indexer writes with: it lives exactly as long as
// that session, so when the writer dies, or its connection drops or is terminated, the server
// releases the lock and aborts the session's open transaction together. A batch therefore never
// commits after another writer took over: either its session still holds the lock, or the
// session (and the batch with it) is gone. A writer calls still_writer() before each batch to
// notice a lost session early; libpq never reconnects behind our back (postgres_database.cpp).
//
// SQLite: a file has one host, and its writers keep writer_lock.hpp's flock, which Indexer::start
// takes: a second writer of a chain on one file is refused there in one line. The free functions
// here are PostgreSQL only (DbErrorKind::misuse on SQLite); WriterElection answers writer on SQLite
// and takes no lock, so it never stands in the way of the indexer's own.
// Thread-safety: as the Database they use (one thread). Ownership: nothing owned but the lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include <credence/index/database.hpp>

namespace credence::index {

/// The first advisory-lock key of every Credence writer lock: "CRED" in ASCII.
inline constexpr int32_t kWriterLockNamespace = 0x4352'4544;

/// The second key: the chain id's low 32 bits XOR its high 32 bits, as a signed int4.
[[nodiscard]] constexpr int32_t writer_lock_chain_key(uint64_t chain_id) noexcept {
    return static_cast<int32_t>(static_cast<uint32_t>(chain_id ^ (chain_id >> 32)));
}

/// Takes chain `chain_id`'s writer lock on this connection without waiting. True when the
/// connection now holds it (taken now, or held already: the lock is not stacked twice), false when
/// another session holds it. A hot standby is refused (DbErrorKind::misuse): it cannot write.
[[nodiscard]] DbResult<bool> try_become_writer(Database& db, uint64_t chain_id);

/// Whether this connection's session still holds the writer lock (pg_locks, this backend's pid).
/// A lost or terminated connection is false, not an error: its session and its locks are gone.
[[nodiscard]] DbResult<bool> still_writer(Database& db, uint64_t chain_id);

/// Gives the lock up (pg_advisory_unlock), for a writer that stops cleanly; a no-op when not held.
[[nodiscard]] DbResult<void> resign_writer(Database& db, uint64_t chain_id);

/// The session holding a chain's writer lock, for status pages. The client fields come from
/// pg_stat_activity, which shows them only to a superuser, pg_read_all_stats or the same role:
/// otherwise they are empty / 0.
struct WriterHolder {
    int64_t backend_pid = 0;         ///< the server process of the writer's session
    std::string client_addr;         ///< its client's address ("" over a unix socket)
    std::string application_name;    ///< the application_name its connection set, or ""
    int64_t backend_start_unix = 0;  ///< when that session connected (the lock is at most as old)
};

/// Who holds chain `chain_id`'s writer lock in this database, or nullopt when nobody does.
[[nodiscard]] DbResult<std::optional<WriterHolder>> current_writer(Database& db, uint64_t chain_id);

enum class WriterRole { writer, standby };

/// The election as a writer-capable node runs it for one chain: poll() before each batch.
/// While standby, poll() tries for the lock at most once per `retry_interval` (in between it
/// answers standby without a query); while writer, every poll() checks still_writer(). Once it has
/// answered standby after being writer, the connection has lost its session (or had its lock
/// released): the caller must stop writing, open a new connection and a new election.
/// On SQLite it answers writer without a query (see the file comment).
/// Thread-safety: one thread. Ownership: borrows `db`, which must outlive the election.
class WriterElection {
public:
    WriterElection(Database& db, uint64_t chain_id,
                   std::chrono::milliseconds retry_interval = std::chrono::seconds(2));

    /// The role now (see the class comment). Errors are the database's (a failed query).
    [[nodiscard]] DbResult<WriterRole> poll();
    /// The role the last poll() found (standby before the first).
    [[nodiscard]] WriterRole role() const noexcept { return role_; }

private:
    Database* db_;
    uint64_t chain_id_;
    std::chrono::milliseconds retry_interval_;
    WriterRole role_ = WriterRole::standby;
    std::optional<std::chrono::steady_clock::time_point> last_attempt_;
};

}  // namespace credence::index
