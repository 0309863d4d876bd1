# shellcheck shell=bash
# rundir: the results directory of one matrix run.
#
#   run.json        marker + config + status (schema memsuite/run/1)
#   env.json        environment at the start (memsuite env --json)
#   plan.tsv        the cells: id bench scenario size_bytes threads reps
#   commands.txt    the exact command line of every cell, as run
#   cells/ID.json   one result document per finished cell
#   logs/ID.log     the cell's stderr
#   summary.csv     one row per cell x record x metric
# A run that did not finish has "complete": false; --resume DIR runs the
# cells that have no valid result yet.

ms_use results bench analysis

MS_SUMMARY_HEADER="cell,bench,scenario,size_bytes,threads,bind,record,metric,unit,value,n,cv,median,primary,value_mbps"

# ms_rundir_create DIR [bare]: create an empty results directory (dies 2
# when it holds files, 3 when it cannot be created or written); "bare"
# leaves out cells/ and logs/ (the parent of a --baseline pair).
ms_rundir_create() {
    local d="$1" probe
    if [ -e "$d" ] && [ ! -d "$d" ]; then
        ms_die "$MS_EX_ENV" "results directory $d exists and is not a directory; choose another --out"
    fi
    if [ -d "$d" ] && [ -n "$(ls -A -- "$d" 2>/dev/null)" ]; then
        ms_usage_error "results directory $d is not empty; choose another --out, or --resume it"
    fi
    mkdir -p -- "$d" 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot create results directory $d; choose a writable --out"
    probe=$(mktemp "$d/.probe.XXXXXX" 2>/dev/null) ||
        ms_die "$MS_EX_ENV" "results directory $d is not writable; choose a writable --out"
    rm -f -- "$probe"
    [ "${2:-}" = bare ] || mkdir -p -- "$d/cells" "$d/logs"
}

# ms_rundir_check DIR: dies 2 unless DIR is a results dir of this version.
ms_rundir_check() {
    local d="$1" schema f
    [ -d "$d" ] || ms_usage_error "no such results directory: $d"
    # A FIFO would block its reader forever: every file read is regular.
    for f in run.json plan.tsv env.json; do
        if { [ -e "$d/$f" ] || [ -L "$d/$f" ]; } && [ ! -f "$d/$f" ]; then
            ms_usage_error "$d/$f is not a regular file ($( [ -e "$d/$f" ] && ms_out_kind_name "$d/$f" || echo "a dangling symbolic link")); the directory is damaged"
        fi
    done
    [ -f "$d/run.json" ] ||
        ms_usage_error "$d is not a memsuite results directory (no run.json)"
    [ -r "$d/run.json" ] ||
        ms_die "$MS_EX_ENV" "cannot read $d/run.json (permission denied); run as its owner or make it readable"
    schema=$(jq -r -s 'if length != 1 or (.[0] | type) != "object" then "" else .[0].schema // "none" | tostring end' \
        "$d/run.json" 2>/dev/null) || schema=""
    [ -n "$schema" ] ||
        ms_usage_error "$d/run.json is not valid JSON (empty, truncated or not one object); the directory is damaged"
    if [ "$schema" != "$MS_RUN_SCHEMA" ]; then
        ms_usage_error "$d was written by another memsuite version (schema $(ms_shown "$schema"), this one reads '$MS_RUN_SCHEMA'); use that version or rerun"
    fi
    # The fields the report and resume do arithmetic or lookups with.
    local why
    why=$(jq -r '
        if (.config // {} | type) != "object" then "\"config\" is not an object"
        elif (.complete | type) != "boolean" then "complete is \(.complete | tojson | .[0:40]), not true or false"
        elif (.config.llc_bytes // 0 | (type == "number" and . >= 0 and . == floor and . < 1e18) | not) then "config.llc_bytes is not a byte count"
        elif (.config.bind // "none" | type == "string" and test("^(none|close|spread|node:[0-9]{1,9})$") | not) then
            "config.bind is \(.config.bind | tojson | .[0:40]), not none, close, spread or node:N"
        else "" end' "$d/run.json")
    [ -z "$why" ] || ms_usage_error "$d/run.json: $why; the directory is damaged"
    [ -f "$d/plan.tsv" ] || ms_usage_error "$d has no plan.tsv; it cannot be resumed or reported"
    # Every field is a name or a number: they reach summary.csv (commas),
    # awk and the analyser as they are.
    why=$(awk -F '\t' -v known=" $(ms_bench_names | paste -sd ' ' -) " '/^#/ { next }
        NF != 6 || $1 !~ /^[A-Za-z0-9._:-]+$/ || $4 !~ /^[0-9]+$/ || $5 !~ /^[0-9]+$/ || $6 !~ /^[0-9]+$/ {
            printf "line %d is not \"id bench scenario size_bytes threads reps\"", NR; exit }
        index(known, " " $2 " ") == 0 || $2 == "" {
            k = known; gsub(/^ +| +$/, "", k); printf "line %d: bench is not one of: %s", NR, k; exit }
        $3 !~ /^(-|[a-z][a-z0-9_-]*)$/ || length($3) > 32 {
            printf "line %d: scenario is not - or a scenario name", NR; exit }' "$d/plan.tsv")
    [ -z "$why" ] || ms_usage_error "$d/plan.tsv: $why; the directory is damaged"
    if [ -e "$d/env.json" ] && ! jq -e -s 'length == 1 and (.[0] | type) == "object" and ((.[0].facts // []) | type) == "array"
            and all(.[0].facts[]?; type == "object" and (.key | type) == "string")' \
        "$d/env.json" >/dev/null 2>&1; then
        ms_usage_error "$d/env.json is not a valid env.json (empty, truncated or not a memsuite/env/1 object); restore it or rerun 'memsuite env --json > $d/env.json'"
    fi
    # The figures the report computes with (the LLC when run.json has
    # none, the theoretical peak): numbers, or the report would misread them.
    if [ -e "$d/env.json" ]; then
        why=$(jq -r '
            if (.llc_bytes // 0 | (type == "number" and . >= 0 and . == floor and . < 1e18) | not) then "llc_bytes is not a byte count"
            elif (.peak_mbps // null | . == null or (type == "number" and . > 0 and . < 1e15) | not) then "peak_mbps is not a rate in MB/s"
            else "" end' "$d/env.json")
        [ -z "$why" ] || ms_usage_error "$d/env.json: $why; restore it or rerun 'memsuite env --json > $d/env.json'"
    fi
}

# ms_run_json_update DIR FILTER [jq args]: rewrite run.json atomically.
# FILTER is always a constant of this script; data goes in as --arg.
ms_run_json_update() {
    local d="$1" filter="$2"
    shift 2
    ms_out_write "$d/run.json" jq "$@" "$filter" "$d/run.json" ||
        { [ -z "$MS_OUT_ERR" ] || ms_error "cannot update run.json $MS_OUT_ERR"; return 1; }
}
ms_run_json_get() { jq -r "$2" "$1/run.json"; }

# ms_rundir_cells DIR: the plan lines (without the header)
ms_rundir_cells() { grep -v '^#' "$1/plan.tsv"; }

# ms_rundir_cell_state DIR ID BENCH SCEN: ms_res_state of cells/ID.json
# held against the plan's BENCH and SCEN (a result of another tool or
# mencal scenario is invalid), or "absent" when there is no such file
# (a dangling link is not absent: it is a file that cannot be read).
ms_rundir_cell_state() {
    local f="$1/cells/$2.json" want
    if [ ! -e "$f" ] && [ ! -L "$f" ]; then echo absent; return 0; fi
    want=$(ms_bench_result_id "$3" "$4")
    ms_res_state "$f" "${want%%$'\t'*}" "${want#*$'\t'}"
}

# ms_rundir_cell_done DIR ID BENCH SCEN: 0 when the cell holds a valid result
ms_rundir_cell_done() { [ "$(ms_rundir_cell_state "$@")" = complete ]; }

# Rebuild summary.csv from the plan and every finished cell; with OUT,
# write there instead (report and compare read the cells afresh, and may
# not be able to write to DIR).  The rows are the analyser's
# (memsuite-analyse summary: memsuite_analysis/summary.py, the columns of
# MS_SUMMARY_HEADER).
ms_rundir_summary() {
    local d="$1" dest="${2:-$1/summary.csv}"
    ms_out_write "$dest" ms_rundir_summary_lines "$d"
}
ms_rundir_summary_lines() {   # DIR: summary.csv on stdout
    ms_analyse summary --output - "--prefix=memsuite: ${MS_CMD:-summary}" -- "$1"
}

# Count finished cells.
ms_rundir_done_count() {
    local d="$1" id bench scen n=0 _
    while IFS=$'\t' read -r id bench scen _; do
        ms_rundir_cell_done "$d" "$id" "$bench" "$scen" && n=$((n + 1))
    done < <(ms_rundir_cells "$d")
    printf '%s\n' "$n"
}
