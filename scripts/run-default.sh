#!/usr/bin/env bash
# Summary: the short default suite behind `make run`.
# Usage: scripts/run-default.sh [RESULTS_DIR]
#
# Runs stream (auto size: each array >= 4x LLC), mbw (256 MiB, 1 and all
# threads) and mencal (seqread, randread) with JSON output, keeps every
# document in RESULTS_DIR (default results/default-<UTC time>), and
# prints one summary: the environment that shaped the figures, then the
# figures.  Designed to finish in about a minute on 2 cores.
set -euo pipefail
[ "${MEMSUITE_DEBUG:-0}" = 1 ] && set -x
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${MEMSUITE_BIN:-$root/bin}
out=${1:-$root/results/default-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$out"

cpus=$(nproc)
run_json() {    # run_json NAME CMD...: writes $out/NAME.json, reports ok/failed
    local name=$1; shift
    printf '  %-12s %s ... ' "$name" "${*#"$bin/"}"
    local t0=$SECONDS
    # --output (not -O): mbw keeps every short flag for mbw's own meaning
    if "$@" --format json --output "$out/$name.json" > "$out/$name.stdout" 2> "$out/$name.stderr"; then
        printf 'ok (%ds)\n' $((SECONDS - t0))
    else
        local rc=$?
        printf 'FAILED (exit %d; see %s)\n' "$rc" "$out/$name.stderr"
    fi
}

echo "memsuite: default suite -> $out"
run_json stream        "$bin/stream" --array-size auto --ntimes 20
run_json mbw-1thread   "$bin/mbw" -q -n 5 256
run_json mbw-threads   "$bin/mbw" -q -n 5 --threads "$cpus" 256
run_json mencal-seq    "$bin/mencal" run seqread --reps 3 --size 1GiB
run_json mencal-lat    "$bin/mencal" run randread --reps 3 --size 512MiB
echo

"$root/scripts/summary.sh" "$out"
