#!/usr/bin/env bats
# Busy means busy now (scripts/lib/idle.sh): the rule over two fixture
# /proc trees a window apart (tests/fixtures/busy-proc/{before,after}),
# then real `memsuite check` runs on this machine with the real stream.
#
# The fixture window is 1.000 s on 4 CPUs (Cpus_allowed_list 0-3):
#   pid 1 init        idle
#   pid 100 memsuite  the check itself; pid 101 (stream) is its child and
#                     used 1.9 CPUs: memsuite's own tree, never counted
#   pid 200 "job (x) 1"  another job: 1.00 CPU running, 0.70 waiting (two threads)
#   pid 300 short     started inside the window: 0.20 running, 0.10 waiting
#   pid 400 gone      ended inside the window (not seen)
#   load average 9.00 (never the verdict), cpu pressure +300 ms (30%)
#
# The real tests run in a PID namespace of their own (unshare --pid
# --mount-proc) with the kernel-wide pressure files bound to quiet copies:
# the machine that runs the test suite is shared (other builds run beside
# it), and inside the namespace the only other processes are the ones a
# test starts.  That is the idle node the "Done when" asks for; what the
# namespace hides is exactly what a real node would not have.

load test_helper
# The real checks below are about the default window (1 s), not the
# quarter second the other files use.
unset MEMSUITE_BUSY_WINDOW

F="$FIXTURES/busy-proc"

# lib FUNCTION ARGS...: a function of scripts/lib in a fresh memsuite shell
lib() {
    bash -c 'set -euo pipefail; MS_LIB="$1/scripts/lib"; MS_SCRIPTS_DIR="$1/scripts"
             . "$MS_LIB/common.sh"; ms_use idle; shift; "$@"' _ "$ROOT" "$@"
}

# judge [LIMIT_CPUS [MAX_PRESSURE]]: the fixture window judged, with the
# snapshots' clocks set exactly 1 s apart; the check is pid 100
judge() {
    MEMSUITE_PROCFS="$F/before" lib ms_idle_snapshot | sed 's/^T .*/T 1000000/' >a.snap
    MEMSUITE_PROCFS="$F/after" lib ms_idle_snapshot | sed 's/^T .*/T 2000000/' >b.snap
    run lib ms_idle_judge a.snap b.snap 100 "$(MEMSUITE_PROCFS="$F/after" lib ms_idle_mask)" "${1:-1}" "${2:-20}"
}

@test "fixture window: others' demand is CPU time plus run-queue wait, memsuite's own tree left out" {
    judge
    assert_success
    assert_line "cpus	4"
    assert_line "cpu_list	0-3"
    # 1.00 + 0.20 running, 0.70 + 0.10 waiting; stream's 1.9 CPUs are ours
    assert_line "others_run_cpus	1.20"
    assert_line "others_wait_cpus	0.80"
    assert_line "others_cpus	2.00"
    assert_line "others_top	pid 200 job??x??1 1.70"
    assert_line "busy	other processes want 2.00 CPUs (running 1.20, waiting for a CPU 0.80) of the 4 in this check's affinity mask (0-3) over 1.0 s, more than 1.00 (most: pid 200 job??x??1 1.70)"
    # /proc/stat of the mask CPUs: evidence only
    assert_line "cpus_busy_pct	67.7"
    assert_line "steal_pct	3.2"
    assert_line "cpu_pressure_pct	30.0"
    assert_line "memory_pressure_pct	0.0"
    assert_line "busy	tasks stalled for a CPU 30.0% of the last 1.0 s (pressure/cpu, more than 20%)"
}

@test "fixture window: the limits decide (--max-busy of the mask, --max-pressure); nothing from the load average" {
    judge 2.5 50
    assert_success
    assert_line "others_cpus	2.00"
    refute_line --partial "busy	"
    run grep -c load <<<"$output"
    assert_output 0
}

@test "fixture window: were the check another process, its child's CPU would count (the tree is memsuite's own)" {
    MEMSUITE_PROCFS="$F/before" lib ms_idle_snapshot | sed 's/^T .*/T 1000000/' >a.snap
    MEMSUITE_PROCFS="$F/after" lib ms_idle_snapshot | sed 's/^T .*/T 2000000/' >b.snap
    run lib ms_idle_judge a.snap b.snap 300 0-3 1 20
    assert_line "others_run_cpus	2.93"
}

@test "a tree without processes or schedstat: those looks are skipped and said so, never zero" {
    mkdir -p p
    printf 'cpu  1 0 1 100 0 0 0 0 0 0\ncpu0 1 0 1 100 0 0 0 0 0 0\n' >p/stat
    MEMSUITE_PROCFS=p lib ms_idle_snapshot >a.snap
    MEMSUITE_PROCFS=p lib ms_idle_snapshot >b.snap
    run lib ms_idle_judge a.snap b.snap 1 0 1 20
    assert_line "others_cpus	-"
    assert_line "cpu_pressure_pct	-"
    assert_line "skip	no process directories readable: other processes not judged"
    assert_line "skip	no pressure/cpu: cpu pressure not judged"
    refute_line --partial "busy	"
}

@test "a FIFO or a sparse 1 GiB file in the procfs tree: that look is not taken, said so, and the rest goes on at once" {
    cp -r "$F/after" p
    rm -f p/stat p/loadavg p/pressure/cpu p/self/status p/200/stat
    mkfifo p/stat p/loadavg p/pressure/cpu
    truncate -s 1G p/200/stat
    truncate -s 1G p/self/status
    # a plain open() of a FIFO waits for a writer for ever: timeout is the hang guard
    MEMSUITE_PROCFS=p run timeout 20 bash -c 'MS_LIB="$1/scripts/lib"; MS_SCRIPTS_DIR="$1/scripts"
        . "$MS_LIB/common.sh"; ms_use idle; ms_idle_snapshot' _ "$ROOT"
    assert_success
    # the other processes and the memory pressure are still seen
    assert_line --regexp '^P 300 1 '
    assert_line --regexp '^Q memory '
    refute_line --regexp '^P 200 '
    refute_line --regexp '^(C|Q cpu) '
    MEMSUITE_PROCFS=p MEMSUITE_BUSY_WINDOW=0.05 run timeout 20 bash -c 'MS_LIB="$1/scripts/lib"; MS_SCRIPTS_DIR="$1/scripts"
        . "$MS_LIB/common.sh"; ms_use idle; ms_idle_check 100 100 0; printf "%s\n" "$MS_IDLE_NOTES"' _ "$ROOT"
    assert_success
    assert_output --partial "no load average in p/loadavg (unavailable: not a regular file (a FIFO))"
    assert_output --partial "no pressure/cpu: cpu pressure not judged"
    # the knob reader says why too
    mkdir -p s/kernel/mm/transparent_hugepage
    mkfifo s/kernel/mm/transparent_hugepage/enabled
    MEMSUITE_SYSFS=s run timeout 20 bash -c 'MS_LIB="$1/scripts/lib"; MS_SCRIPTS_DIR="$1/scripts"
        . "$MS_LIB/common.sh"; ms_use knobs; ms_knob_get thp' _ "$ROOT"
    assert_failure 1
    assert_output "cannot read s/kernel/mm/transparent_hugepage/enabled: unavailable: not a regular file (a FIFO)"
}

@test "MEMSUITE_BUSY_WINDOW: a bad value is a usage error naming it; --max-pressure is range-checked" {
    MEMSUITE_BUSY_WINDOW=1x run lib ms_idle_window
    assert_failure 2
    assert_output --partial "MEMSUITE_BUSY_WINDOW: invalid value '1x'; use seconds from 0.05 to 10"
    MEMSUITE_BUSY_WINDOW=0.5 run lib ms_idle_window
    assert_output "0.5"
    run "$ROOT/scripts/memsuite" check --ref "$FIXTURES/memsuite-check/ref-stream.json" --max-pressure 101
    assert_failure 2
    assert_output --partial "--max-pressure: invalid value '101'; use a percentage 0..100"
}

# ---- real checks on this machine -------------------------------------------

# in_idle_ns SCRIPT: SCRIPT under bash in a fresh PID namespace whose
# /proc shows only its own processes, with quiet pressure files; a
# private lock, temp and state directory.  The real stream, 1 MiB arrays
# (MEMSUITE_LLC 256K: the 4x rule holds) and a reference any measurement
# passes: the busy decision is what is under test, not the bandwidth.
in_idle_ns() {
    unshare --pid --fork --mount-proc true 2>/dev/null || skip "cannot make a PID namespace here (needs root and unshare)"
    [ -x "$BIN/stream" ] || skip "stream not built"
    printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >quiet
    cat >ref.json <<'EOF'
{ "schema": "memsuite/ref/1", "description": "busy tests: any measurement passes",
  "run": { "bench": "stream", "size_bytes": 1048576, "threads": 1, "reps": 3, "bind": "spread" },
  "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
                 "expected": 1000, "lower_pct": 99.9, "upper_pct": null } ] }
EOF
    mkdir -p tmp state
    run env TMPDIR="$SANDBOX/tmp" MEMSUITE_LOCK="$SANDBOX/lock" MEMSUITE_STATE_DIR="$SANDBOX/state" \
        MEMSUITE_LLC=256K MEMSUITE_BIN="$BIN" MS="$ROOT/scripts/memsuite" \
        timeout 120 unshare --pid --fork --mount-proc bash -c '
            mount --bind quiet /proc/pressure/cpu 2>/dev/null || true
            mount --bind quiet /proc/pressure/memory 2>/dev/null || true
            check() { "$MS" check --ref ref.json --retries 0 2>/dev/null; }
            hog() { bash -c "while :; do :; done" & HOG=$!; sleep 0.5; }
            '"$1"
}

@test "real: ten back-to-back checks on an idle node give ten PASSes (the previous run never makes the next busy)" {
    in_idle_ns 'for i in 1 2 3 4 5 6 7 8 9 10; do check | tail -n 1; echo "exit $?"; done'
    assert_success
    run grep -c '^memsuite: PASS 1/1 metrics within tolerance on ' <<<"$output"
    assert_output 10
}

@test "real: a CPU hog beside the check is ERROR busy (exit 5), named; ended a second before, it is PASS" {
    in_idle_ns 'hog; check; echo "exit $?"; kill $HOG; wait $HOG 2>/dev/null; sleep 1; check; echo "exit $?"'
    assert_success
    assert_line --index 0 --regexp "^memsuite: ERROR node busy: other processes want [0-9.]+ CPUs \(running [0-9.]+, waiting for a CPU [0-9.]+\) of the [0-9]+ in this check's affinity mask \([0-9,-]+\) over 1\.[0-9] s, more than [0-9.]+ \(most: pid [0-9]+ bash [0-9.]+\); wait for the node to be idle"
    assert_line --index 1 "exit 5"
    assert_line --index 3 --regexp '^memsuite: PASS 1/1 metrics within tolerance on '
    assert_line --index 4 "exit 0"
}

@test "real: the busy evidence is in the JSON verdict (schema) and the Prometheus file (promtool)" {
    in_idle_ns 'hog; "$MS" check --ref ref.json --format json --prom node.prom >busy.json 2>/dev/null; echo "exit $?"; kill $HOG'
    assert_line "exit 5"
    run jq -r '"\(.verdict) \(.idle.others_cpus > .idle.max_busy_cpus) \(.idle.window_s >= 1) \(.idle.others_top | test("^pid [0-9]+ bash "))"' busy.json
    assert_output "ERROR true true true"
    jq '{ "$schema": ."$schema" } + .definitions.check_verdict' "$SCHEMA" >check.schema.json
    /usr/bin/jsonschema -i busy.json check.schema.json
    if command -v promtool >/dev/null; then
        run promtool check metrics <node.prom
        assert_success
    fi
    run grep -E '^memsuite_check_busy(_other_cpus|_limit_cpus|_window_seconds)?\{' node.prom
    assert_line --regexp '^memsuite_check_busy\{host="[^"]+"\} 1$'
    assert_line --regexp '^memsuite_check_busy_other_cpus\{host="[^"]+"\} [0-9.]+$'
    assert_line --regexp '^memsuite_check_busy_limit_cpus\{host="[^"]+"\} [0-9.]+$'
}
