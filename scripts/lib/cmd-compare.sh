# Summary: compare two results directories metric by metric
# Usage: memsuite compare [--all] [--markdown] [--min-noise PCT] DIR_A DIR_B
#
# Lists the environment and run-setting differences first (governor, SMT,
# THP, swappiness, numa_balancing, profile, tunables, bind, ...), then one
# row per cell and metric: A, B, the % change from A to B, the noise and
# "*" where the change exceeds the noise ("only A"/"only B" where one run
# lacks the row; a count line says how many).  The noise is
# max(2 x sqrt(cvA^2 + cvB^2), --min-noise): both runs' spread over their
# repetitions, and at least the run-to-run noise that repetitions inside
# one run do not see.  A single repetition (--reps 1, --quick) has no CV,
# so no noise estimate ("?"): its change is still judged, against
# 2 x --min-noise (20% by default; "*?" beyond it).  The last line is the
# verdict: "REGRESSION: ..." (a change beyond the noise the bad way: a
# lower rate, a longer time), "improvement: ..." or "no change beyond the
# noise".  This is the before/after table: `memsuite run --profile
# tuned --baseline` writes one itself.
#
#   --all            every metric, not only each record's headline metric
#   --markdown       Markdown instead of plain text
#   --min-noise PCT  the run-to-run noise floor in % (default 10; two
#                    runs of one configuration differ by up to ~8% on a
#                    shared 2-vCPU VM; 0 trusts the within-run CVs alone)
#
# Exit: 0 no regression beyond the noise, 1 a regression beyond the noise
# (or invalid or missing cell files, or a side with no valid cell: the
# verdict is then "none"), 2 usage or a damaged results directory.

ms_use compare lists

cmd_compare() {
    local all=0 md=0 minnoise="$MS_COMPARE_MIN_NOISE"
    local -a dirs=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --all) all=1 ;;
            --markdown|--md) md=1 ;;
            --min-noise) ms_need_arg "$@"; minnoise=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$minnoise"; shift ;;
            -h|--help) ms_cmd_help ;;
            --) shift; dirs+=("$@"); break ;;
            -*) ms_unknown_option "$1" ;;
            *) dirs+=("$1") ;;
        esac
        shift
    done
    [ "${#dirs[@]}" -eq 2 ] || ms_usage_error "needs exactly two results directories (got ${#dirs[@]}); see 'memsuite help compare'"
    # ms_printable: names and values come from files others may write.
    if [ "$(awk -v m="$minnoise" 'BEGIN { print (m <= 100) }')" != 1 ]; then
        ms_usage_error "--min-noise: invalid value '$minnoise'; use a percentage 0..100"
    fi
    # The table through ms_printable; the status is compare's, not the pipe's.
    local rc=0 out
    out=$(ms_mktemp)
    MS_COMPARE_EXIT_ON_REGRESSION=1
    ms_compare_dirs "${dirs[0]}" "${dirs[1]}" "$all" "$md" "$minnoise" >"$out" || rc=$?
    ms_printable <"$out" || ms_die "$MS_EX_ENV" "cannot write to standard output"
    return "$rc"
}
