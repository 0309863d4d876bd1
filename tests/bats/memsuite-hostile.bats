#!/usr/bin/env bats
# memsuite under hostile input (issue 17, defects 6-14 and 16's script
# part): empty option values, empty references, results that failed their
# validation, --record fed anything, bad cells in report/compare, terminal
# escapes in node reports, file contents through options, the cpupower
# fallback under a fixture sysfs, junk sysfs values, stdout on /dev/full.
# Every test uses the fake benchmarks and fixture trees of
# tests/fixtures/memsuite-bats/helpers.

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"

# No raw control character (but newline) in FILE.
no_control_chars() {
    if LC_ALL=C grep -q $'[\x01-\x09\x0b-\x1f\x7f]' "$1"; then
        echo "raw control characters in $1:"; od -c "$1" | head -20
        return 1
    fi
}

# ---- defect 10: an empty option value never means "the default" ----------

@test "memsuite: an empty value for any value-taking option is a usage error, nothing runs" {
    local -a cases=(
        "run --sizes"    "run --threads"  "run --reps"     "run --cooldown"
        "run --bench"    "run --bind"     "run --out"      "run --resume"
        "run --profile"  "run --enforce --thp"
        "check --ref"    "check --ref $C/ref-stream.json --result"
        "check --ref $C/ref-stream.json --retries"
        "check --record --ref r.json --floor" "check --record --ref r.json --size"
        "cluster --ref $C/ref-stream.json --aggregate . --nodes"
        "cluster --ref" "cluster --ref $C/ref-stream.json --results"
        "cluster --ref $C/ref-stream.json --aggregate . --k"
        "report --tolerance"
    )
    local c n=0
    for c in "${cases[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$MS" $c ''
        [ "$status" -eq 2 ] || { echo "'$c' '' gave $status: $stderr"; return 1; }
        [[ "$stderr" == *"the value is empty"* ]] || { echo "'$c' '': $stderr"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -eq 20 ]
    [ ! -e memsuite-results ]
    [ ! -s "$FAKE_LOG" ]
}

@test "stream and mencal: --membind/--interleave/--cpunodebind '' are usage errors (exit 2)" {
    local o
    for o in --membind --interleave --cpunodebind; do
        run --separate-stderr "$BIN/stream" --allow-small -s 100000 -n 2 "$o" ''
        [ "$status" -eq 2 ] || { echo "stream $o '': $status"; return 1; }
        [[ "$stderr" == *"$o: invalid value '': empty"* ]] || { echo "$stderr"; return 1; }
        [ -z "$output" ]
        run --separate-stderr "$BIN/mencal" run seqread --size 4M --allow-cache --reps 1 "$o=" -q
        [ "$status" -eq 2 ] || { echo "mencal $o=: $status"; return 1; }
        [[ "$stderr" == *"$o: invalid value '': empty"* ]] || { echo "$stderr"; return 1; }
    done
}

@test "mencal stability: --duration with --iterations is refused, not ignored" {
    run --separate-stderr "$BIN/mencal" run stability --duration 0.3 --iterations 3 --size 4M --allow-cache -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--duration and --iterations both set the run length"* ]]
    [ -z "$output" ]
}

# ---- defect 6: an empty reference never passes -----------------------------

@test "check: an empty, blank or two-document reference is a usage error (exit 2)" {
    : >zero.json
    printf ' \n\t\n' >blank.json
    printf '%s\n%s\n' "$(cat "$C/ref-stream.json")" "$(cat "$C/ref-stream.json")" >two.json
    local r
    for r in zero.json blank.json; do
        run --separate-stderr "$MS" check --ref "$r" --result "$C/result-node.json"
        [ "$status" -eq 2 ] || { echo "$r: $status $output"; return 1; }
        [[ "$stderr" == *"reference $r is empty: no JSON document"* ]] || { echo "$stderr"; return 1; }
        [ -z "$output" ]
    done
    # a device is no reference file (a FIFO or a terminal would block)
    run --separate-stderr "$MS" check --ref /dev/null --result "$C/result-node.json"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"cannot read reference /dev/null: not a regular file"* ]]
    [ -z "$output" ]
    run --separate-stderr "$MS" check --ref two.json --result "$C/result-node.json"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"exactly one document is expected"* ]]
}

@test "check: a reference expecting 0, -5 or 1.8e308 is refused (exit 2)" {
    local v
    for v in 0 -5 1.8e308 1e15; do
        jq --argjson v "$v" '.metrics[0].expected = $v' "$C/ref-stream.json" >bad.json
        run --separate-stderr "$MS" check --ref bad.json --result "$C/result-node.json"
        [ "$status" -eq 2 ] || { echo "expected $v: $status"; return 1; }
        [[ "$stderr" == *'"expected" must be a number > 0 and below'* ]] || { echo "$stderr"; return 1; }
    done
}

# ---- defect 7: a result that failed validation never passes -----------------

@test "check --result: failed validation, incomplete or non-measured values are a FAIL naming why (exit 1)" {
    jq '.validation = {passed: false, epsilon: 1e-13}' "$C/result-node.json" >vfail.json
    jq '.records[2].validation = {passed: false}' "$C/result-node.json" >recfail.json
    jq '.records[3].metrics.best_rate_mbps.value = "fast"' "$C/result-node.json" >string.json
    local f v
    for f in vfail.json recfail.json; do
        run "$MS" check --ref "$C/ref-stream.json" --result "$f"
        [ "$status" -eq 1 ] || { echo "$f: $status"; return 1; }
        assert_line --regexp "^memsuite: FAIL result $f cannot validate .*failed its own validation \(validation.passed is false\)"
        refute_line --regexp '^memsuite: PASS'
    done
    assert_line --partial "record Add failed its own validation"
    for v in 0 -5 1e308; do
        jq --argjson v "$v" '.records[0].metrics.best_rate_mbps.value = $v' "$C/result-node.json" >val.json
        run "$MS" check --ref "$C/ref-stream.json" --result val.json
        [ "$status" -eq 1 ] || { echo "value $v: $status"; return 1; }
        assert_line --regexp "^memsuite: FAIL result val.json cannot validate .*Copy\.best_rate_mbps is .*, not a measured value"
    done
    run "$MS" check --ref "$C/ref-stream.json" --result string.json
    assert_failure 1
    assert_line --partial 'Triad.best_rate_mbps is "fast", not a measured value'
}

@test "check (running): a result with a value of 0 is a FAIL after the retries, never a PASS" {
    FAKE_RATE=0 run "$MS" check --ref "$C/ref-stream.json" --retries 0
    assert_failure 1
    # the value, or the time the fake derives from it, is what is refused
    assert_output --regexp "not a measured value|is above stats\.max"
    refute_line --regexp '^memsuite: PASS'
}

# ---- defect 9: --record refuses what cannot make a reference ----------------

@test "check --record: unfit results, mixed runs, absurd values and --floor 101 are refused (exit 2), nothing written" {
    jq '.validation = {passed: false}' "$C/result-node.json" >vfail.json
    jq '.config.array_bytes = 8388608' "$C/result-node.json" >r8m.json
    jq '.config.array_bytes = 16777216' "$C/result-node.json" >r16m.json
    jq '.tool = "mbw"' "$C/result-node.json" >mbw.json
    local -a cases=(
        "vfail.json|cannot record from vfail.json: the result is not to be trusted: it failed its own validation"
        "$C/result-incomplete.json|the result is incomplete"
        "r8m.json r16m.json|the results were not made by the same run"
        "$C/result-node.json mbw.json|the results were not made by the same run"
    )
    record_refuses "${cases[@]}"
    run --separate-stderr "$MS" check --record --ref out.json --result "$C/result-node.json" --floor 101
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--floor: invalid value '101'; use a percentage 0..--cap (30)"* ]]
    [ ! -e out.json ]
    # values that a result document can hold but no measurement has
    local v
    for v in 0 -5 1.8e308; do
        jq --argjson v "$v" '.records[1].metrics.best_rate_mbps.value = $v' "$C/result-node.json" >v.json
        run --separate-stderr "$MS" check --record --ref out.json --result v.json
        [ "$status" -eq 2 ] || { echo "value $v: $status"; return 1; }
        [[ "$stderr" == *"Scale.best_rate_mbps is "*"not a measured value"* ]] || { echo "$stderr"; return 1; }
        [ ! -e out.json ]
    done
    # results that vary too much would make a band over the cap (30%):
    # no reference is written (exit 1)
    jq '.records[0].metrics.best_rate_mbps.value = 100' "$C/result-node.json" >slow.json
    run --separate-stderr "$MS" check --record --ref out.json --result "$C/result-node.json" --result slow.json
    [ "$status" -eq 1 ]
    [[ "$stderr" == *'the runs vary too much to make a useful reference: Copy.best_rate_mbps ranged 100..18660.7 MB/s over 2 runs'* ]]
    [ ! -e out.json ]
    # the same results twice still record
    run "$MS" check --record --ref out.json --result "$C/result-node.json" --result "$C/result-node.json"
    assert_success
    [ -s out.json ]
}

# ---- defect 11: report and compare name bad cells ---------------------------

setup_run() {
    MEMSUITE_ASSUME_ROOT=0 "$MS" run --sizes 1M,4M --threads 1,2 --reps 2 --cooldown 0 --out "$1" 2>/dev/null
}

@test "report: each bad cell is counted and named, exit 1; the good ones still print" {
    setup_run base
    local id
    id=$(grep -v '^#' base/plan.tsv | head -n 1 | cut -f 1)
    local -a bad=(
        "empty|: >CELL|holds 0 JSON documents"
        "truncated|head -c 200 base/cells/$id.json >CELL.t && mv CELL.t CELL|not valid JSON"
        "wrong schema|jq '.schema = \"other/1\"' base/cells/$id.json >CELL.t && mv CELL.t CELL|has schema other/1"
        "deeply nested|python3 -c \"print('['*5000 + ']'*5000)\" >CELL|not valid JSON"
        "negative rate|jq '.records[0].metrics.best_rate_mbps.value = -5' base/cells/$id.json >CELL.t && mv CELL.t CELL|Copy.best_rate_mbps is -5"
        "zero rate|jq '.records[0].metrics.best_rate_mbps.value = 0' base/cells/$id.json >CELL.t && mv CELL.t CELL|Copy.best_rate_mbps is 0"
        "huge rate|jq '.records[0].metrics.best_rate_mbps.value = 1e308' base/cells/$id.json >CELL.t && mv CELL.t CELL|Copy.best_rate_mbps is 1e+308"
        "string rate|jq '.records[0].metrics.best_rate_mbps.value = \"1e4\"' base/cells/$id.json >CELL.t && mv CELL.t CELL|Copy.best_rate_mbps is \"1e4\""
        "failed validation|jq '.validation = {passed: false}' base/cells/$id.json >CELL.t && mv CELL.t CELL|failed its own validation"
    )
    local b name cmd want
    for b in "${bad[@]}"; do
        IFS='|' read -r name cmd want <<<"$b"
        rm -rf r && cp -r base r
        (cd . && eval "${cmd//CELL/r/cells/$id.json}")
        run --separate-stderr "$MS" report r
        [ "$status" -eq 1 ] || { echo "$name: exit $status"; return 1; }
        [[ "$output" == *"3/4 cells valid, 1 invalid, complete"* ]] || { echo "$name: $output"; return 1; }
        [[ "$output" == *"invalid: r/cells/$id.json: "*"$want"* ]] || { echo "$name: want '$want' in: $output"; return 1; }
        # the bad cell (1 MiB x 1 thread) has no row; no absurd number shows
        [[ ! "$output" =~ $'\n'\ +1\.0\ MiB\ +1\  ]] || { echo "$name: row printed: $output"; return 1; }
        [[ "$output" != *"100000000000000000000"* && "$output" != *" -5.0 "* ]]
        [[ "$stderr" == *"1 invalid cell file(s) in r"* ]] || { echo "$name: $stderr"; return 1; }
    done
    run "$MS" report base
    assert_success
    assert_line --regexp '4/4 cells valid, complete'
}

@test "report: no valid cell at all is exit 1, not '(no finished cells)' and 0" {
    setup_run r
    rm -f r/cells/*.json
    run --separate-stderr "$MS" report r
    [ "$status" -eq 1 ]
    # the run is complete, so the cells are missing (removed), not "not run"
    [[ "$output" == *"0/4 cells valid, 4 missing"* ]]
    [[ "$stderr" == *"no valid cell in r"* ]]
}

@test "compare: a corrupt env.json is an error (exit 2), never 'Environment differences: none'" {
    setup_run a
    cp -r a b
    local bad
    for bad in '' '{"facts": [' '[1,2]' 'not json'; do
        printf '%s' "$bad" >b/env.json
        run --separate-stderr "$MS" compare a b
        [ "$status" -eq 2 ] || { echo "env '$bad': $status"; return 1; }
        [[ "$stderr" == *"b/env.json is not a valid env.json"* ]] || { echo "$stderr"; return 1; }
        [[ "$output" != *"none"* ]]
        [[ "$stderr" != *"jq: error"* ]]
    done
}

@test "compare: an invalid cell is named and makes the exit 1" {
    setup_run a
    cp -r a b
    local id
    id=$(grep -v '^#' b/plan.tsv | tail -n 1 | cut -f 1)
    : >"b/cells/$id.json"
    run --separate-stderr "$MS" compare a b
    [ "$status" -eq 1 ]
    [[ "$output" == *"invalid: b/cells/$id.json: "* ]]
    [[ "$stderr" == *"1 invalid cell file(s)"* ]]
}

# ---- defect 12: terminal escapes from node reports --------------------------

@test "cluster --aggregate: control characters in a node report reach the terminal escaped" {
    local refid
    refid="sha256:$(jq -S -c . "$C/ref-stream.json" | sha256sum | cut -d' ' -f1)"
    mkdir res
    local name
    for name in $'n1\e]0;pwned\a\e[2J' $'n2\xc2\x9b31m\x7f' $'n3\x01\x08\r'; do
        jq -n --arg node "$name" --arg refid "$refid" '{schema: "memsuite/cluster-node/1", node: $node,
            run_id: "", ref: {id: $refid}, verdict: "FAIL", exit: 1, finished: "2024",
            summary: "memsuite: FAIL \($node)",
            metrics: [{record: "Triad", metric: "best_rate_mbps", value: 100}]}' \
            >"res/n$RANDOM.json"
    done
    run --separate-stderr "$MS" cluster --aggregate res --ref "$C/ref-stream.json"
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" >out.txt
    printf '%s\n' "$stderr" >err.txt
    no_control_chars out.txt
    no_control_chars err.txt
    grep -qF 'n1^[]0;pwned^G^[[2J' out.txt
    grep -qF 'n2M-^[31m^?' out.txt
    run --separate-stderr "$MS" cluster --aggregate res --ref "$C/ref-stream.json" --drain-suggest
    printf '%s\n%s\n' "$output" "$stderr" >drain.txt
    no_control_chars drain.txt
}

# ---- defect 13: file contents through options --------------------------------

@test "cluster --nodes @FILE: a line that is not a host name is refused (exit 2), the rest of the file never shown" {
    printf 'root:x:0:0:root:/root:/bin/bash\nsecond-line-secret\n' >passwd
    run --separate-stderr "$MS" cluster --ref "$C/ref-stream.json" --aggregate . --nodes @passwd
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--nodes: entry 1, 'root:x:0:0:root:/root:/bin/bash', is not a host name"* ]]
    [[ "$stderr$output" != *second-line-secret* ]]
    [[ "$output" != *MISSING* ]]
    printf 'n1\n\e[31mn2\n' >esc
    run --separate-stderr "$MS" cluster --ref "$C/ref-stream.json" --aggregate . --nodes @esc
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"entry 2, '^[[31mn2', is not a host name"* ]]
    run --separate-stderr "$MS" cluster --ref "$C/ref-stream.json" --aggregate . --nodes 'n1,a;b'
    [ "$status" -eq 2 ]
    SLURM_JOB_NODELIST='n[1-2],x$y' run --separate-stderr "$MS" cluster --ref "$C/ref-stream.json" --aggregate .
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"SLURM_JOB_NODELIST: entry 3"* ]]
}

@test "run --profile and profile show: a path is refused (exit 2) without reading the file" {
    printf 'first-line-secret\n' >secret
    local p
    for p in ../../../../etc/passwd "$PWD/secret" ../x ./tuned; do
        run --separate-stderr "$MS" run --profile "$p" --dry-run
        [ "$status" -eq 2 ] || { echo "$p: $status"; return 1; }
        [[ "$stderr" == *"not a path"* ]] || { echo "$stderr"; return 1; }
        [[ "$stderr" != *first-line-secret* && "$stderr" != *root:x:* ]]
        run --separate-stderr "$MS" profile show "$p"
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"not a path"* ]]
    done
}

# ---- defect 14: no cpupower under a fixture sysfs; values are read back -------

knob_set() {     # knob_set KNOB VALUE: ms_knob_set in a fresh memsuite shell
    bash -c 'set -euo pipefail; MS_LIB="$1/scripts/lib"; MS_SCRIPTS_DIR="$1/scripts"
             . "$MS_LIB/common.sh"; ms_use knobs; ms_knob_set "$2" "$3"' _ "$ROOT" "$@"
}

@test "governor: an unwritable fixture governor never calls cpupower; the failure is reported" {
    stub cpupower 'echo "cpupower $*" >>"$SANDBOX/cpupower.log"; exit 0'
    local g="$MEMSUITE_SYSFS/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    rm -f "$g" && mkdir "$g"      # as root a file cannot be made unwritable; a directory is
    run knob_set governor.cpu0 performance
    assert_failure 1
    assert_output "cannot write 'performance' to $g: not a regular file (a directory)"
    [ ! -e "$SANDBOX/cpupower.log" ]
}

@test "governor: a knob that is a link (here to /dev/null, where a write would not take) is refused, never written" {
    stub cpupower 'echo "cpupower $*" >>"$SANDBOX/cpupower.log"; exit 0'
    local g="$MEMSUITE_SYSFS/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    rm -f "$g" && ln -s /dev/null "$g"
    run knob_set governor.cpu0 performance
    assert_failure 1
    assert_output "cannot write 'performance' to $g: a symbolic link, not a kernel fact file"
    [ ! -e "$SANDBOX/cpupower.log" ]
}

# ---- defect 16 (script part) ---------------------------------------------------

@test "a 300-character MEMSUITE_NODE_NAME is a usage error, not a bash error" {
    mkdir res
    MEMSUITE_NODE_NAME=$(printf 'n%.0s' {1..300}) run --separate-stderr "$MS" cluster --node-run \
        --ref "$C/ref-stream.json" --results res
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"MEMSUITE_NODE_NAME: 'nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn'... (300 bytes) is not a node name"* ]]
    [[ "$stderr" != *"line "[0-9]* ]]
    [ -z "$(ls res)" ]
}

@test "non-numeric sysfs/procfs values give no raw bash errors" {
    local f
    while IFS= read -r f; do
        printf 'x1;$(id) 9z\n' >"$f"
    done < <(find "$MEMSUITE_SYSFS/devices/system/cpu" -path '*cache/index*' \( -name level -o -name size \); \
             echo "$MEMSUITE_PROCFS/sys/vm/swappiness")
    run --separate-stderr "$MS" env
    assert_success
    [[ "$output" == *"swappiness"*"not a number"* ]]
    [[ "$stderr" != *"expression"* && "$stderr" != *"line "[0-9]* ]]
    run --separate-stderr "$MS" run --dry-run --sizes 1M
    assert_success
    [[ "$stderr" != *"expression"* && "$stderr" != *"line "[0-9]* ]]
}

@test "check with stdout on /dev/full exits 3 with a message, not 1 (FAIL)" {
    run --separate-stderr bash -c '"$1" check --ref "$2" --result "$3" >/dev/full' _ "$MS" "$C/ref-stream.json" "$C/result-node.json"
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"cannot write to standard output"* ]]
    run --separate-stderr bash -c '"$1" check --ref "$2" >/dev/full' _ "$MS" "$C/ref-stream.json"
    [ "$status" -eq 3 ]
}
