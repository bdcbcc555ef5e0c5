#!/usr/bin/env bash
# make test: install, build, and pass every test.
#   1. setup (pinned Debian packages, npm ci)
#   2. release build + every CTest suite (the external vector suites run in full, and every
#      shell block of README.md and docs/, tests/docs/docs_runner.cpp)
#   3. generated-table reproducibility
#   4. the library suites under ASan + UBSan (the CLI's end-to-end suite runs in step 2 only)
#   5. lint (clang-format + clang-tidy)
#   6. contracts (forge build + forge test, offline), run alongside step 2's tests
#   7. the Debian package: built from the release tree, installed into a scratch root, run
set -euo pipefail
cd "$(dirname "$0")/.."
# The external vectors are the repository's own (tests/vectors); CREDENCE_VECTORS may point
# elsewhere.
export CREDENCE_VECTORS=${CREDENCE_VECTORS:-$PWD/tests/vectors}
[ -d "$CREDENCE_VECTORS" ] || { echo "test: no vectors directory $CREDENCE_VECTORS" >&2; exit 1; }
echo "vectors: $CREDENCE_VECTORS"

# Each step prints the seconds since make test started, so a CI log shows where the time goes.
step() { echo; echo "==> $* (at ${SECONDS} s)"; }

step setup
bash scripts/setup.sh

# One real PostgreSQL server for every test process; tests/support/postgres.cpp
# creates a fresh database on it per test.
source scripts/postgres-server.sh
pg_dir=$(mktemp -d /tmp/credence-pg.XXXXXX)
trap 'pg_server_stop "$pg_dir"' EXIT
step "postgresql (test server)"
pg_server_start "$pg_dir"
export CREDENCE_TEST_POSTGRES_PORT=$PG_PORT
echo "postgresql on 127.0.0.1:$PG_PORT"

step "build (release)"
# The benchmarks are built by `make bench`, not here: CI's 40-minute budget on 2 cores.
bash scripts/build.sh release -DCREDENCE_BENCH=OFF
# The contracts (forge build with solc-js, then forge test on one thread) run alongside the release
# tests, which wait on devnets and servers more than they compute: about a third of two cores.
contracts_log=$(mktemp /tmp/credence-contracts.XXXXXX)
contracts_pid=""
if [ -x scripts/test-contracts.sh ]; then
    bash scripts/test-contracts.sh --threads 1 >"$contracts_log" 2>&1 &
    contracts_pid=$!
fi
trap '[ -z "$contracts_pid" ] || kill "$contracts_pid" 2>/dev/null; rm -f "$contracts_log"; pg_server_stop "$pg_dir"' EXIT
step "tests (release), the contracts alongside"
ctest --preset release -j "$(nproc)"
# Every shell block of README.md and docs/ ran above (tests/docs); these are the ones marked not
# runnable, with why.
build/release/tests/credence_docs_runner --source . --list
if [ -n "$contracts_pid" ]; then
    step "contracts (forge build + forge test)"
    contracts_rc=0
    wait "$contracts_pid" || contracts_rc=$?
    contracts_pid=""
    cat "$contracts_log"
    [ "$contracts_rc" = 0 ] || { echo "test: the contracts failed" >&2; exit 1; }
fi

if [ -x scripts/check-unicode-tables.sh ]; then
    step "unicode tables reproduce"
    bash scripts/check-unicode-tables.sh
fi

step "build (asan)"
# The test binaries and what they link, nothing else (the explorer was built with the release tree).
CREDENCE_BUILD_TARGETS=credence_tests CREDENCE_BUILD_WEB=0 bash scripts/build.sh asan
step "tests (asan + ubsan)"
ctest --preset asan -j "$(nproc)"

step lint
bash scripts/lint.sh build/release

step "package (build, install into a scratch root, run)"
deb=$(bash scripts/package.sh --no-build | tail -n 1)
bash tests/package/install_test.sh "$deb"

echo; echo "make test: all passed in ${SECONDS} s"
