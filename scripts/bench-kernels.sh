#!/usr/bin/env bash
# Summary: the calibrated kernels against their references (issue 24):
#          sweep's DRAM read plateau vs seqread, loaded's idle latency vs
#          randread; side by side, alternating, medians and ratios.
# Usage: scripts/bench-kernels.sh [--mencal PATH] [--rounds N] [--threads N]
#                                 [--loaded-size SIZE] [--reps N]
#
#   --mencal PATH      the mencal to measure (default bin/mencal)
#   --rounds N         rounds (default 5); each runs the four measurements
#                      once, the pair's order alternating between rounds
#   --threads N        threads of sweep and seqread (default: mencal's, one
#                      per physical core)
#   --loaded-size SIZE loaded's --size (default 256MiB); randread runs on one
#                      thread at loaded's slice (SIZE / 2), as loaded's note says
#   --reps N           sweep's and seqread's --reps (default 5)
#
# Pairs, each in the same round:
#   sweep plateau   `mencal run sweep --kernels read` (its default top, in
#                   DRAM), the DRAM plateau at N threads (GB/s), against
#                   `mencal run seqread --size TOP` (GB/s); target 0.95-1.05
#   loaded idle     `mencal run loaded -t 2 --delays 0`, latency_idle (ns),
#                   against `mencal run randread -t 1 --size SIZE/2`,
#                   latency (ns); target 0.97-1.03
# ratio = median over rounds of sweep / seqread (loaded / randread) within
# the same round.  The variant each calibrated run chose is listed too.
# On a shared or busy machine the figures move with the load: label them.
# Exit 0 when done (the ratios are for the reader), 2 usage, 3 mencal
# missing or failing.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

here=$(cd "$(dirname "$0")" && pwd)
mencal="$here/../bin/mencal"
rounds=5 threads=() loaded_size=256MiB reps=5

die() { echo "bench-kernels: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --mencal) mencal=${2:?--mencal needs a path}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --threads) threads=(-t "${2:?--threads needs a number}"); shift 2 ;;
        --loaded-size) loaded_size=${2:?--loaded-size needs a size}; shift 2 ;;
        --reps) reps=${2:?--reps needs a number}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1'; see --help" ;;
    esac
done
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a whole number >= 1"
[[ "$reps" =~ ^[1-9][0-9]*$ ]] || die "--reps '$reps': expected a whole number >= 1"
[ -x "$mencal" ] || { echo "bench-kernels: $mencal missing" >&2; exit 3; }
command -v jq >/dev/null || { echo "bench-kernels: jq missing (make deps)" >&2; exit 3; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tsv="$work/values.tsv"     # round pair side value
top=

# run NAME ARGS...: mencal's JSON into $work/NAME.json, or fail loudly
run() {
    local name=$1; shift
    "$mencal" run "$@" -q --format json -O "$work/$name.json" 2>"$work/$name.err" ||
        { echo "bench-kernels: mencal run $*: failed:" >&2; cat "$work/$name.err" >&2; exit 3; }
}
metric() { jq -r --arg m "$2" '.records[0].metrics[$m].value // empty' "$work/$1.json"; }

sweep_side() {
    run sweep sweep --kernels read --reps "$reps" "${threads[@]}"
    top=$(jq -r '.config.sweep.top_bytes' "$work/sweep.json")
    local nt
    nt=$(jq -r '[.records[0].tables.plateaus[] | select(.kernel == "read") | .threads] | max' "$work/sweep.json")
    printf '%s\tsweep\ta\t%s\n' "$1" "$(jq -r --argjson t "$nt" '.records[0].tables.plateaus[]
        | select(.kernel == "read" and .threads == $t and .level == "DRAM") | .bandwidth' "$work/sweep.json")" >>"$tsv"
    jq -r '.records[0].notes[] | select(startswith("read kernel ")) | "  sweep: " + .' "$work/sweep.json" >&2
}
seqread_side() {
    run seqread seqread --size "${top:-256MiB}" --reps "$reps" "${threads[@]}"
    printf '%s\tsweep\tb\t%s\n' "$1" "$(metric seqread bandwidth)" >>"$tsv"
}
loaded_side() {
    run loaded loaded --size "$loaded_size" -t 2 --delays 0
    printf '%s\tloaded\ta\t%s\n' "$1" "$(metric loaded latency_idle)" >>"$tsv"
}
randread_side() {
    local s
    s=$(jq -r '.records[0].notes[] | capture("compare with randread --threads 1 --size (?<s>[0-9]+)").s' \
        "$work/loaded.json" 2>/dev/null | head -1)
    [ -n "$s" ] || { echo "bench-kernels: loaded named no slice to compare with" >&2; exit 3; }
    run randread randread -t 1 --size "$s"
    printf '%s\tloaded\tb\t%s\n' "$1" "$(metric randread latency)" >>"$tsv"
}

echo "bench-kernels: $mencal, $rounds rounds, alternating; $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for r in $(seq 1 "$rounds"); do
    echo "bench-kernels: round $r/$rounds" >&2
    if [ $((r % 2)) -eq 1 ]; then
        sweep_side "$r"; seqread_side "$r"; loaded_side "$r"; randread_side "$r"
    else
        seqread_side "$r"; sweep_side "$r"; randread_side "$r"; loaded_side "$r"
    fi
done
echo "bench-kernels: done $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

awk -F'\t' '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    $4 != "" { v[$1, $2, $3] = $4; vals[$2, $3] = vals[$2, $3] " " $4; rounds[$1] = 1 }
    END {
        label["sweep"] = "sweep DRAM plateau / seqread (GB/s)"; target["sweep"] = "0.95-1.05"
        label["loaded"] = "loaded idle / randread (ns)"; target["loaded"] = "0.97-1.03"
        printf "%-38s %10s %10s %8s %-10s %s\n", "pair", "ours", "reference", "ratio", "target", "rounds"
        split("sweep loaded", pairs, " ")
        for (k = 1; k <= 2; k++) {
            p = pairs[k]; rl = ""; nr = 0
            for (r in rounds) if (((r, p, "a") in v) && ((r, p, "b") in v) && v[r, p, "b"] > 0) {
                rl = rl " " v[r, p, "a"] / v[r, p, "b"]; nr++
            }
            printf "%-38s %10.2f %10.2f %8.3f %-10s %d\n", label[p], median(vals[p, "a"]),
                   median(vals[p, "b"]), nr ? median(rl) : 0, target[p], nr
        }
        print "ratio: median over rounds of ours / reference measured in the same round"
    }' "$tsv"
