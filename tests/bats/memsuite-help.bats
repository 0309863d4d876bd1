#!/usr/bin/env bats
# memsuite help, dispatch, the Summary/Usage headers and MEMSUITE_DEBUG.

load test_helper
load ../fixtures/memsuite-bats/helpers

@test "help lists every command with its summary" {
    run "$MS" help
    assert_success
    local f name summary
    for f in "$ROOT"/scripts/lib/cmd-*.sh; do
        name="${f##*/cmd-}"; name="${name%.sh}"
        summary=$(sed -n 's/^# Summary: //p' "$f")
        [ -n "$summary" ]
        assert_line --partial "$name"
        assert_output --partial "$summary"
    done
}

@test "every command file starts with Summary and Usage lines" {
    local f
    for f in "$ROOT"/scripts/lib/cmd-*.sh; do
        run head -n 1 "$f"
        assert_output --regexp '^# Summary: .+'
        run grep -c '^# Usage: memsuite ' "$f"
        assert_output 1
    done
}

@test "help CMD prints the usage and the help text" {
    run "$MS" help check
    assert_success
    assert_line --index 0 --regexp '^Usage: memsuite check --ref FILE'
    assert_output --partial "--retries N"
    run "$MS" run --help
    assert_success
    assert_line --index 0 --regexp '^Usage: memsuite run '
}

@test "no command: usage on stderr, exit 2" {
    run "$MS"
    assert_failure 2
    assert_output --partial "Usage: memsuite <command>"
}

@test "unknown command and unknown help topic exit 2" {
    run "$MS" frobnicate
    assert_failure 2
    assert_output "memsuite: no such command 'frobnicate'; run 'memsuite help' for the list"
    run "$MS" help frobnicate
    assert_failure 2
    assert_output --partial "no such command 'frobnicate'"
    run "$MS" "../etc"
    assert_failure 2
}

@test "unknown option of a command exits 2 and names it" {
    run "$MS" env --bogus
    assert_failure 2
    assert_output "memsuite: env: unknown option '--bogus'; see 'memsuite help env'"
}

@test "MEMSUITE_DEBUG=1 turns on tracing" {
    MEMSUITE_DEBUG=1 run "$MS" help env
    assert_success
    assert_output --partial "+ ms_main help env"
    run "$MS" help env
    refute_output --partial "+ ms_main"
}

@test "version: the C tools' version and licence line, and LICENSE names that licence" {
    local ver lic
    ver=$(sed -n 's/^#define MB_VERSION "\(.*\)"/\1/p' "$ROOT/common/buildinfo.h")
    lic=$(sed -n 's/^#define MB_LICENCE_LINE "\(.*\)"/\1/p' "$ROOT/common/buildinfo.h")
    [ -n "$ver" ] && [ -n "$lic" ]
    run "$MS" --version
    assert_success
    assert_line --index 0 "memsuite $ver"
    assert_line --index 1 "$lic"
    [ "${#lines[@]}" -eq 2 ]
    run "$BIN/stream" --version
    assert_line --index 2 "$lic"
    head -1 "$ROOT/LICENSE" | grep -qx 'BSD 3-Clause License'
}

@test "help into a reader that stops early: exit 0, no write error, no signal note" {
    local i
    for i in 1 2 3 4 5; do
        # a reader that takes one line and closes the pipe, as head -1 does
        run bash -c "set -o pipefail; '$MS' help run 2>&1 | head -1"
        assert_success
        assert_output --regexp '^Usage: memsuite run '
        refute_output --partial "write error"
        refute_output --partial "stopping and restoring"
        run bash -c "set -o pipefail; '$MS' run --help 2>&1 | head -1"
        assert_success
        assert_output --regexp '^Usage: memsuite run '
    done
}
