#!/usr/bin/env bash
# Installs every dependency of Credence on Debian 12, idempotently.
#   - Debian packages: the pinned list in scripts/debian-packages.txt
#   - npm packages:    package.json + package-lock.json (npm ci)
# Both README commands (make run, make test) call this first.
#   setup.sh [--debian | --npm]   only that half (make run runs npm ci while the C++ compiles)
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in all | --debian | --npm) ;; *) echo "setup: unknown option $part" >&2; exit 2 ;; esac

if [ "$part" != --npm ]; then
    want=()
    while read -r line; do
        line="${line%%#*}"; line="${line//[[:space:]]/}"
        [ -n "$line" ] || continue
        name="${line%%=*}"; version="${line#*=}"
        have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
        if [ "$have" != "install ok installed $version" ]; then want+=("$line"); fi
    done < scripts/debian-packages.txt
    if ! command -v node >/dev/null || ! command -v npm >/dev/null; then want+=(nodejs npm); fi

    if [ ${#want[@]} -gt 0 ]; then
        if [ "$(id -u)" != 0 ]; then echo "setup: need root to install: ${want[*]}" >&2; exit 1; fi
        echo "setup: installing ${#want[@]} Debian packages (scripts/debian-packages.txt)"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        if ! apt-get install -y -qq --no-install-recommends "${want[@]}"; then
            # A pinned version can vanish from the mirror after a point release; say so loudly,
            # then take the mirror's version so a fresh machine still builds.
            echo "setup: WARNING: pinned versions unavailable, installing the mirror's candidates" >&2
            apt-get install -y -qq --no-install-recommends "${want[@]%%=*}"
        fi
    fi
fi

[ "$part" != --debian ] || exit 0
# npm ci is skipped when node_modules already matches the lockfile.
if [ ! -f node_modules/.package-lock.json ] || ! cmp -s package-lock.json node_modules/.credence-lock; then
    echo "setup: installing the npm packages of package-lock.json (npm ci)"
    npm ci --no-audit --no-fund --loglevel=error
    cp package-lock.json node_modules/.credence-lock
fi
# The agent0 SDK test's own packages (tests/sdk, docs/graphql.md): --ignore-scripts, since no
# dependency needs a native build for the SDK's read paths and the native ones fail offline.
if [ ! -f tests/sdk/node_modules/.package-lock.json ] ||
    ! cmp -s tests/sdk/package-lock.json tests/sdk/node_modules/.credence-lock; then
    echo "setup: installing tests/sdk's npm packages (npm ci --ignore-scripts)"
    npm ci --prefix tests/sdk --ignore-scripts --no-audit --no-fund --loglevel=error
    cp tests/sdk/package-lock.json tests/sdk/node_modules/.credence-lock
fi
