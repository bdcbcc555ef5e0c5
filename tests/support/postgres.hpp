// A real PostgreSQL server for tests (docs/architecture.md §tests/support: "`make test` starts a
// real PostgreSQL server (Debian package, `initdb` as the postgres user, on 127.0.0.1 and a free
// port)").
//
// One server per test process, started on first use: initdb into a fresh directory under the
// per-process scratch directory (support/scratch.hpp), then the postmaster on 127.0.0.1 and a free
// port, with its unix socket inside the data directory and fsync off (tests only). It is stopped
// (immediate shutdown) and its directory removed when the process exits; if the test process dies
// abruptly, the kernel sends the postmaster SIGQUIT (PR_SET_PDEATHSIG), so no server outlives it.
// initdb and postgres refuse to run as root: under root (CI) they run as the `postgres` system
// user created by the Debian package.
//
// A server that cannot start is a test FAILURE, never a skip: use postgres_test_url() with
// ASSERT_TRUE(url) << url.error(), or CREDENCE_POSTGRES_URL(var).
// Thread-safety: call from the test thread (gtest runs tests on one thread).
#pragma once

#include <expected>
#include <string>

namespace credence::testing {

/// Starts the server if needed; false (and postgres_start_error() says why) if it cannot start.
[[nodiscard]] bool postgres_available();
/// Why the server could not start ("" when it runs).
[[nodiscard]] std::string postgres_start_error();

/// The URL of a FRESH, empty database on the test server (CREATE DATABASE t_<n>), so each test is
/// isolated: "postgresql://postgres@127.0.0.1:<port>/t_<n>".
[[nodiscard]] std::expected<std::string, std::string> postgres_test_url();

/// The server's port (0 when it is not running).
[[nodiscard]] int postgres_port();

}  // namespace credence::testing

/// Declares `const std::string var` = a fresh database URL, or fails the test (ASSERT) when the
/// server cannot start.
#define CREDENCE_POSTGRES_URL(var)                                                                 \
    auto var##_result_ = ::credence::testing::postgres_test_url();                                 \
    ASSERT_TRUE(var##_result_.has_value()) << "PostgreSQL test server: " << var##_result_.error(); \
    const std::string var = *var##_result_
