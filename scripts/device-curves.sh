#!/usr/bin/env bash
# Summary: loaded-latency and memory-mountain curves of a many-core machine, JSON kept, PNGs when matplotlib is there.
# Usage: scripts/device-curves.sh [--bin DIR] [--size SIZE] [--quick] [--no-peers] OUTDIR
#        scripts/device-curves.sh --replot OUTDIR
#
# Runs, with one thread per physical core (threads pinned, the latency
# thread alone on its core), each result written atomically to OUTDIR:
#   loaded-read.json   mencal run loaded --traffic read   (default ladder:
#   loaded-triad.json  mencal run loaded --traffic triad   no delay ..
#   loaded-rw70.json   mencal run loaded --traffic rw:70   100 us, then idle)
#   sweep.json         mencal run sweep (16 KiB to 2 x the power of two
#                      >= 4x LLC; read, write, copy, triad; 1 and all threads)
#   peers-curves.txt   scripts/peers-curves.sh --rounds 3 (docs/latency.md's
#                      ratios: idle vs randread, no-delay vs stream Triad
#                      and seqread, DRAM plateau vs seqread, 16 KiB vs
#                      likwid-bench when installed)
#   times.txt          wall seconds of each run
# and the PNG beside each JSON (mencal's --plot).  Without matplotlib the
# JSON is kept and the charts are not drawn; `--replot OUTDIR` on a
# machine with python3-matplotlib and jq draws them from the JSON later.  The loaded
# working set is mencal's default (8 GiB, or 8x LLC, at most half of
# MemAvailable) or --size, split into one slice per thread.
#
# Budget on 16 cores: about 10 s per loaded run, 30-60 s for the sweep,
# 2-3 min for the ratios; --quick (2 rounds, no rw:70) stays under 3 min,
# --no-peers skips the ratios.  The key figures are printed at the end.
# Exit: 0 done (a chart that could not be drawn is a warning), 1 a run
# failed (its JSON, if any, is kept), 2 usage, 3 a tool missing.
set -uo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/bin"
quick=0 peers=1 replot=0 out=
sizeargs=()

die() { echo "device-curves: $*" >&2; exit "${2:-2}"; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
    case "$1" in
        --bin) bin=${2:?--bin needs a directory}; shift 2 ;;
        --size) sizeargs=(--size "${2:?--size needs a value}"); shift 2 ;;
        --quick) quick=1; shift ;;
        --no-peers) peers=0; shift ;;
        --replot) replot=1; shift ;;
        -h|--help) usage; exit 0 ;;
        -*) die "unknown option '$1'; see --help" ;;
        *) [ -z "$out" ] || die "one OUTDIR only (got '$out' and '$1')"; out=$1; shift ;;
    esac
done
[ -n "$out" ] || die "needs OUTDIR; see --help"

# ---- --replot: PNGs from the JSON (memsuite-analyse plot) ------------------
if [ "$replot" = 1 ]; then
    py=${MEMSUITE_PYTHON:-/usr/bin/python3}
    [ -x "$py" ] || py=$(command -v python3) || die "--replot needs python3 and python3-matplotlib" 3
    "$py" -c 'import matplotlib' 2>/dev/null || die "--replot needs matplotlib (Debian: python3-matplotlib)" 4
    for f in "$out"/*.json; do
        [ -f "$f" ] || continue
        case "$(jq -r '.config.scenarios[0]? // empty' "$f" 2>/dev/null)" in
            loaded | sweep) ;;
            *) continue ;;
        esac
        if "$py" "$root/scripts/analysis/memsuite-analyse" plot --result "$f" --out "${f%.json}.png"; then
            echo "${f%.json}.png"
        else
            echo "device-curves: $f: chart not drawn (the analyser said why above)" >&2
        fi
    done
    exit 0
fi

mencal="$bin/mencal"
[ -x "$mencal" ] || die "mencal not found at $mencal; run 'make' or pass --bin DIR" 3
mkdir -p -- "$out" || die "cannot create $out" 3
/usr/bin/python3 -c "import matplotlib" 2>/dev/null || echo "device-curves: matplotlib not installed (python3-matplotlib): JSON only; draw the charts later with --replot $out"

rc=0
: >"$out/times.txt"
run() {   # run NAME mencal-args...: OUTDIR/NAME.json (+ .png), timed
    local name=$1 t0 t1
    shift
    echo "device-curves: mencal run $* -> $out/$name.json"
    t0=$(date +%s.%N)
    "$mencal" run "$@" -q --format json -O "$out/$name.json" --plot "$out/$name.png" || {
        echo "device-curves: $name: mencal exited $?" >&2
        rc=1
    }
    t1=$(date +%s.%N)
    awk -v n="$name" -v a="$t0" -v b="$t1" 'BEGIN { printf "%s %.1f s\n", n, b - a }' | tee -a "$out/times.txt"
}

"$mencal" run loaded --dry-run "${sizeargs[@]}" 2>/dev/null | sed -n 's/^\(size\|threads\|cpus\|llc\):/plan \1:/p'
run loaded-read loaded --traffic read "${sizeargs[@]}"
run loaded-triad loaded --traffic triad "${sizeargs[@]}"
[ "$quick" = 1 ] || run loaded-rw70 loaded --traffic rw:70 "${sizeargs[@]}"
run sweep sweep
if [ "$peers" = 1 ]; then
    if command -v jq >/dev/null; then
        rounds=3
        [ "$quick" = 1 ] && rounds=2
        "$root/scripts/peers-curves.sh" --bin "$bin" --rounds "$rounds" --size 4GiB --no-timing 2>&1 |
            tee "$out/peers-curves.txt"
    else
        echo "device-curves: jq not installed: ratios skipped (scripts/peers-curves.sh needs it)" | tee "$out/peers-curves.txt"
    fi
fi

# ---- key figures ------------------------------------------------------------
echo
echo "== key figures ($(uname -n), $(nproc) CPUs; JSON in $out) =="
if command -v jq >/dev/null; then
    for f in "$out"/loaded-*.json; do
        [ -f "$f" ] || continue
        jq -r '"\(input_filename | split("/") | last): traffic \(.config.loaded.traffic), \(.config.threads - 1) traffic threads, latency thread on CPU \(.records[0].metrics.latency_cpu.value)",
               "  idle \(.records[0].metrics.latency_idle.value // "n/a") ns; no delay: \(.records[0].metrics.bandwidth_max.value // "n/a") MB/s, latency \(.records[0].metrics.latency_max_load.value // "n/a") ns (p99 \(.records[0].metrics.latency_max_load_p99.value // "n/a"))",
               "  delay_ns  MB/s  ns  p99",
               (.records[0].tables.curve[] | "  \(.delay // "idle") \(.bandwidth | floor) \(.latency * 10 | floor / 10) \(.latency_p99 * 10 | floor / 10)")' "$f"
    done
    [ -f "$out/sweep.json" ] && jq -r '"sweep.json: plateaus (GB/s, from..to bytes)",
        (.records[0].tables.plateaus[] | "  \(.kernel) \(.threads)t \(.level): \(.bandwidth // .bandwidth_unavailable) (\(.from // "-")..\(.to // "-"))")' "$out/sweep.json"
elif command -v python3 >/dev/null; then
    python3 - "$out" <<'EOF'
import glob, json, sys
for f in sorted(glob.glob(sys.argv[1] + "/*.json")):
    r = json.load(open(f))["records"][0]
    print(f.split("/")[-1], {k: v.get("value") for k, v in r["metrics"].items()})
    for t in ("curve", "plateaus"):
        for row in r.get("tables", {}).get(t, []):
            print("  ", row)
EOF
else
    echo "(neither jq nor python3 here: read the JSON files)"
fi
cat "$out/times.txt"
exit "$rc"
