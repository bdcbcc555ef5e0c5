// One writer per chain in a SQLite index (docs/node.md). Two indexers of one chain on one file
// would each commit their own view of the chain's head and rewind the other's cursor on a
// "reorg" that is only the other's progress; SQLite's own locks make each write safe, not the
// pair. Indexers of different chains share a file freely (their rows carry the chain id), and
// readers (the API, offline commands) take no lock.
//
// The lock is an exclusive flock(2) on "<file>.chain-<id>.lock" beside the database, held until
// the WriterLock is destroyed; the kernel drops it when the process dies, so a crash never leaves a
// stale lock. flock and SQLite's POSIX record locks are independent, and the lock is on its own
// file, so closing it never drops SQLite's. The file holds the holder's pid, for the message.
// PostgreSQL locations take no lock here.
#pragma once

#include <cstdint>
#include <expected>
#include <string>

#include <credence/index/database.hpp>

namespace credence::index {

class WriterLock {
public:
    /// Takes the writer lock of chain `chain_id` in `db`, or says who holds it: "another credence
    /// process (pid 42) is indexing chain 1 into /path/index.sqlite". An in-memory SQLite or a
    /// PostgreSQL database needs none.
    [[nodiscard]] static std::expected<WriterLock, std::string> acquire(const Database& db,
                                                                        uint64_t chain_id);

    WriterLock(WriterLock&& other) noexcept;
    WriterLock& operator=(WriterLock&& other) noexcept;
    WriterLock(const WriterLock&) = delete;
    WriterLock& operator=(const WriterLock&) = delete;
    ~WriterLock();

private:
    explicit WriterLock(int fd) noexcept : fd_(fd) {}
    int fd_ = -1;  ///< the open lock file, or -1 (nothing held)
};

}  // namespace credence::index
