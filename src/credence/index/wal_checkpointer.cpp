// WalCheckpointer (wal_checkpointer.hpp): checkpoints on a second connection and thread.
#include <credence/index/wal_checkpointer.hpp>

#include <utility>

namespace credence::index {

WalCheckpointer::WalCheckpointer(std::filesystem::path path, Limits limits)
    : path_(std::move(path)), limits_(limits) {}

// thread_ is declared last: its destructor stops and joins the thread before anything else goes.
WalCheckpointer::~WalCheckpointer() = default;

void WalCheckpointer::attach(sqlite3* writer) { sqlite3_wal_hook(writer, &wal_hook, this); }

int WalCheckpointer::background_runs() const {
    const std::lock_guard lock(mutex_);
    return background_runs_;
}

int WalCheckpointer::writer_runs() const {
    const std::lock_guard lock(mutex_);
    return writer_runs_;
}

int WalCheckpointer::wal_hook(void* self, sqlite3* writer, const char* schema, int pages) {
    return static_cast<WalCheckpointer*>(self)->on_commit(writer, schema, pages);
}

int WalCheckpointer::on_commit(sqlite3* writer, const char* schema, int pages) {
    // `pages`: the frames in the log after this commit (sqlite3_wal_hook).
    if (pages < limits_.request_pages) return SQLITE_OK;
    std::unique_lock lock(mutex_);
    if (pages < limits_.max_pages) {
        if (!running_) {
            requested_ = true;
            if (!thread_.joinable())
                thread_ = std::jthread([this](const std::stop_token& s) { run(s); });
            wake_.notify_all();
        }
        return SQLITE_OK;
    }
    // The log is long: wait for the checkpoint in flight, then copy what it left (the newest
    // commits) here, so the next write transaction starts on a fully copied log and restarts it.
    wake_.wait(lock, [this] { return !running_; });
    requested_ = false;
    ++writer_runs_;
    lock.unlock();
    // Best effort, like SQLite's own automatic checkpoint: a reader's old snapshot can hold some
    // frames back (SQLITE_BUSY), and the commit has happened whatever this returns.
    sqlite3_wal_checkpoint_v2(writer, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
    return SQLITE_OK;
}

void WalCheckpointer::run(const std::stop_token& stop) {
    sqlite3* db = nullptr;
    // The same file through a connection of its own: SQLite connections are not shared between
    // threads here. A failed open leaves the checkpoints to the writer (max_pages).
    if (sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        sqlite3_close_v2(db);
        return;
    }
    // The writer's synchronous=NORMAL: a checkpoint syncs the log before copying it and the
    // database file after.
    sqlite3_exec(db, "PRAGMA synchronous=NORMAL", nullptr, nullptr, nullptr);
    std::unique_lock lock(mutex_);
    // Stopped: a pending request is left to the writer's close, which checkpoints the rest.
    while (wake_.wait(lock, stop, [this] { return requested_; }) && !stop.stop_requested()) {
        requested_ = false;
        running_ = true;
        lock.unlock();
        sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        lock.lock();
        running_ = false;
        ++background_runs_;
        wake_.notify_all();
    }
    lock.unlock();
    sqlite3_close_v2(db);
}

}  // namespace credence::index
