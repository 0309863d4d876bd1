#!/usr/bin/env bats
# memsuite check against hostile references, results and output paths: the
# check part of the third hardening sweep (issue 23).  Each test is named
# after the sweep's defect number; each failed on the code before the fix.

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"

# prom_value FILE FAMILY: the value of the family's one sample in FILE
prom_value() { awk -v f="$2" 'index($0, f "{") == 1 { print $NF; exit }' "$1"; }

@test "4: --ref FIFO and --result FIFO are refused (exit 2) instead of blocking" {
    mkfifo ff
    run timeout 20 "$MS" check --ref ff --result "$C/result-node.json"
    assert_failure 2
    assert_output "memsuite: check: cannot read reference ff: not a regular file (a FIFO or a device); name the reference file itself"
    run timeout 20 "$MS" check --ref "$C/ref-stream.json" --result ff
    assert_failure 2
    assert_output "memsuite: check: --result: cannot read ff: it is a FIFO, not a regular file"
    run timeout 20 "$MS" check --record --ref out.json --result ff
    assert_failure 2
    [ ! -e out.json ]
}

@test "10: a reference without units keeps its columns: PASS in text, json and prom; --record from unit-less results leaves the unit out" {
    jq 'del(.metrics[].unit)' "$C/ref-stream.json" >nounit.json
    # --separate-stderr: the note that the reference has no memory block is on stderr
    run --separate-stderr "$MS" check --ref nounit.json --result "$C/result-node.json"
    assert_success
    # no unit in the reference: the result's is shown, nothing is compared
    assert_line --index 0 "PASS  Copy.best_rate_mbps          18660.7 MB/s  expected 18500.0 (-10%/+25%: 16650.0..23125.0)"
    assert_line --index 4 --regexp '^memsuite: PASS 4/4 metrics within tolerance on '
    run --separate-stderr "$MS" check --ref nounit.json --result "$C/result-node.json" --format json
    assert_success
    [ "$(jq -r '"\(.verdict) \(.exit) \(.metrics[0].unit == "") \(.metrics[0].expected) \(.metrics[0].value)"' <<<"$output")" = "PASS 0 true 18500 18660.7" ]
    run --separate-stderr "$MS" check --ref nounit.json --result "$C/result-node.json" --format prom
    assert_success
    assert_line --regexp '^memsuite_check_value\{host="[^"]*",record="Copy",metric="best_rate_mbps",unit=""\} 18660\.7$'
    assert_line --regexp '^memsuite_check_expected\{host="[^"]*",record="Triad",metric="best_rate_mbps",unit=""\} 20600$'
    # a result without units records a reference without them, which a
    # healthy node then passes
    jq '.records[].metrics[] |= del(.unit)' "$C/result-node.json" >nu.json
    run "$MS" check --record --ref r.json --result nu.json
    assert_success
    [ "$(jq '[.metrics[] | has("unit")] | any' r.json)" = false ]
    run "$MS" check --ref r.json --result nu.json
    assert_success
    run "$MS" check --ref r.json --result "$C/result-node.json"
    assert_success
    # a unit that is no string is a bad reference
    jq '.metrics[0].unit = 5' "$C/ref-stream.json" >u5.json
    run "$MS" check --ref u5.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --partial '(Copy.best_rate_mbps): "unit" must be a string (or left out)'
}

@test "14: --prom FILE says ERROR with the exit status on every early exit, never the last PASS" {
    pass_first() {
        "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom p.prom >/dev/null 2>&1
        [ "$(prom_value p.prom memsuite_check_pass)" = 1 ]
    }
    is_error() {    # is_error EXIT
        [ "$(prom_value p.prom memsuite_check_pass)" = 0 ] &&
            [ "$(prom_value p.prom memsuite_check_exit_code)" = "$1" ] &&
            grep -q '^memsuite_check_verdict{host="[^"]*",verdict="ERROR"} 1$' p.prom ||
            { cat p.prom; return 1; }
    }
    # a bad reference (exit 2)
    pass_first
    echo '{}' >bad.json
    run "$MS" check --ref bad.json --prom p.prom
    assert_failure 2
    is_error 2
    # the lock held by another memsuite (exit 3)
    pass_first
    exec {lockfd}>"$MEMSUITE_LOCK"
    flock -n "$lockfd"
    run "$MS" check --ref "$C/ref-stream.json" --prom p.prom
    exec {lockfd}>&-
    assert_failure 3
    assert_output --partial "holds the lock"
    is_error 3
    # a bad option anywhere on the line, even before --prom (exit 2)
    pass_first
    run "$MS" check --bogus --ref "$C/ref-stream.json" --prom p.prom
    assert_failure 2
    assert_output "memsuite: check: unknown option '--bogus'; see 'memsuite help check'"
    is_error 2
    pass_first
    run "$MS" check --ref "$C/ref-stream.json" --retries many --prom p.prom
    assert_failure 2
    is_error 2
    # the benchmark missing (exit 3)
    pass_first
    rm "$MEMSUITE_BIN/stream"
    run "$MS" check --ref "$C/ref-stream.json" --prom p.prom
    assert_failure 3
    is_error 3
    # stopped by SIGTERM while measuring (exit 143)
    cp "$FIXTURES/memsuite-bin/stream" "$MEMSUITE_BIN/stream"
    pass_first
    local pid rc=0
    FAKE_SLEEP=60 "$MS" check --ref "$C/ref-stream.json" --prom p.prom >/dev/null 2>&1 &
    pid=$!
    wait_for "$FAKE_STARTED"
    kill -TERM "$pid"
    wait "$pid" || rc=$?
    [ "$rc" -eq 143 ]
    is_error 143
    if command -v promtool >/dev/null; then
        run promtool check metrics <p.prom
        assert_success
    fi
}

@test "18: --record refuses results without their headline metric, or with one from fewer runs than the others (exit 2), writing nothing" {
    jq 'del(.records[3].metrics.best_rate_mbps)' "$C/result-node.json" >notriad.json
    jq '.records[3].metrics = {other_rate: {value: 5000, unit: "MB/s"}}' "$C/result-node.json" >substitute.json
    jq '.records[3].metrics.best_rate_mbps.value = null' "$C/result-node.json" >unavailable.json
    jq 'del(.records[3])' "$C/result-node.json" >norecord.json
    local -a cases=(
        "notriad.json|record Triad of notriad.json has no headline metric"
        "$C/result-node.json notriad.json|record Triad of notriad.json has no headline metric"
        "$C/result-node.json substitute.json|the results disagree on the headline metric of Triad: Triad.best_rate_mbps in $C/result-node.json, Triad.other_rate in substitute.json"
        "$C/result-node.json unavailable.json|Triad.best_rate_mbps is reported unavailable in unavailable.json"
        "$C/result-node.json norecord.json|Triad.best_rate_mbps is in 1 of the 2 results: norecord.json lacks it"
    )
    record_refuses "${cases[@]}"
    # the same run twice records every metric from both
    run "$MS" check --record --ref out.json --result "$C/result-node.json" --result "$C/result-node.json"
    assert_success
    [ "$(jq -c '[.metrics[].runs]' out.json)" = "[2,2,2,2]" ]
    rm out.json
    # recording by running: the second run reports Triad unavailable
    mv "$MEMSUITE_BIN/stream" "$MEMSUITE_BIN/stream.fake"
    ms_stub "$MEMSUITE_BIN" stream "
\"\$0.fake\" \"\$@\" || exit
out=''
while [ \$# -gt 0 ]; do [ \"\$1\" = --output ] && out=\$2; shift; done
if [ -e '$SANDBOX/ran' ]; then
    jq '.records[3].metrics.best_rate_mbps.value = null' \"\$out\" >\"\$out.t\" && mv \"\$out.t\" \"\$out\"
fi
touch '$SANDBOX/ran'"
    run --separate-stderr "$MS" check --record --ref out.json --runs 2 --threads 2 --reps 4
    assert_failure 2
    [[ "$stderr" == *"could not record the reference: Triad.best_rate_mbps is reported unavailable in run 2 of 2 (spread)" ]] ||
        { echo "$stderr"; return 1; }
    [ ! -e out.json ]
}

@test "21: a reference made with another tool (made_with.tool) is refused (exit 2); --force makes it a note" {
    "$MS" check --record --ref r.json --result "$C/result-node.json" >/dev/null 2>&1
    jq '.made_with.tool = "mbw" | del(.run.bench)' r.json >mbw-ref.json
    run "$MS" check --ref mbw-ref.json --result "$C/result-node.json"
    assert_failure 2
    assert_output --regexp '^memsuite: ERROR reference mbw-ref\.json was made with other settings: tool "mbw" in the reference, "stream" in the result; '
    run "$MS" check --ref mbw-ref.json --result "$C/result-node.json" --force
    assert_success
    assert_output --partial 'note: the reference was made with other settings: tool "mbw" in the reference, "stream" in the result (--force)'
}

@test "24: exit codes as the README's tables say: unknown scenario 2 (check, record, run --dry-run), --prom unwritable 3, mixed units 2" {
    jq '.run.bench = "mencal:bogus"' "$C/ref-stream.json" >bogus.json
    run "$MS" check --ref bogus.json
    assert_failure 2
    assert_output --partial "reference bogus.json: run.bench: mencal has no scenario 'bogus'"
    run grep -c '^mencal run' "$FAKE_LOG"
    assert_output 0                     # refused before anything ran
    run "$MS" check --record --ref out.json --bench mencal:bogus
    assert_failure 2
    assert_output --partial "mencal has no scenario 'bogus'"
    run "$MS" run --bench mencal:bogus --dry-run --sizes 256M --threads 1
    assert_failure 2
    assert_output "memsuite: run: --bench: mencal has no scenario 'bogus' (it has: seqread,randread,mixed,concurrent,stability,sweep, and memsuite's randread-sweep)"
    run "$MS" run --bench mencal:randread --dry-run --sizes 256M --threads 1
    assert_success
    mkdir d
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom d
    assert_failure 3
    assert_output "memsuite: check: --prom: cannot write 'd': is a directory; name a file, e.g. 'd/result.json'"
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom nowhere/x
    assert_failure 3
    # the same metric in MB/s and in GB/s: unfit to record, not "too noisy"
    jq '.records[3].metrics.best_rate_mbps |= (.unit = "GB/s" | .value = 20.7)' "$C/result-node.json" >gb.json
    run --separate-stderr "$MS" check --record --ref out.json --result "$C/result-node.json" --result gb.json
    assert_failure 2
    [[ "$stderr" == *"Triad.best_rate_mbps is in MB/s in $C/result-node.json but in GB/s in gb.json; record results in one unit"* ]]
    [[ "$stderr" != *"vary too much"* ]]
    [ ! -e out.json ]
}

@test "30: caret notation for text from files; a failed write names its reason; --runs says the range it checks" {
    # control characters from a result's tool, its CPU model, and record names
    jq '.tool = "st\u001b[31mream"' "$C/result-node.json" >esc-tool.json
    run "$MS" check --ref "$C/ref-stream.json" --result esc-tool.json
    assert_failure 2
    assert_output "memsuite: check: result esc-tool.json is from 'st^[[31mream' but the reference is for 'stream'"
    "$MS" check --record --ref r.json --result "$C/result-node.json" >/dev/null 2>&1
    jq '.made_with.env.cpu_model = "Intel"' r.json >intel.json
    jq '.sysinfo.cpu_model = "AMD\u0007\u001b]0;x"' "$C/result-node.json" >esc-cpu.json
    run "$MS" check --ref intel.json --result esc-cpu.json
    assert_failure 2
    assert_output --partial 'cpu_model "Intel" in the reference, "AMD^G^[]0;x" here'
    run "$MS" check --ref intel.json --result esc-cpu.json --force
    assert_success
    assert_output --partial '"AMD^G^[]0;x" here (--force)'
    jq '.metrics[0].record = "Co\u001b[2Jpy"' "$C/ref-stream.json" >esc-rec.json
    run --separate-stderr "$MS" check --ref esc-rec.json --result "$C/result-node.json"
    assert_failure 1
    assert_line --index 0 "FAIL  Co^[[2Jpy.best_rate_mbps      missing from the result (expected 18500.0 MB/s)"
    for fmt in text prom; do
        "$MS" check --ref esc-rec.json --result "$C/result-node.json" --format "$fmt" >out.txt 2>&1 || true
        ! grep -q $'\e' out.txt || { echo "$fmt: raw ESC"; return 1; }
    done
    grep -q 'record="Co^\[\[2Jpy"' out.txt
    # writes to a full device say why (the last line: an older reference
    # also has its note that the memory population was not recorded)
    run --separate-stderr "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom /dev/full
    assert_failure 3
    [ "${stderr##*$'\n'}" = "memsuite: check: cannot write the Prometheus file '/dev/full': write failed: No space left on device; check the disk, device or pipe" ]
    run --separate-stderr "$MS" check --record --ref /dev/full --result "$C/result-node.json"
    assert_failure 3
    [ "${stderr##*$'\n'}" = "memsuite: check: could not record the reference: cannot write the reference '/dev/full': write failed: No space left on device; check the disk, device or pipe" ]
    run --separate-stderr bash -c '"$1" check --ref "$2" --result "$3" --format json >/dev/full' _ "$MS" "$C/ref-stream.json" "$C/result-node.json"
    assert_failure 3
    [ "${stderr##*$'\n'}" = "memsuite: check: cannot write to standard output: No space left on device; the verdict is lost" ]
    run --separate-stderr bash -c '"$1" check --record --ref r2.json --result "$2" >/dev/full' _ "$MS" "$C/result-node.json"
    assert_failure 3
    [[ "$stderr" == *"wrote r2.json, but cannot print its summary: No space left on device" ]]
    [ -s r2.json ]
    # a closed stdout still leaves the real verdict in the Prometheus file
    run bash -c '"$1" check --ref "$2" --result "$3" --prom p.prom >/dev/full' _ "$MS" "$C/ref-stream.json" "$C/result-node.json"
    assert_failure 3
    [ "$(prom_value p.prom memsuite_check_pass)" = 1 ]
    # stderr on a full device: messages are lost, the exit codes stay
    # (before: every message's failed write ended check with 1, FAIL)
    echo '{}' >bad.json
    run bash -c '"$1" check --ref "$2" --result "$3" 2>/dev/full' _ "$MS" bad.json "$C/result-node.json"
    assert_failure 2
    run bash -c '"$1" check --ref "$2" --retries 0 2>/dev/full' _ "$MS" "$C/ref-stream.json"
    assert_success
    assert_line --regexp '^memsuite: PASS 4/4 '
    # the HTML report through the same writer
    "$MS" run --sizes 1M --threads 1 --reps 2 --cooldown 0 --out rd >/dev/null 2>&1
    run --separate-stderr "$MS" report --html --output /dev/full rd
    assert_failure 3
    [ "$stderr" = "memsuite: report: cannot write the HTML report '/dev/full': write failed: No space left on device; check the disk, device or pipe" ]
    # --runs: the message names the range that is checked
    local v
    for v in -1 0 1001; do
        run "$MS" check --record --ref out.json --runs "$v" --result "$C/result-node.json"
        assert_failure 2
        assert_output "memsuite: check: --runs: invalid value '$v'; use a whole number 1..1000"
    done
    run "$MS" check --record --ref out.json --runs 1 --result "$C/result-node.json"
    assert_success
    # a full session temp directory (root: a private 64 KiB tmpfs) is named
    if [ "$(id -u)" = 0 ] && unshare -m --propagation private true 2>/dev/null; then
        mkdir full
        run --separate-stderr unshare -m --propagation private bash -c '
            mount -t tmpfs -o size=64k memsuite-test-full "$1" || exit 98
            dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null
            TMPDIR=$1 "$2" check --ref "$3" --result "$4"' _ "$SANDBOX/full" "$MS" "$C/ref-stream.json" "$C/result-node.json"
        assert_failure 3
        [[ "$stderr" == "memsuite: check: cannot write in the temp directory $SANDBOX/full/memsuite."*": No space left on device; set TMPDIR to a directory with space" ]] ||
            { echo "$stderr"; return 1; }
    fi
}

@test "31: when an idle look is skipped, the text says so (JSON lists it in idle.skipped)" {
    # the fixture tree has no process directories and no pressure files:
    # those looks are skipped
    export MEMSUITE_BUSY_WINDOW=0.05
    run --separate-stderr "$MS" check --ref "$C/ref-stream.json" --retries 0 --format json
    assert_success
    local skipped
    skipped=$(jq -r '.idle.skipped' <<<"$output")
    [[ "$skipped" == *"not judged"* ]] || { echo "$skipped"; return 1; }
    run --separate-stderr "$MS" check --ref "$C/ref-stream.json" --retries 0
    assert_success
    assert_line --regexp '^memsuite: PASS 4/4 '
    [[ "$stderr" == *"note: not every idle look was taken ($skipped); the node was judged idle on the others"* ]] ||
        { echo "$stderr"; return 1; }
    # no idle look (a given result): no such note
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
    assert_success
    refute_output --partial "idle look"
}

@test "also: a reference of 200 metrics is read with as many jq calls as one of 4" {
    jq_calls() {    # jq_calls REF RESULT: how many times check ran jq
        : >jq.count
        ms_stub "$STUBS" jq "echo >>'$SANDBOX/jq.count'; exec $(command -v jq) \"\$@\""
        "$MS" check --ref "$1" --result "$2" >/dev/null 2>&1 || { rm "$STUBS/jq"; return 1; }
        rm "$STUBS/jq"
        wc -l <jq.count
    }
    jq '.records = [range(0; 200) as $i | { name: "R\($i)", metrics: { best_rate_mbps: { value: 1000, unit: "MB/s" } } }]' \
        "$C/result-node.json" >big-res.json
    jq '.metrics = [range(0; 200) as $i | { record: "R\($i)", metric: "best_rate_mbps", unit: "MB/s",
                                            expected: 1000, lower_pct: 10, upper_pct: null }]' "$C/ref-stream.json" >big-ref.json
    jq '.metrics = .metrics[0:4]' big-ref.json >small-ref.json
    local small big
    small=$(jq_calls small-ref.json big-res.json)
    big=$(jq_calls big-ref.json big-res.json)
    [ "$small" -gt 0 ]
    [ "$big" -eq "$small" ] || { echo "4 metrics: $small jq calls; 200 metrics: $big"; return 1; }
}

@test "also: a result whose config lacks the run's sizes is checked, not exit 3 (jq failed)" {
    # ms_res_run_block made no object at all when one member was missing
    jq '.config = {}' "$C/result-node.json" >noconfig.json
    run "$MS" check --ref "$C/ref-stream.json" --result noconfig.json
    assert_success
    assert_line --regexp '^memsuite: PASS 4/4 metrics within tolerance on '
}
