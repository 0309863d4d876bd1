#!/usr/bin/env bash
# Summary: the checks of mencal loaded and sweep against their references, as ratios.
# Usage: scripts/peers-curves.sh [--size SIZE] [--threads N] [--rounds N]
#                                [--bin DIR] [--parts 1,2,3,4,5] [--no-timing]
#
# Each ratio is the median over --rounds (default 3) of the ratio measured
# inside one round, the two runs of a round back to back, the order
# alternating (odd rounds mencal's new scenario first, even rounds the
# reference first):
#   1. loaded's idle point / randread's latency, same chase: randread
#      --threads 1 --size <loaded's slice>, the same stride, TLB locality
#      and pages (ns per dependent load; target 1 +- 0.03)
#   2. loaded's no-delay bandwidth / the reference at the same thread count
#      (the N-1 traffic threads) over the same bytes: --traffic triad
#      against stream's Triad (median rate: bytes / median time; the best
#      rate is shown too), --traffic read against seqread (target >= 0.9)
#   3. sweep's DRAM plateau (read, all threads) / seqread at the largest
#      size of that plateau, all threads (target 1 +- 0.05)
#   4. sweep's 16 KiB point (read, 1 thread) / likwid-bench's best load
#      kernel (load, load_sse, load_avx, load_avx512: those this CPU runs)
#      at 16 kB, 1 thread (target >= 0.9)
#   5. unless --no-timing: the wall time of `mencal run loaded` and
#      `mencal run sweep` with their defaults (target < 120 s each)
# --size is the working set of loaded and of the references (default
# 2GiB; raise it to at least 4x LLC x threads / (threads - 1)); --threads
# defaults to one per physical core; --parts runs only the checks listed
# (1 and 2 run together).  MEMSUITE_DEBUG=1 traces the script.
# Exit: 0 printed (a ratio off target is printed, not fatal), 2 usage,
# 3 a tool missing.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

# lib/peers.sh (scripts/lib/ in a source tree, PREFIX/share/memsuite/lib/
# installed) finds our tools: MEMSUITE_BIN, bin/ of the tree, PREFIX/lib/memsuite/bin.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/peers.sh
. "$here/lib/peers.sh" 2>/dev/null || . "$here/../lib/peers.sh"
bin=$(ms_peers_bin_dir)
size=2GiB
threads=
rounds=3
timing=1
parts=1,2,3,4,5

die() { echo "peers-curves: $*" >&2; exit "${2:-2}"; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --size) size=${2:?--size needs a value}; shift 2 ;;
        --threads) threads=${2:?--threads needs a value}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
        --bin) bin=${2:?--bin needs a directory}; shift 2 ;;
        --no-timing) timing=0; shift ;;
        --parts) parts=${2:?--parts needs a list}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1'; see --help" ;;
    esac
done
[[ "$parts" =~ ^[1-5](,[1-5])*$ ]] || die "--parts: '$parts' is not a list of 1..5"
part() { [[ ",$parts," == *",$1,"* ]]; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$rounds' is not a positive integer"
[ -z "$threads" ] || [[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads: '$threads' is not a positive integer"
mencal="$bin/mencal" stream="$bin/stream"
[ -x "$mencal" ] || die "mencal not found at $mencal; run 'make' or pass --bin DIR" 3
[ -x "$stream" ] || die "stream not found at $stream; run 'make' or pass --bin DIR" 3
command -v jq >/dev/null || die "jq is missing; install it (make deps)" 3

tmp=$(mktemp -d "${TMPDIR:-/tmp}/peers-curves.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

targs=()
[ -n "$threads" ] && targs=(--threads "$threads")
plan=$("$mencal" run loaded --dry-run --size "$size" "${targs[@]}" 2>"$tmp/plan.err") ||
    die "mencal refused the plan: $(cat "$tmp/plan.err")"
bytes=$(sed -n 's/^size: \([0-9]*\) bytes.*/\1/p' <<<"$plan")
nt=$(sed -n 's/^threads: //p' <<<"$plan")
[ "$nt" -ge 2 ] || die "loaded needs 2 threads or more (a latency and a traffic thread); this machine gives $nt" 3
slice=$(( bytes / nt / 4096 * 4096 ))
ntr=$(( nt - 1 ))

median() { ms_peers_median; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a > 0) printf "%.4f\n", a / b; else print "nan" }'; }
j() { jq -r "$2" "$1"; }
verdict() {   # verdict RATIO LO HI
    awk -v r="$1" -v lo="$2" -v hi="$3" 'BEGIN { if (r == "nan") print "n/a"; else print (r >= lo && r <= hi) ? "ok" : "OFF TARGET" }'
}

echo "peers-curves: $nt threads ($ntr traffic + 1 latency), loaded --size $bytes ($slice per thread), $rounds rounds, alternating; $(uptime | sed 's/.*load average/load average/')"

# ---- 1 and 2: loaded against randread, stream Triad and seqread -----------
loaded() {   # loaded TRAFFIC OUT: the no-delay point and the idle point
    "$mencal" run loaded --size "$bytes" --threads "$nt" --traffic "$1" --delays 0 -q \
        --format json -O "$2"
}
declare -a r_lat r_triad r_triad_best r_read
part 1 || part 2 || rounds12=0
for r in $(seq 1 "${rounds12:-$rounds}"); do
    ref() {
        "$mencal" run randread --threads 1 --size "$slice" -q --format json -O "$tmp/rr.json"
        OMP_NUM_THREADS=$ntr OMP_PROC_BIND=spread OMP_PLACES=cores "$stream" -q --threads "$ntr" \
            --array-size "$(( slice * ntr / 3 ))B" --format json -O "$tmp/st.json"
        "$mencal" run seqread --threads "$ntr" --size "$(( slice * ntr ))" -q --format json -O "$tmp/sq.json"
    }
    ours() {
        loaded triad "$tmp/lt.json"
        loaded read "$tmp/lr.json"
    }
    if [ $((r % 2)) -eq 1 ]; then ours; ref; else ref; ours; fi
    idle=$(j "$tmp/lt.json" '.records[0].metrics.latency_idle.value')
    rand=$(j "$tmp/rr.json" '.records[0].metrics.latency.value')
    lbw=$(j "$tmp/lt.json" '.records[0].metrics.bandwidth_max.value')
    st_med=$(j "$tmp/st.json" '.records[] | select(.name == "Triad") | .metrics | .bytes.value / .median_time_s.value / 1e6')
    st_best=$(j "$tmp/st.json" '.records[] | select(.name == "Triad") | .metrics.best_rate_mbps.value')
    rbw=$(j "$tmp/lr.json" '.records[0].metrics.bandwidth_max.value')
    sq=$(j "$tmp/sq.json" '.records[0].metrics.bandwidth.value * 1000')
    r_lat+=("$(ratio "$idle" "$rand")")
    r_triad+=("$(ratio "$lbw" "$st_med")")
    r_triad_best+=("$(ratio "$lbw" "$st_best")")
    r_read+=("$(ratio "$rbw" "$sq")")
    printf 'round %d: idle %.1f ns vs randread %.1f ns; triad traffic %.0f MB/s vs stream Triad %.0f (best %.0f); read traffic %.0f MB/s vs seqread %.0f\n' \
        "$r" "$idle" "$rand" "$lbw" "$st_med" "$st_best" "$rbw" "$sq"
done
if part 1 || part 2; then
m=$(printf '%s\n' "${r_lat[@]}" | median)
printf '1. loaded idle / randread latency (%s per thread, 1 chain):      %s  [%s: 0.97..1.03]\n' "$slice" "$m" "$(verdict "$m" 0.97 1.03)"
m=$(printf '%s\n' "${r_triad[@]}" | median)
printf '2. loaded no-delay triad / stream Triad median rate (%d thr):     %s  [%s: >= 0.9]\n' "$ntr" "$m" "$(verdict "$m" 0.9 99)"
printf '   (against stream Triad best rate:                               %s)\n' "$(printf '%s\n' "${r_triad_best[@]}" | median)"
m=$(printf '%s\n' "${r_read[@]}" | median)
printf '   loaded no-delay read / seqread (%d thr):                        %s  [%s: >= 0.9]\n' "$ntr" "$m" "$(verdict "$m" 0.9 99)"
fi

# ---- 3: sweep's DRAM plateau against seqread ------------------------------
declare -a r_dram
part 3 && rounds3=$rounds || rounds3=0
for r in $(seq 1 "$rounds3"); do
    sw() { "$mencal" run sweep --kernels read --threads "$nt" -q --format json -O "$tmp/sw.json"; }
    sq() {
        local to
        to=$(j "$tmp/plan.json" '.records[0].tables.plateaus[] | select(.threads > 1 and .level == "DRAM") | .to')
        "$mencal" run seqread --threads "$nt" --size "$to" -q --format json -O "$tmp/sq2.json"
    }
    # the plateau's sizes come from a first sweep (round 1 runs it first)
    if [ "$r" = 1 ]; then sw; cp "$tmp/sw.json" "$tmp/plan.json"; sq
    elif [ $((r % 2)) -eq 1 ]; then sw; sq; else sq; sw; fi
    pl=$(j "$tmp/sw.json" '.records[0].metrics.DRAM_read_all.value // "nan"')
    sqv=$(j "$tmp/sq2.json" '.records[0].metrics.bandwidth.value')
    r_dram+=("$(ratio "$pl" "$sqv")")
    printf 'round %d: sweep DRAM plateau %s GB/s (%s) vs seqread %.2f GB/s at %s bytes\n' "$r" "$pl" \
        "$(j "$tmp/sw.json" '.records[0].tables.plateaus[] | select(.threads > 1 and .level == "DRAM") | "\(.from)..\(.to), \(.points) points"')" \
        "$sqv" "$(j "$tmp/plan.json" '.records[0].tables.plateaus[] | select(.threads > 1 and .level == "DRAM") | .to')"
done
if part 3; then
    m=$(printf '%s\n' "${r_dram[@]}" | median)
    printf '3. sweep DRAM plateau (read, %d thr) / seqread:                  %s  [%s: 0.95..1.05]\n' "$nt" "$m" "$(verdict "$m" 0.95 1.05)"
fi

# ---- 4: sweep's 16 KiB point against likwid-bench's best load kernel ------
kernels=
if part 4 && command -v likwid-bench >/dev/null; then
    kernels=$(likwid-bench -a 2>"$tmp/lk.err" | awk '$1 ~ /^load(_sse|_avx|_avx512)?$/ { print $1 }') || kernels=
    [ -n "$kernels" ] || echo "4. likwid-bench -a lists no load kernel: $(head -n 1 "$tmp/lk.err")"
fi
if [ -n "$kernels" ]; then
    cpu0=$(sed -n 's/^cpus: \([0-9]*\).*/\1/p' <<<"$plan")
    pin=()
    command -v taskset >/dev/null && pin=(taskset -c "${cpu0:-0}")
    declare -a r_l1
    for r in $(seq 1 "$rounds"); do
        ours16() {
            # --size 64K: 16K, 24K, 32K, 48K, 64K (a smaller --size is refused on
            # many cores: it is split between their threads for the size rule)
            "$mencal" run sweep --kernels read --threads 1 --size 64K --reps 11 -q --format json -O "$tmp/s16.json"
            o16=$(j "$tmp/s16.json" '.records[0].tables.mountain[] | select(.size == 16384) | .bandwidth')
        }
        lk() {
            best=0 bestk=
            for k in $kernels; do
                v=$("${pin[@]}" likwid-bench -t "$k" -W N:16kB:1 -s 0.5 2>/dev/null |
                    awk -F'\t+' '/^MByte\/s:/ { printf "%.4f\n", $2 / 1000 }') || v=
                if [ -n "$v" ] && awk -v a="$v" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$v bestk=$k; fi
            done
        }
        if [ $((r % 2)) -eq 1 ]; then ours16; lk; else lk; ours16; fi
        r_l1+=("$(ratio "$o16" "$best")")
        printf 'round %d: sweep 16 KiB read %.1f GB/s vs likwid-bench %s %.1f GB/s\n' "$r" "$o16" "$bestk" "$best"
    done
    m=$(printf '%s\n' "${r_l1[@]}" | median)
    printf '4. sweep 16 KiB (read, 1 thr) / likwid-bench best load:         %s  [%s: >= 0.9]\n' "$m" "$(verdict "$m" 0.9 99)"
elif part 4; then
    command -v likwid-bench >/dev/null || echo "4. likwid-bench not installed (package likwid): 16 KiB comparison skipped"
fi

# ---- 5: wall time with defaults --------------------------------------------
if [ "$timing" = 1 ] && part 5; then
    for s in loaded sweep; do
        t0=$(date +%s.%N)
        "$mencal" run "$s" -q --format json -O "$tmp/$s-default.json"
        t1=$(date +%s.%N)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
        printf '5. mencal run %s with defaults: %s s  [%s: < 120 s]\n' "$s" "$t" "$(awk -v t="$t" 'BEGIN { print (t < 120) ? "ok" : "OFF TARGET" }')"
    done
fi
