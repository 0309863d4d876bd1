# shellcheck shell=bash
# cluster-aggregate: `memsuite cluster --aggregate`, a wrapper around the
# analyser's `aggregate` (scripts/analysis/memsuite_analysis/aggregate.py,
# where the reading rules, the statistics and the verdicts are).  Here:
# the directory is checked, the reference id is made (the function the
# nodes use), and with --drain the scontrol lines run.

ms_use cluster-node analysis

# ms_cluster_aggregate DIR REF EXPECTED_FILE EXPECTED_FROM RUN_ID K FLOOR FORMAT TOP SUGGEST DRAIN
# Prints the report; returns the analyser's status (0: every expected node
# PASS and none slow), 1 when a drain failed.
ms_cluster_aggregate() {
    local dir="$1" ref="$2" expected="$3" exp_from="$4" rid="$5" k="$6" floor="$7"
    local format="$8" top="$9" suggest="${10}" drain="${11}"
    local refid list="" rc=0
    local -a opt=()

    [ -d "$dir" ] || ms_die "$MS_EX_ENV" "the results directory $dir does not exist; create it on a filesystem every node mounts (mkdir -p $dir) or pass the right path"
    if [ ! -r "$dir" ] || [ ! -x "$dir" ]; then
        ms_die "$MS_EX_ENV" "the results directory $dir is not readable"
    fi
    # REF has been validated by cmd_cluster (ms_ref_validate), once
    refid=$(ms_cluster_ref_id "$ref") || ms_usage_error "cannot read the reference $ref"

    [ "${MS_CLUSTER_ALL:-0}" = 1 ] && opt+=(--all)
    [ "$suggest" = 1 ] && opt+=(--drain-suggest)
    if [ "$drain" = 1 ]; then
        list=$(ms_mktemp)
        opt+=("--drain-list=$list")
    fi
    # --opt=VALUE: a value may start with "-" ("--nodes").
    ms_analyse aggregate "--prefix=memsuite: ${MS_CMD:-cluster}" "--dir=$dir" "--ref=$ref" "--ref-id=$refid" \
        "--expected=$expected" "--expected-from=$exp_from" "--run-id=$rid" "--k=$k" "--mad-floor=$floor" \
        "--format=$format" "--top=$top" "${opt[@]}" || rc=$?
    [ "$rc" -le 1 ] || exit "$rc"
    if [ -n "$list" ]; then
        ms_cluster_drain "$list" || rc=1
    fi
    return "$rc"
}

# ms_cluster_drain LIST: runs scontrol for each "node<TAB>reason" line (the
# analyser writes only plain host names there, the reason already cut and
# without double quotes); 1 when one failed.
ms_cluster_drain() {
    local node reason out rc=0
    while IFS=$'\t' read -r node reason; do
        if ! out=$(scontrol update "nodename=$node" state=drain "reason=$reason" 2>&1); then
            ms_error "drain of $node failed: ${out:-scontrol exited non-zero}"
            rc=1
        fi
    done <"$1"
    return "$rc"
}
