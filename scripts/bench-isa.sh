#!/usr/bin/env bash
# Summary: a portable (packaged) build against a -march=native build, side
#          by side through the peer scripts; medians and ratios.
# Usage: scripts/bench-isa.sh --portable DIR [--native DIR] [--rounds N]
#                             [--stream-size SIZE] [--mbw-size MiB]
#                             [--mencal-size SIZE]
#
#   --portable DIR  the tools to judge, e.g. the .deb's usr/bin
#                   (scripts/check-packages.sh --keep K: K/root-deb/usr/lib/memsuite/bin)
#   --native DIR    the reference, a -march=native build (default bin/)
#   --rounds N      rounds (default 8); each runs peers-stream.sh,
#                   peers-mbw.sh and peers-mencal.sh once per build,
#                   alternating which build goes first
#   --stream-size, --mbw-size, --mencal-size
#                   the peer scripts' --size (default: theirs, sized from
#                   the last-level cache: out of cache)
#
# The figures are the peer scripts' "ours" columns: stream's best rate per
# kernel (MB/s), mbw's AVG per method (MiB/s), mencal's seqread (GB/s) and
# randread L1 latency (ns, lower is better).  Per metric: the median over
# rounds of each build, and ratio = median over rounds of portable /
# native within the same round (for latency native / portable, so above 1
# is always "portable faster").  The peers themselves run too (likwid-bench
# in peers-mencal, Debian's mbw in peers-mbw); stream's are disabled.
# Exit 0 when done (the ratios are for the reader), 2 usage, 3 a build
# missing.
set -euo pipefail
[ -n "${MEMSUITE_DEBUG:-}" ] && set -x

here=$(cd "$(dirname "$0")" && pwd)
native="$here/../bin"
portable=
rounds=8
stream_size=() mbw_size=() mencal_size=()

die() { echo "bench-isa: $*" >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --portable) portable=${2:?--portable needs a directory}; shift 2 ;;
        --native) native=${2:?--native needs a directory}; shift 2 ;;
        --rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
        --stream-size) stream_size=(--size "${2:?--stream-size needs a size}"); shift 2 ;;
        --mbw-size) mbw_size=(--size "${2:?--mbw-size needs MiB}"); shift 2 ;;
        --mencal-size) mencal_size=(--size "${2:?--mencal-size needs a size}"); shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown argument '$1'; see --help" ;;
    esac
done
[ -n "$portable" ] || die "--portable DIR is required"
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "--rounds '$rounds': expected a whole number >= 1"
for d in "$native" "$portable"; do
    for t in stream mbw mencal; do
        [ -x "$d/$t" ] || { echo "bench-isa: $d/$t missing" >&2; exit 3; }
    done
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tsv="$work/values.tsv"     # round build metric value higher_is_better

# measure ROUND BUILD DIR: the three peer scripts with DIR's tools
measure() {
    local r=$1 b=$2 d=$3 out="$work/out"
    bash "$here/peers-stream.sh" --stream "$d/stream" --no-likwid --no-sysbench --rounds 1 \
        "${stream_size[@]}" >"$out" 2>&1 || { cat "$out" >&2; return 1; }
    awk -v r="$r" -v b="$b" '
        /^kernel / { on = 1; next }
        on && NF == 0 { exit }
        on {
            label = substr($0, 1, 15); gsub(/ +$/, "", label)
            for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) { printf "%s\t%s\tstream %s MB/s\t%s\t1\n", r, b, label, $i; break }
        }' "$out" >>"$tsv"
    bash "$here/peers-mbw.sh" --mbw "$d/mbw" --stream "$d/stream" --rounds 1 \
        "${mbw_size[@]}" >"$out" 2>&1 || { cat "$out" >&2; return 1; }
    awk -v r="$r" -v b="$b" '
        /^comparison / { on = 1; next }
        on && /^figures:/ { exit }
        on {
            for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+$/) break
            label = $1; for (k = 2; k < i && $k != "/"; k++) label = label " " $k
            if (i <= NF) printf "%s\t%s\tmbw %s\t%s\t1\n", r, b, label, $i
        }' "$out" >>"$tsv"
    bash "$here/peers-mencal.sh" --mencal "$d/mencal" --rounds 1 \
        "${mencal_size[@]}" >"$out" 2>&1 || true    # its L1 check may fail under load
    awk -v r="$r" -v b="$b" '
        $1 == "median" { printf "%s\t%s\tmencal seqread GB/s\t%s\t1\n", r, b, $2 }
        /^randread L1/ { for (i = 1; i <= NF; i++) if ($(i + 1) == "ns;") printf "%s\t%s\tmencal randread L1 ns\t%s\t0\n", r, b, $i }' \
        "$out" >>"$tsv"
}

echo "bench-isa: native $native, portable $portable, $rounds rounds, alternating" >&2
for r in $(seq 1 "$rounds"); do
    echo "bench-isa: round $r/$rounds" >&2
    if [ $((r % 2)) -eq 1 ]; then
        measure "$r" native "$native"; measure "$r" portable "$portable"
    else
        measure "$r" portable "$portable"; measure "$r" native "$native"
    fi
done

# medians per metric and build, and the median of the per-round ratios
awk -F'\t' '
    function median(list,   n, a, i, j, t) {
        n = split(list, a, " ")
        for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > t + 0; j--) a[j + 1] = a[j]; a[j + 1] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    {
        key = $3; v[$1, $2, key] = $4; hib[key] = $5
        if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
        vals[$2, key] = vals[$2, key] " " $4; rounds[$1] = 1
    }
    END {
        printf "%-40s %12s %12s %8s %s\n", "metric", "native", "portable", "ratio", "rounds"
        for (k = 1; k <= nk; k++) {
            key = order[k]; rl = ""; nr = 0
            for (r in rounds) if (((r, "native", key) in v) && ((r, "portable", key) in v) && v[r, "native", key] > 0 && v[r, "portable", key] > 0) {
                q = hib[key] ? v[r, "portable", key] / v[r, "native", key] : v[r, "native", key] / v[r, "portable", key]
                rl = rl " " q; nr++
            }
            printf "%-40s %12.2f %12.2f %8.3f %d\n", key, median(vals["native", key]), median(vals["portable", key]), nr ? median(rl) : 0, nr
        }
        print "ratio: median over rounds of portable/native in the same round (latency: native/portable); above 1 = portable faster"
    }' "$tsv"
