#!/usr/bin/env bats
# memsuite compare: environment differences first, then metric by metric
# with % change and a marker beyond the noise (both runs' CVs).

load test_helper
load ../fixtures/memsuite-bats/helpers

setup_file() {
    local root="$BATS_FILE_TMPDIR/env"
    mkdir -p "$root"
    ms_test_env "$root" "$root/stubs"
    cd "$BATS_FILE_TMPDIR"
    mk() { local d="$1"; shift; "$MS" run --sizes 4x --threads 1,2 --cooldown 0 --out "$d" "$@" 2>/dev/null; }
    mk base
    FAKE_RATE=12000 mk faster
    FAKE_RATE=10100 mk same
    FAKE_RATE=8500 mk slower
    FAKE_RATE=9300 FAKE_CV=0.04 mk noisy
    echo always >"$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    echo 10 >"$MEMSUITE_PROCFS/sys/vm/swappiness"
    FAKE_RATE=10100 mk tuned --bind close
    # the KeyarchOS mencal study's THP pair: before at madvise (little THP, TLB 2.1%), after at always
    echo madvise >"$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    FAKE_THP_SHARE=0.02 FAKE_DTLB=2.1 mk nothp --threads 1
    echo always >"$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    FAKE_RATE=11000 FAKE_THP_SHARE=0.97 FAKE_DTLB=1.4 mk thp --threads 1
}

@test "a 20% faster run: every row +20.0% and marked beyond the noise; an improvement, exit 0" {
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/faster"
    assert_success
    assert_line --regexp '^bench +size +threads +record +metric +A +B +change +noise$'
    assert_line --regexp '^stream +128\.0 MiB +1 +Copy +best_rate_mbps +10000\.0 +12000\.0 +\+20\.0% +10\.0% \*$'
    assert_line --regexp '^stream +128\.0 MiB +2 +Triad +best_rate_mbps +20713\.4 +24856\.0 +\+20\.0% +10\.0% \*$'
    assert_line "8 row(s); 8 change(s) beyond the noise (*: |change| > max(2 x sqrt(cvA^2 + cvB^2), 10%))"
    assert_line "verdict: improvement: 8 row(s) better beyond the noise, none worse"
    assert_line "Environment differences (A -> B):"
    assert_line "  none"
}

@test "a 1% change stays within the noise: no marker, verdict no change, exit 0" {
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/same"
    assert_success
    assert_line --regexp '^stream +128\.0 MiB +1 +Copy +best_rate_mbps +10000\.0 +10100\.0 +\+1\.0% +10\.0% $'
    assert_line --regexp '^8 row\(s\); 0 change\(s\) beyond the noise'
    assert_line --index -1 "verdict: no change beyond the noise in 8 judged row(s)"
}

@test "a 15% slower run is a regression beyond the run-to-run noise: exit 1, the worst row named" {
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/slower"
    assert_failure 1
    assert_line --regexp '^stream +128\.0 MiB +1 +Copy +best_rate_mbps +10000\.0 +8500\.0 +-15\.0% +10\.0% \*$'
    assert_line --index -1 --regexp '^verdict: REGRESSION: 8 row\(s\) worse beyond the noise; worst stream 128\.0 MiB x[12] [A-Za-z]+\.best_rate_mbps -15\.0% \(noise 10\.0%\)$'
    # the noise floor is a setting: at 20% the same change is noise
    run "$MS" compare --min-noise 20 "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/slower"
    assert_success
    assert_line --index -1 "verdict: no change beyond the noise in 8 judged row(s)"
    # a run whose own repetitions vary more widens the noise past the floor
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/noisy"
    assert_success
    assert_line --regexp ' -7\.0% +10\.0% $'
    run "$MS" compare --min-noise 0 "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/noisy"
    assert_success
    assert_line --regexp ' -7\.0% +8\.2% $'
    run "$MS" compare --min-noise 0 "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/slower"
    assert_failure 1
    assert_line --regexp ' -15\.0% +2\.8% \*$'
    run "$MS" compare --min-noise lots "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/slower"
    assert_failure 2
    run "$MS" compare --min-noise 101 "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/slower"
    assert_failure 2
    assert_output "memsuite: compare: --min-noise: invalid value '101'; use a percentage 0..100"
}

@test "environment and run differences are listed above the table" {
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/tuned"
    assert_success
    assert_line --regexp '^  thp_enabled +madvise -> always$'
    assert_line --regexp '^  swappiness +60 -> 10$'
    assert_line --regexp '^  run\.bind +spread -> close$'
    local env table
    env=$(grep -n '^  thp_enabled ' <<<"$output" | cut -d: -f1)
    table=$(grep -n '^bench ' <<<"$output" | cut -d: -f1)
    [ "$env" -lt "$table" ]
}

@test "--markdown and --all" {
    run "$MS" compare --markdown "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/faster"
    assert_success
    assert_line "| bench | size | threads | record | metric | A | B | change | noise | |"
    assert_line "| stream | 128.0 MiB | 1 | Copy | best_rate_mbps | 10000.0 | 12000.0 | +20.0% | 10.0% | * |"
    assert_line "**verdict: improvement: 8 row(s) better beyond the noise, none worse**"
    run "$MS" compare --all "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/faster"
    assert_success
    assert_line --regexp '^stream +128\.0 MiB +1 +Copy +min_time_s '
    assert_line --regexp '^24 row\(s\)'
}

@test "bad input: one dir, not a results dir, another version" {
    run "$MS" compare "$BATS_FILE_TMPDIR/base"
    assert_failure 2
    assert_output "memsuite: compare: needs exactly two results directories (got 1); see 'memsuite help compare'"
    mkdir plain
    run "$MS" compare "$BATS_FILE_TMPDIR/base" plain
    assert_failure 2
    assert_output "memsuite: compare: plain is not a memsuite results directory (no run.json)"
    cp -r "$BATS_FILE_TMPDIR/base" old
    jq '.schema = "memsuite/run/0"' old/run.json >t && mv t old/run.json
    run "$MS" compare old "$BATS_FILE_TMPDIR/base"
    assert_failure 2
    assert_output --partial "old was written by another memsuite version"
    run "$MS" compare --sideways a b
    assert_failure 2
}

@test "a single repetition has no noise estimate: its change is still judged, against 2 x the floor, said; one-sided rows counted" {
    # Fixed bugs: a -50% run with --reps 1 (no CV) was "not judged" and the
    # verdict "no change", exit 0; a missing thread count ended in
    # "Environment differences: none".
    FAKE_RATE=5000 run "$MS" run --sizes 4x --threads 1 --reps 1 --cooldown 0 --out half
    assert_success
    run "$MS" compare "$BATS_FILE_TMPDIR/base" half
    assert_failure 1
    assert_line --regexp '^  run\.threads +\[1,2\] -> \[1\]$'
    assert_line --regexp '^stream +128\.0 MiB +1 +Copy +best_rate_mbps +10000\.0 +5000\.0 +-50\.0% +20\.0% \*\?$'
    assert_line --regexp '^stream +128\.0 MiB +2 +Copy +best_rate_mbps +18660\.7 +- +- +- only A$'
    assert_line --regexp ' 4 change\(s\) beyond the noise .*; 4 row\(s\) without a noise estimate \(\?: a single repetition\), judged against \|change\| > 20% \(2 x the floor\); 4 row\(s\) in one run only$'
    assert_line --index -1 --regexp '^verdict: REGRESSION: 4 row\(s\) worse beyond the noise; worst .*\(threshold 20\.0%, no noise estimate\) \(4 of 8 row\(s\) not judged\)$'
}

@test "huge pages and TLB side by side per cell when they differ; absent when they do not" {
    run "$MS" compare "$BATS_FILE_TMPDIR/nothp" "$BATS_FILE_TMPDIR/thp"
    assert_success
    assert_line "Huge pages and TLB (A -> B), cells where they differ:"
    assert_line --regexp '^  cell +THP policy +hugepages +THP share +dTLB miss rate$'
    assert_line --regexp '^  stream-s134217728-t1 +madvise -> always +thp +2\.0% -> 97\.0% +2\.10% -> 1\.40%$'
    assert_line --regexp '^stream +128\.0 MiB +1 +Copy +best_rate_mbps +10000\.0 +11000\.0 +\+10\.0% '
    run "$MS" compare --markdown "$BATS_FILE_TMPDIR/nothp" "$BATS_FILE_TMPDIR/thp"
    assert_line "| stream-s134217728-t1 | madvise -> always | thp | 2.0% -> 97.0% | 2.10% -> 1.40% |"
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/same"
    refute_line --partial "Huge pages and TLB"
}

@test "the counter rates of each cell and record, before and after, with their formula (the dTLB miss rate 2.1% -> 1.4%)" {
    run "$MS" compare "$BATS_FILE_TMPDIR/nothp" "$BATS_FILE_TMPDIR/thp"
    assert_success
    assert_line "Counter rates (A -> B), per cell and record:"
    assert_line --regexp '^  cell +record +rate +A +B +change +formula$'
    assert_line --regexp '^  stream-s134217728-t1 +Copy +dtlb_load_miss_pct +2\.1 +1\.4 +-33\.3% +100 \* dTLB-load-misses / dTLB-loads \(% of dTLB loads\)$'
    run "$MS" compare --markdown "$BATS_FILE_TMPDIR/nothp" "$BATS_FILE_TMPDIR/thp"
    assert_line "| stream-s134217728-t1 | Triad | dtlb_load_miss_pct | 2.1 | 1.4 | -33.3% | 100 * dTLB-load-misses / dTLB-loads (% of dTLB loads) |"
    # no rate with a value in either: no section
    run "$MS" compare "$BATS_FILE_TMPDIR/base" "$BATS_FILE_TMPDIR/same"
    refute_line --partial "Counter rates"
}

@test "the allocator the tools saw (sysinfo.allocator) is listed when it differs" {
    cd "$BATS_FILE_TMPDIR"
    FAKE_SYSINFO='{"allocator":"glibc 2.36"}' "$MS" run --sizes 4x --threads 1 --cooldown 0 --out glibc 2>/dev/null
    FAKE_SYSINFO='{"allocator":"jemalloc 5.3.0"}' "$MS" run --sizes 4x --threads 1 --cooldown 0 --out je 2>/dev/null
    run "$MS" compare glibc je
    assert_success
    assert_line --regexp '^  allocator \(in the tools\) glibc 2\.36 -> jemalloc 5\.3\.0$'
    run "$MS" env
    assert_line --regexp '^ok +ld_preload +none$'
}
