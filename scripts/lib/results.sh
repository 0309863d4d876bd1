# shellcheck shell=bash
# results: what the orchestration asks of a tool's result document.  The
# document is read by the analyser (scripts/analysis/memsuite_analysis/
# results.py: the one reader, schema memsuite/result/1 and /2), never by
# jq (which cannot read every string JSON allows).

ms_use analysis

# ms_res_state FILE [TOOL [SCENARIO]]: one line (memsuite-analyse
# result-state, results.read_result's rules):
#   complete        a result document that may stand for a measurement
#   incomplete      a result document of a run that did not finish
#   invalid: WHY    a result document whose figures cannot be trusted: it
#                   failed its own validation, a value is no measurement,
#                   a fact that reaches a plot or table is no number; or,
#                   with TOOL, a result of another tool (an mbw result at
#                   a stream cell's path), with SCENARIO, of another mencal
#                   scenario (config.scenarios must be [SCENARIO])
#   anything else   why FILE is not a result document at all (a FIFO is
#                   never waited on)
# Returns 3 (and says so) when the analyser cannot run: an environment
# problem, not a bad file.
ms_res_state() {
    local s
    if ! s=$(ms_analyse result-state ${2:+--tool "$2"} ${3:+--scenario "$3"} -- "$1" 2>/dev/null); then
        printf 'cannot judge %s: the analyser did not run (python3 missing? MEMSUITE_PYTHON)\n' "$1"
        return 3
    fi
    printf '%s\n' "$s"
}

# ms_res_check FILE: 0 when FILE is a result document (complete or not,
# trusted or not); else prints why and returns 1 (3: the analyser cannot
# run).
ms_res_check() {
    local s
    s=$(ms_res_state "$1") || { printf '%s\n' "$s"; return 3; }
    case "$s" in
        complete|incomplete|invalid:*) return 0 ;;
        *) printf '%s\n' "$s"; return 1 ;;
    esac
}

# ms_res_problem FILE: 0 when FILE (a result document, see ms_res_check)
# may stand for a measurement (state complete); else prints why (one
# line) and returns 1 (3: the analyser cannot run).
ms_res_problem() {
    local s
    s=$(ms_res_state "$1") || { printf '%s\n' "$s"; return 3; }
    case "$s" in
        complete) return 0 ;;
        incomplete) echo "the result is incomplete (an interrupted or failed run)" ;;
        invalid:*) echo "the result is not to be trusted: ${s#invalid: }" ;;
        *) printf '%s\n' "$s" ;;
    esac
    return 1
}

# ms_res_tool FILE: the result's tool ("unknown" when it names none; cut
# when long, control characters in caret notation)
ms_res_tool() { ms_analyse result-state --show-tool -- "$1"; }

# ms_res_run_block FILE: how the result was run, as a reference "run"
# object {bench, size_bytes, threads, reps} (memsuite-analyse run-block:
# members that cannot be told are left out; {} for no readable result).
ms_res_run_block() {
    ms_analyse run-block -- "$1" 2>/dev/null || echo '{}'
}
