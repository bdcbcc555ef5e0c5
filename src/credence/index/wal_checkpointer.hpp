// Background WAL checkpoints for a SQLite writer connection (docs/benchmarks.md).
//
// A checkpoint copies the pages of the write-ahead log back into the database file. SQLite's
// automatic checkpoint runs it inside the COMMIT that crosses the threshold, on the writer's own
// thread: a profile of a 1,000,000-event sync put 19 % of all samples there (docs/benchmarks.md).
// Here the commit only asks for a checkpoint, and a second connection on its own thread runs it
// (SQLITE_CHECKPOINT_PASSIVE, which never blocks readers or the writer) while the writer goes on.
//
// Bounding the log: the writer restarts the log from its start only when a write transaction
// begins with every frame already copied (SQLite, "Write-Ahead Logging" §Checkpoint Starvation).
// A background checkpoint always trails the writer's newest commit, so past max_pages the commit
// waits for the checkpoint in flight and copies the rest itself; the next transaction then
// restarts the log. The log therefore stays under about max_pages plus one transaction.
//
// Durability is SQLite's own: a checkpoint only copies committed pages, whichever thread runs it,
// and a crash at any point leaves the log to be replayed on the next open.
//
// Thread-safety: on_commit() is called by the writer connection's thread (from its WAL hook); the
// checkpoints run on the checkpointer's thread. Ownership: owns its thread and its connection;
// the writer connection must outlive it.
#pragma once

#include <sqlite3.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

namespace credence::index {

class WalCheckpointer {
public:
    struct Limits {
        int request_pages = 4096;  // ask for a background checkpoint once the log holds this many
        int max_pages = 16384;     // past this the commit waits and finishes the checkpoint itself
    };

    WalCheckpointer(std::filesystem::path path, Limits limits);
    ~WalCheckpointer();  // stops the thread after the checkpoint in flight
    WalCheckpointer(const WalCheckpointer&) = delete;
    WalCheckpointer& operator=(const WalCheckpointer&) = delete;

    /// Installs this checkpointer as `writer`'s WAL hook (replacing SQLite's automatic checkpoint).
    void attach(sqlite3* writer);

    /// How many checkpoints ran on the background thread, and how many the writer finished itself.
    [[nodiscard]] int background_runs() const;
    [[nodiscard]] int writer_runs() const;

private:
    static int wal_hook(void* self, sqlite3* writer, const char* schema, int pages);
    int on_commit(sqlite3* writer, const char* schema, int pages);
    void run(const std::stop_token& stop);

    const std::filesystem::path path_;
    const Limits limits_;
    mutable std::mutex mutex_;
    std::condition_variable_any wake_;
    bool requested_ = false;
    bool running_ = false;
    int background_runs_ = 0;
    int writer_runs_ = 0;
    std::jthread thread_;  // started by the first request; last member, so it stops first
};

}  // namespace credence::index
