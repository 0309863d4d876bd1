# Summary: print the summary of a directory of result documents again
# Usage: memsuite summary DIR
#
# DIR is any directory of memsuite result documents: the one `make run`
# (scripts/run-default.sh) writes, results/default-<UTC time>/, or a
# `memsuite run` results directory's cells/.  Prints the environment block
# of the first document, one line per record with its headline figures,
# each document's run label and every warning the tools raised; a fact that
# could not be read is shown as "unavailable: why".  The analyser makes it
# (memsuite-analyse docs-summary), as `make run` does.
#
# Exit: 0 printed; 1 no document in DIR, or one that is not summarised
# (named); 2 usage.

ms_use analysis

cmd_summary() {
    local -a dirs=()
    while [ $# -gt 0 ]; do
        case "$1" in
            -h|--help) ms_cmd_help ;;
            --) shift; dirs+=("$@"); break ;;
            -*) ms_unknown_option "$1" ;;
            *) dirs+=("$1") ;;
        esac
        shift
    done
    [ "${#dirs[@]}" -eq 1 ] || ms_usage_error "needs one directory of result documents (got ${#dirs[@]}); see 'memsuite help summary'"
    [ -d "${dirs[0]}" ] || ms_usage_error "$(ms_shown "${dirs[0]}") is not a directory"
    ms_analyse docs-summary --prefix=summary -- "${dirs[0]}"
}
