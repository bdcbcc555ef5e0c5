// What the test PostgreSQL servers share (support/postgres.cpp, support/postgres_standby.cpp):
// finding the Debian server binaries, running them as the `postgres` user under root, the flags
// every test server starts with, and its immediate shutdown. Test code only.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace credence::testing::detail {

/// The newest /usr/lib/postgresql/<version>/bin holding `postgres` (Debian's layout), unless
/// $CREDENCE_PG_BIN names one.
[[nodiscard]] std::optional<std::filesystem::path> postgres_bin_dir();

/// A loopback port that was free a moment ago (0 when none could be probed).
[[nodiscard]] int free_postgres_port();

/// The last 1,500 bytes of a log file, for an error message.
[[nodiscard]] std::string log_tail(const std::filesystem::path& file);

/// Who runs initdb/postgres: ourselves, or the `postgres` user when we are root.
struct RunAs {
    bool drop = false;
    uid_t uid = 0;
    gid_t gid = 0;
};

/// The user the server programs run as; "" in `error` on success. Under root, also lets that user
/// traverse the scratch directory (support/scratch.hpp), where the data directories are.
[[nodiscard]] RunAs postgres_run_as(std::string& error);

/// Makes `dir` (created if needed) the run-as user's own, mode 0700, as initdb and postgres want;
/// "" on success, else why not.
[[nodiscard]] std::string make_server_dir(const std::filesystem::path& dir, const RunAs& who);

/// fork + exec `argv` as `who`, stdout/stderr appended to `log`, working directory `cwd`.
/// With `pdeathsig`, the child gets SIGQUIT when this process dies (postgres: immediate shutdown).
[[nodiscard]] pid_t spawn_as(const std::vector<std::string>& argv, const RunAs& who,
                             const std::filesystem::path& log, const std::filesystem::path& cwd,
                             bool pdeathsig);

/// Runs `argv` as `who` to completion; "" when it exits 0, else its status and log tail.
[[nodiscard]] std::string run_as(const std::vector<std::string>& argv, const RunAs& who,
                                 const std::filesystem::path& log,
                                 const std::filesystem::path& cwd);

/// The postmaster's command line: on 127.0.0.1 only, its unix socket inside the data directory,
/// fsync off (tests throw the data away), `max_connections` connections.
[[nodiscard]] std::vector<std::string> postgres_server_argv(const std::filesystem::path& bin,
                                                            const std::filesystem::path& data,
                                                            int port, int max_connections);

/// Waits up to 60 s for `pid` to accept connections on 127.0.0.1:`port`; "" when it does. A
/// postmaster that exits meanwhile is reaped (`pid` set to -1); one that never answers is stopped.
[[nodiscard]] std::string await_server(pid_t& pid, int port, const std::filesystem::path& log);

/// Immediate shutdown (SIGQUIT; SIGKILL after 5 s), reaped; `pid` becomes -1.
void stop_server(pid_t& pid);

}  // namespace credence::testing::detail
