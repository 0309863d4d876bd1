#!/usr/bin/env bats
# Hostile result files, references and node reports against the analysis
# layer (report, compare, check, cluster): the third hardening sweep.
# Each case is a defect that once ran code from data, hung, crashed or
# gave a wrong verdict; the number is the sweep's.

bats_require_minimum_version 1.5.0
load test_helper

# sweep_cell DIR: a complete one-cell run dir whose cell is a mencal sweep
# result (tiny, real), for report --plots / --html.
sweep_cell() {
    MEMSUITE_LLC=256K "$ROOT/scripts/memsuite" run --bench mencal:seqread --sizes 1x --threads 1 \
        --reps 1 --cooldown 0 --out "$1" >/dev/null 2>&1 || return 1
    local cell
    cell=$(ls "$1"/cells/*.json | head -n 1)
    "$BIN/mencal" run sweep --size 1M --threads 1 --kernels read --reps 1 -q --format json -O "$cell"
}

# ---- 1: no code from a result file ------------------------------------------

@test "1: a cache size that is not a number makes the cell invalid, named; gnuplot never runs it" {
    command -v gnuplot >/dev/null || skip "gnuplot not installed"
    sweep_cell r
    local cell
    cell=$(ls r/cells/*.json | head -n 1)
    # shellcheck disable=SC2016
    jq --arg v "1;x=system(\"touch\${IFS}$SANDBOX/pwned\")" '.config.caches.l1d_bytes = $v' "$cell" >t && mv t "$cell"
    run "$ROOT/scripts/memsuite" report --plots r
    [ ! -e "$SANDBOX/pwned" ]
    assert_output --partial "config.caches.l1d_bytes"
    assert_output --partial "not a number"
    run "$ROOT/scripts/memsuite" report --html --output r.html r
    [ ! -e "$SANDBOX/pwned" ]
    # and the chart script itself, given the file directly, writes no such mark
    mkdir w
    run bash -c ". '$ROOT/scripts/lib/plot-curves.sh'; ms_curves_gp '$cell' w; cat w/plot.gp"
    refute_output --partial "system"
    [ ! -e "$SANDBOX/pwned" ]
}

@test "1: an LLC or curve point that is not a number is named as invalid" {
    sweep_cell r
    local cell
    cell=$(ls r/cells/*.json | head -n 1)
    jq '.llc.total_bytes = "2;system(\"id\")"' "$cell" >t && mv t "$cell"
    run bash -c ". '$ROOT/scripts/lib/common.sh'; . '$ROOT/scripts/lib/results.sh'; ms_res_state '$cell'"
    assert_output --partial 'invalid: llc.total_bytes is'
    jq '.llc.total_bytes = 1 | .records[0].tables.mountain[0].bandwidth = "5 with x"' "$cell" >t && mv t "$cell"
    run bash -c ". '$ROOT/scripts/lib/common.sh'; . '$ROOT/scripts/lib/results.sh'; ms_res_state '$cell'"
    assert_output --regexp 'invalid: .*tables\.mountain\[\]\.bandwidth is "5 with x", not a number'
}
