#!/usr/bin/env bash
# Summary: run make test N times beside a CPU hog: a suite that depends on
#          a quiet machine fails here first.
# Usage: scripts/flake-check.sh [--runs N] [--hogs N] [-- MAKE-ARGS...]
#
# Starts --hogs busy loops (default 2, one per vCPU of the development
# VM), then runs `make test MAKE-ARGS` --runs times (default 3) one after
# another, each run's closing line and wall time printed, its whole log
# kept in flake-check.<N>.log.  The hogs end with the script, whatever
# way it ends.  Exit 0 when every run passed, 1 when one failed (named),
# 2 usage.
set -uo pipefail
runs=3 hogs=2
while [ $# -gt 0 ]; do
    case "$1" in
        --runs|--hogs)
            [[ "${2:-}" =~ ^[1-9][0-9]{0,2}$ ]] || { echo "flake-check: $1 needs a count of 1 to 999 (got '${2:-}')" >&2; exit 2; }
            if [ "$1" = --runs ]; then runs=$2; else hogs=$2; fi
            shift 2 ;;
        --) shift; break ;;
        -h|--help) sed -n '2,/^set /{/^set /d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        *) echo "flake-check: unknown argument '$1'; see --help" >&2; exit 2 ;;
    esac
done
cd "$(dirname "$0")/.." || exit 2
pids=()
stop_hogs() { [ "${#pids[@]}" -eq 0 ] || kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for ((h = 0; h < hogs; h++)); do
    # a busy loop that holds no pipe of ours
    bash -c 'while :; do :; done' </dev/null >/dev/null 2>&1 &
    pids+=($!)
done
echo "flake-check: $hogs busy loop(s) running; make test $* x $runs"
bad=()
for ((r = 1; r <= runs; r++)); do
    start=$SECONDS
    make test "$@" >"flake-check.$r.log" 2>&1
    rc=$?
    printf 'flake-check: run %d: exit %d in %d s: %s\n' "$r" "$rc" $((SECONDS - start)) \
        "$(grep -E '^(# [a-z]+: )?[0-9]+ passed, [0-9]+ failed' "flake-check.$r.log" | tail -n 1)"
    [ "$rc" -eq 0 ] || bad+=("$r")
done
if [ "${#bad[@]}" -gt 0 ]; then
    echo "flake-check: run(s) ${bad[*]} failed (flake-check.<run>.log)"
    logs=()
    for r in "${bad[@]}"; do logs+=("flake-check.$r.log"); done
    grep -h '^not ok' "${logs[@]}" | sort | uniq -c | sort -rn | head -20
    exit 1
fi
echo "flake-check: $runs of $runs passed beside $hogs busy loop(s)"
