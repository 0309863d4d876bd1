#!/usr/bin/env bats
# memsuite run --stream-args/--mbw-args/--mencal-args: extra tool options
# reach every cell of that tool, are recorded (run.json, each cell's
# command, the report), survive --resume, and a bad one is refused before
# the matrix starts: by memsuite (options it sets itself, quotes, stray
# words) or by the tool's own checks in its --plan of a 1 MiB cell (the
# real binaries from $BIN for that; the fakes hand --plan to them).

load test_helper
load ../fixtures/memsuite-bats/helpers

@test "--dry-run shows the extra arguments in every command of that tool only" {
    run "$MS" run --dry-run --bench stream,mbw --sizes 128M --threads 1,2 --out out \
        --stream-args "--nt-stores  --hugepages=madvise"
    assert_success
    assert_line "tool arguments: stream: --nt-stores --hugepages=madvise"
    assert_line --regexp '^\[1/4\] stream-s134217728-t1: .* --ntimes 21 --strict --nt-stores --hugepages=madvise$'
    assert_line --regexp '^\[2/4\] stream-s134217728-t2: .* --strict --nt-stores --hugepages=madvise$'
    assert_line --regexp '^\[3/4\] mbw-s134217728-t1: .* --threads 1 --format json --output out/cells/mbw-s134217728-t1\.json 128$'
    assert_line --regexp '^\[4/4\] mbw-s134217728-t2: .* --threads 2 --format json --output out/cells/mbw-s134217728-t2\.json 128$'
    [ ! -e out ]
}

@test "a run passes them to every cell and records them in run.json, the cells and the report" {
    run "$MS" run --bench stream,mbw,mencal:randread --sizes 128M --threads 1,2 --reps 2 --cooldown 0 --out r \
        --stream-args "--nt-stores" --mbw-args "-b 4096 --hugepages madvise" --mencal-args "--chains 4"
    assert_success
    run jq -c '.config.tool_args' r/run.json
    assert_output '{"mbw":["-b","4096","--hugepages","madvise"],"mencal":["--chains","4"],"stream":["--nt-stores"]}'
    # each cell ran with them (the fakes log their arguments), mbw's
    # before its size, the one positional
    [ "$(grep -c -- '--strict --nt-stores$' "$FAKE_LOG")" -ge 2 ]
    grep -q -- "^mbw .* --output r/cells/mbw-s134217728-t1.json -b 4096 --hugepages madvise 128\$" "$FAKE_LOG"
    for f in r/cells/stream-*.json; do
        run jq -r '.command | join(" ")' "$f"
        assert_output --regexp ' --nt-stores$'
    done
    run jq -r '.command | join(" ")' r/cells/mencal-randread-s134217728-t2.json
    assert_output --regexp ' --chains 4$'
    grep -q -- '--nt-stores' r/commands.txt
    run "$MS" report r
    assert_success
    assert_line "  tool arguments: mbw: -b 4096 --hugepages madvise; mencal: --chains 4; stream: --nt-stores"
    run "$MS" report --markdown r
    assert_line -- "- tool arguments: mbw: -b 4096 --hugepages madvise; mencal: --chains 4; stream: --nt-stores"
}

@test "options memsuite sets itself are refused, with the run option to use, before anything runs" {
    run "$MS" run --sizes 128M --out r --stream-args "--nt-stores --array-size 5"
    assert_failure 2
    assert_output "memsuite: run: --stream-args: --array-size is set by memsuite run for every cell; use --sizes"
    run "$MS" run --sizes 128M --out r --stream-args "--output=x.json"
    assert_failure 2
    assert_output --partial "--stream-args: --output=x.json is set by memsuite run for every cell; use --out"
    run "$MS" run --sizes 128M --out r --stream-args "-n5"
    assert_failure 2
    assert_output --partial "--stream-args: -n5 is set by memsuite run for every cell; use --reps"
    # inside a cluster (getopt: -qn 5 is -q -n 5)
    run "$MS" run --sizes 128M --out r --stream-args "-qn 5"
    assert_failure 2
    assert_output --partial "--stream-args: -qn is set by memsuite run for every cell; use --reps"
    # mbw's getopt_long takes abbreviations: --out is --output
    run "$MS" run --bench mbw --sizes 128M --out r --mbw-args "--out x"
    assert_failure 2
    assert_output --partial "--mbw-args: --out is set by memsuite run for every cell; use --out"
    run "$MS" run --bench mencal:randread --sizes 128M --out r --mencal-args "--sweep"
    assert_failure 2
    assert_output --partial "--mencal-args: --sweep is set by memsuite run for every cell; use --bench mencal:randread-sweep"
    # a cell that only plans would measure nothing: --plan is run --dry-run
    run "$MS" run --bench mbw,mencal:seqread --sizes 128M --out r --mbw-args "--plan"
    assert_failure 2
    assert_output --partial "--mbw-args: --plan is set by memsuite run for every cell; use memsuite run --dry-run (every cell shows the plan of its tool)"
    run "$MS" run --bench mencal:seqread --sizes 128M --out r --mencal-args "--plan"
    assert_failure 2
    assert_output --partial "--mencal-args: --plan is set by memsuite run"
    # mbw's threads are a matrix dimension like the other tools'
    run "$MS" run --bench mbw --sizes 128M --out r --mbw-args "--threads 2"
    assert_failure 2
    assert_output --partial "--mbw-args: --threads is set by memsuite run for every cell; use --threads (each count is a cell)"
    [ ! -e r ]
    [ "$(bench_calls)" = 0 ]
}

@test "quotes, stray words, empty values and a tool outside the matrix are usage errors" {
    run "$MS" run --sizes 128M --out r --stream-args "--kernels 'copy,triad'"
    assert_failure 2
    assert_output --partial "--stream-args: quotes and backslashes are not interpreted"
    run "$MS" run --sizes 128M --out r --stream-args "--nt-stores --hugepages madvise triad"
    assert_failure 2
    assert_output --partial "--stream-args: 'triad' is not an option nor an option's value"
    run "$MS" run --sizes 128M --out r --stream-args "   "
    assert_failure 2
    assert_output --partial "--stream-args: no arguments in"
    run "$MS" run --sizes 128M --out r --mbw-args "--hugepages madvise"
    assert_failure 2
    assert_output --partial "--mbw-args given, but mbw is not in the matrix"
    run "$MS" run --resume r --stream-args "--nt-stores"
    assert_failure 2
    assert_output --partial "--<tool>-args do not apply"
    [ ! -e r ]
    [ "$(bench_calls)" = 0 ]
}

@test "an argument the real tool refuses stops the run before the first cell, with the tool's message" {
    [ -x "$BIN/stream" ] && [ -x "$BIN/mbw" ] && [ -x "$BIN/mencal" ] || skip "tools not built"
    cp "$BIN/stream" "$BIN/mbw" "$BIN/mencal" "$MEMSUITE_BIN/"
    run "$MS" run --sizes 128M --threads 1 --cooldown 0 --out r --stream-args "--hugepages huge"
    assert_failure 2
    assert_output --regexp "^memsuite: run: --stream-args: stream refuses '--hugepages huge' \(its --plan of a 1 MiB cell exited 2\): stream: error: --hugepages: invalid value 'huge'"
    run "$MS" run --bench mbw --sizes 128M --out r --mbw-args "--no-such-option"
    assert_failure 2
    assert_output --partial "--mbw-args: mbw refuses '--no-such-option' (its --plan of a 1 MiB cell exited 2)"
    # mbw's own (compatible) errors are on stdout, where the plan would be
    run "$MS" run --bench mbw --sizes 128M --out r --mbw-args "-t 7"
    assert_failure 2
    assert_output --partial "--mbw-args: mbw refuses '-t 7' (its --plan of a 1 MiB cell exited 2): mbw: error: -t '7': not a test number"
    # mencal checks its scenario options itself (--plan)
    run "$MS" run --bench mencal:seqread --sizes 128M --out r --mencal-args "--chains 2"
    assert_failure 2
    assert_output --partial "mencal:seqread refuses '--chains 2' (its --plan of a 1 MiB cell exited 2): mencal: error: --chains applies to randread"
    [ ! -e r ]
    # a good argument passes the trial and the real tool runs tuned
    run "$MS" run --sizes 128M --threads 1 --reps 2 --cooldown 0 --out r --stream-args "--nt-stores --nt-isa portable"
    assert_success
    run jq -r '.label, .config.nt_stores.enabled' r/cells/stream-s134217728-t1.json
    assert_output $'tuned\ntrue'
    # the report flags the tuned row
    run "$MS" report r
    assert_line --regexp '^ +128\.0 MiB +1 .*  (noisy,)?tuned$'
    assert_line "  tool arguments: stream: --nt-stores --nt-isa portable"
}

@test "--resume runs the missing cells with the stored arguments" {
    FAKE_HOOK='case "$OMP_NUM_THREADS" in 2) exit 1 ;; esac' \
        run "$MS" run --sizes 128M --threads 1,2 --cooldown 0 --out r --stream-args "--nt-stores"
    assert_failure 1
    : >"$FAKE_LOG"
    run "$MS" run --resume r --cooldown 0
    assert_success
    run grep -c -- '--nt-stores$' "$FAKE_LOG"
    assert_output 1     # the missing cell (the tool's --plan check measures nothing)
    run grep -c -- 'OMP_NUM_THREADS=2 .* --nt-stores$' "$FAKE_LOG"
    assert_output 1
    run jq -c '.config.tool_args' r/run.json
    assert_output '{"stream":["--nt-stores"]}'
}

@test "--resume refuses a run.json whose tool arguments are not arrays of strings (exit 2, key and value named, a huge one cut)" {
    FAKE_HOOK='case "$OMP_NUM_THREADS" in 2) exit 1 ;; esac' \
        run "$MS" run --sizes 128M --threads 1,2 --cooldown 0 --out r --stream-args "--nt-stores"
    assert_failure 1
    local big
    big=$(printf 'x%.0s' {1..300})
    # filter|what the message says
    local -a cases=(
        '.config.tool_args.stream = "--nt-stores"|b/run.json: config.tool_args.stream is "--nt-stores", not an array of strings'
        '.config.tool_args.stream = [1]|b/run.json: config.tool_args.stream is [1], not an array of strings'
        '.config.tool_args = "stream"|b/run.json: config.tool_args is "stream", not an object'
        '.config.tool_args.stream = $big|... (cut, 302 characters), not an array of strings'
    )
    local c
    for c in "${cases[@]}"; do
        rm -rf b && cp -r r b
        jq --arg big "$big" "${c%%|*}" r/run.json >b/run.json
        : >"$FAKE_LOG"
        run "$MS" run --resume b --cooldown 0
        [ "$status" -eq 2 ] || { echo "${c%%|*}: exit $status: $output"; return 1; }
        [[ "$output" == *"${c#*|}; the directory is damaged"* ]] || { echo "${c%%|*}: $output"; return 1; }
        [ "${#output}" -lt 400 ] || { echo "not cut: $output"; return 1; }
        [ ! -s "$FAKE_LOG" ] || { echo "${c%%|*}: a cell ran"; return 1; }
    done
}
