# shellcheck shell=bash
# compare: two results directories side by side (the before/after
# table).  The analyser computes and renders it (memsuite-analyse compare,
# memsuite_analysis/compare.py: environment and run differences, huge
# pages and TLB, counter rates, metric by metric with the % change, the
# noise and the verdict); this file checks the directories first and
# hands them over.
#
# Noise of a row: max(2 x sqrt(cvA^2 + cvB^2), MIN_NOISE), in %: both
# runs' spread over their repetitions, and at least the run-to-run noise
# (a run lands in a better or worse phase of the machine) that
# repetitions inside one run do not see: two runs of one configuration on
# a 2-vCPU VM differ by up to ~8% with within-run CVs of 1-2%
# (docs/node-validation.md).  MIN_NOISE (--min-noise) defaults to 10%.
# ms_compare_dirs returns 1 for invalid or missing cell files, and for a
# regression or a side with no valid cell when
# MS_COMPARE_EXIT_ON_REGRESSION=1 (memsuite compare sets it; run
# --baseline's compare.txt is a report, not a verdict).
MS_COMPARE_EXIT_ON_REGRESSION=0
MS_COMPARE_MIN_NOISE=10     # % (the default of --min-noise)

ms_use rundir analysis

# ms_compare_dirs A B ALL(0|1) MARKDOWN(0|1) [MIN_NOISE_PCT]
ms_compare_dirs() {
    local a="$1" b="$2" all="$3" md="$4" minnoise="${5:-$MS_COMPARE_MIN_NOISE}"
    # ms_rundir_check refuses a corrupt run.json, plan.tsv or env.json
    # (exit 2): "Environment differences: none" from a broken file would lie.
    ms_rundir_check "$a"
    ms_rundir_check "$b"
    local -a o=(--noise "$minnoise" --prog "memsuite${MS_CMD:+: $MS_CMD}")
    [ "$all" != 1 ] || o+=(--all)
    [ "$md" != 1 ] || o+=(--markdown)
    [ "$MS_COMPARE_EXIT_ON_REGRESSION" != 1 ] || o+=(--exit-on-regression)
    ms_analyse compare "${o[@]}" -- "$a" "$b"
}
