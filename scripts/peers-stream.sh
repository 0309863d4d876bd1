#!/usr/bin/env bash
# Summary: run bin/stream side by side with installed peers (likwid-bench,
#          sysbench memory) on the same working set and threads; print
#          medians and ratios.
# Usage: scripts/peers-stream.sh [--size SIZE|auto] [--threads N] [--rounds R]
#                                [--ntimes N] [--isa auto|avx512|avx|sse|scalar]
#                                [--stream PATH] [--no-likwid] [--no-sysbench]
#                                [--ref-stream PATH [--ref-only]]
#
#   --size     bytes per array (e.g. 128MiB) or auto (each array 4x the
#              last-level cache, stream's own rule); default auto
#   --threads  threads for every runner; default OMP_NUM_THREADS or nproc
#   --rounds   rounds; each round runs every runner once, alternating who
#              goes first; the table shows medians over rounds (default 3)
#   --ntimes   passes per run for stream and likwid-bench -i (default 10)
#   --isa      likwid-bench kernel variant; auto = best the CPU has
#   --ref-stream PATH
#              a STREAM 5.10 binary built from McCalpin's stream.c (outside
#              this repository) with the same compiler and flags, e.g.
#                gcc -O3 -march=native -fopenmp -DSTREAM_ARRAY_SIZE=40000000 \
#                    stream.c -o stream-5.10
#              Its array size and NTIMES are compile-time: they are read from
#              its output and used for our run, and --size/--ntimes are
#              ignored.  Each round runs our standard mode (plain text, the
#              four kernels, no option but -s/-n/-t) and the reference under
#              the same OpenMP environment, alternating who goes first, and
#              the table adds "STREAM 5.10" rows: ratio = median over rounds
#              of our Best Rate / STREAM's, in the same round.  --ref-only
#              runs just that pair (no tuned kernels, no other peer).
#
# Byte counting, so the ratios compare like with like:
#   - stream counts STREAM's words: Copy 2, Triad 3, Dot 2 per element, no
#     write-allocate traffic; MB = 10^6 bytes.  "ours" is STREAM's best-of
#     figure; "ours avg" is bytes / mean time over rounds 2..N.
#   - likwid-bench "MByte/s" = its "Bytes per element" (copy 16, stream 24,
#     ddot 16: the same words as STREAM, no write-allocate) x elements x
#     iterations / time / 10^6.  It is an average over its iterations, so
#     compare it with "ours avg" first.  -W places the streams chunk-wise by
#     each thread (first touch, like stream).  Its size argument is the sum
#     of all streams, so it gets streams x array bytes.
#   - stream's threads are pinned (OMP_PROC_BIND=close, OMP_PLACES=cores)
#     unless set by the caller, as likwid-bench pins its own.
#   - sysbench memory reports MiB/sec (2^20); converted to MB/s (x 1.048576).
#     Its read test only loads, so it sits beside our Dot (read-only); its
#     write test has no STREAM kernel and is listed without a ratio.
# A peer that cannot run here is reported with its reason; the rest go on.
# Default run: about a minute on 2 cores.  Set MEMSUITE_DEBUG=1 for set -x.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

# lib/peers.sh (scripts/lib/ in a source tree, PREFIX/share/memsuite/lib/
# installed) finds our tools: MEMSUITE_BIN, bin/ of the tree, PREFIX/lib/memsuite/bin.
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source-path=SCRIPTDIR source=lib/peers.sh
. "$here/lib/peers.sh" 2>/dev/null || . "$here/../lib/peers.sh"
bin=$(ms_peers_bin_dir)
stream="$bin/stream"
size=auto
threads=${OMP_NUM_THREADS:-$(nproc)}
rounds=3
ntimes=10
isa=auto
use_likwid=1
use_sysbench=1
ref_stream=
ref_only=0

die() { echo "peers-stream: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --size) size=${2:?--size needs a value}; shift 2 ;;
        --threads) threads=${2:?--threads needs a value}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a value}; shift 2 ;;
        --ntimes) ntimes=${2:?--ntimes needs a value}; shift 2 ;;
        --isa) isa=${2:?--isa needs a value}; shift 2 ;;
        --stream) stream=${2:?--stream needs a path}; shift 2 ;;
        --no-likwid) use_likwid=0; shift ;;
        --no-sysbench) use_sysbench=0; shift ;;
        --ref-stream) ref_stream=${2:?--ref-stream needs a path}; shift 2 ;;
        --ref-only) ref_only=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown argument '$1'; see --help" ;;
    esac
done
[[ "$threads" =~ ^[1-9][0-9]*$ ]] || die "--threads '$threads': expected a positive integer"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a positive integer"
if ! [[ "$ntimes" =~ ^[0-9]+$ ]] || [ "$ntimes" -lt 2 ]; then
    die "--ntimes '$ntimes': expected an integer >= 2"
fi
[ -x "$stream" ] || die "$stream is not built; run 'make bin/stream' or pass --stream PATH"
command -v jq >/dev/null || die "jq is needed to read stream's JSON; install jq"

if [ "$isa" = auto ]; then
    if grep -qw avx512f /proc/cpuinfo 2>/dev/null; then isa=avx512
    elif grep -qw avx /proc/cpuinfo 2>/dev/null; then isa=avx
    elif grep -qw sse2 /proc/cpuinfo 2>/dev/null; then isa=sse
    else isa=scalar; fi
fi
case "$isa" in
    avx512|avx|sse) sfx="_$isa" ;;
    scalar) sfx="" ;;
    *) die "--isa '$isa': expected auto, avx512, avx, sse or scalar" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/peers-stream.XXXXXX")
trap 'rm -rf "$work"' EXIT

# ---- the reference STREAM 5.10 (optional) ---------------------------------
# Its size and NTIMES are compiled in: a first run reads them.
[ "$ref_only" = 0 ] || [ -n "$ref_stream" ] || die "--ref-only needs --ref-stream PATH"
if [ -n "$ref_stream" ]; then
    [ -x "$ref_stream" ] || die "--ref-stream $ref_stream: not an executable file"
    ref_probe=$(OMP_NUM_THREADS=$threads "$ref_stream" 2>&1) ||
        die "--ref-stream $ref_stream failed: $(tail -n 3 <<<"$ref_probe")"
    ref_n=$(sed -n 's/^Array size = \([0-9]*\) (elements).*/\1/p' <<<"$ref_probe")
    ref_ntimes=$(sed -n 's/^Each kernel will be executed \([0-9]*\) times\..*/\1/p' <<<"$ref_probe")
    [[ "$ref_n" =~ ^[0-9]+$ && "$ref_ntimes" =~ ^[0-9]+$ ]] ||
        die "--ref-stream $ref_stream: no 'Array size = N' or 'executed N times' line; is it STREAM 5.10?"
    # shellcheck disable=SC2016 # a literal '$Revision' in STREAM's banner
    grep -q 'STREAM version \$Revision: 5.10 \$' <<<"$ref_probe" ||
        echo "peers-stream: warning: $ref_stream does not say 'STREAM version \$Revision: 5.10 \$'" >&2
    size=$ref_n
    ntimes=$ref_ntimes
fi

# ---- the working set ------------------------------------------------------
# A short probe run resolves --size (auto, units) to elements and bytes.
if ! "$stream" -s "$size" -n 2 -t "$threads" --kernels copy --allow-small \
        --format json -q -O "$work/probe.json" 2>"$work/probe.err"; then
    die "stream cannot run with --size $size: $(cat "$work/probe.err")"
fi
elements=$(jq -r .config.array_size "$work/probe.json")
array_bytes=$(jq -r .config.array_bytes "$work/probe.json")
label=$(jq -r .label "$work/probe.json")

# ---- runners: each appends "kernel<TAB>runner<TAB>MB/s[<TAB>avg MB/s]" ------
results="$work/results.tsv"
: > "$results"
declare -A skip_reason=()

run_ours() {   # run_ours TAG ARGS...: stream, JSON rows for every kernel
    local tag=$1; shift
    # likwid-bench pins its threads; ours are pinned too unless the caller
    # chose otherwise.
    if OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores} \
        "$stream" -s "$elements" -n "$ntimes" -t "$threads" --allow-small --format json -q \
            -O "$work/ours.json" "$@" 2>"$work/ours.err"; then
        jq -r --arg tag "$tag" --arg round "$round" '.records[] | [
            $round, (.name + $tag), "stream",
            .metrics.best_rate_mbps.value,
            (.metrics.bytes.value / .metrics.avg_time_s.value * 1e-6)] | @tsv' \
            "$work/ours.json" >> "$results"
    else
        skip_reason[stream$tag]="stream failed: $(head -c 300 "$work/ours.err")"
    fi
}

run_likwid() {   # run_likwid KERNEL TEST STREAMS
    local kernel=$1 test=$2 streams=$3 kb out
    [ -z "${skip_reason[likwid]:-}" ] || return 0
    kb=$(( array_bytes * streams / 1000 ))
    if ! out=$(likwid-bench -t "$test" -i "$ntimes" -W "N:${kb}kB:$threads" 2>&1); then
        skip_reason[likwid]="likwid-bench -t $test failed: $(printf '%s' "$out" | grep -v '^$' | tail -n 2 | tr '\n' ' ')"
        return 0
    fi
    local mbs
    mbs=$(printf '%s\n' "$out" | awk -F'\t+' '/^MByte\/s:/ {print $2; exit}')
    if [ -z "$mbs" ]; then
        skip_reason[likwid]="likwid-bench -t $test printed no MByte/s line"
        return 0
    fi
    printf '%s\t%s\tlikwid-bench %s\t%s\n' "$round" "$kernel" "$test" "$mbs" >> "$results"
}

run_sysbench() {   # run_sysbench OPER KERNEL: data volume of two arrays per pass
    local oper=$1 kernel=$2 block total out mibs
    [ -z "${skip_reason[sysbench]:-}" ] || return 0
    # sysbench takes only a power of two for --memory-block-size (it
    # refused 2 x 960 MiB with "Invalid value for memory-block-size:
    # 2013265920"): the largest one within two arrays per thread
    block=$(ms_peers_pow2_floor $(( 2 * array_bytes / threads )))
    total=$(( block * threads * ntimes ))
    if ! out=$(sysbench memory --threads="$threads" --memory-scope=local \
            --memory-block-size="$block" --memory-total-size="$total" \
            --memory-oper="$oper" --memory-access-mode=seq run 2>&1); then
        skip_reason[sysbench]="sysbench memory failed: $(printf '%s' "$out" | tail -n 2 | tr '\n' ' ')"
        return 0
    fi
    mibs=$(printf '%s\n' "$out" | sed -n 's/.*MiB transferred (\([0-9.]*\) MiB\/sec).*/\1/p')
    if [ -z "$mibs" ]; then
        skip_reason[sysbench]="sysbench printed no 'MiB transferred' line"
        return 0
    fi
    printf '%s\t%s\tsysbench memory %s\t%s\n' "$round" "$kernel" "$oper" \
        "$(awk -v m="$mibs" 'BEGIN {printf "%.1f", m * 1.048576}')" >> "$results"
}

# Standard STREAM text from either binary -> "kernel<TAB>MB/s" rows.
stream_text_rates() {
    awk '/^(Copy|Scale|Add|Triad):/ {sub(":", "", $1); print $1 "\t" $2}'
}
# run_std WHO: our standard mode or the reference, same OpenMP environment
# (the caller's, else threads pinned close to cores, as for every runner).
run_std() {
    local who=$1 out
    if [ "$who" = ours ]; then
        out=$(OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-close} \
              OMP_PLACES=${OMP_PLACES:-cores} "$stream" -s "$elements" -n "$ntimes" 2>/dev/null) ||
            { skip_reason[ref-ours]="our standard run failed"; return 0; }
        stream_text_rates <<<"$out" | while IFS=$'\t' read -r k v; do
            printf '%s\t%s\tstream-std\t%s\n' "$round" "$k" "$v"; done >> "$results"
    else
        out=$(OMP_NUM_THREADS=$threads OMP_PROC_BIND=${OMP_PROC_BIND:-close} \
              OMP_PLACES=${OMP_PLACES:-cores} "$ref_stream" 2>/dev/null) ||
            { skip_reason[ref]="$ref_stream failed"; return 0; }
        stream_text_rates <<<"$out" | while IFS=$'\t' read -r k v; do
            printf '%s\t%s\tSTREAM 5.10\t%s\n' "$round" "$k" "$v"; done >> "$results"
    fi
}
reference() {
    [ -n "$ref_stream" ] || return 0
    if [ $((round % 2)) -eq 1 ]; then run_std ours; run_std ref; else run_std ref; run_std ours; fi
}

if [ "$use_likwid" = 1 ] && ! command -v likwid-bench >/dev/null; then
    skip_reason[likwid]="likwid-bench is not installed (Debian: apt-get install likwid)"
fi
[ "$use_likwid" = 1 ] || skip_reason[likwid]="disabled by --no-likwid"
if [ "$use_sysbench" = 1 ] && ! command -v sysbench >/dev/null; then
    skip_reason[sysbench]="sysbench is not installed (Debian: apt-get install sysbench)"
fi
[ "$use_sysbench" = 1 ] || skip_reason[sysbench]="disabled by --no-sysbench"

peers() {
    run_likwid Copy "copy$sfx" 2
    run_likwid Triad "stream$sfx" 3
    run_likwid "Copy (NT)" "copy_mem$sfx" 2
    run_likwid "Triad (NT)" "stream_mem$sfx" 3
    run_likwid Dot "ddot$sfx" 2
    run_sysbench read Dot
    run_sysbench write "(store only)"
}
ours() {
    run_ours "" --kernels copy,scale,add,triad,dot
    run_ours " (NT)" --kernels copy,triad --nt-stores
}

load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
if awk -v l="$load" -v n="$(nproc)" 'BEGIN {exit !(l > 0.25 * n)}'; then
    echo "peers-stream: warning: load average $load on $(nproc) CPUs: other work distorts" \
         "every runner (fork-join kernels like stream's most); run on an idle machine" >&2
fi
echo "peers-stream: $elements elements per array ($array_bytes bytes, stream label: $label)," \
     "$threads threads, $rounds rounds, $ntimes passes, likwid variant ${isa}" >&2
for round in $(seq 1 "$rounds"); do
    echo "peers-stream: round $round/$rounds" >&2
    if [ "$ref_only" = 0 ]; then
        if [ $((round % 2)) -eq 1 ]; then ours; peers; else peers; ours; fi
    fi
    reference
done

# ---- table -------------------------------------------------------------------
median() { ms_peers_median | sed 's/^nan$//'; }   # "" when none

ours_of() {   # ours_of KERNEL COLUMN -> median over rounds
    awk -F'\t' -v k="$1" -v c="$2" '$2 == k && $3 == "stream" {print $c}' "$results" | median
}
# paired_ratio KERNEL PEER COLUMN -> median over rounds of ours/peer measured
# in the same round.  This VM's bandwidth drifts between phases that last
# longer than one runner; pairing within a round cancels the drift that
# medians of each side taken apart would keep.
paired_ratio() {
    awk -F'\t' -v k="$1" -v p="$2" -v c="$3" '
        $2 == k && $3 == "stream" {o[$1] = $c}
        $2 == k && $3 == p {m[$1] = $4}
        END {for (r in o) if (r in m && m[r] > 0) print o[r] / m[r]}' "$results" | median
}

printf '%-14s %-30s %12s %12s %12s %8s %8s\n' kernel peer "ours MB/s" "ours avg" "peer MB/s" ratio "avg ratio"
for kernel in Copy Scale Add Triad Dot "Copy (NT)" "Triad (NT)" "(store only)"; do
    best=$(ours_of "$kernel" 4)
    avg=$(ours_of "$kernel" 5)
    peer_list=$(awk -F'\t' -v k="$kernel" '$2 == k && $3 != "stream" && $3 != "stream-std" &&
        $3 != "STREAM 5.10" {print $3}' "$results" | sort -u)
    if [ -z "$peer_list" ]; then
        if [ -n "$best" ]; then
            printf '%-14s %-30s %12.1f %12.1f %12s %8s %8s\n' "$kernel" "(no peer result)" \
                "$best" "$avg" - - -
        fi
        continue
    fi
    while IFS= read -r peer; do
        peer_mbs=$(awk -F'\t' -v k="$kernel" -v p="$peer" '$2 == k && $3 == p {print $4}' "$results" | median)
        ratio=$(paired_ratio "$kernel" "$peer" 4)
        avg_ratio=$(paired_ratio "$kernel" "$peer" 5)
        awk -v k="$kernel" -v p="$peer" -v b="$best" -v a="$avg" -v m="$peer_mbs" \
            -v r="$ratio" -v ar="$avg_ratio" 'BEGIN {
            if (b == "") printf "%-14s %-30s %12s %12s %12.1f %8s %8s\n", k, p, "-", "-", m, "-", "-"
            else printf "%-14s %-30s %12.1f %12.1f %12.1f %8.3f %8.3f\n", k, p, b, a, m, r, ar }'
    done <<< "$peer_list"
done
if [ -n "$ref_stream" ]; then
    printf '\n%-14s %-30s %12s %12s %8s   (standard mode vs STREAM 5.10: %s elements, NTIMES %s)\n' \
        kernel peer "ours MB/s" "STREAM MB/s" ratio "$elements" "$ntimes"
    for kernel in Copy Scale Add Triad; do
        o=$(awk -F'\t' -v k="$kernel" '$2 == k && $3 == "stream-std" {print $4}' "$results" | median)
        r=$(awk -F'\t' -v k="$kernel" '$2 == k && $3 == "STREAM 5.10" {print $4}' "$results" | median)
        q=$(awk -F'\t' -v k="$kernel" '
            $2 == k && $3 == "stream-std" {o[$1] = $4}
            $2 == k && $3 == "STREAM 5.10" {m[$1] = $4}
            END {for (x in o) if (x in m && m[x] > 0) print o[x] / m[x]}' "$results" | median)
        awk -v k="$kernel" -v o="$o" -v r="$r" -v q="$q" 'BEGIN {
            if (o == "" || r == "" || q == "") printf "%-14s %-30s %12s %12s %8s\n", k, "STREAM 5.10", "-", "-", "-"
            else printf "%-14s %-30s %12.1f %12.1f %8.3f\n", k, "STREAM 5.10", o, r, q }'
    done
fi
echo "MB/s columns: medians over rounds.  ratio = median over rounds of (ours best / peer) in the"
echo "same round; avg ratio the same with ours avg (both in STREAM words, MB = 1e6 B)"
for k in "${!skip_reason[@]}"; do
    echo "not run: $k: ${skip_reason[$k]}"
done
