#!/usr/bin/env bash
# Summary: time `memsuite cluster --aggregate` on generated node reports (targets: 10,000 in < 1 s, 100,000 in < 10 s).
# Usage: scripts/bench-aggregate.sh [--nodes N] [--runs R] [--target SEC] [--keep DIR]
#        scripts/bench-aggregate.sh --generate DIR --ref-out FILE --nodes N
#                                   [--slow LIST] [--fail LIST] [--error LIST]
#                                   [--missing LIST] [--other-ref LIST]
#
# Benchmark (first form): generates N node reports (default 10000) in a
# temp directory, with a few planted problems (every 1000th node 5% slow,
# every 2500th 20% slow so it FAILs, every 3333rd missing, node 7 ERROR),
# then times the aggregation R times (default 3), text and JSON, with the
# expected list node[00001-N] so the MISSING nodes are found.  Prints each
# time, the best and the median, and the peak memory (max RSS) of the
# aggregation; checks that every planted problem was found (exit 1 when
# not); exits 1 when the best JSON time is over --target (default 1 s for
# up to 10,000 nodes, 10 s above).  --keep DIR keeps what re-aggregating
# needs: DIR/reports/ and DIR/ref.json (then: memsuite cluster --aggregate
# DIR/reports --ref DIR/ref.json --nodes 'node[00001-N]').
#
# Generator (second form, also used by the tests): node reports
# node00001..nodeN (schema memsuite/cluster-node/1) in DIR and their
# reference in FILE (Triad 12000 MB/s and Copy 11000 MB/s, -10%/+25%).
# Values are deterministic: within +-0.4% of the expected value, except
# the nodes in the lists (node numbers, comma-separated): --slow 5% below,
# --fail 20% below, --error a check that could not run, --missing no
# report, --other-ref a report made against another reference.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "bench-aggregate: $*" >&2; exit 2; }

generate() {   # DIR REF N SLOW FAIL ERROR MISSING OTHER
    local dir=$1 ref=$2 n=$3 id other_id
    mkdir -p -- "$dir"
    cat >"$ref" <<'EOF'
{ "schema": "memsuite/ref/1", "description": "bench-aggregate: generated reference",
  "created": "2024-01-01T00:00:00Z",
  "run": { "bench": "stream", "size_bytes": 134217728, "threads": 16, "reps": 10, "bind": "spread" },
  "metrics": [
    { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 12000, "lower_pct": 10, "upper_pct": 25 },
    { "record": "Copy", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 11000, "lower_pct": 10, "upper_pct": 25 } ] }
EOF
    id=$(jq -S -c . "$ref" | sha256sum)
    id="sha256:${id%% *}"
    other_id="sha256:$(printf 'another reference' | sha256sum | cut -d' ' -f1)"
    awk -v dir="$dir" -v n="$n" -v id="$id" -v other="$other_id" \
        -v slow=",$4," -v fail=",$5," -v err=",$6," -v miss=",$7," -v oref=",$8," '
        function has(list, i) { return index(list, "," i ",") > 0 }
        function metric(rec, want, v, pass) {
            return sprintf("{\"record\":\"%s\",\"metric\":\"best_rate_mbps\",\"unit\":\"MB/s\",\"expected\":%d,\"value\":%s,\"pass\":%s}",
                           rec, want, v, pass)
        }
        BEGIN {
            for (i = 1; i <= n; i++) {
                if (has(miss, i)) continue
                node = sprintf("node%05d", i)
                j1 = ((i * 7919) % 201 - 100) / 100 * 0.004
                j2 = ((i * 104729) % 201 - 100) / 100 * 0.004
                f = has(fail, i) ? 0.80 : has(slow, i) ? 0.95 : 1
                t = sprintf("%.1f", 12000 * (1 + j1) * f); c = sprintf("%.1f", 11000 * (1 + j2) * f)
                verdict = (f == 0.80) ? "FAIL" : "PASS"; pass = (f == 0.80) ? "false" : "true"; code = (f == 0.80) ? 1 : 0
                summary = "memsuite: " verdict " 2/2 metrics on " node
                if (has(err, i)) {
                    verdict = "ERROR"; code = 3; t = "null"; c = "null"; pass = "false"
                    summary = "memsuite check exited 3: stream: arrays do not fit in memory"
                }
                file = dir "/" node ".json"
                printf "{\"schema\":\"memsuite/cluster-node/1\",\"node\":\"%s\",\"host\":\"%s.cluster\",\"run_id\":\"bench\",\"ref\":{\"id\":\"%s\",\"path\":\"/shared/ref.json\",\"created\":\"2024-01-01T00:00:00Z\"},\"verdict\":\"%s\",\"exit\":%d,\"started\":\"2024-01-01T00:00:00Z\",\"finished\":\"2024-01-01T00:00:10Z\",\"seconds\":10,\"summary\":\"%s\",\"metrics\":[%s,%s],\"lines\":[],\"stderr_tail\":[]}\n",
                    node, node, has(oref, i) ? other : id, verdict, code, summary,
                    metric("Triad", 12000, t, pass), metric("Copy", 11000, c, pass) > file
                close(file)
            }
        }'
}

mode=bench n=10000 runs=3 target="" keep="" gdir="" gref="" slow="" fail="" err="" miss="" oref=""
while [ $# -gt 0 ]; do
    case "$1" in
        --generate) gdir=${2:?}; mode=generate; shift ;;
        --ref-out) gref=${2:?}; shift ;;
        --nodes) n=${2:?}; shift ;;
        --runs) runs=${2:?}; shift ;;
        --target) target=${2:?}; shift ;;
        --keep) keep=${2:?}; shift ;;
        --slow) slow=${2:?}; shift ;;
        --fail) fail=${2:?}; shift ;;
        --error) err=${2:?}; shift ;;
        --missing) miss=${2:?}; shift ;;
        --other-ref) oref=${2:?}; shift ;;
        -h|--help) sed -n 's/^# \{0,1\}//; 2,/^$/p' "$0" | sed '/^$/q'; exit 0 ;;
        *) die "unknown option '$1' (see --help)" ;;
    esac
    shift
done
if ! [[ "$n" =~ ^[0-9]+$ ]] || [ "$n" -lt 1 ]; then die "--nodes: a whole number >= 1"; fi

if [ "$mode" = generate ]; then
    [ -n "$gref" ] || die "--generate needs --ref-out FILE"
    generate "$gdir" "$gref" "$n" "$slow" "$fail" "$err" "$miss" "$oref"
    exit 0
fi

if [ -z "$target" ]; then if [ "$n" -le 10000 ]; then target=1; else target=10; fi; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/bench-aggregate.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
refdir=$work
if [ -n "$keep" ]; then
    mkdir -p -- "$keep" || die "--keep: cannot create $keep"
    refdir=$keep
fi
dir=$refdir/reports
planted() {   # STEP: every STEP-th node number up to n
    awk -v n="$n" -v s="$1" 'BEGIN { for (i = s; i <= n; i += s) printf "%s%d", (c++ ? "," : ""), i }'
}
echo "bench-aggregate: generating $n node reports in $dir ..."
t0=$(date +%s.%N)
generate "$dir" "$refdir/ref.json" "$n" "$(planted 1000)" "$(planted 2500)" "7" "$(planted 3333)" ""
t1=$(date +%s.%N)
printf 'bench-aggregate: generated in %.2f s\n' "$(echo "$t1 - $t0" | bc)"

nodes="node[$(printf '%05d' 1)-$(printf '%05d' "$n")]"
best="" times=()
for fmt in text json; do
    for ((r = 1; r <= runs; r++)); do
        rc=0
        /usr/bin/time -f '%e %M' -o "$work/time" "$root/scripts/memsuite" cluster --aggregate "$dir" \
            --ref "$refdir/ref.json" --nodes "$nodes" --format "$fmt" >"$work/out.$fmt" 2>"$work/err" || rc=$?
        read -r dt rss < <(tail -n 1 "$work/time")
        [ "$rc" -le 1 ] || { cat "$work/err" >&2; die "aggregation failed (exit $rc)"; }
        printf 'bench-aggregate: %d nodes, --format %s, run %d: %.3f s, max RSS %d KiB (exit %d)\n' "$n" "$fmt" "$r" "$dt" "$rss" "$rc"
        if [ "$fmt" = json ]; then
            times+=("$dt")
            if [ -z "$best" ] || [ "$(echo "$dt < $best" | bc)" = 1 ]; then best=$dt; fi
        fi
    done
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }')
jq -r '"bench-aggregate: report: \(.reported) reported, \(.counts.missing) MISSING, \(.counts.fail) FAIL, \(.counts.error) ERROR, \(.counts.slow) slow outliers"' "$work/out.json"
# Every planted problem found: MISSING every 3333rd, FAIL every 2500th,
# ERROR node 7, SLOW every 1000th (that is not also a FAIL).
want=$(awk -v n="$n" 'BEGIN {
    for (i = 1; i <= n; i++) {
        m = (i % 3333 == 0); f = !m && (i % 2500 == 0); e = !m && i == 7; s = !m && !f && !e && (i % 1000 == 0)
        if (m) c["MISSING"]++; if (f) c["FAIL"]++; if (e) c["ERROR"]++; if (s) c["SLOW"]++
    }
    printf "%d %d %d %d\n", c["MISSING"], c["FAIL"], c["ERROR"], c["SLOW"] }')
got=$(jq -r '"\(.counts.missing) \(.counts.fail) \(.counts.error) \([.nodes[] | select(.status == "PASS" and .outlier == "SLOW")] | length)"' "$work/out.json")
if [ "$want" != "$got" ]; then
    echo "bench-aggregate: planted MISSING FAIL ERROR SLOW: $want; found: $got" >&2
    exit 1
fi
echo "bench-aggregate: every planted problem found (MISSING FAIL ERROR SLOW: $got)"
printf 'bench-aggregate: JSON aggregation of %d nodes: best %.3f s, median %.3f s over %d runs (target < %s s)\n' "$n" "$best" "$median" "$runs" "$target"
if [ -n "$keep" ]; then
    echo "bench-aggregate: kept in $keep: memsuite cluster --aggregate $keep/reports --ref $keep/ref.json --nodes '$nodes'"
fi
if [ "$(echo "$best < $target" | bc)" != 1 ]; then
    echo "bench-aggregate: OVER TARGET" >&2
    exit 1
fi
