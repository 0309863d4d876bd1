# shellcheck shell=bash
# verdict: how `memsuite check` says what it found, in three forms made
# from the same state:
#
#   text   one line per metric, then the one-line summary
#          "memsuite: PASS|FAIL|ERROR ..." (for NHC, ReFrame, people)
#   json   one document, schema memsuite/check/1 (docs/result.schema.json,
#          definitions.check_verdict)
#   prom   Prometheus text exposition format, for node_exporter's
#          textfile collector (`--prom FILE` writes it atomically)
#
# The state (set by cmd-check.sh through ms_verdict_set / _row / _note):
#   MS_V_VERDICT  PASS | FAIL | ERROR      MS_V_EXIT    the exit status
#   MS_V_SUMMARY  the summary line         MS_V_REASON  why (FAIL, ERROR)
#   MS_V_LINES    the per-metric text      MS_V_ROWS    a file of #row lines (ref.sh)
#   MS_V_NOTES    notes, one a line        MS_V_RUN     the run block (JSON) or ""
#   MS_V_REF      the reference path       MS_V_ATTEMPTS runs made
#   MS_IDLE_FACTS what the idle look saw (idle.sh), or ""

MS_CHECK_SCHEMA="memsuite/check/1"
MS_V_VERDICT="" MS_V_EXIT=0 MS_V_SUMMARY="" MS_V_REASON="" MS_V_LINES="" MS_V_ROWS=""
MS_V_NOTES="" MS_V_RUN="" MS_V_REF="" MS_V_ATTEMPTS=0 MS_V_STARTED="" MS_V_T0=0
MS_IDLE_FACTS=""
MS_V_EMITTED=0      # 1 once ms_verdict_emit ran (cmd-check.sh's exit hook)

ms_verdict_begin() {    # ms_verdict_begin REF
    MS_V_REF="$1" MS_V_STARTED=$(ms_now_utc) MS_V_T0=$SECONDS
    MS_V_ROWS=$(ms_mktemp)
}
ms_verdict_note() { MS_V_NOTES+="${MS_V_NOTES:+$'\n'}$1"; }

# ms_verdict_set VERDICT EXIT SUMMARY [REASON]
ms_verdict_set() {
    MS_V_VERDICT="$1" MS_V_EXIT="$2" MS_V_SUMMARY="$3" MS_V_REASON="${4:-}"
}

# ms_verdict_json: the memsuite/check/1 document on stdout.
ms_verdict_json() {
    local refid=""
    [ -f "$MS_V_REF" ] && [ -r "$MS_V_REF" ] && refid=$(jq -S -c . "$MS_V_REF" 2>/dev/null | sha256sum | cut -d' ' -f1)
    jq -n -R --arg schema "$MS_CHECK_SCHEMA" --arg host "$(ms_hostname)" --arg verdict "$MS_V_VERDICT" \
        --argjson exit "$MS_V_EXIT" --arg summary "$MS_V_SUMMARY" --arg reason "$MS_V_REASON" \
        --arg ref "$MS_V_REF" --arg refid "${refid:+sha256:$refid}" --arg run "$MS_V_RUN" \
        --argjson attempts "$MS_V_ATTEMPTS" --arg started "$MS_V_STARTED" --arg finished "$(ms_now_utc)" \
        --argjson seconds "$((SECONDS - MS_V_T0))" --arg notes "$MS_V_NOTES" --arg idle "$MS_IDLE_FACTS" \
        --arg version "$MS_VERSION" --rawfile rows "$MS_V_ROWS" '
        def lines(s): s | split("\n") | map(select(length > 0));
        def num: if . == "-" or . == "" then null else tonumber end;
        { schema: $schema, version: $version, host: $host, verdict: $verdict, exit: $exit,
          summary: $summary, reason: (if $reason == "" then null else $reason end),
          ref: { path: $ref, id: (if $refid == "" then null else $refid end) },
          run: (if $run == "" then null else ($run | fromjson) end),
          attempts: $attempts, started: $started, finished: $finished, seconds: $seconds,
          idle: (if $idle == "" then null else
                 (lines($idle) | map(split("\t") | .[0] as $k | { key: $k, value: (.[1] | if . == "-" then null
                  elif ($k | IN("cpu_list", "others_top", "skipped")) then .
                  elif test("^[0-9]+([.][0-9]+)?$") then tonumber else . end) }) | from_entries) end),
          notes: lines($notes),
          metrics: [ lines($rows)[] | split("\t") | select(.[0] == "#row")
                     | { numa_node: (.[1] | if . == "" then null else (ltrimstr("node") | rtrimstr(": ") | tonumber) end),
                         record: .[2], metric: .[3], unit: .[4], expected: (.[5] | tonumber),
                         lower_pct: (.[6] | tonumber), upper_pct: (.[7] | num),
                         low: (.[8] | tonumber), high: (.[9] | num), value: (.[10] | num),
                         pass: (.[11] == "1"), why: (if .[12] == "" then null else .[12] end) } ] }'
}

# ms_verdict_prom: the Prometheus text format on stdout.  Label values are
# escaped as the format wants (\\, \", \n), other control characters in
# caret notation (ms_printable); names follow its conventions
# (gauges; _seconds, _bytes units; one HELP and TYPE per family).
ms_verdict_prom() {
    awk -F '\t' -v verdict="$MS_V_VERDICT" -v code="$MS_V_EXIT" -v host="$(ms_hostname)" \
        -v dur="$((SECONDS - MS_V_T0))" -v now="$(date +%s)" -v busy="$([ "${MS_CK_BUSY:-0}" = 1 ] && echo 1 || echo 0)" '
        function esc(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\n/, "\\n", s); return s }
        function family(name, help) { printf "# HELP %s %s\n# TYPE %s gauge\n", name, help, name }
        function labels(   l) {
            l = "host=\"" esc(host) "\""
            if (r[2] != "") { n = r[2]; sub(/^node/, "", n); sub(/: $/, "", n); l = l ",numa_node=\"" esc(n) "\"" }
            return l ",record=\"" esc(r[3]) "\",metric=\"" esc(r[4]) "\",unit=\"" esc(r[5]) "\""
        }
        $1 == "#row" { nrows++; for (i = 1; i <= 13; i++) row[nrows, i] = $i }
        function each(name, col,   k, i) {
            for (k = 1; k <= nrows; k++) {
                for (i = 1; i <= 13; i++) r[i] = row[k, i]
                if (r[col] == "-" || r[col] == "") continue
                printf "%s{%s} %s\n", name, labels(), r[col]
            }
        }
        END {
            h = "host=\"" esc(host) "\""
            family("memsuite_check_verdict", "The verdict of the last memsuite check: 1 for the verdict it gave, 0 for the others.")
            split("PASS FAIL ERROR", vs, " ")
            for (i = 1; i <= 3; i++) printf "memsuite_check_verdict{%s,verdict=\"%s\"} %d\n", h, vs[i], (vs[i] == verdict)
            family("memsuite_check_pass", "1 when the last memsuite check passed, else 0.")
            printf "memsuite_check_pass{%s} %d\n", h, (verdict == "PASS")
            family("memsuite_check_busy", "1 when the last memsuite check found the node busy and measured nothing.")
            printf "memsuite_check_busy{%s} %d\n", h, busy
            family("memsuite_check_exit_code", "Exit status of the last memsuite check (0 PASS, 1 FAIL, 2 usage, 3 environment, 5 busy).")
            printf "memsuite_check_exit_code{%s} %d\n", h, code
            family("memsuite_check_timestamp_seconds", "When the last memsuite check finished, Unix time.")
            printf "memsuite_check_timestamp_seconds{%s} %d\n", h, now
            family("memsuite_check_duration_seconds", "How long the last memsuite check took.")
            printf "memsuite_check_duration_seconds{%s} %d\n", h, dur
            if (nrows == 0) exit
            family("memsuite_check_value", "Measured value of a reference metric (its unit in the unit label).")
            each("memsuite_check_value", 11)
            family("memsuite_check_expected", "Expected value of a reference metric.")
            each("memsuite_check_expected", 6)
            family("memsuite_check_low", "Lowest passing value of a reference metric.")
            each("memsuite_check_low", 9)
            family("memsuite_check_high", "Highest passing value of a reference metric (absent when unbounded).")
            each("memsuite_check_high", 10)
            family("memsuite_check_metric_pass", "1 when the metric was within its tolerance, else 0.")
            each("memsuite_check_metric_pass", 12)
        }' "$MS_V_ROWS" | ms_printable      # record names: no raw ESC in a label
    ms_idle_prom "host=\"$(ms_hostname | sed 's/\\/\\\\/g; s/"/\\"/g')\"" | ms_printable
}

# ms_verdict_text: the per-metric lines and the summary line, control
# characters from the documents (record names, tool, CPU model, a tool's
# message) in caret notation.
ms_verdict_text() {
    {
        [ -z "$MS_V_LINES" ] || printf '%s\n' "$MS_V_LINES"
        printf '%s\n' "$MS_V_SUMMARY"
    } | ms_printable
}

# ms_verdict_emit FORMAT PROMFILE: the Prometheus file when PROMFILE is
# set (first: it keeps the verdict even when stdout is closed), then the
# verdict in FORMAT on stdout.  Returns MS_V_EXIT, or 3 when either write
# failed (named with its reason, never read as a verdict).
ms_verdict_emit() {
    local fmt="$1" prom="$2" out rc="$MS_V_EXIT" err
    out=$(ms_mktemp)
    err=$("ms_verdict_$fmt" 2>&1 >"$out") ||
        ms_die "$MS_EX_ENV" "cannot render the verdict as $fmt in $MS_TMP: $(ms_out_reason "$err")"
    if [ -n "$prom" ] && ! ms_out_write "$prom" ms_verdict_prom; then
        ms_error "cannot write the Prometheus file $MS_OUT_ERR"
        rc=$MS_EX_ENV
    fi
    MS_V_EMITTED=1
    if ! ms_out_write - cat -- "$out"; then
        ms_error "cannot write to standard output: ${MS_OUT_WHY:-$MS_OUT_ERR}; the verdict is lost"
        rc=$MS_EX_ENV
    fi
    return "$rc"
}
