#!/usr/bin/env bash
# CPU seconds (user) to compile some translation units at several optimisation levels, from the
# build tree's compile_commands.json; ccache is bypassed (the compiler runs directly).
#   bench/build/compile_cost.sh BUILD_DIR REGEX [LEVELS...]
#   bench/build/compile_cost.sh build/release 'cmd/(agent|tool|trust|util)\.cpp$' -O3 -O2 -O1
# docs/benchmarks.md §Cold make run records the figures.
set -euo pipefail
build=${1:?build dir}
regex=${2:?regex over source paths}
shift 2
levels=("$@")
[ ${#levels[@]} -gt 0 ] || levels=(-O3 -O1)
python3 - "$build" "$regex" "${levels[@]}" <<'PY'
import json, re, resource, shlex, subprocess, sys
build, regex, levels = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3:]
def user_seconds(args, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    subprocess.run(args, cwd=cwd, check=True)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - before
totals = {level: 0.0 for level in levels}
for entry in json.load(open(f"{build}/compile_commands.json")):
    if not regex.search(entry["file"]):
        continue
    args = shlex.split(entry["command"])
    if args[0].endswith("ccache"):
        args = args[1:]
    args[args.index("-o") + 1] = "/dev/null"
    row = []
    for level in levels:
        cost = user_seconds([level if re.fullmatch(r"-O[0-3sg]", a) else a for a in args],
                            entry["directory"])
        totals[level] += cost
        row.append(f"{level} {cost:5.1f}")
    print(f"{entry['file'].split('/src/')[-1]:<40} " + "  ".join(row))
print(f"{'total':<40} " + "  ".join(f"{l} {t:5.1f}" for l, t in totals.items()))
PY
