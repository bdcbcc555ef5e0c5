// A real streaming-replication hot standby of the test PostgreSQL server (support/postgres.hpp),
// for the tests of what API-only nodes do on a read replica.
//
// One standby per test process, started on first use and whichever server postgres.hpp uses (its
// own, or the one `make test` shares): `pg_basebackup -R -X stream` over 127.0.0.1 as `postgres`
// (initdb's `-A trust` pg_hba.conf allows replication connections from 127.0.0.1), with a
// replication slot so the primary keeps the WAL the standby has not received yet, then the
// postmaster on 127.0.0.1 and a free port with the primary's flags and hot_standby=on. Databases
// created on the primary later (postgres_test_url()) replicate to it. At exit it is stopped
// (immediate shutdown), its directory removed and its slot dropped on the primary; if the test
// process dies abruptly, the kernel sends the postmaster SIGQUIT (PR_SET_PDEATHSIG), and a shared
// primary keeps the slot until `make test` throws that server away. Under root, the programs run
// as the `postgres` user, as for the primary.
//
// A standby that cannot start is a test FAILURE, never a skip.
// Thread-safety: call from the test thread (gtest runs tests on one thread).
#pragma once

#include <expected>
#include <string>

namespace credence::testing {

/// The URL of `primary_url`'s database (a postgres_test_url()) on the standby, once the standby
/// can connect to it (the CREATE DATABASE has replayed; waits up to 60 s):
/// "postgresql://postgres@127.0.0.1:<standby port>/t_<n>". Starts the standby if needed.
[[nodiscard]] std::expected<std::string, std::string> postgres_standby_url(
    const std::string& primary_url);

/// The standby's port (0 when it is not running).
[[nodiscard]] int postgres_standby_port();

}  // namespace credence::testing
