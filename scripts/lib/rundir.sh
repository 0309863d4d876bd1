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
    ms_rundir_refuse_full "$d"
    mkdir -p -- "$d" 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot create results directory $d; choose a writable --out"
    # a top directory is locked for the run (lock.sh), then found empty
    # under the lock: two runs started at once cannot both pass
    if [ -z "$MS_DIR_LOCK_FD" ]; then
        ms_lock_dir "$d"
        ms_rundir_refuse_full "$d"
    fi
    probe=$(mktemp "$d/.probe.XXXXXX" 2>/dev/null) ||
        ms_die "$MS_EX_ENV" "results directory $d is not writable; choose a writable --out"
    rm -f -- "$probe"
    [ "${2:-}" = bare ] || mkdir -p -- "$d/cells" "$d/logs"
}

# ms_rundir_refuse_full DIR: a usage error when DIR holds anything but
# its lock file; exit 3 when another run holds that lock.
ms_rundir_refuse_full() {
    [ -d "$1" ] && [ -n "$(ls -A -- "$1" 2>/dev/null | grep -vx '\.lock')" ] || return 0
    ms_dir_lock_held_elsewhere "$1" && ms_lock_dir "$1"
    ms_usage_error "results directory $1 is not empty; choose another --out, or --resume it"
}

# ms_rundir_check DIR: dies 2 unless DIR is a results dir of this version
# (memsuite-analyse rundir-check: run.json, plan.tsv and env.json hold
# what the report and resume compute with; a FIFO is never waited on),
# 3 when it cannot be read.
ms_rundir_check() {
    local d="$1" why rc=0
    why=$(ms_analyse rundir-check --benches "$(ms_bench_names | paste -sd ' ' -)" -- "$d") || rc=$?
    case "$rc" in
        0) return 0 ;;
        2) ms_usage_error "$why" ;;
        *) ms_die "$MS_EX_ENV" "${why:-cannot check $d: the analyser did not run (python3 missing?)}" ;;
    esac
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
