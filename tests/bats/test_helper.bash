# Shared Bats setup: a temp sandbox per test, stubs first on PATH, the
# built binaries under $BIN, fixture trees under $FIXTURES.
#
#   load test_helper        (first line of every .bats file)
#   stub NAME 'body'        creates an executable stub in $STUBS
#   use_fixture NAME        points MEMSUITE_SYSFS/PROCFS at fixtures/NAME/{sys,proc}

ROOT="${MEMSUITE_ROOT:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
BIN="${MEMSUITE_BIN:-$ROOT/bin}"
FIXTURES="$ROOT/tests/fixtures"
SCHEMA="$ROOT/docs/result.schema.json"

for lib in /usr/lib/bats/bats-support /usr/lib/bats/bats-assert; do
    [ -f "$lib/load.bash" ] && load "$lib/load.bash"
done

setup() {
    SANDBOX=$(mktemp -d "${BATS_TMPDIR:-/tmp}/memsuite.XXXXXX")
    STUBS="$SANDBOX/stubs"
    mkdir -p "$STUBS"
    export PATH="$STUBS:$BIN:$PATH"
    export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
    unset MEMSUITE_SYSFS MEMSUITE_PROCFS MEMSUITE_LLC
    cd "$SANDBOX" || return 1
    if declare -F local_setup >/dev/null; then local_setup; fi
}

teardown() {
    if declare -F local_teardown >/dev/null; then local_teardown; fi
    cd / && rm -rf "$SANDBOX"
}

stub() {    # stub NAME BODY
    printf '#!/usr/bin/env bash\n%s\n' "$2" > "$STUBS/$1"
    chmod +x "$STUBS/$1"
}

use_fixture() {
    export MEMSUITE_SYSFS="$FIXTURES/$1/sys"
    export MEMSUITE_PROCFS="$FIXTURES/$1/proc"
}

# validate_json FILE: the document must be valid JSON and conform to the
# result schema (checked by the real jsonschema validator).
validate_json() {
    jq -e . "$1" >/dev/null || { echo "not JSON: $1"; return 1; }
    /usr/bin/jsonschema -i "$1" "$SCHEMA"
}

# match_lines FILE PATTERNS: FILE has as many lines as PATTERNS, and each
# line matches its extended regular expression.
match_lines() {
    local -a got pat
    mapfile -t got < "$1"
    mapfile -t pat < "$2"
    if [ "${#got[@]}" -ne "${#pat[@]}" ]; then
        echo "expected ${#pat[@]} lines, got ${#got[@]}:"
        cat "$1"
        return 1
    fi
    local i
    for i in "${!pat[@]}"; do
        if ! [[ "${got[$i]}" =~ ${pat[$i]} ]]; then
            echo "line $((i + 1)) does not match: ${pat[$i]}"
            echo "got: ${got[$i]}"
            return 1
        fi
    done
}
