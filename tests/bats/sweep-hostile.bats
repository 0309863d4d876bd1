#!/usr/bin/env bats
# scripts/sweep-hostile.sh, the hostile sweep's runner: its classifier is
# tested on planted cases (one per outcome), its case list is stable and
# named, and one case reruns by its id.  The sweep itself is
# `make check-hostile` (minutes), not part of `make test`.

bats_require_minimum_version 1.5.0
load test_helper

SWEEP="$ROOT/scripts/sweep-hostile.sh"

@test "the classifier gives each planted case its outcome: ok, crash, hang, code-exec, internal, overwrite, wrong (by kind)" {
    run "$SWEEP" --self-test --timeout 2
    assert_success
    assert_line "ok self-002: a payload that runs: CODE-EXEC"
    assert_line "ok self-004: a command that never ends: HANG"
    assert_line "ok self-005: death by SIGSEGV: CRASH"
    assert_line "ok self-013: a raw control character in the output: WRONG"
    assert_line "ok self-021: an analyser exception: INTERNAL"
    assert_line "ok self-022: an output written over an input: OVERWRITE"
    assert_line "ok self-023: an input left as it was: OK"
    assert_line "ok self-024: a process left holding stdout after the command ends: HANG"
    assert_line "ok self-026: a huge value echoed uncut: WRONG"
    # the table counts each planted case in its class, a WRONG one by its kind
    assert_line --regexp '^family +ok +crash +hang +code-exec +internal +overwrite +wrong-exit +message +wrong$'
    assert_line --regexp '^self +6 +6 +2 +2 +1 +1 +1 +6 +3$'
    # planted hangs, crashes, internal errors and overwrites fail a sweep: the check can fail
    assert_line --regexp '^self-test: [0-9]+ planted cases, 0 misjudged; as a sweep: exit 1 \(CODE-EXEC, CRASH, HANG, INTERNAL, OVERWRITE\)$'
}

@test "a sweep with a planted hang or crash exits 1 and counts it in its family's row" {
    run "$SWEEP" --self-test --timeout 2 --case self-004 --case self-005 --case self-001
    assert_success
    assert_line --regexp '^self +1 +1 +1 +0 +0 +0 +0 +0 +0$'
    assert_line --regexp 'as a sweep: exit 1 \(CRASH, HANG\)$'
    run "$SWEEP" --self-test --timeout 2 --case self-001 --case self-010
    assert_line --regexp 'as a sweep: exit 0 \(nothing fatal\)$'
}

@test "the case list: over 3,000 cases, ids FAMILY-NNN, unique, the same on every run (fresh values never in it)" {
    "$SWEEP" --list >a.txt
    "$SWEEP" --list >b.txt
    cmp a.txt b.txt
    [ "$(wc -l <a.txt)" -ge 3000 ]
    ! grep -qvE $'^[a-z-]+-[0-9]{3}\t[ -~]+$' a.txt
    [ -z "$(cut -f 1 a.txt | sort | uniq -d)" ]
    # every family of the issue is there
    local f
    for f in opt-stream opt-mbw opt-mencal omp-env opt-memsuite result inject rundir ref cluster output signal \
        nodelist facttree outtarget closedout cellstring refstring nodestring stats unitscale overinput \
        plandamage threads mbwstrict hugearg escape killrun stopcheck concurrent; do
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
