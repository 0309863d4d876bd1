#!/usr/bin/env bats
# memsuite check: node validation against a reference (fixtures in
# tests/fixtures/memsuite-check), retries, per-node runs, --record.

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"

@test "PASS on a fixture result: one line per metric and the verdict" {
    run --separate-stderr "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
    assert_success
    assert_line --index 0 "PASS  Copy.best_rate_mbps          18660.7 MB/s  expected 18500.0 (-10%/+25%: 16650.0..23125.0)"
    assert_line --index 3 "PASS  Triad.best_rate_mbps         20713.4 MB/s  expected 20600.0 (-10%/+inf: >= 18540.0)"
    assert_line --index 4 --regexp "^memsuite: PASS 4/4 metrics within tolerance on .* \(result $C/result-node.json\)$"
    [ "${#lines[@]}" = 5 ]
}

@test "FAIL on a slow Triad names the metric and the bound; exit 1" {
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-slow-triad.json"
    assert_failure 1
    assert_line "FAIL  Triad.best_rate_mbps         14500.0 MB/s  expected 20600.0 (-10%/+inf: >= 18540.0)"
    assert_line --regexp '^PASS  Add\.best_rate_mbps '
    assert_line --regexp "^memsuite: FAIL 1/4 metrics out of tolerance on .*: Triad\.best_rate_mbps 14500\.0 < 18540\.0$"
}

@test "a metric missing from the result fails" {
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-no-triad.json"
    assert_failure 1
    assert_line "FAIL  Triad.best_rate_mbps         missing from the result (expected 20600.0 MB/s)"
}

@test "bad reference files: exit 2 with the reason" {
    run "$MS" check --ref "$C/ref-not-json.json" --result "$C/result-node.json"
    assert_failure 2
    assert_output --regexp "^memsuite: check: reference $C/ref-not-json.json is not a JSON object"
    run "$MS" check --ref "$C/ref-no-metrics.json" --result "$C/result-node.json"
    assert_failure 2
    assert_output "memsuite: check: reference $C/ref-no-metrics.json: no \"metrics\" array"
    run "$MS" check --ref "$C/ref-wrong-schema.json" --result "$C/result-node.json"
    assert_failure 2
    assert_output "memsuite: check: reference $C/ref-wrong-schema.json: schema is nhc/ref/2, expected memsuite/ref/1"
    run "$MS" check --ref "$C/ref-bad-tolerance.json" --result "$C/result-node.json"
    assert_failure 2
    assert_output "memsuite: check: reference $C/ref-bad-tolerance.json: metrics[0] (Triad.best_rate_mbps): \"lower_pct\" must be a number 0..100"
    run "$MS" check --ref nowhere.json --result "$C/result-node.json"
    assert_failure 2
    assert_output "memsuite: check: cannot read reference nowhere.json"
    jq '.metrics = []' "$C/ref-stream.json" >empty.json
    run "$MS" check --ref empty.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial '"metrics" is empty: nothing to check'
}

@test "usage errors: no --ref, bad options, result that is not a result" {
    run "$MS" check
    assert_failure 2
    assert_output "memsuite: check: --ref FILE is required; see 'memsuite help check'"
    run "$MS" check --ref "$C/ref-stream.json" --retries many
    assert_failure 2
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/ref-stream.json"
    assert_failure 2
    assert_output --partial "has schema memsuite/ref/1, expected memsuite/result/1 or memsuite/result/2"
    run "$MS" check --ref "$C/ref-stream.json" --threads 4
    assert_failure 2
}

@test "an incomplete result cannot validate the node: FAIL, exit 1 (as when check runs it)" {
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-incomplete.json"
    assert_failure 1
    assert_line "FAIL  the result is incomplete (an interrupted or failed run)"
    assert_line --regexp "^memsuite: FAIL result .*result-incomplete.json cannot validate .*: the result is incomplete"
}

@test "running: the reference's run block drives the benchmark; PASS" {
    run "$MS" check --ref "$C/ref-stream.json"
    assert_success
    assert_line --regexp '^memsuite: PASS 4/4 metrics within tolerance on .* \(stream 128\.0 MiB x2\)$'
    run cat "$FAKE_LOG"
    # an acceptance run must not measure caches: the tool refuses one itself
    assert_output --regexp '^OMP_NUM_THREADS=2 OMP_PROC_BIND=spread GLIBC_TUNABLES= --format json --output .* --array-size 16777216 --ntimes 11 --strict$'
}

@test "retries: a slow first run is retried before the verdict" {
    # first run at 5000, later runs at 10000 (the hook runs before the
    # fake reads the rate file)
    echo 5000 >rate
    export FAKE_RATE_FILE="$SANDBOX/rate"
    export FAKE_HOOK="if [ -e $SANDBOX/ran ]; then echo 10000 >$SANDBOX/rate; fi; touch $SANDBOX/ran"
    run "$MS" check --ref "$C/ref-stream.json" --retries 2
    assert_success
    assert_output --partial "attempt 1/3 failed (4 metric(s) out of tolerance); retrying"
    assert_line --regexp '^memsuite: PASS 4/4 '
    [ "$(bench_calls)" = 2 ]
}

@test "retries exhausted: FAIL after N+1 runs, exit 1" {
    FAKE_RATE=5000 run "$MS" check --ref "$C/ref-stream.json" --retries 1
    assert_failure 1
    assert_line --regexp '^memsuite: FAIL 4/4 metrics out of tolerance on .* \(stream 128\.0 MiB x2, after 2 attempt\(s\)\): Copy\.best_rate_mbps 9330\.3 < 16650\.0; '
    [ "$(bench_calls)" = 2 ]
}

@test "--per-node: bound to each NUMA node; a slow node fails alone" {
    run "$MS" check --ref "$C/ref-stream.json" --per-node --retries 0
    assert_success
    assert_line --regexp '^node0: PASS  Triad\.best_rate_mbps '
    assert_line --regexp '^node1: PASS  Triad\.best_rate_mbps '
    assert_line --regexp '^memsuite: PASS 8/8 metrics within tolerance on .* \(stream 128\.0 MiB x2, 2 node\(s\)\)$'
    run grep -c '^numactl --cpunodebind=[01] --membind=[01] ' "$FAKE_LOG"
    assert_output 2
    FAKE_NODE_RATE=5000 run "$MS" check --ref "$C/ref-stream.json" --per-node --retries 0
    assert_failure 1
    assert_line --regexp '^node0: PASS  Copy'
    assert_line --regexp '^node1: FAIL  Copy'
    assert_line --regexp '^memsuite: FAIL 4/8 metrics out of tolerance .*: node1: Copy\.best_rate_mbps 9330\.3 < 16650\.0; '
}

@test "a benchmark that cannot run is exit 3; one that fails is a FAIL" {
    FAKE_FAIL=3 run "$MS" check --ref "$C/ref-stream.json" --retries 0
    assert_failure 3
    assert_output --partial "the benchmark could not run (exit 3): stream: fake failure"
    FAKE_FAIL=1 run "$MS" check --ref "$C/ref-stream.json" --retries 0
    assert_failure 1
    assert_line "FAIL  benchmark failed (exit 1): stream: fake failure"
    rm "$MEMSUITE_BIN/stream"
    run "$MS" check --ref "$C/ref-stream.json"
    assert_failure 3
}

@test "--record: median of N runs, tolerance from the spread with a floor, fast side unbounded; the check passes" {
    run "$MS" check --record --ref ref.json --runs 3 --threads 2 --reps 4 --floor 7
    assert_success
    run jq -r '"\(.schema) \(.run.bench) \(.run.size_bytes) \(.run.threads) \(.run.reps)"' ref.json
    assert_output "memsuite/ref/1 stream 134217728 2 4"
    run jq -r '.metrics[] | "\(.record) \(.expected) \(.lower_pct) \(.upper_pct) \(.runs)"' ref.json
    assert_output $'Add 20526.8 7 null 3\nCopy 18660.7 7 null 3\nScale 18474.1 7 null 3\nTriad 20713.4 7 null 3'
    run "$MS" check --ref ref.json --retries 0
    assert_success
}

@test "--record from existing results: median and spread" {
    local i
    for i in 1 2 3; do
        jq --argjson f "$i" '(.records[].metrics.best_rate_mbps.value) |= . * (0.95 + 0.05 * $f)' "$C/result-node.json" >"r$i.json"
    done
    run "$MS" check --record --ref ref.json --floor 5 --result r1.json --result r2.json --result r3.json
    assert_success
    # median factor 1.05; range (1.10 - 1.00) / 1.05 = 9.5%, x 1.5 = 14.3%
    run jq -r '.metrics[] | select(.record == "Copy") | "\(.expected) \(.lower_pct)"' ref.json
    assert_output "19593.7 14.3"
    # the run block comes from the result: a later check reruns the same
    run jq -r '.run | "\(.bench) \(.size_bytes) \(.threads) \(.reps)"' ref.json
    assert_output "stream 134217728 2 10"
    run "$MS" check --ref ref.json --result r2.json
    assert_success
}

# --- fixed bugs (operator review) ---

@test "a misspelt key in the reference is a usage error, not a silently looser check" {
    # Fixed bug: "upper_pc" dropped the upper bound, "rnu" the run block,
    # and both checks passed.
    jq '.metrics[0].upper_pc = 25 | del(.metrics[0].upper_pct)' "$C/ref-stream.json" >typo1.json
    run "$MS" check --ref typo1.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial 'metrics[0] (Copy.best_rate_mbps): unknown key "upper_pc" (a typo?'
    jq '.rnu = .run | del(.run)' "$C/ref-stream.json" >typo2.json
    run "$MS" check --ref typo2.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial 'unknown key "rnu"'
    jq '.run.threds = 2' "$C/ref-stream.json" >typo3.json
    run "$MS" check --ref typo3.json
    assert_failure 2
    assert_output --partial 'run: unknown key "threds"'
    jq 'del(.metrics[1].upper_pct)' "$C/ref-stream.json" >typo4.json
    run "$MS" check --ref typo4.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial '"upper_pct" is missing; give a number, or null for no upper bound'
}

@test "a reference in another unit of the same quantity is converted; another quantity is a FAIL, never raw numbers" {
    # Fixed bug: GB/s expected 20.6 against 20713.4 MB/s printed "20713.4 GB/s".
    # The result's MB/s are converted into the reference's GB/s (20.7 GB/s).
    jq '.metrics[3].unit = "GB/s" | .metrics[3].expected = 20.6' "$C/ref-stream.json" >gb.json
    run --separate-stderr "$MS" check --ref gb.json --result "$C/result-node.json"
    assert_success
    assert_line --index 3 --regexp '^PASS  Triad\.best_rate_mbps +20\.7 GB/s  expected 20\.6 '
    refute_output --partial '20713.4 GB/s'
    # the same number in GB/s, not scaled: converted, it is 1000x too high a reference
    jq '.metrics[3].unit = "GB/s"' "$C/ref-stream.json" >gb-raw.json
    run --separate-stderr "$MS" check --ref gb-raw.json --result "$C/result-node.json"
    assert_failure 1
    assert_line --index 3 --regexp '^FAIL  Triad\.best_rate_mbps +20\.7 GB/s  expected 2[0-9]{4}\.[0-9] '
    # another quantity (ns against MB/s): not comparable, a FAIL
    jq '.metrics[3].unit = "ns"' "$C/ref-stream.json" >ns.json
    run --separate-stderr "$MS" check --ref ns.json --result "$C/result-node.json"
    assert_failure 1
    assert_line --index 3 --regexp '^FAIL  Triad\.best_rate_mbps +unit MB/s in the result, ns in the reference'
}

@test "--record writes a reference other users and nodes can read" {
    # Fixed bug: the reference kept mktemp's mode 0600.
    umask 022
    run "$MS" check --record --ref ref.json --result "$C/result-node.json"
    assert_success
    run stat -c %a ref.json
    assert_output 644
}

@test "--record --bench mbw: one thread, the classic figure, unless --threads asks for more" {
    run "$MS" check --record --ref m1.json --bench mbw --runs 2 --reps 2
    assert_success
    run jq -r '"\(.run.bench) \(.run.threads)"' m1.json
    assert_output "mbw 1"
    run grep -c -- ' -q -n 2 --threads 1 --format json ' "$FAKE_LOG"
    assert_output 2
    run "$MS" check --record --ref m2.json --bench mbw --threads 2 --runs 2 --reps 2
    assert_success
    run jq -r '"\(.run.bench) \(.run.threads)"' m2.json
    assert_output "mbw 2"
    run grep -c -- ' -q -n 2 --threads 2 --format json ' "$FAKE_LOG"
    assert_output 2
}

@test "the analyser missing: exit 3 (not a bad reference), and a --prom file is not left with the last PASS" {
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom p.prom
    assert_success
    grep -q '^memsuite_check_pass{host="[^"]*"} 1$' p.prom
    MEMSUITE_PYTHON="$SANDBOX/no-python" run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom p.prom
    assert_failure 3
    assert_output --partial "the analyser did not run"
    assert_output --partial "removed the previous p.prom"
    [ ! -e p.prom ]
}

@test "strings from the documents: a lone surrogate is no crash, a newline forges no line (caret notation), in check, its FAIL summary and --record" {
    # Fixed bugs: "T\ud800" gave a jq parse error or an internal
    # UnicodeEncodeError (exit 3); "T\nmemsuite: PASS 9/9 forged" printed a
    # line of its own in the metric lines, the FAIL summary and --record.
    sed 's/"name": "Triad"/"name": "T\\ud800"/' "$C/result-node.json" >sur.json
    run "$MS" check --ref "$C/ref-stream.json" --result sur.json
    assert_failure 1
    assert_line "FAIL  Triad.best_rate_mbps         missing from the result (expected 20600.0 MB/s)"
    refute_output --partial "internal error"
    refute_output --partial "parse error"
    sed 's/"record": "Triad"/"record": "T\\ud800"/' "$C/ref-stream.json" >sur-ref.json
    run "$MS" check --ref sur-ref.json --result sur.json
    assert_success
    assert_line --regexp $'^PASS  T\ufffd\\.best_rate_mbps +20713\\.4 MB/s '
    run "$MS" check --record --ref sur-rec.json --result sur.json
    assert_success
    assert_line $'  T\ufffd.best_rate_mbps expected 20713.4 MB/s -5%/+inf (spread 0% over 1 runs)'
    # a newline: shown as ^J, inside its own line
    sed 's/"name": "Triad"/"name": "T\\nmemsuite: PASS 9\/9 forged"/' "$C/result-node.json" >nl.json
    sed 's/"record": "Triad"/"record": "T\\nmemsuite: PASS 9\/9 forged"/; s/"expected": 20600/"expected": 90000/' \
        "$C/ref-stream.json" >nl-ref.json
    run "$MS" check --ref nl-ref.json --result nl.json
    assert_failure 1
    refute_line --regexp '^memsuite: PASS 9/9 forged'
    assert_line --regexp '^FAIL  T\^Jmemsuite: PASS 9/9 forged\.best_rate_mbps +20713\.4 MB/s '
    assert_line --regexp '^memsuite: FAIL 1/4 .*: T\^Jmemsuite: PASS 9/9 forged\.best_rate_mbps 20713\.4 < '
    run "$MS" check --record --ref nl-rec.json --result nl.json
    assert_success
    refute_line --regexp '^memsuite: PASS 9/9 forged'
    assert_line --regexp '^  T\^Jmemsuite: PASS 9/9 forged\.best_rate_mbps expected 20713\.4 MB/s '
}

@test "a megabyte string in a result or a reference is cut in the message, never an argument list too long" {
    # Fixed bug: a 1 MB sysinfo.cpu_model (or made_with.env.cpu_model, or
    # tool) went to the analyser on its command line: "Argument list too
    # long", exit 3; the tool was echoed whole.
    head -c 1000000 /dev/zero | tr '\0' x >big.txt
    jq '.sysinfo.cpu_model = "Model A"' "$C/result-node.json" >a.json
    run "$MS" check --record --ref ref-a.json --result a.json
    assert_success
    jq --rawfile m big.txt '.sysinfo.cpu_model = $m' "$C/result-node.json" >big.json
    run "$MS" check --ref ref-a.json --result big.json
    assert_failure 2
    refute_output --partial "too long"
    assert_output --regexp 'cpu_model "Model A" in the reference, "x{120}\.\.\.\(cut\)" here'
    [ "${#output}" -lt 2000 ]
    jq --rawfile m big.txt '.made_with.env.cpu_model = $m' ref-a.json >ref-big.json
    run "$MS" check --ref ref-big.json --result a.json
    assert_failure 2
    assert_output --regexp 'cpu_model "x{120}\.\.\.\(cut\)" in the reference, "Model A" here'
    [ "${#output}" -lt 2000 ]
    jq --rawfile m big.txt '.tool = $m' "$C/result-node.json" >tool.json
    run "$MS" check --ref "$C/ref-stream.json" --result tool.json
    assert_failure 2
    assert_output --regexp "result tool\.json is from 'x{120}\.\.\.\(cut\)' but the reference is for 'stream'"
    [ "${#output}" -lt 2000 ]
    # a megabyte run.bench is refused at once (bash's pattern match on it
    # ran for minutes), named cut
    jq --rawfile m big.txt '.run.bench = $m' "$C/ref-stream.json" >bench.json
    run timeout 60 "$MS" check --ref bench.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --regexp "run\.bench: unknown benchmark 'x{64}\.\.\. \(1000000 bytes\)'; choose from: stream,mbw,mencal"
}

@test "a unit that disagrees with its scale makes the result invalid: a FAIL naming both, never a figure 1000x off" {
    # Fixed bug: Triad "GB/s" with scale 1e6 passed as 20713400.0 MB/s.
    jq '.schema = "memsuite/result/2" | .records[3].metrics.best_rate_mbps += {unit: "GB/s", base_unit: "B/s", scale: 1e6}' \
        "$C/result-node.json" >gb.json
    run "$MS" check --ref "$C/ref-stream.json" --result gb.json
    assert_failure 1
    assert_line --regexp '^memsuite: FAIL result gb\.json cannot validate .*: the result is not to be trusted: Triad\.best_rate_mbps: unit GB/s is 1e\+09 B/s, but the document states scale 1e\+06 \(base_unit B/s\)'
    refute_output --partial "20713400"
}

@test "a result over the size limit is refused as a result document, with the limit" {
    # Fixed bug: it was "more than a node report can be".
    cp "$C/result-node.json" huge.json
    truncate -s 17M huge.json
    run "$MS" check --ref "$C/ref-stream.json" --result huge.json
    assert_failure 2
    assert_output "memsuite: check: --result: cannot read huge.json: it is 17825792 bytes, more than a result document can be (16 MiB); not read"
}

# diag_ref: a reference recorded from the fixture result with the memory
# as built now (the stub dmidecode's FAKE_DMI, the tree's EDAC counts).
diag_ref() {
    MEMSUITE_ASSUME_ROOT=1 run "$MS" check --record --ref ref.json --result "$C/result-node.json" --result "$C/result-node.json"
    assert_success
}

edac_tree() {   # edac_tree NAME: the EDAC fixture tree NAME in the test's sysfs
    rm -rf "$MEMSUITE_SYSFS/devices/system/edac"
    cp -r "$ROOT/tests/fixtures/edac/$1/sys/devices/system/edac" "$MEMSUITE_SYSFS/devices/system/"
}

@test "--record keeps the memory as built: slots, channels per socket, node memory, EDAC counts, the peak" {
    edac_tree clean
    diag_ref
    run jq -c '.memory | [(.slots | length), ([.slots[] | select(.populated)] | length)], .channels_per_socket, .peak_mbps,
        .edac[0].dimms[1].label, (.nodes | length)' ref.json
    assert_output '[16,8]
[{"socket":0,"channels":4},{"socket":1,"channels":4}]
204800
"CPU1_DIMM_A1"
2'
    MEMSUITE_ASSUME_ROOT=0 run "$MS" check --record --ref user.json --result "$C/result-node.json"
    assert_success
    run jq -r '.memory.slots, .memory.slots_unavailable' user.json
    assert_output $'null\ndmidecode needs root to read the SMBIOS tables'
}

@test "a slot empty now that the reference has populated: FAIL memory population naming the locator, whatever the bandwidth" {
    diag_ref
    FAKE_DMI=one-empty MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-node.json"
    assert_failure 1
    assert_line --index 0 'FAIL  memory population: CPU1_DIMM_D1: reference 16 GB DDR4 3200 MT/s rank 2, found empty'
    assert_line 'FAIL  memory population: socket 1: reference 4 populated channel(s), found 3'
    assert_line --regexp '^PASS  Triad\.best_rate_mbps '
    assert_line --regexp '^memsuite: FAIL memory population: CPU1_DIMM_D1: reference 16 GB DDR4 3200 MT/s rank 2, found empty on .*; 4/4 metrics within tolerance$'
    FAKE_DMI=one-empty MEMSUITE_ASSUME_ROOT=1 run --separate-stderr "$MS" check --ref ref.json --result "$C/result-node.json" --format json
    assert_failure 1
    echo "$output" >v.json
    jq '{ "$schema": ."$schema" } + .definitions.check_verdict' "$ROOT/docs/result.schema.json" >check.schema.json
    /usr/bin/jsonschema -i v.json check.schema.json
    run jq -c '.verdict, (.diagnosis[0] | del(.text))' v.json
    assert_output '"FAIL"
{"kind":"memory population","subject":"CPU1_DIMM_D1","reference":"16 GB DDR4 3200 MT/s rank 2","found":"empty","severity":"fail"}'
    run jq -r '.summary' v.json
    assert_output --partial 'CPU1_DIMM_D1'
    # the same population passes
    MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-node.json"
    assert_success
}

@test "a bandwidth FAIL says when the population explains it" {
    diag_ref
    FAKE_DMI=one-empty MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-slow-triad.json"
    assert_failure 1
    assert_line --regexp '^memsuite: FAIL memory population: CPU1_DIMM_D1: .*; 1/4 metrics out of tolerance: Triad\.best_rate_mbps 14500\.0 < [0-9.]+ \(consistent with the memory population \(populated peak -12%, CPU1_DIMM_D1: reference 16 GB DDR4 3200 MT/s rank 2, found empty\)\)$'
}

@test "EDAC: corrected errors that grow during the check FAIL naming the DIMM label; an uncorrected error FAILs at once" {
    edac_tree clean
    diag_ref
    # the fake benchmark swaps in the tree with 5 corrected errors on dimm1 while it runs
    FAKE_HOOK="cp '$ROOT/tests/fixtures/edac/ce/sys/devices/system/edac/mc/mc0/dimm1/dimm_ce_count' '$MEMSUITE_SYSFS/devices/system/edac/mc/mc0/dimm1/'" \
        MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --retries 0
    assert_failure 1
    assert_line 'FAIL  EDAC: mc0 CPU1_DIMM_A1: corrected errors grew during the check, 0 -> 5'
    assert_line --regexp '^memsuite: FAIL EDAC: mc0 CPU1_DIMM_A1: corrected errors grew during the check, 0 -> 5 on '
    # 5 corrected errors that do not grow are within --max-ce (default 100), not with --max-ce 4
    MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-node.json"
    assert_success
    MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-node.json" --max-ce 4
    assert_failure 1
    assert_line 'FAIL  EDAC: mc0 CPU1_DIMM_A1: 5 corrected error(s), more than --max-ce 4'
    edac_tree ue
    MEMSUITE_ASSUME_ROOT=1 run --separate-stderr "$MS" check --ref ref.json --result "$C/result-node.json" --format json
    assert_failure 1
    echo "$output" >v.json
    run jq -c '[.diagnosis[] | select(.severity == "fail") | [.kind, .subject, .found]]' v.json
    assert_output '[["EDAC uncorrected errors","mc0 CPU1_DIMM_A1",1]]'
    # the same as gauges for monitoring: the error counts per DIMM, the finding
    MEMSUITE_ASSUME_ROOT=1 run --separate-stderr "$MS" check --ref ref.json --result "$C/result-node.json" --format prom
    assert_failure 1
    assert_line --regexp '^memsuite_memory_edac_uncorrected_errors\{host="[^"]*",controller="mc0",dimm="dimm1",label="CPU1_DIMM_A1"\} 1$'
    assert_line --regexp '^memsuite_check_diagnosis\{host="[^"]*",kind="EDAC uncorrected errors",subject="mc0 CPU1_DIMM_A1",severity="fail"\} 1$'
    run "$MS" check --ref ref.json --result "$C/result-node.json" --max-ce x
    assert_failure 2
    assert_output --partial "--max-ce: invalid value 'x'"
}

@test "diagnosis bad input: garbage from dmidecode, a reference with more slots, a reference without the block" {
    diag_ref
    FAKE_DMI=garbage MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-node.json"
    assert_success
    assert_output --partial 'note: memory population unavailable on this node: dmidecode lists no memory devices (VM?)'
    # recorded on a node with 16 slots, checked on one with 1 (the VM fixture)
    FAKE_DMI=vm MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref ref.json --result "$C/result-node.json"
    assert_failure 1
    assert_line 'FAIL  memory population: CPU0_DIMM_A1: reference 16 GB DDR4 3200 MT/s rank 2, not listed on this node'
    assert_output --partial 'note: the reference lists 16 slots, this node 1'
    # an older reference: the bandwidth is checked, the population was not recorded
    MEMSUITE_ASSUME_ROOT=1 run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
    assert_success
    assert_output --partial 'note: memory population not recorded in the reference (recorded before memsuite kept it); bandwidth alone is checked'
}

@test "a reference's run.threads past the tools' limit is a usage error (exit 2), the limit one number everywhere" {
    jq '.run.threads = 1025' "$C/ref-stream.json" >t1025.json
    run "$MS" check --ref t1025.json
    assert_failure 2
    assert_output --partial "invalid thread count '1025'"
    assert_output --partial "use whole numbers 1..1024"
    # the tools' MB_MAX_THREADS, run's and check's MS_MAX_THREADS and the
    # analyser's plan check are the same number
    local c sh py
    c=$(awk '$1 == "#define" && $2 == "MB_MAX_THREADS" { print $3 }' "$ROOT/common/affinity.h")
    sh=$(sed -n 's/^MS_MAX_THREADS=\([0-9]*\)$/\1/p' "$ROOT/scripts/lib/lists.sh")
    py=$(sed -n 's/^MAX_THREADS = \([0-9]*\)$/\1/p' "$ROOT/scripts/analysis/memsuite_analysis/rundir_check.py")
    [ -n "$c" ] && [ "$c" = "$sh" ] && [ "$c" = "$py" ] || { echo "C $c, bash $sh, analyser $py"; return 1; }
}

@test "a reference whose run the tool refuses (exit 2: e.g. under 4x LLC with --strict) is a usage error (exit 2), the tool's reason shown" {
    FAKE_FAIL=2 run "$MS" check --ref "$C/ref-stream.json" --ignore-load
    assert_failure 2
    assert_output --partial "the benchmark refused the reference's run (exit 2)"
    # a tool that cannot get its resources is still exit 3
    FAKE_FAIL=3 run "$MS" check --ref "$C/ref-stream.json" --ignore-load
    assert_failure 3
    assert_output --partial "the benchmark could not run (exit 3)"
}
