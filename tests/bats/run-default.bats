#!/usr/bin/env bats
# scripts/run-default.sh (`make run`): sizes from the LLC the tools detect,
# clamped to memory; a failing step makes the exit status non-zero after
# the summary of what did run.  The benchmarks are the fakes of
# tests/fixtures/memsuite-bin; mencal --dry-run (the LLC query) is real.

bats_require_minimum_version 1.5.0
load test_helper

local_setup() {
    [ -x "$BIN/mencal" ] || skip "bin/mencal not built"
    mkdir -p fakebin
    cp "$FIXTURES"/memsuite-bin/{stream,mbw,mencal} fakebin/
    mv fakebin/mencal fakebin/mencal.fake
    # mencal: the real one answers --dry-run, the fake measures
    cat >fakebin/mencal <<STUB
#!/usr/bin/env bash
case " \$* " in *" --dry-run "*) exec "$BIN/mencal" "\$@" ;; esac
exec "$SANDBOX/fakebin/mencal.fake" "\$@"
STUB
    chmod +x fakebin/mencal
    export MEMSUITE_BIN="$SANDBOX/fakebin" FAKE_LOG="$SANDBOX/calls"
    use_fixture llc-vm-nocache          # 8 GiB MemAvailable, no sysfs cache
    export MEMSUITE_SYSCONF_L3=508MiB   # the VM of issue 11
}

@test "sizes satisfy 4x the LLC the tools detect (508 MiB from sysconf), not fixed 1 GiB" {
    run --separate-stderr "$ROOT/scripts/run-default.sh" out
    assert_success
    # 4 x 508 MiB = 2032 MiB for mbw (per array) and both mencal steps
    run grep -c '^mbw -q -n 5 2032 --format json' calls
    assert_output 1
    run grep -c '^mencal run seqread --reps 3 --size 2130706432 ' calls
    assert_output 1
    run grep -c '^mencal run randread --reps 3 --size 2130706432 ' calls
    assert_output 1
}

@test "a small LLC keeps the usual sizes (1 GiB seqread, 512 MiB randread, 256 MiB mbw)" {
    export MEMSUITE_SYSCONF_L3=8MiB
    run "$ROOT/scripts/run-default.sh" out
    assert_success
    grep -q '^mbw -q -n 5 256 ' calls
    grep -q '^mencal run seqread --reps 3 --size 1073741824 ' calls
    grep -q '^mencal run randread --reps 3 --size 536870912 ' calls
}

@test "sizes are clamped to half of MemAvailable with a warning" {
    mkdir -p proc
    printf 'MemTotal: 2097152 kB\nMemAvailable: 1048576 kB\n' >proc/meminfo
    export MEMSUITE_PROCFS="$SANDBOX/proc"
    run --separate-stderr "$ROOT/scripts/run-default.sh" out
    assert_success
    [[ "$stderr" == *"mencal-seq: 4x the LLC needs 2032 MiB but half of MemAvailable allows 512 MiB; clamped"* ]]
    grep -q '^mencal run seqread --reps 3 --size 536870912 ' calls
    grep -q '^mbw -q -n 5 256 ' calls
}

@test "a failing step: the summary of what ran, then exit 1 naming the step" {
    cat >fakebin/mencal.fake <<'STUB'
#!/usr/bin/env bash
echo "mencal: error: forced failure" >&2
exit 2
STUB
    run --separate-stderr "$ROOT/scripts/run-default.sh" out
    assert_failure 1
    assert_line --partial "mencal-seq"
    [[ "$output" == *"FAILED (exit 2; see"* ]]
    # the summary still shows what did run
    assert_line --regexp '^stream +Triad +best_rate_mbps '
    [[ "$stderr" == *"2 step(s) failed: mencal-seq mencal-lat"* ]]
}

@test "the summary ends with the next steps: PATH from this checkout, memsuite summary of this run again" {
    export MEMSUITE_SYSCONF_L3=8MiB
    run --separate-stderr "$ROOT/scripts/run-default.sh" out
    assert_success
    assert_line "Next:"
    assert_line --partial "export PATH=\"$ROOT/scripts:$MEMSUITE_BIN:\$PATH\""
    assert_line --regexp "^  memsuite summary $SANDBOX/out +# this summary again$"
    # the line it names works: the same summary again, from the analyser
    local first
    first=$(printf '%s\n' "${lines[@]}" | sed -n '/^Environment/,/^Next:/p' | sed '$d')
    run --separate-stderr "$ROOT/scripts/memsuite" summary out
    assert_success
    [ "$(printf '%s\n' "${lines[@]}")" = "$(printf '%s\n' "$first" | sed '/^$/d')" ]
}

@test "memsuite summary: not a directory, or no argument, is a usage error naming it" {
    run --separate-stderr "$ROOT/scripts/memsuite" summary "$SANDBOX/none"
    assert_failure 2
    [[ "$stderr" == *"'$SANDBOX/none' is not a directory"* ]]
    run --separate-stderr "$ROOT/scripts/memsuite" summary
    assert_failure 2
    [[ "$stderr" == *"needs one directory"* ]]
}

