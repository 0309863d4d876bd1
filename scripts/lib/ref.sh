# shellcheck shell=bash
# ref: node-validation reference files (schema "memsuite/ref/1").
#
#   { "schema": "memsuite/ref/1",
#     "description": "free text", "host": "where it was recorded", "created": "UTC",
#     "run": { "bench": "stream", "size_bytes": 134217728, "threads": 16,
#              "reps": 10, "bind": "spread" },                  (optional)
#     "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
#                    "expected": 12000.0, "lower_pct": 10, "upper_pct": 25 } ] }
#
# A metric passes when expected x (1 - lower_pct/100) <= value <=
# expected x (1 + upper_pct/100); "upper_pct": null means no upper bound.

ms_use results bench

# No memory figure comes near this (1e15 MB/s is an exabyte per second; a
# latency of 1e15 ns is 11 days): an expected value at or above it, like
# one of 0 or below, is a broken reference, and its band would overflow.
MS_REF_VALUE_MAX=1e15

# ms_ref_validate FILE: prints the problem and returns 1 when FILE is not
# a usable reference.
ms_ref_validate() {
    local f="$1" err
    if [ ! -r "$f" ] || [ -d "$f" ]; then echo "cannot read reference $f"; return 1; fi
    # Slurped, so that an empty or blank file (no document: jq -e says
    # nothing and succeeds) and a file of two documents are refused too.
    if ! err=$(jq -e -s 'length == 1 and (.[0] | type) == "object"' "$f" 2>&1 >/dev/null); then
        if [ -z "$err" ] && ! grep -q '[^[:space:]]' "$f" 2>/dev/null; then
            echo "reference $f is empty: no JSON document (a truncated or unrecorded reference?)"
        else
            echo "reference $f is not a JSON object (exactly one document is expected)${err:+: $(head -n 1 <<<"$err")}"
        fi
        return 1
    fi
    err=$(jq -r --arg schema "$MS_REF_SCHEMA" --argjson max "$MS_REF_VALUE_MAX" '
        def num: type == "number";
        def pos: num and . > 0 and . < $max;
        def posint: num and . >= 1 and . == floor;
        # A misspelt key would be silently ignored (a typo in "upper_pct"
        # would drop the upper bound, one in "run" the whole run block).
        def unknown($known): (keys_unsorted - $known)[0];   # null when none
        if .schema != $schema then "schema is \(.schema // "missing" | tostring), expected \($schema)"
        elif unknown(["schema", "description", "host", "created", "run", "metrics"]) then
            "unknown key \"\(unknown(["schema", "description", "host", "created", "run", "metrics"]))\" (a typo? known: schema, description, host, created, run, metrics)"
        elif (.metrics | type) != "array" then "no \"metrics\" array"
        elif (.metrics | length) == 0 then "\"metrics\" is empty: nothing to check"
        else
          ( [ .metrics | to_entries[] | .key as $i | .value as $m
              | if ($m | type) != "object" then "metrics[\($i)] is not an object"
                elif ($m.record | type) != "string" or ($m.record | length) == 0 then "metrics[\($i)] has no \"record\""
                elif ($m.metric | type) != "string" or ($m.metric | length) == 0 then "metrics[\($i)] has no \"metric\""
                elif ($m.expected | pos | not) then "metrics[\($i)] (\($m.record).\($m.metric)): \"expected\" must be a number > 0 and below \($max)"
                elif ($m.lower_pct | (num and . >= 0 and . <= 100) | not) then "metrics[\($i)] (\($m.record).\($m.metric)): \"lower_pct\" must be a number 0..100"
                elif ($m | unknown(["record", "metric", "unit", "expected", "lower_pct", "upper_pct", "runs", "observed_min", "observed_max"])) then
                    "metrics[\($i)] (\($m.record).\($m.metric)): unknown key \"\($m | unknown(["record", "metric", "unit", "expected", "lower_pct", "upper_pct", "runs", "observed_min", "observed_max"]))\" (a typo? known: record, metric, unit, expected, lower_pct, upper_pct)"
                elif ($m | has("upper_pct") | not) then "metrics[\($i)] (\($m.record).\($m.metric)): \"upper_pct\" is missing; give a number, or null for no upper bound"
                elif ($m.upper_pct != null and ($m.upper_pct | (num and . >= 0) | not)) then "metrics[\($i)] (\($m.record).\($m.metric)): \"upper_pct\" must be a number >= 0 or null"
                else empty end ] + [
              .run // {} | if type != "object" then "\"run\" is not an object"
              elif unknown(["bench", "size_bytes", "threads", "reps", "bind"]) then
                "run: unknown key \"\(unknown(["bench", "size_bytes", "threads", "reps", "bind"]))\" (a typo? known: bench, size_bytes, threads, reps, bind)"
              else
                (if has("size_bytes") and (.size_bytes | posint | not) then "run.size_bytes must be a whole number > 0" else empty end),
                (if has("threads") and (.threads | posint | not) then "run.threads must be a whole number > 0" else empty end),
                (if has("reps") and (.reps | posint | not) then "run.reps must be a whole number > 0" else empty end),
                (if has("bench") and (.bench | type) != "string" then "run.bench must be a string" else empty end),
                (if has("bind") and (.bind | type) != "string" then "run.bind must be a string" else empty end)
              end ] ) | first // "" end' "$f" 2>&1) || { echo "reference $f: $err"; return 1; }
    if [ -n "$err" ]; then
        echo "reference $f: $err"
        return 1
    fi
    local bench
    bench=$(jq -r '.run.bench // empty' "$f")
    if [ -n "$bench" ] && ! err=$(ms_bench_split "$bench"); then
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

# ms_ref_evaluate REF RESULT PREFIX: one line per metric on stdout:
#   PASS|FAIL <TAB> text ; returns the number of failures (capped at 1)
ms_ref_evaluate() {
    local ref="$1" res="$2" prefix="$3" rec met unit exp lo up val vu runit
    local -a vals=()
    while IFS=$'\t' read -r rec met unit exp lo up; do
        vu=$(ms_res_value_unit "$res" "$rec" "$met")
        val="${vu%%$'\t'*}" runit="${vu#*$'\t'}"
        vals+=("$rec"$'\t'"$met"$'\t'"$unit"$'\t'"$exp"$'\t'"$lo"$'\t'"$up"$'\t'"${val:-MISSING}"$'\t'"$runit")
    done < <(ms_ref_metrics "$ref")
    printf '%s\n' "${vals[@]}" | awk -F '\t' -v pre="$prefix" '
        {
            name = $1 "." $2; unit = ($3 == "" ? "" : " " $3)
            # A value in another unit than the reference expects is not
            # comparable (MB/s against GB/s): a FAIL, never a number.
            if ($7 != "MISSING" && $7 != "NA" && $3 != "" && $8 != "" && $3 != $8) {
                printf "%sFAIL  %-28s unit %s in the result, %s in the reference (expected %.1f%s)\n", pre, name, $8, $3, $4, unit
                fails++; failed = failed (failed == "" ? "" : "; ") pre name " unit " $8 " vs reference " $3
                next
            }
            low = $4 * (1 - $5 / 100)
            if ($6 == "-") { high = ""; band = sprintf("-%g%%/+inf: >= %.1f", $5, low) }
            else { high = $4 * (1 + $6 / 100); band = sprintf("-%g%%/+%g%%: %.1f..%.1f", $5, $6, low, high) }
            if ($7 == "MISSING" || $7 == "NA") {
                verdict = "FAIL"; why = ($7 == "NA" ? "reported unavailable" : "missing from the result")
                printf "%sFAIL  %-28s %s (expected %.1f%s)\n", pre, name, why, $4, unit
                fails++; failed = failed (failed == "" ? "" : "; ") pre name " " why
                next
            }
            v = $7 + 0
            ok = (v >= low && (high == "" || v <= high))
            printf "%s%s  %-28s %.1f%s  expected %.1f (%s)\n", pre, (ok ? "PASS" : "FAIL"), name, v, unit, $4, band
            if (!ok) { fails++; failed = failed (failed == "" ? "" : "; ") sprintf("%s%s %.1f %s %.1f", pre, name, v, (v < low ? "<" : ">"), (v < low ? low : high)) }
            n++
        }
        END { printf "#summary\t%d\t%d\t%s\n", NR, fails, failed }'
}

# ms_ref_record OUT FLOOR_PCT RUNJSON RESULT...: write a reference from
# the median of each headline metric over the results; tolerance =
# max(FLOOR, 1.5 x the observed range in % of the median).
ms_ref_record() {
    local out="$1" floor="$2" runjson="$3" tmp
    shift 3
    local f
    tmp=$(ms_mktemp)
    for f in "$@"; do ms_res_flatten "$f"; done |
        awk -F '\t' '$8 == 1 && $4 != "NA" { print $1 "\t" $2 "\t" $3 "\t" $4 }' >"$tmp"
    [ -s "$tmp" ] || { echo "the results hold no headline metric to record"; return 1; }
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
        --argjson floor "$floor" --argjson run "$runjson" --argjson n "$#" '
        def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
        def r1: . * 10 | round / 10;
        [ split("\n")[] | select(length > 0) | split("\t") | { record: .[0], metric: .[1], unit: .[2], v: (.[3] | tonumber) } ]
        | group_by([.record, .metric]) as $groups
        | { schema: $schema,
            description: "recorded by memsuite check --record from \($n) run(s): expected = median; tolerance = max(\($floor)%, 1.5 x observed range)",
            host: $host, created: $created, run: $run,
            metrics: [ $groups[] | (map(.v)) as $v | ($v | median) as $m
                       | (if $m > 0 then (($v | max) - ($v | min)) / $m * 100 else 0 end) as $range
                       | ([$floor, 1.5 * $range] | max | r1) as $tol
                       | { record: .[0].record, metric: .[0].metric, unit: .[0].unit, expected: ($m | r1),
                           lower_pct: $tol, upper_pct: $tol, runs: ($v | length),
                           observed_min: ($v | min), observed_max: ($v | max) } ] }' "$tmp" >"$doc" ||
        { echo "jq failed writing the reference"; return 1; }
    # Never write a reference that check would refuse (a band over 100%
    # from results that vary too much, say).
    local why
    why=$(ms_ref_validate "$doc") || { printf 'check would refuse the reference these results make (%s); nothing recorded\n' "${why#reference "$doc": }"; return 1; }
    # never renamed over a device, never through a link (outfile.sh)
    ms_out_write "$out" cat -- "$doc" || { echo "cannot write the reference $MS_OUT_ERR"; return 3; }
}
