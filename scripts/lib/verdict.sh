# shellcheck shell=bash
# verdict: the state `memsuite check` gathers while it orchestrates, handed
# to the analyser (memsuite-analyse verdict, memsuite_analysis/verdict.py),
# which makes the verdict from the evaluations and renders it:
#
#   text   one line per metric, then the one-line summary
#          "memsuite: PASS|FAIL|ERROR ..." (for NHC, ReFrame, people)
#   json   one document, schema memsuite/check/1 (docs/result.schema.json,
#          definitions.check_verdict)
#   prom   Prometheus text exposition format, for node_exporter's
#          textfile collector (`--prom FILE` writes it atomically)
#
# The state (set by cmd-check.sh):
#   MS_V_EVALS    the evaluation files that count (memsuite-analyse check --eval)
#   MS_V_LABEL    the run, for the summary ("stream 128.0 MiB x2", "result F")
#   MS_V_AFTER    attempts per run, shown after a FAIL (0: not shown)
#   MS_V_VERDICT, MS_V_EXIT, MS_V_SUMMARY, MS_V_REASON, MS_V_LINES: a verdict
#                 the bash side gives (ms_verdict_set: ERROR, or a FAIL of a
#                 result that cannot validate the node); else the analyser
#                 decides PASS or FAIL from the evaluations
#   MS_V_NOTES    notes, one a line        MS_V_RUN     the run block (JSON) or ""
#   MS_V_REF      the reference path       MS_V_ATTEMPTS runs made
#   MS_IDLE_FACTS what the idle look saw (idle.sh), or ""

ms_use analysis

MS_V_VERDICT="" MS_V_EXIT=0 MS_V_SUMMARY="" MS_V_REASON="" MS_V_LINES=""
MS_V_NOTES="" MS_V_RUN="" MS_V_REF="" MS_V_ATTEMPTS=0 MS_V_STARTED="" MS_V_T0=0
MS_V_LABEL="" MS_V_AFTER=0
MS_V_EVALS=()
MS_IDLE_FACTS=""
MS_V_EMITTED=0      # 1 once ms_verdict_emit ran (cmd-check.sh's exit hook)

ms_verdict_begin() {    # ms_verdict_begin REF
    MS_V_REF="$1" MS_V_STARTED=$(ms_now_utc) MS_V_T0=$SECONDS
}
ms_verdict_note() { MS_V_NOTES+="${MS_V_NOTES:+$'\n'}$1"; }

# ms_verdict_set VERDICT EXIT SUMMARY [REASON]: the verdict is given
ms_verdict_set() {
    MS_V_VERDICT="$1" MS_V_EXIT="$2" MS_V_SUMMARY="$3" MS_V_REASON="${4:-}"
}

# ms_verdict_render FORMAT [ARG...]: the verdict in FORMAT on stdout
# (memsuite-analyse verdict; ARGs are added to its command line).
ms_verdict_render() {
    local fmt="$1" refid="" e
    shift
    [ -f "$MS_V_REF" ] && [ -r "$MS_V_REF" ] && refid=$(jq -S -c . "$MS_V_REF" 2>/dev/null | sha256sum | cut -d' ' -f1)
    local -a a=(--format "$fmt" --host "$(ms_hostname)" --version "$MS_VERSION"
        --ref "$MS_V_REF" --ref-id "${refid:+sha256:$refid}" --run "$MS_V_RUN"
        --attempts "$MS_V_ATTEMPTS" --started "$MS_V_STARTED" --seconds "$((SECONDS - MS_V_T0))"
        --busy "$([ "${MS_CK_BUSY:-0}" = 1 ] && echo 1 || echo 0)"
        --notes "$MS_V_NOTES" --idle "$MS_IDLE_FACTS" --label "$MS_V_LABEL" --after "$MS_V_AFTER")
    if [ -n "$MS_V_VERDICT" ]; then
        a+=(--verdict "$MS_V_VERDICT" --exit "$MS_V_EXIT" --summary "$MS_V_SUMMARY"
            --reason "$MS_V_REASON" --lines "$MS_V_LINES")
    fi
    for e in "${MS_V_EVALS[@]}"; do a+=(--eval "$e"); done
    # notes naming a CPU model, the run block: longer than argv can be
    ms_analyse_args verdict "${a[@]}" "$@"
}

ms_verdict_prom() { ms_verdict_render prom; }

# ms_verdict_emit FORMAT PROMFILE: the Prometheus file when PROMFILE is
# set (first: it keeps the verdict even when stdout is closed), then the
# verdict in FORMAT on stdout.  Returns the verdict's exit status, or 3
# when either write failed (named with its reason, never read as a verdict).
ms_verdict_emit() {
    local fmt="$1" prom="$2" out dec rc err v
    out=$(ms_mktemp)
    dec=$(ms_mktemp)
    err=$(ms_verdict_render "$fmt" --decided "$dec" 2>&1 >"$out") ||
        ms_die "$MS_EX_ENV" "cannot render the verdict as $fmt in $MS_TMP: $(ms_out_reason "$err")"
    IFS=$'\t' read -r v rc <"$dec" || ms_die "$MS_EX_ENV" "cannot render the verdict in $MS_TMP: no verdict came back"
    if [ -n "$prom" ] && ! ms_out_write "$prom" ms_verdict_prom; then
        ms_error "cannot write the Prometheus file ${MS_OUT_ERR:-$(ms_shown "$prom"): the analyser could not render it}"
        ms_verdict_prom_drop "$prom"
        rc=$MS_EX_ENV
    fi
    MS_V_EMITTED=1
    if ! ms_out_write - cat -- "$out"; then
        ms_error "cannot write to standard output: ${MS_OUT_WHY:-$MS_OUT_ERR}; the verdict is lost"
        rc=$MS_EX_ENV
    fi
    return "$rc"
}

# ms_verdict_prom_drop FILE: a Prometheus file that could not be written
# is removed when it is a regular file (never a device or a link's
# target): a stale PASS must not stand for a check that did not write.
ms_verdict_prom_drop() {
    [ -f "$1" ] && [ ! -L "$1" ] || return 0
    rm -f -- "$1" 2>/dev/null && ms_error "removed the previous $1 (it held an older verdict)"
    return 0
}
