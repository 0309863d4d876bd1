#!/usr/bin/env bats
# memsuite report: tables, health checks with numbers, Markdown, plots.
# Results come from runs of the fake stream (tests/fixtures/memsuite-bin),
# whose rates follow FAKE_RATE x threads^FAKE_EXP; LLC is 32 MiB, so 32 MiB
# is the in-cache row and 128 MiB the valid one.

load test_helper
load ../fixtures/memsuite-bats/helpers
bats_require_minimum_version 1.5.0

# Runs shared by the tests of this file (made once; tests copy them).
setup_file() {
    local root="$BATS_FILE_TMPDIR/env"
    mkdir -p "$root"
    ms_test_env "$root" "$root/stubs"
    cd "$BATS_FILE_TMPDIR"
    make_run good
    FAKE_TRIAD=0.8 FAKE_EXP=0.2 FAKE_CV=0.08 make_run bad
    MEMSUITE_ASSUME_ROOT=1 FAKE_RATE=60000 make_run peak
    "$MS" run --bench mencal:randread-sweep,stream --sizes 4x --threads 1 --cooldown 0 --out sweep 2>/dev/null
    FAKE_HOOK='case "$OMP_NUM_THREADS" in 2) exit 1 ;; esac' make_run failed || true
}

# make_run DIR [memsuite run options...]: a 2-size x 2-thread stream run
# (not as root unless asked: no DIMM data, so no peak)
make_run() {
    local d="$1"
    shift
    MEMSUITE_ASSUME_ROOT="${MEMSUITE_ASSUME_ROOT:-0}" \
        "$MS" run --sizes 1x,4x --threads 1,2 --reps 5 --cooldown 0 --out "$d" "$@" 2>/dev/null
}

# use_run NAME: a private copy of a shared run, as ./NAME
use_run() { cp -r "$BATS_FILE_TMPDIR/$1" "$1"; }

@test "tables: a row per size and thread count, a column per kernel, in-cache flagged" {
    use_run good
    run "$MS" report good
    assert_success
    assert_line "stream: best_rate_mbps (MB/s)"
    assert_line --regexp '^ +size +threads +Copy +Scale +Add +Triad +flags$'
    assert_line --regexp '^ +32\.0 MiB +1 +10000\.0 +9900\.0 +11000\.0 +11100\.0 +in-cache$'
    assert_line --regexp '^ +128\.0 MiB +2 +18660\.7 +18474\.1 +20526\.8 +20713\.4 *$'
    assert_line --regexp '^  warn +in-cache +stream 32\.0 MiB per array < 4 x LLC \(128\.0 MiB\)'
    assert_line --regexp '^  host .*, 4/4 cells valid, complete, bind spread$'
}

@test "health: kernel order and scaling pass with their numbers" {
    use_run good
    run "$MS" report good
    assert_success
    # what was expected, then what was found, with the units
    assert_line "  pass  kernel-order  stream 128.0 MiB x1: expected Triad within 10.0% of Add, Add at least Copy (less 10.0%), Copy within 10.0% of Scale (regular stores: the same traffic per byte counted); found Triad 11100 vs Add 11000 MB/s (+0.9%), Copy 10000 vs Scale 9900 MB/s (+1.0%), Add >= Copy"
    assert_line "  pass  scaling       stream 128.0 MiB Triad 1->2 threads: 11100 -> 20713 MB/s, efficiency 93.3% (>= 70.0%)"
    assert_line --regexp '^  pass  noise +all 16 headline metrics have CV <= 5\.0% \(max 1\.0%\)$'
    assert_line --regexp '^  pass  throttle +4 cell\(s\) watched: no frequency drop or throttle event beyond the threshold$'
    assert_line --regexp '^health: 5 pass, 1 warn, 1 skip$'
}

@test "health: broken kernel order, poor scaling and noise are warnings" {
    use_run bad
    run "$MS" report bad
    assert_success
    assert_line --regexp '^  warn  kernel-order  stream 128\.0 MiB x1: expected Triad within 10\.0% of Add, .*; found Triad 8000 vs Add 11000 MB/s \(-27\.3%\)'
    assert_line "  warn  scaling       stream 128.0 MiB Triad 1->2 threads: 8000 -> 9190 MB/s, efficiency 57.4% (< 70.0%)"
    assert_line "  warn  noise         stream 128.0 MiB x2 Copy: CV 8.0% > 5.0%"
    assert_line --regexp '^ +128\.0 MiB +2 .* noisy$'
    # thresholds are options
    run "$MS" report --efficiency 50 --cv-max 10 --tolerance 30 bad
    assert_line --regexp '^  pass  scaling .*efficiency 57\.4% \(>= 50\.0%\)$'
    assert_line --regexp '^  pass  noise '
    assert_line --regexp '^  pass  kernel-order  stream 128\.0 MiB x1: '
}

@test "health: percent of the theoretical peak when env.json has it" {
    use_run peak
    run "$MS" report peak
    assert_line "  theoretical peak 204800 MB/s (8 channel(s) x 3200 MT/s x 8 bytes)"
    assert_line "  pass  peak          stream: best Triad 124280 MB/s (128.0 MiB x2) = 60.7% of the theoretical peak 204800 MB/s (>= 50.0%)"
    run "$MS" report --peak-min 70 peak
    assert_line --regexp '^  warn  peak +stream: .* = 60\.7% of the theoretical peak 204800 MB/s \(< 70\.0%\)$'
    use_run good
    run "$MS" report good
    assert_line "  skip  peak          stream: theoretical peak unavailable (no DIMM data (needs root))"
}

@test "--markdown: Markdown tables and health table" {
    use_run good
    run "$MS" report --markdown good
    assert_success
    assert_line "## stream"
    assert_line "| size | threads | Copy | Scale | Add | Triad | flags |"
    assert_line "| 32.0 MiB | 1 | 10000.0 | 9900.0 | 11000.0 | 11100.0 | in-cache |"
    assert_line "| verdict | check | detail |"
    assert_line --regexp '^\| pass \| scaling \| stream 128\.0 MiB Triad 1->2 threads'
}

@test "--plots: valid PNG files, bandwidth vs threads and vs size" {
    need_plots
    use_run good
    run "$MS" report --plots good
    assert_success
    assert_line "  good/plots/stream-threads.png"
    assert_line "  good/plots/stream-size.png"
    local f
    for f in good/plots/stream-threads.png good/plots/stream-size.png; do
        # the PNG signature, and an IHDR chunk right after it
        [ "$(head -c 16 "$f" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a0000000d49484452 ]
        if command -v file >/dev/null; then
            run file -b "$f"
            assert_output --regexp '^PNG image data, [0-9]+ x [0-9]+'
        fi
    done
}

@test "--plots when DIR/plots is a file or a FIFO: exit 3, naming it; nothing drawn, the node intact" {
    use_run good
    : >good/plots
    run --separate-stderr timeout 60 "$MS" report --plots good
    assert_failure 3
    [ "$stderr" = "memsuite: report: --plots: cannot draw the charts into 'good/plots': is a regular file, not a directory; remove or rename it, or choose another path" ]
    [ -f good/plots ] && [ ! -s good/plots ]
    rm good/plots
    mkfifo good/plots
    run --separate-stderr timeout 60 "$MS" report --plots good
    assert_failure 3
    [[ "$stderr" == *"'good/plots': is a FIFO, not a directory"* ]]
    [ -p good/plots ]
}

@test "--plots: the latency curve from a mencal:randread-sweep cell" {
    use_run sweep
    run "$MS" report sweep
    assert_success
    assert_line --regexp '^mencal:randread-sweep: latency_smallest \(ns\)$'
    need_plots
    run "$MS" report --plots sweep
    assert_success
    assert_line "  sweep/plots/latency.png"
    assert_line --regexp '^mencal:randread-sweep: latency_smallest \(ns\)$'
    [ "$(head -c 8 sweep/plots/latency.png | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

@test "bad input: not a results dir, another version, wrong arguments" {
    mkdir empty
    run "$MS" report empty
    assert_failure 2
    assert_output "memsuite: report: empty is not a memsuite results directory (no run.json)"
    use_run good
    jq '.schema = "memsuite/run/9"' good/run.json >t && mv t good/run.json
    run "$MS" report good
    assert_failure 2
    assert_output --partial "was written by another memsuite version (schema 'memsuite/run/9'"
    run "$MS" report
    assert_failure 2
    run "$MS" report a b
    assert_failure 2
    run "$MS" report --efficiency lots good
    assert_failure 2
    assert_output "memsuite: report: --efficiency: invalid number 'lots'; use e.g. 10 or 7.5"
}

@test "an interrupted run is reported as incomplete with what finished" {
    use_run failed
    run "$MS" report failed
    assert_success
    assert_line --regexp '^  host .*, 2/4 cells valid, 2 not run, INCOMPLETE \(failed cells\), bind spread$'
    refute_line --regexp '^ +128\.0 MiB +2 '
}

@test "health: mbw's method order; an unusual one (DUMB above MEMCPY) is a warning" {
    "$MS" run --bench mbw --sizes 4x --cooldown 0 --out mbw-ok 2>/dev/null
    run "$MS" report mbw-ok
    assert_success
    assert_line --regexp '^ +pass +method-order +mbw 128\.0 MiB: MEMCPY 8000 >= DUMB 6000, MCBLOCK 9000; tolerance 10\.0%$'
    FAKE_DUMB=9500 "$MS" run --bench mbw --sizes 4x --cooldown 0 --out mbw-odd 2>/dev/null
    run "$MS" report mbw-odd
    assert_success
    assert_line --regexp '^ +warn +method-order +mbw 128\.0 MiB: unusual method order: DUMB 9500 is 18\.8% above MEMCPY 8000 \(a vectorised copy loop, or a memcpy without a fast path\?\); tolerance 10\.0%$'
}

@test "strings from a cell reach the terminal in caret notation: a newline forges no line, a lone surrogate is no crash (text, Markdown, HTML)" {
    # Fixed bugs: a record named "T\nmemsuite: PASS 9/9 forged" printed a
    # line of its own in the table; "T\ud800" was an internal
    # UnicodeEncodeError, exit 3, for text and HTML alike.
    use_run good
    local c=(good/cells/*.json)
    sed -i 's/"name": *"Triad"/"name": "T\\nmemsuite: PASS 9\/9 forged"/' "${c[0]}"
    sed -i 's/"name": *"Copy"/"name": "C\\ud800"/' "${c[1]}"
    grep -q 'forged' "${c[0]}" && grep -q 'ud800' "${c[1]}"
    run "$MS" report good
    assert_success
    refute_line --regexp '^memsuite: PASS 9/9 forged'
    assert_line --regexp ' Triad T\^Jmemsuite: PASS 9/9 forged '
    assert_output --partial $'C\ufffd'
    run "$MS" report --markdown good
    assert_success
    refute_line --regexp '^memsuite: PASS 9/9 forged'
    assert_output --partial 'T^Jmemsuite: PASS 9/9 forged'
    run "$MS" report --html --output r.html good
    assert_success
    refute_output --partial "internal error"
    grep -q $'C\ufffd' r.html
}

@test "malformed statistics make a cell invalid, named with the field (exit 1), never an internal error" {
    # Fixed bug: min_time_s.stats.max 0 or -0 was ZeroDivisionError, exit 3
    # (a time may be 0, a CPU time of a short repetition is; a maximum
    # below the minimum may not).
    local v f
    for v in 0 -0.0; do
        rm -rf good && use_run good
        f=$(ls good/cells/*.json | head -n 1)
        # jq would write -0 as 0: a mark, then the number as written
        jq '(.records[] | select(.name == "Copy") | .metrics.min_time_s.stats.max) = 123454321' "$f" |
            sed "s/123454321/$v/" >t && mv t "$f"
        run "$MS" report good
        assert_failure 1
        assert_line --regexp "^  invalid: $f: Copy\.min_time_s\.stats\.min [0-9.e-]+ is above stats\.max $v\$"
        assert_line "memsuite: report: 1 invalid cell file(s) in good (listed at the top); their figures are left out"
        run "$MS" report --html --output r.html good
        assert_failure 1
        refute_output --partial "internal error"
    done
    # a mean outside min..max: the figures do not hang together
    rm -rf good && use_run good
    f=$(ls good/cells/*.json | head -n 1)
    jq '(.records[] | select(.name == "Copy") | .metrics.min_time_s.stats) |= (.mean = .max * 2)' "$f" >t && mv t "$f"
    run "$MS" report good
    assert_failure 1
    assert_line --regexp "^  invalid: $f: Copy\.min_time_s\.stats\.mean [0-9.e-]+ is outside stats\.min\.\.max "
}

@test "--peak-gbps 0 names the value it refuses" {
    # Fixed bug: it said "(got 'good')", the directory.
    use_run good
    run "$MS" report --peak-gbps 0 good
    assert_failure 2
    assert_output "memsuite: report: --peak-gbps: 0 is not a bandwidth in GB/s above 0 (and below 1e9)"
}
