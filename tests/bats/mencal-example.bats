#!/usr/bin/env bats
# The worked example of docs/architecture.md: docs/examples/sc-fill.c
# plus one X(fill) line in scenarios.h, built by make as
# $MEMSUITE_BUILD/example/mencal.  Its option, its JSON config field and
# its metric must be there, and the rest of mencal unchanged.

bats_require_minimum_version 1.5.0
load test_helper

local_setup() {
    EX="${MEMSUITE_BUILD:-$ROOT/build}/example/mencal"
    [ -x "$EX" ] || { echo "$EX not built (make tests-build)"; return 1; }
}

@test "example: one file and one registry line make a listed scenario with its option" {
    run "$EX" list
    assert_success
    assert_line --regexp '^fill +memset write bandwidth of all threads \(GB/s\)$'
    assert_line --regexp '^ +options: --fill-byte$'
    run "$EX" --help
    assert_output --partial "--fill-byte B"
    assert_output --partial "fill: the byte value written (default: 90)"
    # the only difference from the real mencal is the new scenario
    run diff <("$BIN/mencal" list) <("$EX" list | grep -v -e '^fill ' -e 'options: --fill-byte')
    assert_success
}

@test "example: runs, its option reaches the JSON config, its metric is measured" {
    MEMSUITE_LLC=256K run "$EX" run fill --size 4M --threads 2 --reps 2 -q --fill-byte 7 \
        --format json -O f.json
    assert_success
    run jq -r '.config.fill.fill_byte, .config.scenarios[0],
               (.records[0].metrics.bandwidth.value > 0), (.records[0].metrics.bandwidth.samples | length)' f.json
    assert_output "$(printf '7\nfill\ntrue\n2')"
    validate_json f.json
}

@test "example: its option is checked by the table and refused without the scenario" {
    run "$EX" run fill --size 4M --fill-byte 256
    assert_failure 2
    assert_output --partial "--fill-byte: invalid value '256'"
    run "$EX" run seqread --size 4M --fill-byte 1
    assert_failure 2
    assert_output --partial "--fill-byte applies to fill, which is not in this run"
}
