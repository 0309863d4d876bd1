# shellcheck shell=bash
# results: the ONLY place that reads the tools' JSON documents
# (schema "memsuite/result/1").  Everything else uses these functions, so a
# renamed key or metric is fixed here.
#
# Assumed document shape:
#   { "schema": "memsuite/result/1", "tool": "stream", "complete": true,
#     "records": [ { "name": "Copy",
#                    "metrics": { "best_rate_mbps": { "value": 1.0, "unit": "MB/s",
#                                 "stats": { "n", "min", "max", "mean", "median",
#                                            "stddev", "cv", "mad" } } } } ],
#     "llc": { "total_bytes": N }, "warnings": [ "..." ] }
# "metrics" may also be an array of { "name": ..., "value": ... } objects.
# stats.cv is a fraction (stddev / mean).

# Each record's headline metric: the first of these it has; otherwise its
# first metric with a rate unit; otherwise its first metric in ns.
MS_PRIMARY_METRICS=(
    best_rate_mbps          # stream: Best Rate MB/s
    mean_rate_mibps         # mbw: AVG MiB/s
    avg_rate_mibps
    rate_mibps
    bandwidth_gbps          # mencal bandwidth scenarios
    total_gbps
    read_gbps
    latency_ns              # mencal randread
    median_latency_ns
)

MS_JQ_LIB='
def metrics_of:
    (.metrics // {})
    | if type == "array" then map({key: (.name // "?"), value: .}) | from_entries else . end
    | map_values(if type == "object" then . else {value: .} end);
def mbps_factor(u):
    {"B/s": 0.000001, "KB/s": 0.001, "KiB/s": 0.001024, "MB/s": 1, "MiB/s": 1.048576,
     "GB/s": 1000, "GiB/s": 1073.741824, "TB/s": 1000000}[u];
def primary_of($prefs):
    . as $m
    | (first($prefs[] as $p | select($m[$p] != null) | $p)
       // first($m | to_entries[] | select(mbps_factor(.value.unit // "") != null) | .key)
       // first($m | to_entries[] | select((.value.unit // "") == "ns") | .key)
       // "");
'

ms_res_prefs_json() { printf '%s\n' "${MS_PRIMARY_METRICS[@]}" | jq -R . | jq -s -c .; }

# ms_res_check FILE: 0 when FILE is a result document; else prints why.
ms_res_check() {
    local f="$1" schema
    if [ ! -r "$f" ]; then echo "cannot read $f"; return 1; fi
    if ! jq -e 'type == "object"' "$f" >/dev/null 2>&1; then
        echo "$f is not a JSON object"
        return 1
    fi
    schema=$(jq -r '.schema // "none"' "$f")
    if [ "$schema" != "$MS_RESULT_SCHEMA" ]; then
        echo "$f has schema '$schema', expected '$MS_RESULT_SCHEMA'"
        return 1
    fi
    if ! jq -e '(.records | type) == "array"' "$f" >/dev/null 2>&1; then
        echo "$f has no records array"
        return 1
    fi
}

ms_res_complete() { jq -e '.complete == true' "$1" >/dev/null 2>&1; }
ms_res_tool() { jq -r '.tool // "unknown"' "$1"; }
ms_res_llc_bytes() { jq -r '.llc.total_bytes // empty' "$1" 2>/dev/null; }
ms_res_warnings() { jq -r '.warnings[]? | tostring' "$1" 2>/dev/null; }
ms_res_records() { jq -r '.records[]?.name' "$1"; }

# ms_res_flatten FILE: one TSV line per metric:
#   record metric unit value n cv median primary(1|0) value_mbps
# value is "NA" when the tool reported it unavailable; value_mbps is empty
# when the unit is not a rate.
ms_res_flatten() {
    jq -r --argjson prefs "$(ms_res_prefs_json)" "$MS_JQ_LIB"'
        .records[]? as $r
        | ($r | metrics_of) as $m
        | ($m | primary_of($prefs)) as $prim
        | $m | to_entries[]
        | [ ($r.name // "?" | tostring | gsub("[\t\n,]"; " ")),
            (.key | gsub("[\t\n,]"; " ")),
            (.value.unit // ""),
            (if .value.value == null then "NA" else .value.value end),
            (.value.stats.n // ""),
            (.value.stats.cv // ""),
            (.value.stats.median // ""),
            (if .key == $prim then 1 else 0 end),
            (if .value.value != null and mbps_factor(.value.unit // "") != null
             then .value.value * mbps_factor(.value.unit) else "" end) ]
        | @tsv' "$1"
}

# ms_res_value FILE RECORD METRIC: the value (empty when absent or null)
ms_res_value() {
    jq -r --arg r "$2" --arg k "$3" "$MS_JQ_LIB"'
        first(.records[]? | select(.name == $r)) | metrics_of | .[$k].value // empty' "$1"
}

# ms_res_latency_points FILE: "bytes<TAB>ns" lines from a latency sweep:
# either a top-level "sweep" array of {size_bytes, latency_ns}, or records
# carrying one metric in bytes and one in ns.
ms_res_latency_points() {
    jq -r "$MS_JQ_LIB"'
        ( .sweep[]? | select(.size_bytes != null and .latency_ns != null)
          | [.size_bytes, .latency_ns] | @tsv ),
        ( .records[]? | metrics_of
          | [ (to_entries[] | select((.value.unit // "") == "bytes") | .value.value) ][0] as $b
          | [ (to_entries[] | select((.value.unit // "") == "ns") | .value.value) ][0] as $ns
          | select($b != null and $ns != null) | [$b, $ns] | @tsv )' "$1" | sort -n
}
