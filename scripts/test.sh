#!/usr/bin/env bash
# make test: install, build, and pass every test.
#   1. setup (pinned Debian packages, npm ci)
#   2. release build + every CTest suite (the external vector suites run in full)
#   3. generated-table reproducibility
#   4. the same suites under ASan + UBSan
#   5. lint (clang-format + clang-tidy)
#   6. contracts (forge build + forge test, offline)
set -euo pipefail
cd "$(dirname "$0")/.."
export CREDENCE_VECTORS=${CREDENCE_VECTORS:-$(cd .. && pwd)/shared/vectors}

step() { echo; echo "==> $*"; }

step setup
bash scripts/setup.sh

step "build (release)"
bash scripts/build.sh release
step "tests (release)"
ctest --preset release -j "$(nproc)"

if [ -x scripts/check-unicode-tables.sh ]; then
    step "unicode tables reproduce"
    bash scripts/check-unicode-tables.sh
fi

step "build (asan)"
bash scripts/build.sh asan
step "tests (asan + ubsan)"
ctest --preset asan -j "$(nproc)"

step lint
bash scripts/lint.sh build/release

if [ -x scripts/test-contracts.sh ]; then
    step contracts
    bash scripts/test-contracts.sh
fi

echo; echo "make test: all passed"
