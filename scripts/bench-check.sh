#!/usr/bin/env bash
# Summary: time `memsuite check --ref REF --result RESULT` on a generated reference of many metrics (target: 500 metrics well under 1 s).
# Usage: scripts/bench-check.sh [--metrics N] [--runs R] [--other TREE]
#
# Generates a result document with N records (default 500, each with a
# best_rate_mbps in MB/s) and a reference of N metrics against it, then
# runs `memsuite check --ref REF --result RESULT` R times (default 5),
# text and --format json, and prints each wall time and the median.
# --other TREE also times TREE's scripts/memsuite (another checkout, e.g.
# main) on the same files, alternating with this one, and prints the
# ratio of the medians (other / this).  Prints figures only: no target is
# asserted (speed is not a test; the machine's load changes it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "bench-check: $*" >&2; exit 2; }
n=500 runs=5 other=""
while [ $# -gt 0 ]; do
    case "$1" in
        --metrics) n=${2:?}; shift ;;
        --runs) runs=${2:?}; shift ;;
        --other) other=${2:?}; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option '$1'" ;;
    esac
    shift
done
[[ "$n" =~ ^[1-9][0-9]*$ ]] || die "--metrics: a whole number > 0"
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs: a whole number > 0"
[ -z "$other" ] || [ -x "$other/scripts/memsuite" ] || die "--other: no scripts/memsuite in $other"
command -v jq >/dev/null || die "needs jq"

tmp=$(mktemp -d)
trap 'rm -rf -- "$tmp"' EXIT
fix="$root/tests/fixtures/memsuite-check"
jq --argjson n "$n" '.records = [range(0; $n) as $i
        | { name: "R\($i)", metrics: { best_rate_mbps: { value: (10000 + $i), unit: "MB/s" } } }]' \
    "$fix/result-node.json" >"$tmp/res.json"
jq --argjson n "$n" '.metrics = [range(0; $n) as $i
        | { record: "R\($i)", metric: "best_rate_mbps", unit: "MB/s", expected: 10000,
            lower_pct: 10, upper_pct: null }]' "$fix/ref-stream.json" >"$tmp/ref.json"
export MEMSUITE_LOCK="$tmp/lock" MEMSUITE_STATE_DIR="$tmp/state"

once() {    # once TREE FORMAT -> seconds
    local t0 t1 rc=0
    t0=$(date +%s.%N)
    "$1/scripts/memsuite" check --ref "$tmp/ref.json" --result "$tmp/res.json" --format "$2" >"$tmp/out" 2>"$tmp/err" || rc=$?
    t1=$(date +%s.%N)
    [ "$rc" -eq 0 ] || { cat "$tmp/err" >&2; die "$1: check exited $rc"; }
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", b - a }'
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

echo "bench-check: $n metrics, $runs run(s) each; $(nproc) CPU(s), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for fmt in text json; do
    : >"$tmp/this" ; : >"$tmp/other"
    for ((i = 1; i <= runs; i++)); do
        once "$root" "$fmt" >>"$tmp/this"
        [ -z "$other" ] || once "$other" "$fmt" >>"$tmp/other"
    done
    mt=$(median <"$tmp/this")
    printf '  %-5s this tree: %s s each, median %s s\n' "$fmt" "$(paste -sd' ' "$tmp/this")" "$mt"
    if [ -n "$other" ]; then
        mo=$(median <"$tmp/other")
        printf '  %-5s %s: %s s each, median %s s; ratio other/this %s\n' "$fmt" "$other" \
            "$(paste -sd' ' "$tmp/other")" "$mo" "$(awk -v a="$mo" -v b="$mt" 'BEGIN { printf "%.1f", a / b }')"
    fi
done
