#!/usr/bin/env bats
# memsuite check as an acceptance test of a node: a reference recorded
# from the node's spread, the same verdict run after run, a slow node
# FAILs every time, a busy node is an ERROR (never a FAIL), the settings a
# reference was made with, the JSON and Prometheus forms, bad input.
# The fake stream (tests/fixtures/memsuite-bin) varies by FAKE_JITTER %
# per run; the fixture procfs (memsuite-host) is an idle node.

load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"

# check_schema FILE: FILE conforms to docs/result.schema.json's
# definitions.check_verdict (the memsuite/check/1 document).
check_schema() {
    jq '{ "$schema": ."$schema" } + .definitions.check_verdict' "$SCHEMA" >check.schema.json
    /usr/bin/jsonschema -i "$1" check.schema.json
}

# run_out FILE CMD...: run CMD with its stdout in FILE (stderr apart)
run_out() {
    local f="$1"
    shift
    run bash -c '"$@" >"$0" 2>stderr.txt' "$f" "$@"
}

busy_load() { echo "7.50 6.00 5.00 9/300 4242" >"$MEMSUITE_PROCFS/loadavg"; }
# a node others fill (the fixture tree holds no processes, so memory is the
# look a static tree can make busy; tests/bats/memsuite-busy.bats has the
# CPU and pressure looks)
busy_mem() { sed -i 's/^MemAvailable: .*/MemAvailable:     500000 kB/' "$MEMSUITE_PROCFS/meminfo"; }

@test "record, then ten checks: ten PASSes (2% run-to-run jitter, floor 5%)" {
    export FAKE_JITTER=2
    run "$MS" check --record --ref node.json --runs 5 --threads 2 --reps 4
    assert_success
    run jq -r '[.metrics[] | .upper_pct] | unique | @json' node.json
    assert_output '[null]'
    local i verdicts=""
    for i in 1 2 3 4 5 6 7 8 9 10; do
        run "$MS" check --ref node.json --retries 0
        verdicts+="$status "
        assert_line --regexp '^memsuite: PASS 4/4 metrics within tolerance on '
    done
    [ "$verdicts" = "0 0 0 0 0 0 0 0 0 0 " ]
}

@test "a node 20% slower: ten FAILs, never a PASS, even with a retry" {
    export FAKE_JITTER=2
    "$MS" check --record --ref node.json --runs 5 --threads 2 --reps 4 2>/dev/null
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
        FAKE_RATE=8000 run "$MS" check --ref node.json --retries 1
        assert_failure 1
        assert_line --regexp '^memsuite: FAIL 4/4 metrics out of tolerance on .*after 2 attempt\(s\)\): Add\.best_rate_mbps '
    done
}

@test "a faster node passes: no upper bound unless --upper-pct" {
    "$MS" check --record --ref node.json --runs 3 --threads 2 --reps 4 2>/dev/null
    FAKE_RATE=15000 run "$MS" check --ref node.json --retries 0
    assert_success
    run "$MS" check --record --ref bounded.json --runs 3 --threads 2 --reps 4 --upper-pct 20
    assert_success
    assert_line --regexp '^  Triad\.best_rate_mbps expected 20713\.4 MB/s -5%/\+20% '
    FAKE_RATE=15000 run "$MS" check --ref bounded.json --retries 0
    assert_failure 1
    assert_line --regexp 'Triad\.best_rate_mbps 310[0-9]{2}\.[0-9] > 24856\.1'
}

@test "a spread too wide to judge by: says which metric, exit 1, nothing written" {
    # Runs alternate 7000 and 13000 MB/s: a spread of 86% of the median,
    # every time (random jitter could fall inside the cap by chance).
    export FAKE_RATE_FILE="$PWD/rate" FAKE_HOOK="n=\$(cat '$PWD/n' 2>/dev/null || echo 0); echo \$((n + 1)) >'$PWD/n'; if [ \$((n % 2)) -eq 0 ]; then echo 7000; else echo 13000; fi >'$PWD/rate'"
    echo '{"keep": "me"}' >node.json
    run "$MS" check --record --ref node.json --runs 5 --threads 2 --reps 4
    assert_failure 1
    assert_output --regexp 'the runs vary too much to make a useful reference: Add\.best_rate_mbps ranged [0-9.]+\.\.[0-9.]+ MB/s over 5 runs \(spread [0-9.]+% of the median\)'
    assert_output --partial 'exceed the cap of 30% (--cap). Is the node busy or unstable?'
    run cat node.json
    assert_output '{"keep": "me"}'
    run ls
    refute_output --partial '.tmp.'
}

@test "--floor, --cap and --upper-pct: bad values are usage errors naming them" {
    run "$MS" check --record --ref r.json --cap 0
    assert_failure 2
    assert_output "memsuite: check: --cap: invalid value '0'; use a percentage above 0, at most 100"
    run "$MS" check --record --ref r.json --floor 40
    assert_failure 2
    assert_output "memsuite: check: --floor: invalid value '40'; use a percentage 0..--cap (30)"
    run "$MS" check --record --ref r.json --upper-pct -3
    assert_failure 2
    assert_output --partial "--upper-pct"
    run "$MS" check --ref "$C/ref-stream.json" --upper-pct 5
    assert_failure 2
    assert_output "memsuite: check: --upper-pct is for --record; a check uses the reference's bounds"
    run "$MS" check --ref "$C/ref-stream.json" --format yaml
    assert_failure 2
    assert_output "memsuite: check: --format: invalid value 'yaml'; use text, json or prom"
    [ ! -e r.json ]
}

@test "a high load average alone is not busy (a job that just ended): PASS, the load average reported" {
    busy_load
    run_out pass.json "$MS" check --ref "$C/ref-stream.json" --format json
    assert_success
    run jq -r '"\(.verdict) \(.idle.load1) \(.idle | has("max_load"))"' pass.json
    assert_output "PASS 7.5 false"
    run "$MS" check --ref "$C/ref-stream.json" --max-load 1
    assert_success
    assert_output --partial "warning: --max-load: ignored; the load average no longer decides whether the node is busy"
}

@test "busy node (memory): ERROR node busy, exit 5, never FAIL; the benchmark does not run; --ignore-load measures" {
    busy_mem
    local i
    for i in 1 2 3; do
        FAKE_RATE=5000 run "$MS" check --ref "$C/ref-stream.json"
        assert_failure 5
        assert_output --regexp '^memsuite: ERROR node busy: MemAvailable 488\.3 MiB < 2 x the 384\.0 MiB the benchmark needs; wait for the node to be idle, or pass --ignore-load \(.*, nothing judged\)$'
    done
    [ "$(bench_calls)" = 0 ]
    run "$MS" check --ref "$C/ref-stream.json" --ignore-load
    assert_success
    assert_output --partial "the node is busy (MemAvailable 488.3 MiB < 2 x the 384.0 MiB the benchmark needs); measured anyway (--ignore-load)"
}

@test "busy node (memory): MemAvailable below twice the arrays; and --record refuses a busy node" {
    sed -i 's/^MemAvailable: .*/MemAvailable:     500000 kB/' "$MEMSUITE_PROCFS/meminfo"
    run "$MS" check --ref "$C/ref-stream.json"
    assert_failure 5
    assert_output --partial "node busy: MemAvailable 488.3 MiB < 2 x the 384.0 MiB the benchmark needs"
    run "$MS" check --record --ref node.json --threads 2
    assert_failure 5
    assert_output --partial "; nothing recorded"
    [ ! -e node.json ]
    [ "$(bench_calls)" = 0 ]
}

@test "busy node (a real CPU hog on this machine): ERROR busy from the CPU time" {
    # the real /proc/stat, so other processes count; two spinning shells
    # keep at least two CPUs' worth busy whatever else the machine does
    export MEMSUITE_PROCFS=/proc
    local hogs=() i
    for i in 1 2; do
        bash -c 'while :; do :; done' &
        hogs+=($!)
    done
    sleep 0.5
    run "$MS" check --ref "$C/ref-stream.json"
    kill "${hogs[@]}"
    wait "${hogs[@]}" 2>/dev/null || true
    assert_failure 5
    assert_output --regexp "memsuite: ERROR node busy: other processes want [0-9.]+ CPUs \(running [0-9.]+, waiting for a CPU [0-9.]+\) of the [0-9]+ in this check's affinity mask"
}

@test "--format json: the verdict document conforms to the schema (PASS, FAIL, ERROR busy)" {
    run_out pass.json "$MS" check --ref "$C/ref-stream.json" --format json
    assert_success
    check_schema pass.json
    run jq -r '"\(.verdict) \(.exit) \(.metrics | length) \(.metrics[3].record) \(.metrics[3].high) \(.idle.load1) \(.ref.id | test("^sha256:"))"' pass.json
    assert_output "PASS 0 4 Triad null 0.02 true"
    FAKE_RATE=5000 run_out fail.json "$MS" check --ref "$C/ref-stream.json" --format json --retries 0
    assert_failure 1
    check_schema fail.json
    run jq -r '"\(.verdict) \([.metrics[] | .pass] | unique) \(.metrics[0].why)"' fail.json
    assert_output "FAIL [false] 9330.3 < 16650.0"
    busy_mem
    run_out busy.json "$MS" check --ref "$C/ref-stream.json" --format json
    assert_failure 5
    check_schema busy.json
    run jq -r '"\(.verdict) \(.exit) \(.reason) \(.metrics | length) \(.idle.mem_available_bytes)"' busy.json
    assert_output "ERROR 5 node busy: MemAvailable 488.3 MiB < 2 x the 384.0 MiB the benchmark needs; wait for the node to be idle, or pass --ignore-load 0 512000000"
    # the schema is no rubber stamp
    jq '.verdict = "PASS"' fail.json >lie.json
    run check_schema lie.json
    assert_failure
}

@test "--format prom and --prom FILE: promtool accepts them; the file is written atomically" {
    command -v promtool >/dev/null || skip "promtool not installed (make deps: Debian package prometheus)"
    run_out pass.prom "$MS" check --ref "$C/ref-stream.json" --format prom
    assert_success
    run promtool check metrics <pass.prom
    assert_success
    run grep -E '^memsuite_check_(pass|busy|exit_code)\{' pass.prom
    assert_output --regexp 'memsuite_check_pass\{host="[^"]+"\} 1'
    assert_line --regexp '^memsuite_check_busy\{host="[^"]+"\} 0$'
    run grep -c '^memsuite_check_value{.*record="Triad",metric="best_rate_mbps",unit="MB/s"} 20713.4' pass.prom
    assert_output 1
    # the text verdict on stdout, the metrics in the file
    FAKE_RATE=5000 run "$MS" check --ref "$C/ref-stream.json" --retries 0 --prom node.prom
    assert_failure 1
    assert_line --regexp '^memsuite: FAIL 4/4 '
    run promtool check metrics <node.prom
    assert_success
    run grep -E '^memsuite_check_(pass|exit_code)\{' node.prom
    assert_line --regexp '^memsuite_check_pass\{host="[^"]+"\} 0$'
    assert_line --regexp '^memsuite_check_exit_code\{host="[^"]+"\} 1$'
    busy_mem
    run "$MS" check --ref "$C/ref-stream.json" --prom node.prom
    assert_failure 5
    run promtool check metrics <node.prom
    assert_success
    run grep -E '^memsuite_check_(busy|verdict)' node.prom
    assert_line --regexp '^memsuite_check_busy\{host="[^"]+"\} 1$'
    # the evidence: what was seen, a look not taken left out (never 0)
    assert_line --regexp '^memsuite_check_busy_mem_available_bytes\{host="[^"]+"\} 512000000$'
    assert_line --regexp '^memsuite_check_busy_load1\{host="[^"]+"\} 0\.02$'
    assert_line --regexp '^memsuite_check_busy_mask_cpus\{host="[^"]+"\} [0-9]+$'
    refute_line --partial 'memsuite_check_busy_cpu_pressure_ratio{'
    assert_line --regexp '^memsuite_check_verdict\{host="[^"]+",verdict="ERROR"\} 1$'
    run ls
    refute_output --partial '.tmp.'
    run "$MS" check --ref "$C/ref-stream.json" --prom "$SANDBOX/no/such/dir/x.prom"
    assert_failure 3        # unwritable output: README, "Output files"
    assert_output --partial "--prom: cannot write"
}

@test "a reference made with another tool version or on another kind of node is refused unless --force" {
    jq '.made_with = { "memsuite": "0.1.0", "tool": "stream", "version": "9.9.9", "env": {} }' "$C/ref-stream.json" >other-version.json
    run "$MS" check --ref other-version.json --retries 0
    assert_failure 2
    assert_line --regexp '^memsuite: ERROR reference other-version\.json was made with other settings: stream version 9\.9\.9 in the reference, 0\.1\.0 in the result; record a reference on this kind of node, or pass --force'
    run "$MS" check --ref other-version.json --retries 0 --force
    assert_success
    assert_output --partial "note: the reference was made with other settings: stream version 9.9.9 in the reference, 0.1.0 in the result (--force)"
    # another CPU: refused; another kernel: a note only
    jq '.made_with = { "tool": "stream", "version": "0.1.0", "env": { "cpu_model": "EPYC 9654", "kernel": "Linux 6.1" } }' "$C/ref-stream.json" >other-node.json
    FAKE_SYSINFO='{"cpu_model": "Xeon 8480", "kernel": "Linux 6.8"}' run "$MS" check --ref other-node.json --retries 0
    assert_failure 2
    assert_output --partial 'cpu_model "EPYC 9654" in the reference, "Xeon 8480" here'
    refute_line --regexp '^memsuite: ERROR .*kernel'
    FAKE_SYSINFO='{"cpu_model": "EPYC 9654", "kernel": "Linux 6.8"}' run "$MS" check --ref other-node.json --retries 0
    assert_success
    assert_output --partial 'note: the reference was made with other settings: kernel "Linux 6.1" in the reference, "Linux 6.8" here'
}

@test "--record keeps what it was made with; a result of another run is refused for that reference" {
    FAKE_SYSINFO='{"cpu_model": "EPYC 9654", "cores": 2, "numa_nodes": 2, "thp_enabled": "madvise", "kernel": "Linux 6.8"}' \
        run "$MS" check --record --ref node.json --runs 3 --threads 2 --reps 4
    assert_success
    run jq -c '.made_with' node.json
    assert_output '{"memsuite":"0.1.0","tool":"stream","version":"0.1.0","env":{"cpu_model":"EPYC 9654","cores":2,"numa_nodes":2,"thp_enabled":"madvise","kernel":"Linux 6.8"}}'
    # result-node.json ran 10 repetitions; the reference 4
    run "$MS" check --ref node.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial "run.reps 4 in the reference, 10 in the result"
}

# --- bad input (issue 14) ---

@test "bad references: wrong types, missing keys, NaN/Inf, tolerances out of range, other schema: exit 2 naming the fault" {
    local -a cases=(
        '.metrics[0].expected = "18500"|"expected" must be a number > 0'
        'del(.metrics[0].expected)|"expected" must be a number > 0'
        'del(.metrics[1].lower_pct)|metrics[1] (Scale.best_rate_mbps): "lower_pct" must be a number 0..100'
        '.metrics[0].lower_pct = -5|"lower_pct" must be a number 0..100'
        '.metrics[0].lower_pct = 130|"lower_pct" must be a number 0..100'
        '.metrics[0].upper_pct = -1|"upper_pct" must be a number >= 0 or null'
        '.metrics[0].record = 7|metrics[0] has no "record"'
        '.run.threads = "two"|run.threads must be a whole number > 0'
        '.schema = "memsuite/ref/2"|schema is memsuite/ref/2, expected memsuite/ref/1'
        '.made_with = "stream 0.1.0"|"made_with" must be an object'
        '.made_with = {"tool": "stream", "env": {"cpu": {"model": 1}}}|"made_with" must be an object'
    )
    local c
    for c in "${cases[@]}"; do
        jq "${c%%|*}" "$C/ref-stream.json" >bad.json
        run "$MS" check --ref bad.json --result "$C/result-node.json"
        assert_failure 2
        assert_output --partial "${c#*|}"
    done
    # NaN and Inf are no JSON: jq reads NaN as null, 1e999 as 1.8e308
    sed 's/"expected": 18500/"expected": NaN/' "$C/ref-stream.json" >nan.json
    run "$MS" check --ref nan.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial '"expected" must be a number > 0 and below'
    sed 's/"lower_pct": 10/"lower_pct": 1e999/' "$C/ref-stream.json" >inf.json
    run "$MS" check --ref inf.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial '"lower_pct" must be a number 0..100'
    sed 's/"expected": 18500/"expected": Infinity/' "$C/ref-stream.json" >inf2.json
    run "$MS" check --ref inf2.json --result "$C/result-node.json"
    assert_failure 2
}

@test "bad results: truncated, from another tool, not a result: exit 2 naming the file" {
    head -c 300 "$C/result-node.json" >truncated.json
    run "$MS" check --ref "$C/ref-stream.json" --result truncated.json
    assert_failure 2
    assert_output --partial "--result: "
    assert_output --partial "truncated.json"
    jq '.tool = "mbw"' "$C/result-node.json" >mbw.json
    run "$MS" check --ref "$C/ref-stream.json" --result mbw.json
    assert_failure 2
    assert_output "memsuite: check: result mbw.json is from 'mbw' but the reference is for 'stream'"
    echo '{"schema": "nhc/1"}' >other.json
    run "$MS" check --ref "$C/ref-stream.json" --result other.json
    assert_failure 2
    assert_output --partial "expected memsuite/result/1 or memsuite/result/2"
}
