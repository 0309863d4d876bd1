# shellcheck shell=bash
# ref: node-validation reference files (schema "memsuite/ref/1").
#
#   { "schema": "memsuite/ref/1",
#     "description": "free text", "host": "where it was recorded", "created": "UTC",
#     "run": { "bench": "stream", "size_bytes": 134217728, "threads": 16,
#              "reps": 10, "bind": "spread" },                  (optional)
#     "made_with": { "memsuite": "0.1.0", "tool": "stream", "version": "0.1.0",
#                    "env": { "cpu_model": "...", "cores": 16, ... } },  (optional)
#     "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
#                    "expected": 12000.0, "lower_pct": 10, "upper_pct": 25 } ] }
#
# A metric passes when expected x (1 - lower_pct/100) <= value <=
# expected x (1 + upper_pct/100); "upper_pct": null means no upper bound.
# "made_with" is what --record saw in the results (the tool, its version,
# the result's sysinfo): check compares a new result with it (ms_ref_settings).

ms_use results bench analysis

MS_REF_VALUE_MAX=1e15   # as memsuite_analysis/reference.py VALUE_MAX

# ms_ref_validate FILE: prints the problem and returns 1 when FILE is not
# a usable reference: the analyser's rules (memsuite_analysis/reference.py:
# a regular file, never blocking on a FIFO; one JSON object; schema, keys,
# values), then whether run.bench names a tool and scenario memsuite has.
ms_ref_validate() {
    local f="$1" err bench
    err=$(ms_analyse ref-check "$f") || { printf '%s\n' "${err:-cannot read reference $f (the analyser failed)}"; return 1; }
    bench=$(jq -r '.run.bench // empty' "$f")
    [ -n "$bench" ] || return 0
    if ! err=$(ms_bench_split "$bench"); then
        echo "reference $f: run.bench: $err"
        return 1
    fi
    # a scenario the tool does not have is a bad reference, found before
    # anything runs (the tool would refuse it: exit 3 after the run)
    if ! err=$(ms_bench_check_scenario "${err%%$'\t'*}" "${err#*$'\t'}"); then
        echo "reference $f: run.bench: $err"
        return 1
    fi
}

ms_ref_run_get() { jq -r --arg k "$2" '.run[$k] // empty | tostring' "$1"; }

# ms_ref_metrics FILE: "record<TAB>metric<TAB>unit<TAB>expected<TAB>lower<TAB>upper"
# (upper "-" when unbounded)
ms_ref_metrics() {
    jq -r '.metrics[] | [.record, .metric, (.unit // ""), .expected, .lower_pct,
           (if .upper_pct == null then "-" else .upper_pct end)] | @tsv' "$1"
}

# ms_ref_record OUT FLOOR CAP UPPER RUNJSON MADEWITH RESULT...: write a
# reference from the median of each headline metric over the results.
# The spread of a metric is its observed range (max - min) in % of the
# median; its tolerance on the slow side is max(FLOOR, 1.5 x spread):
# lower_pct for rates (higher is better), upper_pct for times (units s,
# ms, us, ns; lower is better; their lower_pct is 100, no bound).  The
# fast side is unbounded (null) unless UPPER (a percentage) is given: a
# faster node is no fault.  A tolerance over CAP means the runs vary too
# much to judge a node by (a busy or unstable node): prints why, writes
# nothing, returns 1.  Returns 2 for results unfit to record (see
# ms_ref_headlines_check) and values that are no measurement, 3 when OUT
# cannot be written.
ms_ref_record() {
    local out="$1" floor="$2" cap="$3" upper="$4" runjson="$5" madewith="$6" tmp
    shift 6
    local f
    tmp=$(ms_mktemp)
    # Each result's lines, after a "#file" line naming it (ENVIRON: awk -v
    # would read backslashes in a file name as escapes).
    for f in "$@"; do
        ms_res_flatten "$f" | MS_REF_FILE="$f" awk 'BEGIN { f = ENVIRON["MS_REF_FILE"]; print f "\t#file" } { print f "\t" $0 }'
    done >"$tmp"
    local why
    why=$(ms_ref_headlines_check "$tmp" "$#") || { printf '%s\n' "$why"; return 2; }
    awk -F '\t' '$2 != "#file" && $9 == 1 { print $2 "\t" $3 "\t" $4 "\t" $5 }' "$tmp" >"$tmp.h"
    mv -f -- "$tmp.h" "$tmp"
    # Every value must be one a check could compare with: a number above 0
    # and below MS_REF_VALUE_MAX (0, -5 or 1.8e308 would make a reference
    # that passes or fails everything).  Exit 2: the inputs are bad.
    local bad
    bad=$(awk -F '\t' -v max="$MS_REF_VALUE_MAX" '
        !($4 ~ /^[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$/) || $4 + 0 <= 0 || $4 + 0 >= max + 0 {
            printf "%s.%s has the value %s; a reference needs a number above 0 and below %s\n", $1, $2, $4, max; exit }' "$tmp")
    [ -z "$bad" ] || { printf '%s\n' "$bad"; return 2; }
    local doc
    doc=$(ms_mktemp)
    jq -R -s --arg schema "$MS_REF_SCHEMA" --arg host "$(ms_hostname)" --arg created "$(ms_now_utc)" \
        --argjson floor "$floor" --argjson cap "$cap" --argjson upper "${upper:-null}" \
        --argjson run "$runjson" --argjson made "$madewith" --argjson n "$#" '
        def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
        def r1: . * 10 | round / 10;
        def lower_better: . as $u | ["s", "ms", "us", "ns"] | index([$u]) != null;
        [ split("\n")[] | select(length > 0) | split("\t") | { record: .[0], metric: .[1], unit: .[2], v: (.[3] | tonumber) } ]
        | group_by([.record, .metric]) as $groups
        | { schema: $schema,
            description: "recorded by memsuite check --record from \($n) run(s): expected = median; slow-side tolerance = max(\($floor)%, 1.5 x the observed range), at most \($cap)%; fast side \(if $upper == null then "unbounded" else "+\($upper)%" end)",
            host: $host, created: $created, run: $run, made_with: $made,
            metrics: [ $groups[] | (map(.v)) as $v | ($v | median) as $m
                       | ((($v | max) - ($v | min)) / $m * 100) as $spread
                       | ([$floor, 1.5 * $spread] | max | . * 10 | ceil / 10) as $tol
                       | (.[0].unit | lower_better) as $lb
                       | { record: .[0].record, metric: .[0].metric }
                       + (if .[0].unit == "" then {} else { unit: .[0].unit } end)     # none: no key
                       + { expected: ($m | r1),
                           lower_pct: (if $lb then ($upper // 100 | if . > 100 then 100 else . end) else $tol end),
                           upper_pct: (if $lb then $tol else $upper end),
                           runs: ($v | length), observed_min: ($v | min), observed_max: ($v | max),
                           spread_pct: ($spread | r1) } ] }' "$tmp" >"$doc" ||
        { echo "jq failed writing the reference"; return 1; }
    local wide
    wide=$(jq -r --argjson cap "$cap" '[.metrics[] | select(.spread_pct * 1.5 > $cap)
        | "\(.record).\(.metric) ranged \(.observed_min * 10 | round / 10)..\(.observed_max * 10 | round / 10) \(.unit) over \(.runs) runs (spread \(.spread_pct)% of the median)"] | join("; ")' "$doc")
    if [ -n "$wide" ]; then
        printf 'the runs vary too much to make a useful reference: %s; a tolerance of 1.5 x the spread would exceed the cap of %s%% (--cap). Is the node busy or unstable? Record on a quiet node (more --runs help); nothing recorded\n' "$wide" "$cap"
        return 1
    fi
    # Never write a reference that check would refuse.
    why=$(ms_ref_validate "$doc") || { printf 'check would refuse the reference these results make (%s); nothing recorded\n' "${why#reference "$doc": }"; return 1; }
    # never renamed over a device, never through a link (outfile.sh)
    ms_out_write "$out" cat -- "$doc" || { echo "cannot write the reference $MS_OUT_ERR"; return 3; }
}

# ms_ref_headlines_check FLAT N: 0 when the N results of FLAT ("file<TAB>"
# before each ms_res_flatten line, a "file<TAB>#file" line first for each
# result) can make one reference: every record has a headline metric, and
# every headline metric (record.metric) is in all N results, measured
# (not null), in one unit.  A median over fewer runs than the others, a
# substitute headline or MB/s mixed with GB/s would be no reference.
# Else prints the first problem and returns 1.
ms_ref_headlines_check() {
    awk -F '\t' -v n="$2" '
        function fail(msg) { if (why == "") why = msg }
        $2 == "#file" { files[++nf] = $1; next }
        {
            f = $1; r = $2; k = $3; u = $4; v = $5
            if (!((f, r) in inrec)) { inrec[f, r] = 1; recs[f] = recs[f] SUBSEP r }
            if ($9 != 1) next
            g = r "." k
            head[f, r] = k
            if (!(g in count)) { order[++ng] = g; grec[g] = r; unit[g] = u; ufile[g] = f }
            count[g]++
            if (u != unit[g]) fail(sprintf("%s is in %s in %s but in %s in %s; record results in one unit", g, (unit[g] == "" ? "no unit" : unit[g]), ufile[g], (u == "" ? "no unit" : u), f))
            if (v == "NA") fail(sprintf("%s is reported unavailable in %s", g, f))
        }
        END {
            for (i = 1; i <= nf; i++) {
                f = files[i]
                if (recs[f] == "") { fail(sprintf("%s holds no record with a headline metric", f)); continue }
                m = split(substr(recs[f], 2), rl, SUBSEP)
                for (j = 1; j <= m; j++)
                    if (!((f, rl[j]) in head))
                        fail(sprintf("record %s of %s has no headline metric (no rate or latency metric)", rl[j], f))
            }
            for (j = 1; j <= ng; j++) {
                g = order[j]
                if (count[g] == n) continue
                for (i = 1; i <= nf; i++) {
                    f = files[i]
                    if ((f, grec[g]) in head && grec[g] "." head[f, grec[g]] == g) continue
                    if ((f, grec[g]) in head)
                        fail(sprintf("the results disagree on the headline metric of %s: %s in %s, %s.%s in %s", grec[g], g, ufile[g], grec[g], head[f, grec[g]], f))
                    else
                        fail(sprintf("%s is in %d of the %d results: %s lacks it", g, count[g], n, f))
                    break
                }
            }
            if (why != "") { print why; exit 1 }
        }' "$1"
}

# ms_ref_made_with RESULT: the "made_with" block a reference keeps from a
# result: memsuite's version, the tool and its version, and the result's
# sysinfo facts that change a memory figure (plain values only).
MS_REF_ENV_KEYS='["cpu_model", "sockets", "cores", "cpus_online", "numa_nodes", "smt", "thp_enabled", "hugepages_total", "hugepage_size_kib", "compiler", "cflags", "kernel", "mem_total_bytes"]'
# Differences in these are reported, not refused (a kernel update or a
# DIMM's worth of firmware reservation leave the node's class unchanged).
MS_REF_ENV_INFO='["kernel", "mem_total_bytes"]'
ms_ref_made_with() {
    jq -c --arg ms "$MS_VERSION" --argjson keys "$MS_REF_ENV_KEYS" '
        { memsuite: $ms, tool: (.tool // "unknown" | tostring), version: (.version // "unknown" | tostring),
          env: ((.sysinfo // {}) as $s | [ $keys[] | select(($s[.] | type) as $t | $t == "string" or $t == "number" or $t == "boolean")
                 | { key: ., value: $s[.] } ] | from_entries) }' "$1"
}
