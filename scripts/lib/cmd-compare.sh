# Summary: compare two results directories metric by metric
# Usage: memsuite compare [--all] [--markdown] DIR_A DIR_B
#
# Lists the environment and run-setting differences first (governor, SMT,
# THP, swappiness, numa_balancing, profile, tunables, bind, ...), then one
# row per cell and metric: A, B, the % change from A to B, the noise
# (2 x sqrt(cvA^2 + cvB^2) from both runs' repetitions) and "*" where the
# change exceeds the noise ("?" where a CV is unknown, "only A"/"only B"
# where one run lacks the row; the last line counts both).  This is the before/after table:
# `memsuite run --profile tuned --baseline` writes one itself.
#
#   --all        every metric, not only each record's headline metric
#   --markdown   Markdown instead of plain text

ms_use compare

cmd_compare() {
    local all=0 md=0
    local -a dirs=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --all) all=1 ;;
            --markdown|--md) md=1 ;;
            -h|--help) ms_cmd_help ;;
            --) shift; dirs+=("$@"); break ;;
            -*) ms_unknown_option "$1" ;;
            *) dirs+=("$1") ;;
        esac
        shift
    done
    [ "${#dirs[@]}" -eq 2 ] || ms_usage_error "needs exactly two results directories (got ${#dirs[@]}); see 'memsuite help compare'"
    # ms_printable: names and values come from files others may write.
    ms_compare_dirs "${dirs[0]}" "${dirs[1]}" "$all" "$md" | ms_printable
}
