#include <support/postgres_standby.hpp>

#include <postgresql/libpq-fe.h>  // the support library has no libpq include path of its own
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include <support/detail/postgres_process.hpp>
#include <support/postgres.hpp>
#include <support/scratch.hpp>

namespace credence::testing {

namespace fs = std::filesystem;

namespace {

std::string loopback_conninfo(int port, const std::string& db) {
    return "host=127.0.0.1 port=" + std::to_string(port) + " user=postgres dbname=" + db +
           " connect_timeout=5";
}

// One statement on the primary's `postgres` database: its first value, or nullopt (and `error`).
std::optional<std::string> primary_value(int port, const std::string& sql, std::string& error) {
    PGconn* conn = PQconnectdb(loopback_conninfo(port, "postgres").c_str());
    std::optional<std::string> out;
    if (PQstatus(conn) != CONNECTION_OK) {
        error = std::string("primary connection: ") + PQerrorMessage(conn);
    } else {
        PGresult* r = PQexec(conn, sql.c_str());
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0)
            out = PQgetvalue(r, 0, 0);
        else if (PQresultStatus(r) != PGRES_TUPLES_OK)
            error = sql + ": " + PQresultErrorMessage(r);
        PQclear(r);
    }
    PQfinish(conn);
    return out;
}

class Standby {
public:
    Standby() { error_ = start(); }
    ~Standby() { stop(); }
    Standby(const Standby&) = delete;
    Standby& operator=(const Standby&) = delete;

    [[nodiscard]] int port() const noexcept { return error_.empty() ? port_ : 0; }

    std::expected<std::string, std::string> url_of(const std::string& primary_url) const {
        if (!error_.empty()) return std::unexpected(error_);
        const size_t slash = primary_url.rfind('/');
        if (slash == std::string::npos || slash + 1 == primary_url.size())
            return std::unexpected("not a database URL: " + primary_url);
        const std::string db = primary_url.substr(slash + 1);
        // The CREATE DATABASE reaches the standby once replayed: until then it refuses the name.
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        std::string last;
        while (std::chrono::steady_clock::now() < deadline) {
            PGconn* conn = PQconnectdb(loopback_conninfo(port_, db).c_str());
            const bool ok = PQstatus(conn) == CONNECTION_OK;
            last = PQerrorMessage(conn);
            PQfinish(conn);
            if (ok) return "postgresql://postgres@127.0.0.1:" + std::to_string(port_) + "/" + db;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return std::unexpected("database " + db +
                               " did not reach the standby within 60 s: " + last);
    }

private:
    std::string start() {
        primary_port_ = postgres_port();
        if (primary_port_ == 0) return "no primary: " + postgres_start_error();
        const auto bin = detail::postgres_bin_dir();
        if (!bin) return "no PostgreSQL server found under /usr/lib/postgresql/*/bin";
        std::string error;
        const detail::RunAs who = detail::postgres_run_as(error);
        if (!error.empty()) return error;
        // A hot standby needs at least the primary's max_connections (PostgreSQL 15 docs §27.4.3
        // "Administrator's Overview" of Hot Standby).
        const auto connections = primary_value(primary_port_, "SHOW max_connections", error);
        if (!connections) return error;
        // The pid keeps slot names unique when test processes share one primary.
        slot_ = "credence_standby_" + std::to_string(::getpid());
        drop_slot();  // a slot left by an earlier process of the same pid
        root_ = scratch_dir() / "postgres-standby";
        const fs::path data = root_ / "data";
        if (auto made = detail::make_server_dir(root_, who); !made.empty()) return made;
        // --checkpoint=fast: the backup starts at once instead of after a spread checkpoint.
        if (auto backup = detail::run_as(
                {(*bin / "pg_basebackup").string(), "-h", "127.0.0.1", "-p",
                 std::to_string(primary_port_), "-U", "postgres", "-D", data.string(), "-R", "-X",
                 "stream", "-C", "-S", slot_, "--checkpoint=fast", "--no-sync"},
                who, root_ / "basebackup.log", root_);
            !backup.empty())
            return backup;
        slot_created_ = true;

        // A free port can be taken between probing and binding: try a few.
        std::string last;
        for (int attempt = 0; attempt < 4; ++attempt) {
            port_ = detail::free_postgres_port();
            if (port_ == 0) return "no free port";
            auto argv = detail::postgres_server_argv(*bin, data, port_, std::stoi(*connections));
            argv.insert(argv.end(), {"-c", "hot_standby=on"});
            const auto log = root_ / "server.log";
            pid_ = detail::spawn_as(argv, who, log, root_, true);
            if (pid_ < 0) return "fork failed";
            last = detail::await_server(pid_, port_, log);
            if (last.empty()) return {};
        }
        return last;
    }

    void drop_slot() {
        std::string ignored;
        (void)primary_value(primary_port_,
                            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots "
                            "WHERE slot_name = '" +
                                slot_ + "'",
                            ignored);
    }

    void stop() {
        detail::stop_server(pid_);
        // After the standby: an active slot cannot be dropped.
        if (slot_created_) drop_slot();
        std::error_code ec;
        if (!root_.empty()) fs::remove_all(root_, ec);
    }

    std::string error_;
    fs::path root_;
    std::string slot_;
    bool slot_created_ = false;
    int primary_port_ = 0;
    int port_ = 0;
    pid_t pid_ = -1;
};

Standby& standby() {
    (void)postgres_port();  // the primary first, so it is destroyed after the standby
    static Standby instance;
    return instance;
}

}  // namespace

std::expected<std::string, std::string> postgres_standby_url(const std::string& primary_url) {
    return standby().url_of(primary_url);
}

int postgres_standby_port() { return standby().port(); }

}  // namespace credence::testing
