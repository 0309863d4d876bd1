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
# the result's sysinfo): check compares a new result with it.  Reading,
# validating, judging and recording are the analyser's
# (memsuite_analysis/reference.py, check.py, record.py); this file keeps
# the bash side's question (run.bench names a tool memsuite has).  jq never
# reads a reference here (it cannot read every string JSON allows).

ms_use results bench analysis

# ms_ref_validate FILE: prints the problem and returns 1 when FILE is not
# a usable reference (3 when the analyser cannot run; ms_ref_refuse says
# which exit that is): the analyser's rules (memsuite_analysis/reference.py:
# a regular file, never blocking on a FIFO; one JSON object; schema, keys,
# values), then whether run.bench names a tool and scenario memsuite has.
ms_ref_validate() {
    local f="$1" err bench rc=0
    err=$(ms_analyse ref-check --run "$f") || rc=$?
    case "$rc" in
        0) ;;
        2) printf '%s\n' "$err"; return 1 ;;
        *) echo "cannot validate the reference $f: the analyser failed (exit $rc)"; return 3 ;;
    esac
    bench=$(head -n 1 <<<"$err")
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

# ms_ref_refuse STATUS WHY: exits as ms_ref_validate's STATUS says: 2 for
# a bad reference, 3 when it could not be judged.
ms_ref_refuse() {
    [ "$1" = 3 ] && ms_die "$MS_EX_ENV" "$2"
    ms_usage_error "$2"
}

# ms_ref_run FILE: the reference's run block (a validated reference), one
# field a line: bench, size_bytes, threads, reps, bind (empty when not
# given), read by the analyser (memsuite-analyse ref-check --run).
ms_ref_run() {
    ms_analyse ref-check --run "$1" ||
        ms_die "$MS_EX_ENV" "cannot read the run block of the reference $1 (the analyser failed)"
}

