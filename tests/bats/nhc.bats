#!/usr/bin/env bats
# contrib/nhc/memsuite.nhc sourced as NHC would, with NHC's die/log/dbg
# stubbed to record their calls; memsuite check runs for real against the
# fake benchmarks and the idle fixture /proc.

load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"

# nhc ARGS...: source the check, call check_memsuite ARGS; prints the
# stubs' calls ("die 1 ...", "log ...", "dbg ...") and "return N".
nhc() {
    run bash -c '
        die() { echo "die $*"; }
        log() { echo "log $*"; }
        dbg() { echo "dbg $*"; }
        . "$0"
        rc=0; check_memsuite "$@" || rc=$?
        echo "return $rc"' "$ROOT/contrib/nhc/memsuite.nhc" "$@"
}

@test "NHC: PASS is a passing check (dbg only)" {
    export MEMSUITE_NHC_CMD="$MS"
    nhc -r "$C/ref-stream.json"
    assert_success
    assert_line --index 0 --regexp '^dbg memsuite: PASS 4/4 metrics within tolerance on '
    assert_line --index 1 "return 0"
    refute_output --partial "die "
}

@test "NHC: FAIL is die 1 with the summary; -a passes options, -p writes the Prometheus file" {
    export MEMSUITE_NHC_CMD="$MS" FAKE_RATE=5000
    nhc -r "$C/ref-stream.json" -a --retries -a 0 -p "$SANDBOX/m.prom"
    assert_line --index 0 --regexp '^die 1 memsuite: FAIL 4/4 metrics out of tolerance on .*after 1 attempt'
    assert_line --index 1 "return 1"
    grep -q '^memsuite_check_pass{.*} 0$' "$SANDBOX/m.prom"
}

@test "NHC: a busy node is logged, not failed; a bad reference or missing -r is die" {
    export MEMSUITE_NHC_CMD="$MS"
    sed -i 's/^MemAvailable: .*/MemAvailable:     500000 kB/' "$MEMSUITE_PROCFS/meminfo"
    nhc -r "$C/ref-stream.json"
    assert_line --index 0 --regexp '^log memsuite: ERROR node busy: MemAvailable 488\.3 MiB < 2 x .*\(not checked; NHC will check again\)$'
    assert_line --index 1 "return 0"
    nhc -r "$C/ref-not-json.json"
    assert_line --index 0 --regexp '^die 1 memsuite check could not run \(exit 2\): memsuite: check: reference .*ref-not-json.json is not a JSON object'
    assert_line --index 1 "return 1"
    nhc
    assert_line --index 0 "die 1 check_memsuite: -r REF is required (a reference recorded with memsuite check --record)"
    MEMSUITE_NHC_CMD=/nonexistent/memsuite nhc -r "$C/ref-stream.json"
    assert_line --index 0 --regexp '^die 1 memsuite check could not run \(exit 127\)'
}
