# shellcheck shell=bash
# results: the ONLY place that reads the tools' JSON documents
# (schema "memsuite/result/2", and "memsuite/result/1" written before it:
# MS_RESULT_SCHEMAS).  Everything else uses these functions, so a renamed
# key or metric is fixed here.
#
# Assumed document shape:
#   { "schema": "memsuite/result/2", "tool": "stream", "complete": true,
#     "records": [ { "name": "Copy", "headline": "best_rate_mbps",
#                    "metrics": { "best_rate_mbps": { "value": 1.0, "unit": "MB/s",
#                                 "base_unit": "B/s", "scale": 1e6, "better": "higher",
#                                 "stats": { "n", "min", "max", "mean", "median",
#                                            "stddev", "cv", "mad" } } } } ],
#     "llc": { "total_bytes": N }, "warnings": [ "..." ] }
# "metrics" may also be an array of { "name": ..., "value": ... } objects.
# stats.cv is a fraction (stddev / mean).  Real documents seen:
#   stream  Copy/Scale/Add/Triad: best_rate_mbps (MB/s, no stats),
#           min_time_s (s, stats), cv_time (fraction)
#   mbw     MEMCPY/DUMB/MCBLOCK: avg_rate_mibps, best_rate_mibps (MiB/s),
#           time_s (s, stats)
#   mencal  seqread: bandwidth (GB/s); randread: latency (ns), bandwidth;
#           mixed: read/write/total_bandwidth; concurrent: total_bandwidth;
#           randread --sweep: records[].tables.sweep[] {size_bytes, latency}

# Each record's headline metric: the one its "headline" names (schema 2)
# when the record has that metric; otherwise (schema 1, or a record
# without one) the first of these it has; otherwise its first metric with
# a rate unit; otherwise its first metric in ns.  The analyser
# (memsuite_analysis/results.py) chooses the same way.
MS_PRIMARY_METRICS=(
    best_rate_mbps          # stream: Best Rate MB/s
    avg_rate_mibps          # mbw: the AVG line, MiB/s
    mean_rate_mibps
    latency                 # mencal randread: ns per dependent load
    latency_ns
    total_bandwidth         # mencal mixed, concurrent
    bandwidth               # mencal seqread
    bandwidth_gbps
)

MS_JQ_LIB='
def metrics_of:
    (.metrics // {})
    | if type == "array" then map({key: (.name // "?"), value: .}) | from_entries else . end
    | map_values(if type == "object" then . else {value: .} end);
def mbps_factor(u):
    {"B/s": 0.000001, "KB/s": 0.001, "KiB/s": 0.001024, "MB/s": 1, "MiB/s": 1.048576,
     "GB/s": 1000, "GiB/s": 1073.741824, "TB/s": 1000000}[u];
# The repetition statistics of a record: its headline metric'"'"'s stats,
# else the first stats in the record (stream keeps them on its times,
# whose CV is the rate'"'"'s).  [n, cv]; cv is "" below 2 repetitions.
def record_stats($prim):
    . as $m
    | ($m[$prim].stats // first($m | to_entries[] | .value.stats // empty) // {}) as $s
    | ($s.n // "") as $n
    | [ $n,
        (if $n != "" and $n < 2 then ""
         else ($s.cv
               // first($m | to_entries[] | select((.key | startswith("cv")) and (.value.unit // "") == "fraction") | .value.value)
               // "") end) ];
# One metric of a record, as a reference sees it (ms_ref_evaluate reads a
# result through this): [value, unit], value "MISSING" (no such record or
# metric), "NA" (null: reported unavailable), "NAN" (not a number), else
# the number; unit "" when the document gives none.
def value_unit($r; $k):
    (first(.records[]? | select(type == "object" and .name == $r)) // {} | metrics_of) as $m
    | if ($m | has($k) | not) then ["MISSING", ""]
      else $m[$k] | [(.value | if . == null then "NA" elif type == "number" then . else "NAN" end),
                     (.unit // "" | tostring)] end;
# The headline a record names: its "headline" in a schema 2 document,
# null in a schema 1 document (whose records name none).
def named_headline($doc): if $doc.schema == "memsuite/result/2" then .headline? else null end;
# $m | primary_of($prefs; $headline): $headline is the headline the record
# names (named_headline), null for none.
def primary_of($prefs; $headline):
    . as $m
    | (($headline | if type == "string" and ($m | has($headline)) then . else empty end)
       // first($prefs[] as $p | select($m[$p] != null) | $p)
       // first($m | to_entries[] | select(mbps_factor(.value.unit // "") != null) | .key)
       // first($m | to_entries[] | select((.value.unit // "") == "ns") | .key)
       // "");
'

# The lists as JSON arrays (the names are plain words, no quotes).
MS_RES_PREFS=$(printf '"%s",' "${MS_PRIMARY_METRICS[@]}")
MS_RES_PREFS="[${MS_RES_PREFS%,}]"
MS_RES_SCHEMAS=$(printf '"%s",' "${MS_RESULT_SCHEMAS[@]}")
MS_RES_SCHEMAS="[${MS_RES_SCHEMAS%,}]"

# A headline value at or above this is no measurement (1e15 MB/s is an
# exabyte per second, 1e15 ns eleven days); one at or below 0 neither.
MS_RES_VALUE_MAX=1e15

# ms_res_state FILE [TOOL [SCENARIO]] (one jq call):
#   complete        a result document that may stand for a measurement
#   incomplete      a result document of a run that did not finish
#   invalid: WHY    a result document whose figures cannot be trusted: it
#                   failed its own validation ("validation": {"passed":
#                   false}, on the document or a record), or a record's
#                   headline value is not a number in (0, MS_RES_VALUE_MAX)
#                   (a string, 0, -5, 1e308; null means "unavailable" and
#                   is fine); or, with TOOL, a result of another tool
#                   (an mbw result at a stream cell's path), with
#                   SCENARIO, of another mencal scenario (config.scenarios
#                   must be [SCENARIO])
#   anything else   why FILE is not a result document at all; FILE must be
#                   a regular file (a FIFO would block the reader forever)
ms_res_state() {
    local f="$1" s
    if [ ! -r "$f" ] || [ -d "$f" ]; then echo "cannot read $f"; return 0; fi
    if [ ! -f "$f" ]; then echo "cannot read $f: it is $(ms_out_kind_name "$f"), not a regular file"; return 0; fi
    s=$(jq -r -s --argjson want "$MS_RES_SCHEMAS" --argjson prefs "$MS_RES_PREFS" \
        --argjson max "$MS_RES_VALUE_MAX" --arg tool "${2:-}" --arg scen "${3:-}" "$MS_JQ_LIB"'
        def failed: (type == "object") and (.passed != true);
        def badvalue: . != null and ((type != "number") or . <= 0 or . >= $max);
        def notnumber: . != null and type != "number";
        # Facts that reach the plots, awk or the shell as numbers (cache
        # marks, curve points): [path, value] for each one present.
        def numeric_facts:
            (["config.caches.l1d_bytes", .config.caches.l1d_bytes?],
             ["config.caches.l2_bytes", .config.caches.l2_bytes?],
             ["llc.total_bytes", .llc.total_bytes?],
             ["config.llc_bytes", .config.llc_bytes?],
             (.records[]? | (.name? // "?" | tostring) as $rn | .tables? // {} | objects
              | to_entries[] | .key as $t | .value | arrays | .[] | objects
              | to_entries[] | select(.key | IN("size", "size_bytes", "threads", "bandwidth", "latency", "latency_p99"))
              | ["\($rn).tables.\($t)[].\(.key)", .value]));
        # The first metric of a record whose unit is no string, or whose
        # value or statistics are no numbers: they reach awk and the
        # tables as they are (a comma would shift summary.csv).
        # (Collected, not first(): jq 1.6'"'"'s try catches first'"'"'s break.)
        def metric_problem:
            [.records[]? | objects | (.name? // "?" | tostring | .[0:40]) as $rn
                  | (try metrics_of catch {}) | to_entries[] | (.key | tostring | .[0:40]) as $k | .value
                  | if (.unit // "" | type) != "string" then "\($rn).\($k).unit is \(.unit | tojson | .[0:40]), not a string"
                    elif (.value | notnumber) then "\($rn).\($k).value is \(.value | tojson | .[0:40]), not a number"
                    elif (.stats // {} | type) != "object" then "\($rn).\($k).stats is not an object"
                    else (.stats // {} | to_entries[]
                          | select((.key | IN("n", "min", "max", "mean", "median", "stddev", "cv", "mad")) and (.value | notnumber))
                          | "\($rn).\($k).stats.\(.key) is \(.value | tojson | .[0:40]), not a number")
                    end] | .[0];
        # The first schema 2 record whose headline names none of its metrics.
        def headline_problem($doc):
            [.records[]? | objects | (.name? // "?" | tostring | .[0:40]) as $rn
             | named_headline($doc) as $h | select($h != null)
             | select(($h | type) != "string" or ((try metrics_of catch {}) | has($h) | not))
             | "\($rn).headline names \($h | tojson | .[0:40]), which the record does not have"] | .[0];
        def shape_problem:
            [.records[]? | objects | select((try (metrics_of | "ok") catch "bad") == "bad")
             | "\(.name? // "?" | tostring | .[0:40]).metrics is neither an object nor an array of metrics"] | .[0];
        if length != 1 then "holds \(length) JSON documents, expected one"
        else .[0] | . as $doc |
        if type != "object" then "is not a JSON object"
        elif (.schema | IN($want[]) | not) then "has schema \(.schema // "none" | tostring), expected \($want | join(" or "))"
        elif (.records | type) != "array" then "has no records array"
        elif $tool != "" and .tool != $tool then
            "invalid: it is a result of \(.tool // "no tool" | tostring | .[0:40] | tojson), but the planned cell runs \($tool)"
        elif $scen != "" and .config.scenarios? != [$scen] then
            "invalid: it is a result of mencal scenarios \(.config.scenarios? // "none" | tojson | .[0:60]), but the planned cell runs mencal \($scen)"
        elif .complete != true then "incomplete"
        elif (.validation | failed) then "invalid: it failed its own validation (validation.passed is \(.validation.passed | tojson))"
        elif (first(numeric_facts | select(.[1] | notnumber)) // null) != null then
            first(numeric_facts | select(.[1] | notnumber)
                  | "invalid: \(.[0]) is \(.[1] | tojson | .[0:40]), not a number")
        else
            (shape_problem | if . == null then empty else "invalid: \(.)" end) //
            (try (first(.records[] | select(.validation | failed))
                  | "invalid: record \(.name // "?" | tostring) failed its own validation (validation.passed is \(.validation.passed | tojson))")
             catch "invalid: a record is not an object") //
            (headline_problem($doc) | if . == null then empty else "invalid: \(.)" end) //
            (try (first(.records[] | (.name // "?" | tostring) as $rn | named_headline($doc) as $h | metrics_of as $m
                        | ($m | primary_of($prefs; $h)) as $p | select($p != "")
                        | $m[$p].value | select(badvalue)
                        | "invalid: \($rn).\($p) is \(tojson | .[0:40]), not a measured value (a number above 0 and below \($max))"))
             catch "invalid: malformed records (\(. | tostring | .[0:80]))") //
            (metric_problem | if . == null then empty else "invalid: \(.)" end) //
            "complete"
        end end' "$f" 2>/dev/null) || s=""
    case "$s" in
        complete|incomplete|invalid:*) echo "$s" ;;
        "") echo "$f is not valid JSON (empty, truncated, or nested too deeply)" ;;
        *) echo "$f $s" ;;
    esac
}

# ms_res_check FILE: 0 when FILE is a result document (complete or not,
# trusted or not); else prints why.
ms_res_check() {
    local s
    s=$(ms_res_state "$1")
    case "$s" in
        complete|incomplete|invalid:*) return 0 ;;
        *) printf '%s\n' "$s"; return 1 ;;
    esac
}

ms_res_complete() { [ "$(ms_res_state "$1")" = complete ]; }

# ms_res_problem FILE: 0 when FILE (a result document, see ms_res_check)
# may stand for a measurement (state complete); else prints why (one
# line) and returns 1.
ms_res_problem() {
    local s
    s=$(ms_res_state "$1")
    case "$s" in
        complete) return 0 ;;
        incomplete) echo "the result is incomplete (an interrupted or failed run)" ;;
        invalid:*) echo "the result is not to be trusted: ${s#invalid: }" ;;
        *) printf '%s\n' "$s" ;;
    esac
    return 1
}

ms_res_tool() { jq -r '.tool // "unknown"' "$1"; }

# ms_res_flatten FILE: one TSV line per metric:
#   record metric unit value n cv median primary(1|0) value_mbps
# (the headline metric's n and cv are the record's, see record_stats)
# value is "NA" when the tool reported it unavailable; value_mbps is empty
# when the unit is not a rate.
ms_res_flatten() {
    jq -r --argjson prefs "$MS_RES_PREFS" "$MS_JQ_LIB"'
        . as $doc
        | .records[]? as $r
        | ($r | metrics_of) as $m
        | ($m | primary_of($prefs; $r | named_headline($doc))) as $prim
        | ($m | record_stats($prim)) as $rs
        | $m | to_entries[]
        | [ ($r.name // "?" | tostring | gsub("[\t\n,]"; " ")),
            (.key | gsub("[\t\n,]"; " ")),
            (.value.unit // "" | tostring | gsub("[\t\n,]"; " ")),
            (if .value.value == null then "NA" else .value.value end),
            (if .key == $prim then $rs[0] else (.value.stats.n // "") end),
            (if .key == $prim then $rs[1] else (.value.stats.cv // "") end),
            (.value.stats.median // ""),
            (if .key == $prim then 1 else 0 end),
            (if .value.value != null and mbps_factor(.value.unit // "") != null
             then .value.value * mbps_factor(.value.unit) else "" end) ]
        | @tsv' "$1"
}

# ms_res_run_block FILE: how the result was run, as a reference "run"
# object {bench, size_bytes, threads, reps} (members that cannot be told
# are left out).  stream: config.array_bytes, config.ntimes - 1; mbw:
# config.array_bytes, config.runs; mencal: config.size_bytes, config.reps.
ms_res_run_block() {
    jq -c '
        # null, never empty: one empty member would make no object at all
        { bench: (if .tool == "mencal" and (.config.scenarios | type) == "array"
                  then "mencal:\(.config.scenarios[0])" else .tool end),
          size_bytes: (.config.array_bytes // .config.size_bytes),
          threads: (.threads.counted // .config.threads),
          reps: (if .config.ntimes then .config.ntimes - 1 else (.config.runs // .config.reps) end) }
        | with_entries(select(.value != null and (.value | type) != "object"))' "$1" 2>/dev/null || echo '{}'
}

# ms_res_labels FILE...: "name<TAB>label" per result document, name the
# file's base name without .json (a cell id), label standard, tuned or
# not-standard (empty when the document has none).  FILEs must be valid
# result documents (ms_res_state complete).
ms_res_labels() {
    [ $# -gt 0 ] || return 0
    jq -r '[(input_filename | split("/") | last | sub("\\.json$"; "")),
            (.label // "" | tostring)] | map(gsub("[\t\n]"; " ")) | @tsv' -- "$@"
}

# ms_res_builds FILE...: "tool<TAB>build" (compiler, flags, OpenMP,
# NUMA and PAPI support as the tool reports them), each distinct pair
# once, sorted.  FILEs must be valid result documents.
ms_res_builds() {
    [ $# -gt 0 ] || return 0
    jq -r '[(.tool // "?" | tostring), (.build // "unknown" | tostring)] | map(gsub("[\t\n]"; " ")) | @tsv' -- "$@" | sort -u
}

# ms_res_value FILE RECORD METRIC: the value (empty when absent or null)
ms_res_value() {
    jq -r --arg r "$2" --arg k "$3" "$MS_JQ_LIB"'
        first(.records[]? | select(.name == $r)) | metrics_of | .[$k].value // empty' "$1"
}

# ms_res_latency_points FILE: "bytes<TAB>ns" lines of a latency sweep
# (mencal run randread --sweep: records[].tables.sweep[] with size_bytes
# and latency in ns).
ms_res_latency_points() {
    jq -r '
        .records[]?.tables.sweep[]?
        | select(.size_bytes != null and (.latency // .latency_ns) != null)
        | [.size_bytes, (.latency // .latency_ns)] | @tsv' "$1" | sort -n
}
