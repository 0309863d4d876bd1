#!/usr/bin/env bash
# Summary: hardware counters on a many-core machine with a PMU: cycles and instructions on every thread, the dTLB miss rate with and without huge pages.
# Usage: scripts/device-counters.sh [--bin DIR] [--size SIZE] OUTDIR
#
# Checks, on the machine it runs on (written for a 16-core device machine
# with a hardware PMU; each result written atomically to OUTDIR):
#   facts.txt          CPU model, cores, kernel.perf_event_paranoid, PAPI's
#                      components (papi_component_avail), THP policy
#   stream.json        stream, one thread per physical core,
#                      --counters=cycles,instructions: each kernel must count
#                      both events on every thread (threads_counted = the
#                      team, every per-thread count > 0) and give an IPC
#   tlb-never.json     mencal run randread --hugepages never  } full-random
#   tlb-madvise.json   mencal run randread --hugepages madvise} chases,
#                      --counters=dTLB-load-misses,dTLB-loads: the dTLB miss
#                      rate (% of loads) with never must exceed the rate
#                      with madvise (4 KiB pages against THP-backed ones)
#   summary.txt        one line per check: PASS, FAIL or SKIP with figures
# The working set is --size (default 4G: 2 MiB pages then cover it while
# 4 KiB pages overflow every dTLB).  madvise needs THP enabled as always or
# madvise; with THP never the TLB check is SKIP, saying so.
#
# Budget on 16 cores: about a minute.  Without a PMU (a VM without a
# virtual PMU) the hardware events are unavailable: the script says so,
# with the tools' reason, and exits 3.
# Exit: 0 every check passed, 1 a check failed, 2 usage, 3 no PMU or a
# tool missing.
set -uo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
size=4G out=

die() { echo "device-counters: $*" >&2; exit "${2:-2}"; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2:?--bin needs a directory}; shift 2 ;;
        --size) size=${2:?--size needs a value}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option '$1'; see --help" ;;
        *) [ -z "$out" ] || die "one OUTDIR only (got '$out' and '$1')"; out=$1; shift ;;
    esac
done
[ -n "$out" ] || die "needs OUTDIR; see --help"
command -v jq >/dev/null || die "needs jq" 3
for t in stream mencal; do
    [ -x "$bin/$t" ] || die "$bin/$t not found: build with make, or give --bin DIR" 3
done
mkdir -p "$out" || die "cannot create '$out'" 3

cores=$(lscpu -p=core,socket 2>/dev/null | grep -v '^#' | sort -u | wc -l)
[ "$cores" -ge 1 ] || cores=$(nproc)
status=0
summary="$out/summary.txt.tmp"
: >"$summary"
say() { echo "$*" | tee -a "$summary"; }

{
    lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket'
    echo "physical cores: $cores"
    echo "kernel.perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo unreadable)"
    echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unreadable)"
    command -v papi_component_avail >/dev/null && papi_component_avail 2>&1 | sed -n '/Compiled-in/,$p'
} >"$out/facts.txt.tmp" && mv "$out/facts.txt.tmp" "$out/facts.txt"

# ---- cycles and instructions on every thread ---------------------------------
OMP_NUM_THREADS=$cores OMP_PROC_BIND=spread OMP_PLACES=cores \
    "$bin/stream" -n 10 --counters=cycles,instructions --format json -O "$out/stream.json" -q ||
    die "stream failed (exit $?)" 1
if ! jq -e '.records[0].counters.hardware.events.cycles | type == "number"' "$out/stream.json" >/dev/null; then
    why=$(jq -r '.records[0].counters.hardware.events.cycles_unavailable' "$out/stream.json")
    say "SKIP no PMU: cycles are not counted here: $why"
    mv "$summary" "$out/summary.txt"
    exit 3
fi
bad=$(jq -r --argjson n "$cores" '.records[] | .name as $k | .counters.hardware |
    select(.threads_counted != $n
           or ([.per_thread[] | (.counts.cycles // 0) > 0 and (.counts.instructions // 0) > 0] | all | not)
           or (.rates.ipc.value | type) != "number")
    | "\($k): \(.threads_counted) of \($n) threads, cycles \([.per_thread[].counts.cycles] | map(tostring) | join(" "))"' \
    "$out/stream.json")
if [ -z "$bad" ]; then
    say "PASS cycles and instructions on all $cores threads in every kernel; IPC $(jq -r '[.records[] | "\(.name) \(.counters.hardware.rates.ipc.value * 100 | round / 100)"] | join(", ")' "$out/stream.json")"
else
    say "FAIL not every thread counted: $bad"
    status=1
fi

# ---- the dTLB miss rate, 4 KiB pages against huge pages -----------------------
thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
if [ "$thp" = never ]; then
    say "SKIP dTLB: THP is never here, madvise cannot back the buffer with huge pages"
else
    for hp in never madvise; do
        "$bin/mencal" run randread --size "$size" --tlb-locality 0 --reps 3 --hugepages "$hp" \
            --counters=dTLB-load-misses,dTLB-loads --format json -O "$out/tlb-$hp.json" -q ||
            die "mencal randread --hugepages $hp failed (exit $?)" 1
    done
    rate() { jq -r '.records[0].counters.hardware.rates.dtlb_load_miss_pct.value // empty' "$1"; }
    share() { jq -r '.records[0].buffer.thp_share // empty' "$1"; }
    never=$(rate "$out/tlb-never.json") madv=$(rate "$out/tlb-madvise.json")
    if [ -z "$never" ] || [ -z "$madv" ]; then
        say "SKIP dTLB: no dTLB rate: $(jq -r '.records[0].counters.hardware.rates.dtlb_load_miss_pct.value_unavailable' "$out/tlb-never.json")"
    elif awk -v a="$never" -v b="$madv" 'BEGIN { exit !(a > b) }'; then
        say "PASS dTLB miss rate $never% of loads with --hugepages never > $madv% with madvise (THP share $(share "$out/tlb-never.json") vs $(share "$out/tlb-madvise.json"))"
    else
        say "FAIL dTLB miss rate $never% with --hugepages never is not above $madv% with madvise (THP share $(share "$out/tlb-never.json") vs $(share "$out/tlb-madvise.json"))"
        status=1
    fi
fi
mv "$summary" "$out/summary.txt"
exit "$status"
