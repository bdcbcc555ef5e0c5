#!/usr/bin/env bash
# make lint: clang-format (check only) and clang-tidy over our own C++ sources.
# Needs a configured build tree for compile_commands.json (build/release by default).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/release}
mapfile -t files < <(git ls-files 'src/*.cpp' 'src/*.hpp' 'tests/*.cpp' 'tests/*.hpp' 'bench/*.cpp' 'fuzz/*.cpp' 'tools/*.cpp' \
    | grep -v 'detail/unicode_tables.cpp')
echo "lint: clang-format on ${#files[@]} files"
clang-format-19 --dry-run --Werror "${files[@]}"
bash scripts/check-unity-names.sh
# clang-tidy on the library and CLI translation units. Tests are left out: gtest's macros trip
# bugprone checks (unchecked optionals inside EXPECT_*) without finding real bugs.
mapfile -t units < <(printf '%s\n' "${files[@]}" | grep -E '^src/.*\.cpp$' | grep -v '_test\.cpp$')
# A file compiled inside a unity batch (CREDENCE_UNITY, on in the release preset) has no compile
# command of its own: its batch is tidied instead, and the diagnostics in the file are reported
# because it sits under src/credence/ (HeaderFilterRegex). A batch parses its headers once for
# eight files, which is most of clang-tidy's time. A unit in neither is an error.
mapfile -t listed < <(grep -oE '"file": "[^"]+"' "$build/compile_commands.json" | cut -d'"' -f4 |
    sed "s|^$PWD/||" | sort -u)
# The tests' own batches are left out like their files (see above).
mapfile -t batches < <(printf '%s\n' "${listed[@]}" | grep -E '/Unity/unity_[0-9]+_cxx\.cxx$' |
    grep -vE '(_test|_test_support)\.dir/' || true)
# Sets, not `printf | grep -q`: under pipefail, grep -q's early exit fails the pipeline (SIGPIPE).
declare -A has_command in_batch
for file in "${listed[@]}"; do has_command[$file]=1; done
if [ ${#batches[@]} -gt 0 ]; then
    while IFS= read -r file; do in_batch[$file]=1; done < <(grep -ohE '#include "[^"]+"' "${batches[@]}" |
        cut -d'"' -f2 | sed "s|^$PWD/||")
fi
own=()
for unit in "${units[@]}"; do
    if [ -n "${has_command[$unit]+set}" ]; then own+=("$unit")
    elif [ -z "${in_batch[$unit]+set}" ]; then
        echo "lint: $unit has no compile command in $build (configure it first)" >&2; exit 1
    fi
done
units=("${own[@]}" "${batches[@]}")
# CREDENCE_LINT_ONLY: a regex to tidy only some units (while working on them).
if [ -n "${CREDENCE_LINT_ONLY:-}" ]; then
    mapfile -t units < <(printf '%s\n' "${units[@]}" | grep -E "$CREDENCE_LINT_ONLY")
fi

# A unit that passed before with exactly the same inputs passes again: the key of a unit hashes
# the clang-tidy version, .clang-tidy, the unit's compile command and the contents of every file
# it includes (ninja's dependency log from the build). Any change to any of those runs it again.
cache_dir=${CREDENCE_TIDY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/credence-tidy}
mkdir -p "$cache_dir"
declare -A file_hash unit_deps
current=""
while IFS= read -r line; do
    if [[ $line == *": #deps "* ]]; then
        current=""
    elif [[ $line == "    "* ]]; then
        dep=${line#    }
        [[ $dep == /* ]] || dep="$build/$dep"
        if [ -z "$current" ]; then
            current=$(realpath -m --relative-to=. "$dep")
            unit_deps[$current]=""
        else
            unit_deps[$current]+="$dep"$'\n'
        fi
        file_hash[$dep]=missing
    fi
done < <(ninja -C "$build" -t deps 2>/dev/null)
# One sha256sum pass over every distinct file any unit includes.
while read -r sum file; do
    file_hash[$file]=$sum
done < <(printf '%s\0' "${!file_hash[@]}" | xargs -0 -r sha256sum 2>/dev/null || true)
salt=$( { clang-tidy-19 --version; cat .clang-tidy; } | sha256sum | cut -c1-64)
todo=()
declare -A unit_key
for unit in "${units[@]}"; do
    if [ -z "${unit_deps[$unit]+set}" ]; then todo+=("$unit"); continue; fi
    command=$(awk -v f="\"file\": \"$PWD/$unit\"" 'index($0, f) { print prev } { prev = $0 }' \
        "$build/compile_commands.json" | sed "s|$PWD|@SRC@|g")
    key=$( {
        echo "$salt"; echo "$command"
        # A unity batch names its files by absolute path: hashed as @SRC@ so that clones share keys.
        case $unit in
            */Unity/*) sed "s|$PWD|@SRC@|g" "$unit" | sha256sum ;;
            *) sha256sum "$unit" ;;
        esac
        while IFS= read -r dep; do if [ -n "$dep" ]; then echo "${file_hash[$dep]}"; fi; done <<<"${unit_deps[$unit]}"
    } | sha256sum | cut -c1-64)
    unit_key[$unit]=$key
    [ -f "$cache_dir/$key" ] || todo+=("$unit")
done
echo "lint: clang-tidy on ${#todo[@]} of ${#units[@]} translation units (the rest passed before with the same inputs)"
# One clang-tidy per unit, two at a time; a unit that passes records its key at once, so a failure
# elsewhere does not make the passing units run again next time.
export CREDENCE_TIDY_BUILD=$build CREDENCE_TIDY_CACHE_DIR=$cache_dir
tidy_one() {  # tidy_one UNIT KEY
    # A unity batch is nothing but #includes of .cpp files.
    local checks=()
    case $1 in */Unity/*) checks=(--checks=-bugprone-suspicious-include) ;; esac
    if clang-tidy-19 -p "$CREDENCE_TIDY_BUILD" --quiet --extra-arg=-Wno-unknown-warning-option \
        "${checks[@]}" "$1" >"$CREDENCE_TIDY_CACHE_DIR/.log.$$" 2>&1; then
        if [ "$2" != - ]; then touch "$CREDENCE_TIDY_CACHE_DIR/$2"; fi
        rm -f "$CREDENCE_TIDY_CACHE_DIR/.log.$$"
    else
        grep -v -E '^[0-9]+ warnings? generated|^Suppressed|^Use -header-filter' \
            "$CREDENCE_TIDY_CACHE_DIR/.log.$$" >&2
        rm -f "$CREDENCE_TIDY_CACHE_DIR/.log.$$"
        return 1
    fi
}
export -f tidy_one
if [ ${#todo[@]} -gt 0 ]; then
    for unit in "${todo[@]}"; do printf '%s %s\n' "$unit" "${unit_key[$unit]:--}"; done |
        xargs -P "$(nproc)" -L 1 bash -c 'tidy_one "$0" "$1"' ||
        { echo "lint: clang-tidy failed" >&2; exit 1; }
fi
echo "lint: ok"
