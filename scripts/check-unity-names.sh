#!/usr/bin/env bash
# The release and run presets compile in unity batches (CREDENCE_UNITY): the files of one target
# share translation units, so a file-local type, function, constant or alias defined in two files of
# one target would be defined twice. Which files share a batch depends on the file list, so this
# check (part of scripts/lint.sh) keeps every grouping compiling: per target's file set, it lists
# every namespace-scope name (column 0, our layout) defined in more than one file. The asan preset
# compiles every file on its own, so each file also stands alone.
set -euo pipefail
cd "$(dirname "$0")/.."
check_names() {  # check_names FILE...: one target's sources
    awk '
/^[A-Za-z]/ && !/^[A-Z_0-9]+\(/ {
    line = $0; key = ""; value = ""
    if (match(line, /^(struct|class|enum class|enum|union) [A-Za-z_][A-Za-z0-9_]*/)) {
        n = split(substr(line, RSTART, RLENGTH), w, " ")
        if (!(line ~ /;[ \t]*$/ && line !~ /\{/)) key = "type " w[n]   # not a forward declaration
    } else if (match(line, /^using [A-Za-z_][A-Za-z0-9_]* = /)) {
        key = substr(line, 1, RLENGTH - 3); value = substr(line, RLENGTH + 1)   # same alias twice is legal
    } else if (line !~ /^(namespace|using|template|return|typedef|extern)/ &&
               match(line, /[A-Za-z_][A-Za-z0-9_:]*\(/)) {
        name = substr(line, RSTART, RLENGTH - 1)
        params = substr(line, RSTART + RLENGTH); sub(/\).*/, ")", params)
        # Parameter types only, unqualified ("const core::Bytes& b" and "const Bytes& data" clash).
        gsub(/[A-Za-z_][A-Za-z0-9_]*::/, "", params); gsub(/ *=[^,)]*/, "", params)
        gsub(/ *[A-Za-z_][A-Za-z0-9_]*(,|\))/, "&", params); gsub(/ [A-Za-z_][A-Za-z0-9_]*,/, ",", params)
        gsub(/ [A-Za-z_][A-Za-z0-9_]*\)/, ")", params)
        if (name !~ /::/ && line !~ /;[ \t]*$/) key = "function " name "(" params
    } else if (line ~ /^(constexpr|const|static|inline|auto|bool|int|unsigned|double|std::)/ &&
               match(line, /[A-Za-z_][A-Za-z0-9_]* *(=|\{)/)) {
        name = substr(line, RSTART, RLENGTH); sub(/ *(=|\{)$/, "", name); key = "variable " name
    }
    if (key == "") next
    if ((key in file) && file[key] != FILENAME && (key !~ /^using / || value_of[key] != value))
        printf "%s: defined in %s and %s\n", key, file[key], FILENAME
    else if (!(key in file)) { file[key] = FILENAME; value_of[key] = value }
}' "$@"
}
clashes=""
add() {
    [ $# -gt 1 ] || return 0
    local found
    found=$(check_names "$@")
    [ -z "$found" ] || clashes+="$found"$'\n'
}
shopt -s nullglob
# One group per library folder (its detail/ included), one per component's tests, the command
# layer, and the test-support targets (src/credence/CMakeLists.txt, tests/CMakeLists.txt).
for dir in src/credence/*/ src/credence/verify/*/; do
    mapfile -t sources < <(printf '%s\n' "$dir"*.cpp "$dir"detail/*.cpp | grep -v '_test\.cpp$' || true)
    add "${sources[@]}"
done
for dir in src/credence/*/; do add "$dir"*_test.cpp "$dir"*/*_test.cpp; done
add tests/cli/*.cpp
add tests/support/*.cpp
if [ -n "$clashes" ]; then
    echo "check-unity-names: file-local names must be unique within a target (unity build):" >&2
    echo "$clashes" >&2
    exit 1
fi
