#!/usr/bin/env bash
# Summary: time `memsuite report --html` (and the text report) of a synthetic 100-cell run.
# Usage: scripts/bench-report.sh [--cells N] [--runs R] [--keep DIR] [--against ROOT]
#
# Builds a run directory of N cells (default 100: stream, mbw,
# mencal:seqread and mencal:randread over sizes x thread counts, from the
# cell documents of tests/fixtures/report-basic with their rates scaled),
# then runs `memsuite report --html --output FILE DIR` and `memsuite
# report DIR` R times each (default 3), alternating, and prints each wall
# time and the medians.  The target is under 5 s for 100 cells; this
# prints the times and asserts nothing (the machine it runs on decides
# them: say which, and what else ran, with any figure you quote).
# --against ROOT also times ROOT/scripts/memsuite report --html (another
# checkout, e.g. the bash report before the analyser), alternating with
# this tree's, and prints the ratio of the medians.  The cells are
# schema memsuite/result/1 documents so that an older reader takes them.
# Exit 0 when every report ran (their own exit status 0), 1 otherwise,
# 2 usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cells=100 runs=3 keep="" against=""
while [ $# -gt 0 ]; do
    case "$1" in
        --cells) cells="${2:?--cells needs a number}"; shift ;;
        --runs) runs="${2:?--runs needs a number}"; shift ;;
        --keep) keep="${2:?--keep needs a directory}"; shift ;;
        --against) against="${2:?--against needs a source tree}"; shift ;;
        -h|--help) sed -n 's/^# \{0,1\}//; 2,/^$/p' "$0" | sed '/^$/q'; exit 0 ;;
        *) echo "bench-report: unknown option '$1'; see --help" >&2; exit 2 ;;
    esac
    shift
done
[[ "$cells" =~ ^[1-9][0-9]{0,4}$ ]] || { echo "bench-report: --cells '$cells' is not a count from 1 to 99999" >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]?$ ]] || { echo "bench-report: --runs '$runs' is not a count from 1 to 99" >&2; exit 2; }
if [ -n "$keep" ]; then
    mkdir -p -- "$keep"
    work="$keep"
else
    work=$(mktemp -d "${TMPDIR:-/tmp}/bench-report.XXXXXX")
    trap 'rm -rf -- "$work"' EXIT
fi
py=${MEMSUITE_PYTHON:-/usr/bin/python3}
rd="$work/run"
rm -rf -- "$rd"
"$py" - "$root/tests/fixtures/report-basic" "$rd" "$cells" <<'EOF'
import json, os, shutil, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(os.path.join(dst, "cells"))
tmpl = {}
for name in os.listdir(os.path.join(src, "cells")):
    with open(os.path.join(src, "cells", name)) as f:
        tmpl.setdefault(name.rsplit("-s", 1)[0], json.load(f))   # the first of a kind
kinds = [("stream", "stream", "-"), ("mbw", "mbw", "-"), ("mencal-seqread", "mencal", "seqread"),
         ("mencal-randread", "mencal", "randread")]
sizes = [1 << k for k in range(27, 37)]
threads = [1, 2, 4, 8, 16, 32, 64]
plan, i = [], 0
while len(plan) < n:
    kind, bench, scen = kinds[i % len(kinds)]
    s = sizes[(i // len(kinds)) % len(sizes)]
    t = threads[(i // (len(kinds) * len(sizes))) % len(threads)]
    cid = "%s-s%d-t%d" % (kind, s, t)
    i += 1
    if any(p[0] == cid for p in plan):
        continue
    plan.append((cid, bench, scen, s, t))
    d = json.loads(json.dumps(tmpl[kind]))
    d["schema"] = "memsuite/result/1"
    for r in d["records"]:
        r.pop("headline", None)
        for m in r["metrics"].values():
            for k in ("base_unit", "scale", "better"):
                m.pop(k, None)
    for r in d["records"]:
        for m in r["metrics"].values():
            if m.get("unit") in ("MB/s", "MiB/s", "GB/s"):
                m["value"] = m["value"] * (t ** 0.8)
                for k in ("min", "max", "mean", "median"):
                    if k in m.get("stats", {}):
                        m["stats"][k] *= t ** 0.8
    with open(os.path.join(dst, "cells", cid + ".json"), "w") as f:
        json.dump(d, f)
with open(os.path.join(src, "run.json")) as f:
    run = json.load(f)
run["cell_env"] = {p[0]: {"thp_policy": "madvise", "throttle": {"status": "ok", "detail": "1 sample"}} for p in plan}
with open(os.path.join(dst, "run.json"), "w") as f:
    json.dump(run, f)
shutil.copy(os.path.join(src, "env.json"), dst)
with open(os.path.join(dst, "plan.tsv"), "w") as f:
    f.write("#id\tbench\tscenario\tsize_bytes\tthreads\treps\n")
    for p in plan:
        f.write("%s\t%s\t%s\t%d\t%d\t3\n" % p)
EOF
ms="$root/scripts/memsuite"
export MEMSUITE_LOCK="${MEMSUITE_LOCK:-$work/lock}"
rc=0
declare -a th=() tt=() ta=()
for ((r = 1; r <= runs; r++)); do
    for what in html text against; do
        [ "$what" != against ] || [ -n "$against" ] || continue
        t0=$(date +%s.%N)
        case "$what" in
            html) "$ms" report --html --output "$work/report.html" "$rd" >/dev/null || rc=1 ;;
            text) "$ms" report "$rd" >/dev/null || rc=1 ;;
            against) "$against/scripts/memsuite" report --html --output "$work/against.html" "$rd" >/dev/null || rc=1 ;;
        esac
        t1=$(date +%s.%N)
        dt=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
        printf 'run %d: report %-7s %s s\n' "$r" "$what" "$dt"
        case "$what" in html) th+=("$dt") ;; text) tt+=("$dt") ;; against) ta+=("$dt") ;; esac
    done
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%d cells, %d runs each: median report --html %s s, report (text) %s s (target: --html under 5 s)\n' \
    "$cells" "$runs" "$(median "${th[@]}")" "$(median "${tt[@]}")"
if [ -n "$against" ]; then
    printf 'against %s: median report --html %s s; ratio against/this %s\n' "$against" "$(median "${ta[@]}")" \
        "$(awk -v a="$(median "${ta[@]}")" -v b="$(median "${th[@]}")" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }')"
fi
exit "$rc"
