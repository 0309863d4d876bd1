#!/usr/bin/env bash
# Summary: mencal's topology scenarios against the figures they must agree
#          with, side by side: medians over alternating rounds and ratios.
# Usage: scripts/bench-topology.sh [--rounds N] [--size SIZE] [--c2clat PATH]
#                                  [--bin DIR]
#
#   --rounds N     rounds (default 5); each runs every pair below once,
#                  the order of the two sides alternating between rounds
#   --size SIZE    mencal's --size for matrix, randread, seqread and
#                  injection (default 1G)
#   --c2clat PATH  rigtorp's c2clat, built from its public source outside
#                  this repository (g++ -O3 -DNDEBUG c2clat.cpp -pthread);
#                  without it the c2c row says so
#   --bin DIR      the tools (default bin/)
#
# Pairs (ratio = ours / reference, median over rounds of the ratio within
# a round; the target is what docs/topology.md states):
#   matrix local latency     / randread latency, 1 thread     (+-3%)
#   matrix local bandwidth   / seqread bandwidth, all threads (+-5%)
#   injection all reads      / seqread bandwidth              (+-5%)
#   injection triad-like     / stream Triad, same bytes        (+-5%)
#   c2c median one-way       / c2clat, the same pair           (+-5%)
# Exit 0 when done (the ratios are for the reader), 2 usage, 3 a tool
# missing.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin="$here/../bin"
rounds=5 size=1G c2clat=""
die() { echo "bench-topology: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --size) size=${2:?--size needs a size}; shift 2 ;;
        --c2clat) c2clat=${2:?--c2clat needs a path}; shift 2 ;;
        --bin) bin=${2:?--bin needs a directory}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1'; see --help" ;;
    esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a whole number >= 1"
for t in mencal stream memsuite-size; do [ -x "$bin/$t" ] || { echo "bench-topology: $bin/$t missing" >&2; exit 3; }; done
[ -z "$c2clat" ] || [ -x "$c2clat" ] || { echo "bench-topology: --c2clat $c2clat is not executable" >&2; exit 3; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tsv="$work/values.tsv"   # round pair side value
: >"$tsv"

# metric FILE NAME: a record metric of a result document
metric() {
    jq -r --arg m "$2" 'first(.records[] | .metrics | (if type == "array" then map({key: .name, value: .}) | from_entries else . end) | .[$m].value // empty)' "$1"
}
mc() { "$bin/mencal" run "$@" --size "$size" -q --format json -O "$work/r.json" 2>/dev/null; }

# one side of one pair: prints the figure
side() {
    case "$1" in
        matrix-lat) mc matrix --reps 3 && metric "$work/r.json" latency_local ;;
        randread) mc randread --threads 1 --reps 3 && metric "$work/r.json" latency ;;
        matrix-bw) mc matrix --reps 3 && metric "$work/r.json" bandwidth_local ;;
        seqread) mc seqread --reps 5 && metric "$work/r.json" bandwidth ;;
        inj-read) mc injection --reps 5 && metric "$work/r.json" bandwidth_read ;;
        inj-triad) mc injection --reps 5 && metric "$work/r.json" bandwidth_triad ;;
        stream)
            # three arrays holding --size between them, as the triad kernel splits it
            local bytes n
            bytes=$("$bin/memsuite-size" "$size" | awk '$1 == "ok" { print $2 }')
            n=$((bytes / 3 / 8))
            "$bin/stream" -s "$n" -n 10 --format json 2>/dev/null |
                jq -r '.records[] | select(.name == "Triad") | .metrics | (if type == "array" then map({key: .name, value: .}) | from_entries else . end) | .best_rate_mbps.value / 1000' ;;
        c2c) "$bin/mencal" run c2c -q --format json -O "$work/r.json" 2>/dev/null && metric "$work/r.json" latency ;;
        c2clat) "$c2clat" | awk 'NR == 2 { print $3 }' ;;
    esac
}

pairs=("matrix-lat randread" "matrix-bw seqread" "inj-read seqread" "inj-triad stream")
[ -n "$c2clat" ] && pairs+=("c2c c2clat")
for ((r = 1; r <= rounds; r++)); do
    for p in "${pairs[@]}"; do
        read -r a b <<<"$p"
        if ((r % 2)); then order=("$a" "$b"); else order=("$b" "$a"); fi
        for s in "${order[@]}"; do
            v=$(side "$s" || true)
            printf '%s\t%s\t%s\t%s\n' "$r" "$p" "$s" "${v:-NaN}" >>"$tsv"
        done
    done
done

echo "# $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1); $(nproc) CPUs; $(date -u +%FT%TZ); --size $size, $rounds rounds"
printf '%-28s %12s %12s %8s\n' "pair (ours / reference)" ours reference ratio
for p in "${pairs[@]}"; do
    read -r a b <<<"$p"
    awk -F '\t' -v p="$p" -v a="$a" -v b="$b" '
        function median(x, n,   i, j, t) {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && x[j - 1] > x[j]; j--) { t = x[j]; x[j] = x[j - 1]; x[j - 1] = t }
            return n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
        }
        $2 == p && $4 != "NaN" { v[$1, $3] = $4; seen[$1] = 1 }
        END {
            for (r in seen) if ((r, a) in v && (r, b) in v && v[r, b] > 0) {
                na++; A[na] = v[r, a]; nb++; B[nb] = v[r, b]; nr++; R[nr] = v[r, a] / v[r, b]
            }
            if (!nr) { printf "%-28s %12s %12s %8s\n", a " / " b, "-", "-", "unavailable"; exit }
            printf "%-28s %12.4g %12.4g %8.3f\n", a " / " b, median(A, na), median(B, nb), median(R, nr)
        }' "$tsv"
done
[ -n "$c2clat" ] || echo "c2c / c2clat: unavailable: pass --c2clat PATH (rigtorp/c2clat built outside the repository)"
