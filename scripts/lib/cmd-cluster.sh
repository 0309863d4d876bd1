# Summary: validate every node of a cluster against a reference; one report with outliers
# Usage: memsuite cluster --ref FILE --results DIR [--nodes LIST] [--launcher auto|srun|mpirun|local]
#                         [--retries N] [--timeout SEC] [REPORT OPTIONS]
#        memsuite cluster --aggregate DIR --ref FILE [--nodes LIST] [--run-id ID] [REPORT OPTIONS]
#        memsuite cluster --node-run --ref FILE --results DIR [--run-id ID] [--retries N]
#
# Node validation across an allocation.  Every node runs `memsuite check
# --ref FILE` (one task per node: `srun --ntasks-per-node=1` inside a Slurm
# allocation, `mpirun --map-by ppr:1:node` without Slurm, or just this node)
# and writes its report, DIR/<node>.json, to the shared results directory.
# Then the reports are aggregated:
#   - per node PASS/FAIL against the reference (ERROR: check could not run,
#     or the node's report DIR/<node>.json is unreadable, empty, not
#     valid JSON or names no reference: that node is ERROR, never left out);
#   - per metric the median and MAD over the nodes; a node more than k x MAD
#     from the median (MAD taken as at least --mad-floor % of the median) is
#     an outlier: SLOW on the slow side, even when it passes the reference;
#   - nodes that were expected but never reported are MISSING: the expected
#     list is --nodes, else SLURM_JOB_NODELIST (Slurm hostlist syntax);
#   - MISSING, ERROR and FAIL first, then the slowest nodes first.
#
#   --ref FILE        the reference (memsuite/ref/1, see 'memsuite help check');
#                     every node must see it at the same path
#   --results DIR     shared results directory (must exist, writable by the nodes)
#   --nodes LIST      expected nodes: n[001-128],gpu7 or @FILE (one per line);
#                     each a plain host name (letters, digits, ._-; at most
#                     200 characters), at most 1,000,000 names, else exit 2
#                     naming the first bad one
#   --launcher L      auto (srun in an allocation, else mpirun when --nodes is
#                     given and mpirun exists, else local), srun, mpirun, local
#   --retries N       check's retries on each node (default 2)
#   --timeout SEC     limit for the whole launch (default 3600)
#   --aggregate DIR   only aggregate the reports already in DIR
#   --run-id ID       only the reports of this run (a launch sets a fresh one)
#   --node-run        what each node runs (used by the launch)
# Report options:
#   --k K             outlier threshold in MADs (default 5: about 3.4 standard
#                     deviations for normally spread nodes)
#   --mad-floor PCT   smallest MAD used, in % of the median (default 0.5)
#   --format F        text (default) or json
#   --top N           list only the first N nodes of the text report (0: all)
#   --all             the text report lists every node; by default only
#                     the nodes to look at (not PASS, or an outlier) and a
#                     count of the others
#   --drain-suggest   print `scontrol update nodename=... state=drain
#                     reason="memsuite: ..."` for every FAIL, ERROR, MISSING or
#                     SLOW node (JSON: in "drain_suggestions"); nothing is
#                     drained
#   --drain           run those scontrol commands (needs Slurm admin rights)
#
# SIGTERM or SIGINT during the launch stops it (srun/mpirun end their
# tasks, no job is left) and the reports that arrived are aggregated,
# marked incomplete ("incomplete": true, "interrupted_by" in JSON; a first
# line "memsuite cluster: INCOMPLETE: ..." in text); nothing is drained;
# exit 128 + the signal's number.
#
# Exit: 0 every expected node PASS and none SLOW; 1 some node FAIL, ERROR,
# MISSING or SLOW (or a drain failed); 2 usage (bad option, bad reference,
# reports made against different references); 3 the environment prevents
# the run (results directory missing, launcher missing).

ms_use ref lists cluster-hosts cluster-node cluster-aggregate

cmd_cluster() {
    local ref="" results="" aggregate="" nodes_opt="" launcher=auto retries=2 timeout=3600
    local rid="" node_run=0 k=5 floor=0.5 format=text top=0 suggest=0 drain=0 v
    while [ $# -gt 0 ]; do
        case "$1" in
            --ref) ms_need_arg "$@"; ref="$2"; shift ;;
            --results) ms_need_arg "$@"; results="$2"; shift ;;
            --aggregate) ms_need_arg "$@"; aggregate="$2"; shift ;;
            --nodes) ms_need_arg "$@"; nodes_opt="$2"; shift ;;
            --launcher) ms_need_arg "$@"; launcher="$2"; shift ;;
            --retries) ms_need_arg "$@"; retries=$(ms_parse_uint_opt "$1" "$2" 100) || ms_usage_error "$retries"; shift ;;
            --timeout) ms_need_arg "$@"; timeout=$(ms_parse_uint_opt "$1" "$2" 604800) || ms_usage_error "$timeout"; shift ;;
            --run-id) ms_need_arg "$@"; rid="$2"; shift ;;
            --node-run) node_run=1 ;;
            --k) ms_need_arg "$@"; k=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$k"; shift ;;
            --mad-floor) ms_need_arg "$@"; floor=$(ms_parse_decimal "$1" "$2") || ms_usage_error "$floor"; shift ;;
            --format) ms_need_arg "$@"; format="$2"; shift ;;
            --all) MS_CLUSTER_ALL=1 ;;
            --top) ms_need_arg "$@"; top=$(ms_parse_uint_opt "$1" "$2" 100000000) || ms_usage_error "$top"; shift ;;
            --drain-suggest) suggest=1 ;;
            --drain) drain=1 ;;
            -h|--help) ms_cmd_help ;;
            *) ms_unknown_option "$1" ;;
        esac
        shift
    done
    [ -n "$ref" ] || ms_usage_error "--ref FILE is required; see 'memsuite help cluster'"
    case "$format" in text|json) ;; *) ms_usage_error "--format: invalid value '$format'; use text or json" ;; esac
    case "$launcher" in auto|srun|mpirun|local) ;; *) ms_usage_error "--launcher: invalid value '$launcher'; use auto, srun, mpirun or local" ;; esac
    [ "$(awk -v k="$k" 'BEGIN { print (k > 0) }')" = 1 ] || ms_usage_error "--k: must be more than 0"
    [[ "$rid" =~ ^[A-Za-z0-9._:-]*$ ]] || ms_usage_error "--run-id: use letters, digits and ._:- only"
    v=$(ms_ref_validate "$ref") || ms_ref_refuse $? "$v"
    ref=$(readlink -f -- "$ref")

    if [ "$node_run" = 1 ]; then
        [ -n "$results" ] || ms_usage_error "--node-run needs --results DIR"
        ms_cluster_node_run "$ref" "$results" "$rid" "$retries"
        return
    fi
    if [ -n "$aggregate" ] && [ -n "$results" ]; then
        ms_usage_error "--aggregate DIR and --results DIR do not go together: --aggregate only reads DIR"
    fi
    [ -n "$aggregate$results" ] || ms_usage_error "--results DIR (run and aggregate) or --aggregate DIR (aggregate only) is required"

    local expected from
    expected=$(ms_mktemp)
    ms_cluster_expected "$nodes_opt" >"$expected" || ms_usage_error "$(cat -- "$expected")"
    from="$MS_CLUSTER_EXPECTED_FROM"
    [ -s "$expected" ] || expected=""

    if [ -n "$aggregate" ]; then
        # The analyser writes what node reports say (names, summaries, file
        # names: anyone who can write the directory controls them) in caret
        # notation, as ms_printable does.
        ms_cluster_aggregate "$aggregate" "$ref" "$expected" "$from" "$rid" "$k" "$floor" "$format" "$top" "$suggest" "$drain"
        return
    fi

    [ -d "$results" ] || ms_die "$MS_EX_ENV" "the results directory $results does not exist; create it on a filesystem every node mounts (mkdir -p $results) and give that path"
    [ -w "$results" ] || ms_die "$MS_EX_ENV" "the results directory $results is not writable"
    results=$(readlink -f -- "$results")
    [ -n "$rid" ] || rid="$(date -u +%Y%m%dT%H%M%SZ)-$(ms_cluster_node_name)-$$"
    ms_cluster_launch "$launcher" "$ref" "$results" "$rid" "$retries" "$timeout" "$expected"
    if [ -z "$MS_CLUSTER_STOPPED" ]; then
        ms_cluster_aggregate "$results" "$ref" "$expected" "$from" "$rid" "$k" "$floor" "$format" "$top" "$suggest" "$drain"
        return
    fi
    # Stopped: the reports that arrived, marked incomplete (never drained
    # from: a node that had no time to report is no faulty node), and the
    # signal's exit status.
    ms_cluster_aggregate "$results" "$ref" "$expected" "$from" "$rid" "$k" "$floor" "$format" "$top" 0 0 |
        ms_cluster_incomplete "$format" "$MS_CLUSTER_STOPPED" || true
    MS_EXIT_INTENDED=$((128 + $(kill -l "$MS_CLUSTER_STOPPED")))
    exit "$MS_EXIT_INTENDED"
}

# ms_cluster_incomplete FORMAT SIGNAL: the aggregate report on stdin,
# marked as cut short by SIGNAL (json: "incomplete": true and
# "interrupted_by"; text: a first line saying so).
ms_cluster_incomplete() {
    if [ "$1" = json ]; then
        jq --arg sig "SIG$2" '. + { incomplete: true, interrupted_by: $sig }'
    else
        printf 'memsuite cluster: INCOMPLETE: interrupted by SIG%s; nodes that had not reported are MISSING, nothing was drained\n' "$2"
        cat
    fi
}

# The environment a node run needs, for launchers that do not pass it on.
MS_CLUSTER_ENV=(MEMSUITE_BIN MEMSUITE_LLC MEMSUITE_LOCK MEMSUITE_SYSFS MEMSUITE_PROCFS
                MEMSUITE_ASSUME_ROOT MEMSUITE_STATE_DIR MEMSUITE_NODE_NAME MEMSUITE_DEBUG
                OMP_NUM_THREADS TMPDIR)

# ms_cluster_launch LAUNCHER REF DIR RUN_ID RETRIES TIMEOUT EXPECTED_FILE
ms_cluster_launch() {
    local launcher="$1" ref="$2" dir="$3" rid="$4" retries="$5" tmo="$6" expected="$7"
    local -a node_cmd cmd
    local n=0 hosts="" var rc=0
    node_cmd=("$MS_SCRIPTS_DIR/memsuite" cluster --node-run --ref "$ref" --results "$dir" --run-id "$rid" --retries "$retries")
    if [ -n "$expected" ]; then
        n=$(grep -c . "$expected" || true)
        hosts=$(paste -sd, "$expected")
    fi
    if [ "$launcher" = auto ]; then
        if [ -n "${SLURM_JOB_ID:-}" ] && command -v srun >/dev/null 2>&1; then
            launcher=srun
        elif [ -n "$hosts" ] && command -v mpirun >/dev/null 2>&1; then
            launcher=mpirun
        else
            launcher=local
        fi
    fi
    case "$launcher" in
        srun)
            ms_require_cmd srun "install Slurm's client (slurm-client), or use --launcher mpirun|local"
            cmd=(srun --ntasks-per-node=1 --kill-on-bad-exit=0)
            if [ -n "${SLURM_JOB_ID:-}" ]; then
                cmd+=("--nodes=${SLURM_JOB_NUM_NODES:-${SLURM_NNODES:-1}}")
                [ -n "$hosts" ] && [ "$MS_CLUSTER_EXPECTED_FROM" = "--nodes" ] &&
                    ms_note "srun runs on the allocation's nodes; --nodes only sets which nodes are expected"
            elif [ -n "$hosts" ]; then
                cmd+=("--nodes=$n" "--nodelist=$hosts")
            else
                ms_die "$MS_EX_ENV" "--launcher srun outside an allocation needs --nodes LIST (or run inside salloc/sbatch)"
            fi
            ;;
        mpirun)
            ms_require_cmd mpirun "install openmpi-bin, or use --launcher srun|local"
            cmd=(mpirun --map-by ppr:1:node)
            if [ -n "$hosts" ]; then cmd+=(--host "$hosts" -np "$n"); else cmd+=(-np 1); fi
            for var in "${MS_CLUSTER_ENV[@]}"; do
                [ -n "${!var+x}" ] && cmd+=(-x "$var")
            done
            ;;
        local) cmd=() ;;
    esac
    ms_note "run $rid: ${cmd[*]:-this node only}${cmd[*]:+ (one task per node)}; reports to $dir"
    # In the background, so that SIGTERM or SIGINT stops the launch at
    # once, and in a session of its own (setsid), so that timeout passes
    # our TERM to the whole launch (srun/mpirun end their tasks and free
    # the allocation; a local node run stops its benchmark) and not back
    # to us; the reports already written are then aggregated as an
    # incomplete report (cmd_cluster).
    MS_CLUSTER_STOPPED=""
    trap 'MS_CLUSTER_STOPPED=TERM' TERM
    trap 'MS_CLUSTER_STOPPED=INT' INT
    setsid timeout "$tmo" "${cmd[@]}" "${node_cmd[@]}" </dev/null >&2 &
    MS_CHILD=$!
    while :; do
        rc=0
        wait "$MS_CHILD" || rc=$?
        [ -n "$MS_CLUSTER_STOPPED" ] || ! kill -0 "$MS_CHILD" 2>/dev/null && break
    done
    if [ -n "$MS_CLUSTER_STOPPED" ]; then
        ms_warn "interrupted by SIG$MS_CLUSTER_STOPPED: stopping the launch; the report is incomplete"
        ms_stop_child || true
    fi
    MS_CHILD=""
    trap 'ms_on_signal TERM' TERM
    trap 'ms_on_signal INT' INT
    [ -z "$MS_CLUSTER_STOPPED" ] || return 0
    if [ "$rc" -eq 124 ]; then
        ms_warn "the launch did not finish within $tmo s (--timeout); the nodes that did not report are MISSING"
    elif [ "$rc" -ne 0 ]; then
        ms_warn "the launcher exited $rc; the nodes that did not report are MISSING"
    fi
    return 0
}
