#!/usr/bin/env bash
# The Debian package installs and runs from its own files (docs/operating.md §Install):
#   1. `dpkg --root` installs it into an empty scratch root (no maintainer scripts to run);
#   2. the installed `credence --version` names the package's version;
#   3. the installed `credence devnet` finds its anvil under the install prefix and deploys;
#   4. the installed `credence node` follows that devnet and serves the API and the explorer
#      from <prefix>/share/credence/web, found without --static-dir.
# Nothing from the source tree is reachable: PATH holds no anvil, CREDENCE_* are unset, and the
# scratch root is outside the checkout. Usage: install_test.sh PACKAGE.deb
set -euo pipefail
deb=$(realpath "$1")
fail() { echo "package test: FAIL: $*" >&2; exit 1; }

scratch=$(mktemp -d /tmp/credence-pkg.XXXXXX)
pids=()
# Stops each child with SIGINT (a clean shutdown), then SIGKILL after 20 s: the test never hangs.
cleanup() {
    for p in "${pids[@]}"; do
        kill -INT "$p" 2>/dev/null || continue
        for _ in $(seq 1 200); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$p" 2>/dev/null || true
        wait "$p" 2>/dev/null || true
    done
    rm -rf "$scratch"
}
trap cleanup EXIT

root=$scratch/root
mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
touch "$root/var/lib/dpkg/status" "$root/var/lib/dpkg/available"
# --force-depends: the scratch root's package database is empty; the libraries are the host's.
dpkg --root="$root" --force-depends --force-not-root -i "$deb" >"$scratch/dpkg.log" 2>&1 \
    || { cat "$scratch/dpkg.log" >&2; fail "dpkg -i"; }
for f in usr/bin/credence usr/libexec/credence/anvil usr/share/credence/web/index.html \
    usr/share/credence/examples/node.toml usr/lib/systemd/system/credence-node.service \
    usr/share/doc/credence/operating.md; do
    [ -e "$root/$f" ] || fail "the package lacks /$f"
done
ls "$root"/usr/share/credence/abi/*.json >/dev/null 2>&1 || fail "the package lacks the ABIs"

bin=$root/usr/bin/credence
# A clean environment: no source tree, no anvil on PATH, a fresh CREDENCE_HOME.
# `env` execs the command, so `$!` of a background run is the credence process itself.
run=(env -i HOME="$scratch" PATH=/usr/bin:/bin CREDENCE_HOME="$scratch/home")

version=$(dpkg-deb -f "$deb" Version)
out=$("${run[@]}" "$bin" --version) || fail "credence --version exited $?"
[ "$out" = "credence $version" ] || fail "credence --version printed '$out', want 'credence $version'"
echo "package test: $out"

# wait_for FILE SED-EXPR PID: the first match, or fail when PID dies or 120 s pass.
wait_for() {
    for _ in $(seq 1 1200); do
        local v
        v=$(sed -n "$2" "$1" 2>/dev/null | head -n 1)
        if [ -n "$v" ]; then echo "$v"; return 0; fi
        kill -0 "$3" 2>/dev/null || { cat "${1%.out}.err" >&2; return 1; }
        sleep 0.1
    done
    return 1
}

"${run[@]}" "$bin" devnet --port 0 >"$scratch/devnet.out" 2>"$scratch/devnet.err" &
pids+=($!)
rpc=$(wait_for "$scratch/devnet.out" 's/^Credence devnet: anvil at \([^ ]*\).*/\1/p' "${pids[-1]}") \
    || fail "the installed devnet did not start"
grep -q "^  IdentityRegistry " "$scratch/devnet.out" || fail "the devnet deployed no IdentityRegistry"
echo "package test: devnet at $rpc"

"${run[@]}" "$bin" node --rpc "$rpc" --port 0 >"$scratch/node.out" 2>"$scratch/node.err" &
pids+=($!)
url=$(wait_for "$scratch/node.out" 's/^credence node: serving //p' "${pids[-1]}") \
    || fail "the installed node did not start"
echo "package test: node at $url"
grep -q "explorer: no files" "$scratch/node.err" && fail "the node did not find its explorer"

curl -sf "$url/healthz" >/dev/null || fail "/healthz"
status=$(curl -sf "$url/api/v1/status") || fail "/api/v1/status"
case $status in *'"chain_id":31337'*) ;; *) fail "/api/v1/status: $status" ;; esac
curl -sf -o "$scratch/index.html" "$url/" || fail "GET / (the explorer)"
cmp -s "$scratch/index.html" "$root/usr/share/credence/web/index.html" \
    || fail "GET / is not the installed explorer's index.html"
echo "package test: passed"
