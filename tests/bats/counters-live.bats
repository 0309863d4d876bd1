#!/usr/bin/env bats
# Live events: counters that really count, checked against an expectation
# that does not come from the counters (the page size, getrusage, the
# number of threads).  They use the perf software events (task-clock,
# page-faults, minor-faults, context-switches), which count on any Linux,
# VMs included; each test is skipped, with the reason, only where those
# events cannot be opened.  Tolerances suit a loaded 2-core VM and still
# fail when only the master thread is counted (a factor of 2 or more).
#
# counters-probe (tests/live/counters-probe.c, built by make tests-build)
# runs a known workload under the counters layer as the tools use it.
load test_helper

PROBE="${MEMSUITE_BUILD:-$ROOT/build}/tests/counters-probe"

local_setup() {
    [ -x "$PROBE" ] || { echo "counters-probe not built: run make tests-build"; return 1; }
}

# need EVENT: skip, saying why, when the perf software event cannot count here.
need() {
    local out why
    out=$("$PROBE" spin 1 1 "$1") || { echo "counters-probe failed: $out"; return 1; }
    if ! jq -e --arg e "$1" '.counters.hardware.events[$e] | type == "number"' <<<"$out" >/dev/null; then
        why=$(jq -r --arg e "$1" '.counters.hardware.events[$e + "_unavailable"]' <<<"$out")
        skip "perf software event $1 unavailable here: $why"
    fi
}

# within X LO HI: LO <= X <= HI (numbers, awk)
within() {
    awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }' ||
        { echo "$1 is outside [$2, $3]"; return 1; }
}

@test "page faults: a first touch of 64 MiB with THP off (MADV_NOHUGEPAGE) is 64 MiB / page size, summed over 2 threads, half each" {
    need page-faults
    run "$PROBE" touch 64 2 page-faults,minor-faults
    assert_success
    echo "$output" > p.json
    local expect sum t0 t1 minflt
    expect=$(jq '.bytes / .page_size' p.json)
    [ "$expect" -eq $((64 * 1048576 / $(getconf PAGESIZE))) ]
    sum=$(jq '.counters.hardware.events["page-faults"]' p.json)
    within "$sum" "$expect" "$((expect + expect / 50 + 64))"
    within "$(jq '.counters.hardware.events["minor-faults"]' p.json)" "$expect" "$((expect + expect / 50 + 64))"
    [ "$(jq '.counters.hardware.threads_counted' p.json)" -eq 2 ]
    t0=$(jq '.counters.hardware.per_thread[0].counts["page-faults"]' p.json)
    t1=$(jq '.counters.hardware.per_thread[1].counts["page-faults"]' p.json)
    within "$t0" "$((expect * 45 / 100))" "$((expect * 55 / 100 + 32))"
    within "$t1" "$((expect * 45 / 100))" "$((expect * 55 / 100 + 32))"
    [ "$((t0 + t1))" -eq "$sum" ]
    # getrusage, a second source, agrees
    minflt=$(jq '.minflt' p.json)
    within "$sum" "$((minflt * 98 / 100 - 16))" "$((minflt * 102 / 100 + 16))"
}

@test "page faults per GiB touched fall about 512x when THP backs the buffer (MADV_HUGEPAGE)" {
    need page-faults
    local thp
    thp=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
    [ -n "$thp" ] && [ "$thp" != never ] || skip "THP is '${thp:-absent}' here: no huge pages to back the buffer"
    run "$PROBE" touch-huge 64 2 page-faults
    assert_success
    echo "$output" > h.json
    [ "$(jq '.thp_bytes >= .bytes * 0.9' h.json)" = true ] ||
        skip "THP backed only $(jq .thp_bytes h.json) of $(jq .bytes h.json) bytes (memory fragmented)"
    run "$PROBE" touch 64 2 page-faults
    assert_success
    echo "$output" > s.json
    local small huge per_gib_small per_gib_huge
    small=$(jq '.counters.hardware.events["page-faults"]' s.json)
    huge=$(jq '.counters.hardware.events["page-faults"]' h.json)
    per_gib_small=$(jq '.counters.hardware.events["page-faults"] / (.bytes / 1073741824)' s.json)
    per_gib_huge=$(jq '.counters.hardware.events["page-faults"] / (.bytes / 1073741824)' h.json)
    echo "page faults per GiB: $per_gib_small with 4 KiB pages, $per_gib_huge with THP"
    # one fault per 2 MiB page: 64 MiB / 2 MiB = 32, counted on both threads
    within "$huge" 32 64
    [ "$(jq '[.counters.hardware.per_thread[].counts["page-faults"] | select(. > 0)] | length' h.json)" -eq 2 ]
    within "$(awk -v s="$small" -v h="$huge" 'BEGIN { print s / h }')" 256 1024
}

@test "task clock: the sum over 2 busy threads is the process's CPU time (getrusage) and at most 2 x the wall time" {
    need task-clock
    run "$PROBE" spin 400 2 task-clock
    assert_success
    echo "$output" > t.json
    local sum cpu wall
    sum=$(jq '.counters.hardware.events["task-clock"]' t.json)
    cpu=$(jq '.cpu_ns' t.json)
    wall=$(jq '.wall_ns' t.json)
    # getrusage counts every thread of the process: only the master would be half
    within "$sum" "$(awk -v c="$cpu" 'BEGIN { print c * 0.9 - 2e6 }')" "$(awk -v c="$cpu" 'BEGIN { print c * 1.1 + 2e6 }')"
    within "$sum" 0 "$(awk -v w="$wall" 'BEGIN { print 2 * w * 1.02 }')"
    [ "$(jq '[.counters.hardware.per_thread[].counts["task-clock"] | select(. > 0)] | length' t.json)" -eq 2 ]
}

@test "stream with 2 threads: each kernel's task clock sums 2 threads' own counts, about 2x one thread's (Done when)" {
    need task-clock
    OMP_NUM_THREADS=2 run "$BIN/stream" -s 2M -n 10 --allow-small --counters=task-clock \
        --format json -O s.json -q
    assert_success
    validate_json s.json
    run jq -r '.records[] | [.name, .counters.hardware.threads_counted,
        .counters.hardware.events["task-clock"],
        (.counters.hardware.per_thread | map(.counts["task-clock"]) | join(" ")),
        (.counters.hardware.per_thread | map(.tid) | unique | length)] | @tsv' s.json
    assert_success
    local name n sum per tids a b
    while IFS=$'\t' read -r name n sum per tids; do
        [ "$n" -eq 2 ] || { echo "$name: $n threads counted"; return 1; }
        [ "$tids" -eq 2 ] || { echo "$name: $tids distinct thread ids"; return 1; }
        read -r a b <<<"$per"
        [ "$((a + b))" -eq "$sum" ] || { echo "$name: $a + $b != $sum"; return 1; }
        [ "$a" -gt 0 ] && [ "$b" -gt 0 ]
        # about 2x one thread's: one thread alone would be 1x
        within "$(awk -v s="$sum" -v a="$a" -v b="$b" 'BEGIN { print s / (a > b ? a : b) }')" 1.25 2.0
    done <<<"$output"
    # every kernel's threads together were on a CPU at most 2 x the kernels' wall time
    local total wall
    total=$(jq '[.records[].counters.hardware.events["task-clock"]] | add' s.json)
    wall=$(jq '.config.kernels_total_s * 1e9' s.json)
    within "$total" 0 "$(awk -v w="$wall" 'BEGIN { print 2 * w * 1.05 }')"
    run jq -r '.records[0].counters.hardware.mapping["task-clock"]' s.json
    assert_output --regexp '^(perf_event_open:TASK-CLOCK|perf::TASK-CLOCK)$'
}

@test "stream --threads shapes the counted team, not OMP_NUM_THREADS: every counted thread has counts" {
    need task-clock
    OMP_NUM_THREADS=1 run "$BIN/stream" -s 1M -n 3 --allow-small --threads 2 --counters=task-clock \
        --format json -O t2.json -q
    assert_success
    run jq -c '[.records[].counters.hardware | [.threads_counted, (.per_thread | map(.counts["task-clock"] > 0) | all)]] | unique' t2.json
    assert_output '[[2,true]]'
    OMP_NUM_THREADS=2 run "$BIN/stream" -s 1M -n 3 --allow-small --threads 1 --counters=task-clock \
        --format json -O t1.json -q
    assert_success
    run jq -c '[.records[].counters.hardware | [.threads_counted, (.per_thread | length)]] | unique' t1.json
    assert_output '[[1,1]]'
}

@test "one descriptor per event and thread: a low soft RLIMIT_NOFILE is raised; a low hard one is said, never zeros" {
    need task-clock
    local ev=task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations
    # 2 threads x 6 events x 4 kernels = 48 descriptors, over a soft limit of 40
    run bash -c "ulimit -Sn 40 && OMP_NUM_THREADS=2 '$BIN/stream' -s 1M -n 3 --allow-small \
        --counters=$ev --format json -O soft.json -q"
    assert_success
    run jq -c '[.records[].counters.hardware.threads_counted] | unique' soft.json
    assert_output '[2]'
    run bash -c "ulimit -n 40 && OMP_NUM_THREADS=2 '$BIN/stream' -s 1M -n 3 --allow-small \
        --counters=$ev --format json -O hard.json -q"
    assert_success
    validate_json hard.json
    # the kernels that found no descriptor left: missing with the limit named, not 0
    run jq -r '[.records[].counters.hardware.per_thread[] | select(.counts == null) | .counts_unavailable] | .[0]' hard.json
    assert_output --partial "EMFILE: RLIMIT_NOFILE 40 is too few for one descriptor per event and thread; raise ulimit -n"
    run jq '[.records[].counters.hardware | select(.threads_counted == 0) | .events["task-clock"]] | all(. == null)' hard.json
    assert_output true
}

@test "context switches: 4 threads yielding on one CPU switch far more than 1, on every thread" {
    need context-switches
    command -v taskset >/dev/null || skip "taskset (util-linux) is not installed"
    run taskset -c 0 "$PROBE" yield 300 1 context-switches
    assert_success
    local one
    one=$(jq '.counters.hardware.events["context-switches"]' <<<"$output")
    run taskset -c 0 "$PROBE" yield 300 4 context-switches
    assert_success
    echo "$output" > cs.json
    local four
    four=$(jq '.counters.hardware.events["context-switches"]' cs.json)
    [ "$four" -gt $((10 * (one + 10))) ] || { echo "4 threads: $four, 1 thread: $one"; return 1; }
    [ "$(jq '.counters.hardware.threads_counted' cs.json)" -eq 4 ]
    # every thread switched, not only the master
    run jq --argjson s "$four" '[.counters.hardware.per_thread[].counts["context-switches"] | select(. >= $s / 16)] | length' cs.json
    assert_output 4
}

@test "alloc: minor faults from the worker threads' own perf events match getrusage" {
    need minor-faults
    run "$BIN/mencal" run alloc -a glibc -t 2 -b 256K,4M -r 1 --format json -O a.json
    assert_success
    validate_json a.json
    run jq -r '.records[] | [.name, .metrics.minflt.value, .metrics.minflt_perf.value] | @tsv' a.json
    assert_success
    [ "${#lines[@]}" -eq 2 ]
    local name ru pf
    while IFS=$'\t' read -r name ru pf; do
        [ "$pf" != null ] || { echo "$name: no perf count"; return 1; }
        within "$pf" "$(awk -v r="$ru" 'BEGIN { print r * 0.99 - 16 }')" "$(awk -v r="$ru" 'BEGIN { print r * 1.01 + 16 }')"
        awk -v r="$ru" 'BEGIN { exit !(r > 100) }'
    done <<<"$output"
}

@test "concurrent: each worker process is counted; a worker that dies has its counts missing, never zero" {
    need task-clock
    concurrent_with_a_dead_worker dead.json --counters=task-clock
    run jq -r '.records[0].counters.hardware | .counted_per, .threads_counted,
        ([.per_thread[] | select(.counts == null)] | length),
        ([.per_thread[] | select(.counts == null)][0].counts_unavailable),
        ([.per_thread[] | select(.counts != null)][0].counts["task-clock"] > 0),
        (.events["task-clock"] == ([.per_thread[] | select(.counts != null)][0].counts["task-clock"]))' dead.json
    assert_line --index 0 "worker process"
    assert_line --index 1 1
    assert_line --index 2 1
    assert_line --index 3 --partial "killed by signal 9"
    assert_line --index 4 true
    assert_line --index 5 true
}

@test "threads_counted is the team: stream, mbw --threads 2 and mencal seqread count 2 threads" {
    need task-clock
    OMP_NUM_THREADS=2 run "$BIN/stream" -s 1M -n 3 --allow-small --counters=task-clock --format json -O s.json -q
    assert_success
    run jq '[.records[].counters.hardware.threads_counted] | unique' -c s.json
    assert_output '[2]'
    run "$BIN/mbw" -q -n 1 -t0 --threads 2 --counters=task-clock --format json --output m.json 8
    assert_success
    run jq '.records[0].counters.hardware.threads_counted' m.json
    assert_output 2
    run "$BIN/mencal" run seqread --size 8M --allow-cache --threads 2 --reps 2 -q --counters=task-clock --format json -O q.json
    assert_success
    validate_json q.json
    run jq '.records[0].counters.hardware | [.threads_counted, (.per_thread | map(.counts["task-clock"] > 0) | all)]' -c q.json
    assert_output '[2,true]'
}

@test "hardware events keep 'unavailable: why' without a PMU, or count on every thread with one" {
    OMP_NUM_THREADS=2 run "$BIN/stream" -s 1M -n 3 --allow-small --counters=cycles,instructions \
        --format json -O h.json -q
    assert_success
    validate_json h.json
    if jq -e '.records[0].counters.hardware.events.cycles | type == "number"' h.json >/dev/null; then
        run jq '.records[0].counters.hardware | [.per_thread[].counts.cycles > 0] | all' h.json
        assert_output true
        run jq '.records[0].counters.hardware.rates.ipc.value > 0' h.json
        assert_output true
    else
        run jq -r '.records[0].counters.hardware.events.cycles_unavailable' h.json
        assert_output --regexp '^unavailable: .*(PAPI|perf_event_open)'
        run jq -r '.records[0].counters.hardware.rates.ipc | .value_unavailable, .formula' h.json
        assert_line --index 0 --partial "was not counted"
        assert_line --index 1 "instructions / cycles"
    fi
}

@test "an unknown event name is unavailable with the closest known names" {
    run "$BIN/stream" -s 1M -n 3 --allow-small --counters=cylces,task-clock --format json -O u.json -q
    assert_success
    run jq -r '.records[0].counters.hardware.events.cylces_unavailable' u.json
    assert_output --partial "'cylces' is neither a PAPI event here nor a perf-style name; closest known: cycles"
}

@test "device-counters.sh: without a PMU it says so with the tools' reason and exits 3; with one it checks every thread" {
    run "$ROOT/scripts/device-counters.sh" --bin "$BIN" --size 64M d
    if [ "$status" -eq 3 ]; then
        assert_output --partial "SKIP no PMU: cycles are not counted here: unavailable: "
        run cat d/summary.txt
        assert_output --partial "SKIP no PMU"
        [ -s d/facts.txt ] && [ -s d/stream.json ]
    else
        echo "$output"
        [ "$status" -eq 0 ]
        grep -q '^PASS cycles and instructions on all' d/summary.txt
    fi
    run "$ROOT/scripts/device-counters.sh" --bogus d
    [ "$status" -eq 2 ]
    assert_output --partial "unknown option '--bogus'"
}
