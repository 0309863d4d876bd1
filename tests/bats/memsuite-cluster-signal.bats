#!/usr/bin/env bats
# SIGTERM or SIGINT to `memsuite cluster` while the nodes measure: the
# launch stops at once (no node run left behind), the reports that
# arrived are aggregated and marked incomplete, nothing is drained or
# suggested for draining, and the exit status is 128 + the signal.  The
# fake stream sleeps (FAKE_SLEEP), so the node run is mid-measurement.
# The same fault on a real Slurm cluster: tests/cluster/60-sigterm.sh.

load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"

# ours: PIDs of processes of this test's fake benchmark environment
ours() {
    local e
    for e in /proc/[0-9]*/environ; do
        tr '\0' '\n' 2>/dev/null <"$e" | grep -qxF "FAKE_LOG=$FAKE_LOG" && echo "${e//[^0-9]/}"
    done
    return 0
}

# stop_mid_run SIGNAL CLUSTER-OPTIONS...: start memsuite cluster (stdout
# in out.txt), send SIGNAL once the benchmark runs; sets rc and secs
stop_mid_run() {
    local sig="$1" pid t0
    shift
    mkdir -p res
    # env --default-signal: a job started with & would ignore SIGINT
    MEMSUITE_NODE_NAME=n1 FAKE_SLEEP=60 env --default-signal=INT "$MS" cluster --ref "$C/ref-stream.json" \
        --results res --launcher local --nodes 'n[1-2]' --retries 0 "$@" >out.txt 2>err.txt &
    pid=$!
    wait_for "$FAKE_STARTED" 200
    t0=$SECONDS
    kill "-$sig" "$pid"
    rc=0
    wait "$pid" || rc=$?
    secs=$((SECONDS - t0))
}

@test "SIGTERM mid-run: exit 143, the JSON report kept and marked incomplete, no node run left" {
    stop_mid_run TERM --format json
    [ "$rc" = 143 ]
    [ "$secs" -lt 15 ]
    run jq -r '"\(.incomplete) \(.interrupted_by) \(.expected) \(.reported) \([.nodes[] | "\(.node):\(.status)"] | join(","))"' out.txt
    assert_output "true SIGTERM 2 0 n1:MISSING,n2:MISSING"
    run grep -F "interrupted by SIGTERM: stopping the launch; the report is incomplete" err.txt
    assert_success
    # a killed node run may still be on its way out: until none is left
    local _
    for _ in $(seq 1 100); do
        [ -z "$(ours)" ] && break
        sleep 0.1
    done
    run ours
    assert_output ""
}

@test "SIGINT mid-run, text: a first line says INCOMPLETE; --drain-suggest suggests nothing; exit 130" {
    stop_mid_run INT --drain-suggest
    [ "$rc" = 130 ]
    run head -n 1 out.txt
    assert_output "memsuite cluster: INCOMPLETE: interrupted by SIGINT; nodes that had not reported are MISSING, nothing was drained"
    run grep -c '^scontrol ' out.txt
    assert_output 0
}

@test "a report that arrived before the signal stands in the incomplete report" {
    mkdir -p res
    MEMSUITE_NODE_NAME=n2 "$MS" cluster --node-run --ref "$C/ref-stream.json" --results res --run-id r1 >/dev/null
    MEMSUITE_NODE_NAME=n1 FAKE_SLEEP=60 "$MS" cluster --ref "$C/ref-stream.json" --results res \
        --launcher local --nodes 'n[1-2]' --run-id r1 --format json >out.txt 2>err.txt &
    local pid=$!
    wait_for "$FAKE_STARTED" 200
    kill -TERM "$pid"
    wait "$pid" || true
    run jq -r '"\(.incomplete) \([.nodes[] | "\(.node):\(.status)"] | sort | join(","))"' out.txt
    assert_output "true n1:MISSING,n2:PASS"
}
