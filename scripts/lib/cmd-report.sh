# Summary: tables, health checks and plots for a results directory
# Usage: memsuite report [--markdown] [--plots] [--tolerance PCT] [--efficiency PCT]
#                        [--cv-max PCT] [--peak-min PCT] [--peak-gbps N]
#                        [--requirements FILE] DIR
#        memsuite report --html [--output FILE] [threshold and requirement options] DIR
#
# One table per benchmark: a row per size and thread count, a column per
# kernel (its headline metric, e.g. stream's Best Rate MB/s), flags for
# in-cache rows (array < 4 x LLC), noisy rows and tuned rows (the
# cell's result is labelled tuned: memsuite run --<tool>-args).  Then the health checks,
# each "pass", "warn" or "skip" with its numbers:
#   kernel-order   Triad ~ Add >= Copy ~ Scale within --tolerance (10%);
#                  a Copy run with streaming stores (--nt-stores) or as
#                  memcpy is expected to reach or beat Scale instead
#   scaling        thread-scaling efficiency per step >= --efficiency (70%)
#   peak           best bandwidth >= --peak-min (50%) of the theoretical
#                  peak from env.json (DIMM channels x MT/s x 8 bytes)
#   in-cache       sizes below 4 x LLC
#   noise          CV over the repetitions above --cv-max (5%)
#   method-order   mbw: MEMCPY >= DUMB and MCBLOCK ~ MEMCPY within
#                  --tolerance; otherwise "unusual method order" (warn)
#   throttle       per cell (memsuite run watches each): CPU frequency
#                  falling more than MEMSUITE_THROTTLE_PCT (10%) below its
#                  first sample, or a thermal-throttle count rising (warn,
#                  naming the cell and the sample); skip when unavailable
#
#   --markdown   Markdown tables instead of plain text
#   --plots      also write PNGs to DIR/plots/ (the analyser's plots
#                module, matplotlib) and list them; "plots unavailable:
#                why" when they cannot be drawn
#   --html       write one self-contained HTML file instead (no script,
#                no network; plots embedded): a summary page for an
#                acceptance document (the machine, the sustained figures
#                with their units, ranges and cells, the peak and its
#                source, a PASS/FAIL per stated requirement and one
#                verdict), the run, the environment, the health checks
#                (expected and found), the tables (GB/s, each value with
#                the min..max of its repetitions) and the plots; prints
#                its path
#   --peak-gbps N  the machine's peak as the centre states it, in GB/s:
#                a requirement that STREAM Triad reaches --peak-min of it
#   --requirements FILE  stated requirements (memsuite/requirements/1,
#                docs/results-format.md); a bad file is exit 2, naming
#                the field
#   --output FILE  with --html: where (default DIR/report.html; - for
#                stdout), written atomically; the "html: FILE" line is
#                left out when FILE is standard output itself
# Exit 0 once the report is printed (a "warn" does not fail it); 1 when a
# stated requirement (--peak-gbps, --requirements) FAILs or cannot be
# judged (only then: without them there is no verdict), or when a
# cell file is invalid (empty, truncated, not a regular file, not a
# result, another tool's or scenario's result, failed validation, a value
# that is no measurement or not of its type: each is named at the top as
# "invalid: FILE: why"), missing from a complete run ("missing: FILE"),
# or no cell is valid; 2 usage or not a results directory (or a damaged
# one); 3 a file cannot be read.

# The report is computed and rendered by the analyser (memsuite-analyse
# report: memsuite_analysis/report.py); here: the options, the directory
# check, where the HTML goes.
ms_use lists rundir analysis

# Everything printed passes through ms_printable: record names, hosts and
# file names come from files anyone with access to DIR may have written.
cmd_report() {
    # the report's own status first: a failing ms_printable only says the
    # text could not reach standard output
    local -a st
    if [ -n "$MS_OUT_STDOUT" ]; then
        ms_report_main "$@" | ms_printable && return 0
    else   # closed: the report says so, not sed
        ms_report_main "$@" | ms_printable 2>/dev/null && return 0
    fi
    st=("${PIPESTATUS[@]}")
    [ "${st[0]}" -eq 0 ] || return "${st[0]}"
    ms_die "$MS_EX_ENV" "cannot write the report to standard output"
}

ms_report_main() {
    local md=0 plots=0 html=0 out="" tol=10 eff=70 cvmax=5 peakmin=50 peak="" reqs=""
    local -a dirs=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --markdown|--md) md=1 ;;
            --plots) plots=1 ;;
            --html) html=1 ;;
            --output|-o) ms_need_arg "$@"; out="$2"; shift ;;
            --tolerance) ms_need_arg "$@"; tol=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$tol"; shift ;;
            --efficiency) ms_need_arg "$@"; eff=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$eff"; shift ;;
            --cv-max) ms_need_arg "$@"; cvmax=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$cvmax"; shift ;;
            --peak-min) ms_need_arg "$@"; peakmin=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$peakmin"; shift ;;
            # its range (above 0) is the analyser's to judge, naming the value
            --peak-gbps) ms_need_arg "$@"; peak=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$peak"; shift ;;
            --requirements) ms_need_arg "$@"; reqs="$2"; shift ;;
            -h|--help) ms_cmd_help ;;
            --) shift; dirs+=("$@"); break ;;
            -*) ms_unknown_option "$1" ;;
            *) dirs+=("$1") ;;
        esac
        shift
    done
    [ "${#dirs[@]}" -eq 1 ] || ms_usage_error "needs one results directory (got ${#dirs[@]}); see 'memsuite help report'"
    local d="${dirs[0]}"
    [ "$html" = 1 ] && [ "$md" = 1 ] && ms_usage_error "--html and --markdown do not go together; choose one"
    [ -n "$out" ] && [ "$html" = 0 ] && ms_usage_error "--output needs --html (the text and Markdown reports go to stdout)"
    if [ -n "$reqs" ] && { [ ! -e "$reqs" ] || [ -d "$reqs" ]; }; then
        ms_usage_error "--requirements: no such file: $reqs; give a memsuite/requirements/1 JSON file (docs/results-format.md)"
    fi
    ms_rundir_check "$d"
    local -a opt=("--prefix=memsuite: ${MS_CMD:-report}" "--tolerance=$tol" "--efficiency=$eff"
                  "--cv-max=$cvmax" "--peak-min=$peakmin" "--version-text=$MS_VERSION")
    [ -n "$peak" ] && opt+=("--peak-gbps=$peak")
    [ -n "$reqs" ] && opt+=("--requirements=$reqs")
    local rc=0
    if [ "$html" = 1 ]; then
        [ -n "$out" ] || out="$d/report.html"
        # no output over the run directory's documents (exit 2)
        local restore
        restore=$(shopt -p nullglob || true)
        shopt -s nullglob
        MS_OUT_INPUTS=("$d"/*.json "$d"/plan.tsv "$d"/cells/*)
        eval "$restore"
        ms_out_check "$out" || ms_die "$MS_OUT_STATUS" "cannot write the HTML report: $MS_OUT_ERR; choose another --output"
        # Plots are drawn into a temp directory, never into DIR.
        opt+=(--format=html "--plots=$(ms_mktemp -d)")
        MS_REPORT_RC=0
        if ! ms_out_write "$out" ms_report_analyse "${opt[@]}" -- "$d"; then
            # the analyser refused (a bad requirements file: it said why)
            [ "$MS_REPORT_RC" -lt 2 ] || exit "$MS_REPORT_RC"
            ms_die "$MS_OUT_STATUS" "cannot write the HTML report ${MS_OUT_ERR:-$out (rendering it failed)}"
        fi
        # The path line only where it cannot land inside the document.
        ms_report_is_stdout "$out" || printf 'html: %s\n' "$out"
        return "$MS_REPORT_RC"
    fi
    [ "$md" = 1 ] && opt+=(--format=markdown)
    [ "$plots" = 1 ] && opt+=("--plots=$d/plots")
    ms_analyse report "${opt[@]}" -- "$d" || rc=$?
    return "$rc"
}

# ms_report_analyse OPTIONS... -- DIR: the analyser's HTML on stdout; its
# status in MS_REPORT_RC; 0 and 1 (a verdict: damaged cells, a failed
# requirement) still write the report, 2 and above write nothing.
ms_report_analyse() {
    local rc=0
    ms_analyse report "$@" || rc=$?
    MS_REPORT_RC=$rc
    [ "$rc" -le 1 ]
}

# ms_report_is_stdout PATH: 0 when writing PATH writes memsuite's standard
# output: "-", /dev/stdout or any alias of a descriptor (ms_out_fd_alias),
# or the very file, pipe or terminal standard output is open on.
ms_report_is_stdout() {
    local fd
    [ "$1" != - ] || return 0
    if fd=$(ms_out_fd_alias "$1"); then
        case "$fd" in
            1) return 0 ;;
            2) fd=$MS_OUT_STDERR ;;
        esac
        [ "/dev/fd/$fd" -ef "/dev/fd/$MS_OUT_STDOUT" ]
        return
    fi
    [ "$1" -ef "/dev/fd/$MS_OUT_STDOUT" ]
}
