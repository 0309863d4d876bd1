#!/usr/bin/env bash
# Runs every unit test binary and every Bats file, then prints one
# closing line "N passed, N failed" (, N skipped).  Exit 0 only when
# nothing failed.
#   tests/run-tests.sh BUILD_DIR BIN_DIR
set -uo pipefail
build=${1:-build}
bin=${2:-bin}
root=$(cd "$(dirname "$0")/.." && pwd)
export MEMSUITE_BIN="$root/$bin"
export MEMSUITE_ROOT="$root"
export MEMSUITE_BUILD="$root/$build"

passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

count_tap() {   # reads TAP on stdin, updates counters
    local line
    while IFS= read -r line; do
        printf '%s\n' "$line"
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
    "$t" > "$log" 2>&1
    rc=$?
    count_tap < "$log"
    if [ "$rc" -ne 0 ] && ! grep -q '^not ok' "$log"; then
        echo "not ok - ${t##*/} exited $rc without a failed check (crash?)"
        failed=$((failed + 1))
    fi
done

if command -v bats >/dev/null 2>&1; then
    shopt -s nullglob
    files=("$root"/tests/bats/*.bats)
    if [ ${#files[@]} -gt 0 ]; then
        echo "# bats: ${#files[@]} files"
        bats --tap "${files[@]}" > "$log" 2>&1
        count_tap < "$log"
    fi
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
