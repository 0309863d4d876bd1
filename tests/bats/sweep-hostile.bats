#!/usr/bin/env bats
# scripts/sweep-hostile.sh, the hostile sweep's runner: its classifier is
# tested on planted cases (one per outcome), its case list is stable and
# named, and one case reruns by its id.  The sweep itself is
# `make check-hostile` (minutes), not part of `make test`.

bats_require_minimum_version 1.5.0
load test_helper

SWEEP="$ROOT/scripts/sweep-hostile.sh"

@test "the classifier gives each planted case its outcome: ok, crash, hang, code-exec, wrong" {
    run "$SWEEP" --self-test --timeout 2
    assert_success
    assert_line "ok self-002: a payload that runs: CODE-EXEC"
    assert_line "ok self-004: a command that never ends: HANG"
    assert_line "ok self-005: death by SIGSEGV: CRASH"
    assert_line "ok self-013: a raw control character in the output: WRONG"
    assert_line --regexp '^self-test: [0-9]+ planted cases, 0 misjudged$'
}

@test "the case list: over 930 cases, ids FAMILY-NNN, unique, the same on every run" {
    "$SWEEP" --list >a.txt
    "$SWEEP" --list >b.txt
    cmp a.txt b.txt
    [ "$(wc -l <a.txt)" -ge 930 ]
    ! grep -qvE $'^[a-z-]+-[0-9]{3}\t[ -~]+$' a.txt
    [ -z "$(cut -f 1 a.txt | sort | uniq -d)" ]
    # every family of the issue is there
    local f
    for f in opt-stream opt-mbw opt-mencal omp-env opt-memsuite result inject rundir ref cluster output signal; do
        grep -q "^$f-001"$'\t' a.txt || { echo "no family $f"; return 1; }
    done
}

@test "one case reruns by id with its command and output; a bad family or id is a usage error" {
    run "$SWEEP" --case opt-stream-001 -v
    assert_success
    assert_line --partial "OK opt-stream-001: stream --array-size '-1'"
    assert_line --regexp '^  command: .*/bin/stream -n 2 -q --array-size -1$'
    assert_line --regexp '^  exit: 2 '
    assert_line --regexp '^1 cases: 1 ok, 0 crash, 0 hang, 0 code-exec, 0 wrong '
    run --separate-stderr "$SWEEP" --family nope
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"unknown family nope; the families are: "* ]]
    run --separate-stderr "$SWEEP" --case nope-001
    [ "$status" -eq 2 ]
}
