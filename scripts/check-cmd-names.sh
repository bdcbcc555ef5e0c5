#!/usr/bin/env bash
# The run and release presets compile the command layer in unity batches (CREDENCE_UNITY_CLI),
# where the files of a batch share one translation unit: a file-local type, function, constant or
# alias defined in two files of src/credence/cmd/ would then be defined twice. Which files share a
# batch depends on the file list, so this check (part of scripts/lint.sh) keeps every grouping
# compiling: it lists every namespace-scope name (column 0, our layout) defined in more than one
# file of the folder.
set -euo pipefail
cd "$(dirname "$0")/.."
clashes=$(awk '
/^[A-Za-z]/ {
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
        if (name !~ /::/ && line !~ /;[ \t]*$/) key = "function " name "(" params
    } else if (line ~ /^(constexpr|const|static|inline|auto|bool|int|unsigned|double|std::)/ &&
               match(line, /[A-Za-z_][A-Za-z0-9_]* *(=|\{)/)) {
        name = substr(line, RSTART, RLENGTH); sub(/ *(=|\{)$/, "", name); key = "variable " name
    }
    if (key == "") next
    if ((key in file) && file[key] != FILENAME && (key !~ /^using / || value_of[key] != value))
        printf "%s: defined in %s and %s\n", key, file[key], FILENAME
    else if (!(key in file)) { file[key] = FILENAME; value_of[key] = value }
}' src/credence/cmd/*.cpp)
if [ -n "$clashes" ]; then
    echo "check-cmd-names: file-local names must be unique across src/credence/cmd/ (unity build):" >&2
    echo "$clashes" >&2
    exit 1
fi
