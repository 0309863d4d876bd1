# shellcheck shell=bash
# Scenario: SIGTERM to memsuite cluster mid-run: the partial report kept and marked incomplete, no job left
#
# node3 is slowed (the quota of 20-slow.sh) so that it is still
# measuring when the others have reported; memsuite cluster (srun
# launcher, run from ctl as an operator would) then gets SIGTERM.

sigterm() {
    local bg pid n=0 rc=0
    lab_slow_host node3 1000 50000
    mkdir -p "$LAB/results/term"
    ctl memsuite cluster --ref "$LAB/ref.json" --results "$LAB/results/term" --nodes "node[1-$LAB_HOSTS]" \
        --launcher srun --retries 0 --timeout 120 --format json "${LAB_OUTLIERS[@]}" >"$LAB/term.json" 2>"$LAB/term.err" &
    bg=$!
    while [ "$(find "$LAB/results/term" -name "node[124].json" | wc -l)" -lt 3 ] && [ "$n" -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
    expect "node3 still measuring when the others have reported" test ! -e "$LAB/results/term/node3.json"
    # memsuite cluster itself (under nsenter, in ctl's PID namespace)
    pid=$(lab_descendant "$bg" "$LAB/prefix/bin/memsuite")
    kill -TERM "$pid"
    wait "$bg" || rc=$?
    lab_fast_host node3
    cat "$LAB/term.err"
    expect "exit 143 (SIGTERM)" test "$rc" = 143
    jq -e '.incomplete == true and .interrupted_by == "SIGTERM"' "$LAB/term.json"
    jq -e '(.nodes[] | select(.node == "node3") | .status) == "MISSING"' "$LAB/term.json"
    expect "the reports that arrived stand" \
        test "$(jq '[.nodes[] | select(.node != "node3" and .status == "PASS")] | length' "$LAB/term.json")" = $((LAB_HOSTS - 1))
    n=0
    while [ -n "$(ctl squeue -h)" ] && [ "$n" -lt 30 ]; do sleep 1; n=$((n + 1)); done
    ctl squeue
    expect "no job left (squeue empty) within 30 s" test -z "$(ctl squeue -h)"
    expect "nothing drained" test -z "$(ctl sinfo -h -R)"
    lab_wait_idle
}
lab_check "SIGTERM to memsuite cluster mid-run: exit 143, JSON marked incomplete with the reports that arrived, squeue empty" sigterm
