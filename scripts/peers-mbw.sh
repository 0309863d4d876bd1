#!/usr/bin/env bash
# Summary: run Debian's /usr/bin/mbw and ours side by side on the same
#          array size, alternating, and print medians and ratios.
# Usage: scripts/peers-mbw.sh [--size MiB|auto] [--runs N] [--rounds R]
#                             [--threads N] [--mbw PATH] [--peer PATH]
#                             [--stream PATH]
#
#   --size     MiB per array, or auto: the smallest power of two >= 4x the
#              last-level cache (at least 64); default auto
#   --runs     runs per test for every mbw (-n); default 5
#   --rounds   rounds; each round runs every runner once, alternating who
#              goes first; the table shows medians over rounds (default 3)
#   --threads  threads for "ours --threads N" and for stream; default 2
#   --mbw      our mbw (default bin/mbw); --peer Debian's (default
#              /usr/bin/mbw); --stream our stream (default bin/stream)
#
# What is compared with what (Debian 1.2.2's labels are wrong):
#   - memcpy:       ours MEMCPY    vs Debian's test labelled "DUMB" (it is
#                   the memcpy);
#   - element loop: ours DUMB      vs Debian's test labelled "MEMCPY" (it is
#                   the b[i]=a[i] loop; Debian's build keeps it scalar, one
#                   8-byte move per element, ours may be vectorised);
#   - block copy:   ours MCBLOCK   vs Debian's MCBLOCK, which never advances
#                   its source and re-reads one cached block: its figure is
#                   inflated, the ratio is shown for information only;
#   - threads:      ours -t0 --threads N vs our stream Copy with N threads on
#                   an array of the same bytes.  mbw counts the array once
#                   in MiB/s; STREAM counts read + write in MB/s (10^6), so
#                   ours is converted: MB/s = MiB/s x 2 x 1.048576.
# Figures are the AVG lines (array MiB / mean time) and, for stream, bytes /
# average time.  A runner that cannot run is reported with its reason.
# Default run: about 10 s on 2 cores.  Set MEMSUITE_DEBUG=1 for set -x.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

# lib/peers.sh (scripts/lib/ in a source tree, PREFIX/share/memsuite/lib/
# installed) finds our tools: MEMSUITE_BIN, bin/ of the tree, PREFIX/lib/memsuite/bin.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/peers.sh
. "$here/lib/peers.sh" 2>/dev/null || . "$here/../lib/peers.sh"
bin=$(ms_peers_bin_dir)
ours="$bin/mbw"
peer=/usr/bin/mbw
stream="$bin/stream"
size=auto
runs=5
rounds=3
threads=2

die() { echo "peers-mbw: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --size) size=${2:?--size needs a value}; shift 2 ;;
        --runs) runs=${2:?--runs needs a value}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
        --threads) threads=${2:?--threads needs a value}; shift 2 ;;
        --mbw) ours=${2:?--mbw needs a path}; shift 2 ;;
        --peer) peer=${2:?--peer needs a path}; shift 2 ;;
        --stream) stream=${2:?--stream needs a path}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1'; see --help" ;;
    esac
done
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || die "--runs '$runs': expected a positive integer"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a positive integer"
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads '$threads': expected a positive integer"
[ -x "$ours" ] || die "$ours is not built; run 'make bin/mbw' or pass --mbw PATH"
command -v jq >/dev/null || die "jq is needed to read the JSON results; install jq"

work=$(mktemp -d "${TMPDIR:-/tmp}/peers-mbw.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ "$size" = auto ]; then
    # The LLC as our mbw records it (a 1 MiB probe run).
    "$ours" -q -n 1 -t0 --format json --output "$work/probe.json" 1 >/dev/null 2>&1 \
        || die "$ours cannot run a 1 MiB probe"
    llc=$(jq -r '.llc.total_bytes // 0' "$work/probe.json")
    size=64
    while [ $(( size * 1048576 )) -lt $(( 4 * llc )) ]; do size=$(( size * 2 )); done
fi
[[ "$size" =~ ^[1-9][0-9]*$ ]] || die "--size '$size': expected MiB as a positive integer or auto"

declare -A skip_reason=()
if [ ! -x "$peer" ]; then
    skip_reason[debian]="$peer is not installed (Debian: apt-get install mbw)"
fi
if [ ! -x "$stream" ]; then
    skip_reason[stream]="$stream is not built (make bin/stream): no stream Copy comparison"
fi

results="$work/results.tsv"   # runner<TAB>label<TAB>figure
: > "$results"

# avg_lines RUNNER: mbw text on stdin -> "RUNNER<TAB>METHOD<TAB>MiB/s" per AVG
avg_lines() {
    awk -F'\t' -v r="$1" '$1 == "AVG" {
        split($2, m, ": "); split($5, c, /[: ]+/); printf "%s\t%s\t%s\n", r, m[2], c[2] }'
}

run_ours() {
    local out
    if out=$("$ours" -q -n "$runs" "$size" 2>"$work/ours.err"); then
        avg_lines ours <<< "$out" >> "$results"
    else
        skip_reason[ours]="our mbw failed: $(head -c 300 "$work/ours.err")"
    fi
    if out=$(OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores} \
            "$ours" -q -n "$runs" -t0 --threads "$threads" "$size" 2>"$work/ours.err"); then
        avg_lines "ours-threads" <<< "$out" >> "$results"
    else
        skip_reason[ours-threads]="our mbw --threads $threads failed: $(head -c 300 "$work/ours.err")"
    fi
}

run_debian() {
    [ -z "${skip_reason[debian]:-}" ] || return 0
    local out
    if out=$("$peer" -q -n "$runs" "$size" 2>"$work/deb.err"); then
        avg_lines debian <<< "$out" >> "$results"
    else
        skip_reason[debian]="$peer failed: $(head -c 300 "$work/deb.err")"
    fi
}

run_stream() {
    [ -z "${skip_reason[stream]:-}" ] || return 0
    local elements=$(( size * 1048576 / 8 ))
    if OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores} \
        "$stream" -s "$elements" -n $(( runs + 1 )) -t "$threads" --kernels copy --allow-small \
            --format json -q -O "$work/stream.json" >/dev/null 2>"$work/stream.err"; then
        jq -r '.records[] | select(.name == "Copy") |
               ["stream", "Copy", (.metrics.bytes.value / .metrics.avg_time_s.value * 1e-6)] | @tsv' \
            "$work/stream.json" >> "$results"
    else
        skip_reason[stream]="stream failed: $(head -c 300 "$work/stream.err")"
    fi
}

echo "peers-mbw: $size MiB per array, $runs runs per test, $rounds rounds," \
     "threads $threads" >&2
for r in $(seq 1 "$rounds"); do
    echo "peers-mbw: round $r/$rounds" >&2
    if [ $((r % 2)) -eq 1 ]; then
        run_ours; run_debian; run_stream
    else
        run_stream; run_debian; run_ours
    fi
done

# ---- table --------------------------------------------------------------
median() { ms_peers_median | sed 's/^nan$//'; }   # "" when none
fig() {   # fig RUNNER LABEL -> median
    awk -F'\t' -v r="$1" -v l="$2" '$1 == r && $2 == l {print $3}' "$results" | median
}

row() {   # row WHAT OURS PEER UNIT NOTE
    awk -v w="$1" -v o="$2" -v p="$3" -v u="$4" -v n="$5" 'BEGIN {
        os = (o == "") ? "-" : sprintf("%.1f", o)
        ps = (p == "") ? "-" : sprintf("%.1f", p)
        rs = (o == "" || p == "" || p == 0) ? "-" : sprintf("%.3f", o / p)
        printf "%-46s %12s %12s %-5s %7s  %s\n", w, os, ps, u, rs, n }'
}

printf '%-46s %12s %12s %-5s %7s  %s\n' comparison ours peer unit ratio note
row "memcpy: ours MEMCPY / Debian \"DUMB\"" "$(fig ours MEMCPY)" "$(fig debian DUMB)" MiB/s ""
row "element loop: ours DUMB / Debian \"MEMCPY\"" "$(fig ours DUMB)" "$(fig debian MEMCPY)" MiB/s ""
row "block copy: ours MCBLOCK / Debian MCBLOCK" "$(fig ours MCBLOCK)" "$(fig debian MCBLOCK)" MiB/s \
    "Debian re-reads one block: inflated"
thr=$(fig ours-threads MEMCPY)
thr_mbs=""
[ -n "$thr" ] && thr_mbs=$(awk -v m="$thr" 'BEGIN {printf "%.1f", m * 2 * 1.048576}')
row "ours --threads $threads MEMCPY / stream Copy" "$thr_mbs" "$(fig stream Copy)" MB/s \
    "ours x2x1.048576 (read+write, 10^6)"
echo "figures: medians over $rounds rounds of AVG (mbw) and bytes/avg time (stream)"
for k in "${!skip_reason[@]}"; do
    echo "not run: $k: ${skip_reason[$k]}"
done
