# shellcheck shell=bash
# Scenario: one host killed mid-run (its slurmd, its every process and its network gone): MISSING within a bounded time
#
# The last scenario: the host does not come back.  node4 is slowed (the
# quota of 20-slow.sh) so that its check is still running when the
# others have reported; then its PID namespace's init is killed (every
# process of the host dies with it) and its network namespace deleted.
# memsuite cluster must end within its --timeout (60 s) plus a margin,
# node4 MISSING, the other reports standing, and no job left behind once
# slurmctld has found the host dead (SlurmdTimeout).

killed_host() {
    local t0 pid
    lab_slow_host node4 1000 50000
    mkdir -p "$LAB/results/killed"
    t0=$SECONDS
    ctl memsuite cluster --ref "$LAB/ref.json" --results "$LAB/results/killed" --nodes "node[1-$LAB_HOSTS]" \
        --launcher srun --retries 0 --timeout 60 --format json "${LAB_OUTLIERS[@]}" >"$LAB/killed.json" 2>"$LAB/killed.err" &
    pid=$!
    # the others report, node4 is still measuring
    local n=0
    while [ "$(find "$LAB/results/killed" -name "node[1-3].json" | wc -l)" -lt 3 ] && [ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
    expect "node4 still running when the others have reported" test ! -e "$LAB/results/killed/node4.json"
    lab_kill_host node4
    local rc=0
    wait "$pid" || rc=$?
    echo "memsuite cluster exit $rc after $((SECONDS - t0)) s"
    cat "$LAB/killed.err"
    expect "memsuite cluster ends within 90 s" test $((SECONDS - t0)) -lt 90
    expect "exit 1 (a node MISSING)" test "$rc" = 1
    jq -e '(.nodes[] | select(.node == "node4") | .status) == "MISSING"' "$LAB/killed.json"
    # reports are written atomically: the dead host left no partial file
    expect "only the three complete reports in the results directory" \
        test "$(find "$LAB/results/killed" -mindepth 1 -printf "%f\n" | sort | paste -sd, -)" = "node1.json,node2.json,node3.json"
    expect "the other reports stand" test "$(jq '[.nodes[] | select(.node != "node4" and .status == "PASS")] | length' "$LAB/killed.json")" = $((LAB_HOSTS - 1))
    # the step's job stays COMPLETING until slurmctld sets node4 DOWN
    # (SlurmdTimeout 10 s): then nothing is left
    n=0
    while [ -n "$(ctl squeue -h)" ] && [ "$n" -lt 60 ]; do sleep 1; n=$((n + 1)); done
    ctl squeue
    expect "no job left within 60 s" test -z "$(ctl squeue -h)"
    ctl sinfo -N -n node4 -o '%N %T'
}
lab_check "node4 killed mid-run: memsuite cluster ends within its --timeout, node4 MISSING (no partial report), the others PASS, squeue empty" killed_host
