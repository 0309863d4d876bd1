#!/usr/bin/env bash
# Runs every unit test binary and every Bats file, then prints one
# closing line "N passed, N failed" (, N skipped).  Exit 0 only when
# nothing failed.
#   tests/run-tests.sh BUILD_DIR BIN_DIR [BATS_FILE...]
# With BATS_FILEs (paths, or names under tests/bats/) only those Bats
# files run, after every unit test (make check-aarch64 chooses its files).
#
# Bats files run in lanes: MEMSUITE_TEST_JOBS files at a time (default:
# the CPUs this process may use, at most 4; 1 runs them one by one).  A
# file whose tests need the machine to themselves says so on a line of
# its own, "# runs alone: REASON" (it measures the real machine, or looks
# at how busy it is): those run one by one after the lanes, with nothing
# beside them.  Each file's TAP is printed whole when it ends, headed by
# its name and wall seconds; a file that exits non-zero without a failed
# test (a crash, a syntax error) counts as one failure.
set -uo pipefail
build=${1:-build}
bin=${2:-bin}
shift 2 2>/dev/null || shift $#
root=$(cd "$(dirname "$0")/.." && pwd)
export MEMSUITE_BIN="$root/$bin"
export MEMSUITE_ROOT="$root"
export MEMSUITE_BUILD="$root/$build"

# the lanes: checked before anything runs
nlanes=${MEMSUITE_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
case "$nlanes" in
    ''|*[!0-9]*) nlanes_ok=0 ;;
    *) nlanes=$((10#$nlanes)); nlanes_ok=$((nlanes >= 1)) ;;
esac
if [ "$nlanes_ok" != 1 ]; then
    echo "run-tests: MEMSUITE_TEST_JOBS='${MEMSUITE_TEST_JOBS-}' is not a count of 1 or more" >&2
    exit 2
fi
[ -n "${MEMSUITE_TEST_JOBS:-}" ] || [ "$nlanes" -le 4 ] || nlanes=4

# the chosen Bats files, if any: checked before anything runs too
chosen=()
for f in "$@"; do
    case "$f" in */*) ;; *) f="$root/tests/bats/$f" ;; esac
    if [ ! -f "$f" ]; then
        echo "run-tests: no Bats file '$f'" >&2
        exit 2
    fi
    chosen+=("$f")
done

passed=0 failed=0 skipped=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count_tap() {   # reads TAP on stdin, updates counters
    local line
    while IFS= read -r line; do
        case "$line" in
            "ok "*"# skip"*|"ok "*"# SKIP"*) skipped=$((skipped + 1)) ;;
            "ok "*) passed=$((passed + 1)) ;;
            "not ok "*) failed=$((failed + 1)) ;;
        esac
    done
}

for t in "$root/$build"/tests/test_*; do
    [ -x "$t" ] || continue
    echo "# unit: ${t##*/}"
    "$t" > "$work/unit.log" 2>&1
    rc=$?
    cat "$work/unit.log"
    count_tap < "$work/unit.log"
    if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$work/unit.log"; then
        echo "not ok - ${t##*/} exited $rc without a failed check (crash?)"
        failed=$((failed + 1))
    fi
done

# bats_one FILE: runs one Bats file into $work/NAME.tap (a crash without a
# failed test becomes a "not ok" line there), then prints it whole under
# $work/print.lock, so lanes never interleave.
bats_one() {
    local f=$1 name log start rc
    name=${f##*/}
    log="$work/$name.tap"
    start=${EPOCHREALTIME/,/.}
    bats --tap "$f" > "$log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$log"; then
        echo "not ok - $name: bats exited $rc without a failed test (crash or syntax error?)" >> "$log"
    fi
    {
        flock 9
        awk -v n="$name" -v s="$start" -v e="${EPOCHREALTIME/,/.}" 'BEGIN { printf "# bats: %s (%.1f s)\n", n, e - s }'
        cat "$log"
    } 9>> "$work/print.lock"
}

if command -v bats >/dev/null 2>&1; then
    shopt -s nullglob
    files=("$root"/tests/bats/*.bats)
    [ ${#chosen[@]} -eq 0 ] || files=("${chosen[@]}")
    lanes=() alone=()
    for f in "${files[@]}"; do
        if grep -q '^# runs alone: ' "$f"; then alone+=("$f"); else lanes+=("$f"); fi
    done
    echo "# bats: ${#files[@]} files, ${#lanes[@]} in $nlanes lane(s), then ${#alone[@]} alone"
    export -f bats_one
    export work
    # the largest files first, so the lanes end close together
    if [ ${#lanes[@]} -gt 0 ]; then
        # shellcheck disable=SC2016 # $1 is the child bash's argument
        stat -c '%s %n' "${lanes[@]}" | sort -rn | cut -d ' ' -f 2- |
            xargs -d '\n' -P "$nlanes" -n 1 bash -c 'bats_one "$1"' bats_one
    fi
    for f in "${alone[@]}"; do bats_one "$f"; done
    for f in "${files[@]}"; do
        if [ -f "$work/${f##*/}.tap" ]; then
            count_tap < "$work/${f##*/}.tap"
        else
            echo "not ok - ${f##*/}: no TAP output (the lane did not run it)"
            failed=$((failed + 1))
        fi
    done
else
    echo "not ok - bats is not installed; run 'make deps'"
    failed=$((failed + 1))
fi

echo
if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
