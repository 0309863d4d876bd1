#!/usr/bin/env bats
# tests/run-tests.sh, the runner behind `make test`: Bats files in lanes
# side by side, "# runs alone:" files after them with nothing beside,
# every file's TAP counted, a failed or crashed file a failure, a bad
# lane count a usage error.  Each test runs the runner on a small tree of
# its own (the runner finds its tests beside itself).

load test_helper

local_setup() {
    T="$SANDBOX/tree"
    mkdir -p "$T/tests/bats" "$T/build/tests" "$T/bin"
    cp "$ROOT/tests/run-tests.sh" "$T/tests/"
    export RT_LOG="$SANDBOX/events.log"
    : >"$RT_LOG"
}

# case_line NAME BODY: one Bats test case, NAME running BODY (the word is
# spelled "@" "test" here: Bats would read it as a case of this file)
case_line() { printf '%stest "%s" { %s; }\n' @ "$1" "$2"; }

# lane_file NAME PEER: a file whose one test logs its start, waits (3 s at
# most) for PEER's start, logs whether it saw PEER running (started, not
# ended), and logs its end a second later (so a PEER beside it sees it
# running too).
lane_file() {
    case_line "$1" "echo 'start $1' >>\"\$RT_LOG\"
    for _ in \$(seq 30); do grep -q '^start $2\$' \"\$RT_LOG\" && break; sleep 0.1; done
    if grep -q '^start $2\$' \"\$RT_LOG\" && ! grep -q '^end $2\$' \"\$RT_LOG\"; then echo '$1 saw $2' >>\"\$RT_LOG\"; fi
    sleep 1
    echo 'end $1' >>\"\$RT_LOG\"" >"$T/tests/bats/$1.bats"
}

@test "two lanes run two files side by side; a 'runs alone' file starts after both ended" {
    lane_file a b
    lane_file b a
    {
        echo "# runs alone: it needs the machine to itself"
        case_line solo 'echo "start solo" >>"$RT_LOG"'
        case_line "solo skips" 'skip "counted as skipped, never as passed"'
    } >"$T/tests/bats/solo.bats"
    run env MEMSUITE_TEST_JOBS=2 "$T/tests/run-tests.sh" build bin
    assert_success
    assert_line "# bats: 3 files, 2 in 2 lane(s), then 1 alone"
    assert_line --regexp '^# bats: solo\.bats \([0-9]+\.[0-9] s\)$'
    assert_line "ok 2 solo skips # skip counted as skipped, never as passed"
    assert_line "3 passed, 0 failed, 1 skipped"
    run cat "$RT_LOG"
    assert_line "a saw b"
    assert_line "b saw a"
    # solo's start is the last event: both lane files had ended
    [ "$(tail -n 1 "$RT_LOG")" = "start solo" ]
    [ "$(grep -c '^end ' "$RT_LOG")" = 2 ]
}

@test "one lane runs the files one by one" {
    lane_file a b
    lane_file b a
    run env MEMSUITE_TEST_JOBS=1 "$T/tests/run-tests.sh" build bin
    assert_success
    assert_line "# bats: 2 files, 2 in 1 lane(s), then 0 alone"
    assert_line "2 passed, 0 failed"
    run cat "$RT_LOG"
    refute_line "a saw b"
    refute_line "b saw a"
}

@test "a file that fails, or cannot be parsed, fails the run; every other file still counts" {
    case_line good true >"$T/tests/bats/good.bats"
    case_line bad false >"$T/tests/bats/bad.bats"
    printf '%stest "broken" {\n' @ >"$T/tests/bats/broken.bats"
    run env MEMSUITE_TEST_JOBS=2 "$T/tests/run-tests.sh" build bin
    assert_failure 1
    assert_line --regexp '^not ok 1 bad$'
    assert_line "not ok 1 setup_file failed"    # Bats' own words for the parse error
    assert_line "1 passed, 2 failed"
}

@test "a Bats that exits non-zero without a failed test (a crash) is a failure" {
    case_line good true >"$T/tests/bats/good.bats"
    # a Bats that dies mid-file: its plan printed, no test result, exit 3
    stub bats 'echo 1..1; exit 3'
    run env MEMSUITE_TEST_JOBS=1 "$T/tests/run-tests.sh" build bin
    assert_failure 1
    assert_line "not ok - good.bats: bats exited 3 without a failed test (crash or syntax error?)"
    assert_line "0 passed, 1 failed"
}

@test "a unit binary that crashes without a failed check is a failure" {
    printf '#!/bin/sh\necho "ok 1 - fine"\nkill -SEGV $$\n' >"$T/build/tests/test_crash"
    chmod +x "$T/build/tests/test_crash"
    run env MEMSUITE_TEST_JOBS=1 "$T/tests/run-tests.sh" build bin
    assert_failure 1
    assert_line "ok 1 - fine"
    assert_line --regexp '^not ok - test_crash exited 139 without a failed check \(crash\?\)$'
    assert_line "1 passed, 1 failed"
}

@test "MEMSUITE_TEST_JOBS must be a count of 1 or more (exit 2, named)" {
    case_line good true >"$T/tests/bats/good.bats"
    for bad in 0 00 two -1 " 2"; do
        run env MEMSUITE_TEST_JOBS="$bad" "$T/tests/run-tests.sh" build bin
        assert_failure 2
        assert_line "run-tests: MEMSUITE_TEST_JOBS='$bad' is not a count of 1 or more"
    done
}

@test "named Bats files run alone of the others (names or paths); one that does not exist is a usage error before anything runs" {
    case_line one 'echo "ran one" >>"$RT_LOG"' >"$T/tests/bats/one.bats"
    case_line two 'echo "ran two" >>"$RT_LOG"' >"$T/tests/bats/two.bats"
    case_line three 'echo "ran three" >>"$RT_LOG"' >"$T/tests/bats/three.bats"
    run env MEMSUITE_TEST_JOBS=1 "$T/tests/run-tests.sh" build bin one.bats "$T/tests/bats/three.bats"
    assert_success
    assert_line "2 passed, 0 failed"
    run sort "$RT_LOG"
    assert_output $'ran one\nran three'
    : >"$RT_LOG"
    printf '#!/bin/sh\necho "ok 1 - ran" >>"%s"\n' "$RT_LOG" >"$T/build/tests/test_unit"
    chmod +x "$T/build/tests/test_unit"
    run env MEMSUITE_TEST_JOBS=1 "$T/tests/run-tests.sh" build bin one.bats nosuch.bats
    assert_failure 2
    assert_line "run-tests: no Bats file '$T/tests/bats/nosuch.bats'"
    run cat "$RT_LOG"
    assert_output ''
}
