# shellcheck shell=bash
# Scenario: memsuite check as a real Slurm Epilog=, Prolog= and HealthCheckProgram=: Slurm drains with memsuite's reason
#
# contrib/slurm/memsuite-slurm-check, copied as an administrator would,
# with its settings file beside it; slurm.conf gains the hook and `scontrol
# reconfigure` loads it.  A reference no node can meet (expected x 1000)
# makes the check FAIL: `scontrol show node` must then say DRAIN with
# memsuite's reason.  With the normal reference the node stays in
# service.  Each node is resumed, and the hooks removed, afterwards.

LAB_HOOK="$LAB/hook/memsuite-slurm-check"

# hook_conf REF: the settings file the hook reads
hook_conf() {
    mkdir -p "$LAB/hook"
    install -m 0755 "$ROOT/contrib/slurm/memsuite-slurm-check" "$LAB_HOOK"
    cat >"$LAB/hook/slurm-check.conf" <<EOS
REF=$1
MEMSUITE=$LAB/prefix/bin/memsuite
ARGS="--retries 0"
export PATH=$LAB/prefix/bin:/usr/sbin:/usr/bin:/sbin:/bin SLURM_CONF=$LAB/slurm.conf MEMSUITE_LLC=$LAB_LLC OMP_NUM_THREADS=1
EOS
}
# hook_slurm LINES: slurm.conf with LINES (the hook) and reconfigure
hook_slurm() {
    LAB_SLURM_EXTRA="$1" lab_slurm_conf
    ctl scontrol reconfigure
    sleep 1
}
# node_state NODE: "STATE|REASON" as scontrol shows them
node_state() {
    ctl scontrol show node "$1" | awk '
        { for (i = 1; i <= NF; i++) { if ($i ~ /^State=/) s = substr($i, 7) } }
        /^ *Reason=/ { r = $0; sub(/^ *Reason=/, "", r); sub(/ \[[^]]*\]$/, "", r) }
        END { print s "|" r }'
}
# wait_drain NODE [SECONDS]: until NODE is DRAIN (default 60 s); prints its state
wait_drain() {
    local n=0 s
    while [ "$n" -lt "${2:-60}" ]; do
        s=$(node_state "$1")
        case "$s" in *DRAIN*) echo "$s"; return 0 ;; esac
        sleep 1
        n=$((n + 1))
    done
    echo "$1 not drained after ${2:-60} s: $s"
    return 1
}
resume() { ctl scontrol update nodename="$1" state=resume; lab_wait_idle; }

jq '.metrics |= map(.expected *= 1000)' "$LAB/ref.json" >"$LAB/ref-hard.json"

epilog() {
    hook_conf "$LAB/ref.json"
    hook_slurm "Epilog=$LAB_HOOK"
    ctl timeout 60 srun -N1 -w node2 true
    sleep 8     # the epilog runs after the job: a passing check leaves the node in service
    expect "node2 still in service after a passing epilog" test "$(node_state node2 | cut -d'|' -f1)" = IDLE
    hook_conf "$LAB/ref-hard.json"
    ctl timeout 60 srun -N1 -w node2 true
    st=$(wait_drain node2)
    echo "$st"
    expect "DRAIN with memsuite's FAIL reason" grep -qE '^IDLE\+DRAIN\|memsuite: FAIL [0-9]+/4 metrics out of tolerance on node2 ' <<<"$st"
    resume node2
    expect "node2 back in service" test "$(node_state node2)" = "IDLE|"
}
lab_check "Epilog=memsuite-slurm-check: a passing node stays; a failing one is DRAIN with memsuite's reason (scontrol show node); resumed" epilog

prolog() {
    hook_conf "$LAB/ref-hard.json"
    hook_slurm "Prolog=$LAB_HOOK"
    ctl sbatch --quiet -w node3 -N1 --wrap true
    st=$(wait_drain node3)
    echo "$st"
    expect "DRAIN with memsuite's reason" grep -qE '\|memsuite: FAIL [0-9]+/4 metrics out of tolerance on node3 ' <<<"$st"
    ctl scancel --quiet -u root
    resume node3
}
lab_check "Prolog=memsuite-slurm-check: a failing node is DRAIN with memsuite's reason before the job runs; resumed" prolog

healthcheck() {
    hook_conf "$LAB/ref-hard.json"
    hook_slurm "$(printf 'HealthCheckProgram=%s\nHealthCheckInterval=10\nHealthCheckNodeState=ANY' "$LAB_HOOK")"
    st=$(wait_drain node4 60)
    echo "$st"
    expect "DRAIN with memsuite's reason" grep -qE '\|memsuite: FAIL [0-9]+/4 metrics out of tolerance on node4 ' <<<"$st"
    hook_slurm ""
    # a health check already running on another node when the hook went
    # away still ends, and drains that node: wait for every one to end
    # (the namespace hosts share this pid namespace) before resuming
    local i
    for i in $(seq 1 180); do
        pgrep -f -- "$LAB_HOOK" >/dev/null || break
        sleep 0.5
    done
    for i in $(seq 1 "$LAB_HOSTS"); do ctl scontrol update nodename="node$i" state=resume 2>/dev/null || true; done
    lab_wait_idle
}
lab_check "HealthCheckProgram=memsuite-slurm-check: a failing node is DRAIN with memsuite's reason; resumed" healthcheck
hook_slurm ""
