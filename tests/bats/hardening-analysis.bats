#!/usr/bin/env bats
# Hostile result files, references and node reports against the analysis
# layer (report, compare, check, cluster): the third hardening sweep.
# Each case is a defect that once ran code from data, hung, crashed or
# gave a wrong verdict; the number is the sweep's.

bats_require_minimum_version 1.5.0
load test_helper

# Each test's own lock and state: a run here never waits on another memsuite.
local_setup() {
    export MEMSUITE_LOCK="$SANDBOX/memsuite.lock" MEMSUITE_STATE_DIR="$SANDBOX/state"
}

# sweep_cell DIR: a complete one-cell run dir whose cell is a mencal sweep
# result (tiny, real), for report --plots / --html.
sweep_cell() {
    MEMSUITE_LLC=256K "$ROOT/scripts/memsuite" run --bench mencal:seqread --sizes 1x --threads 1 \
        --reps 1 --cooldown 0 --out "$1" >/dev/null 2>&1 || return 1
    local cell
    cell=$(ls "$1"/cells/*.json | head -n 1)
    "$BIN/mencal" run sweep --size 1M --threads 1 --kernels read --reps 1 -q --format json -O "$cell"
    # forged to claim the planned scenario: a hostile file passes the plan
    # check (report refuses another scenario's result, defect 19)
    jq '.config.scenarios = ["seqread"]' "$cell" >"$1/t" && mv "$1/t" "$cell"
}

# small_run DIR: a complete run of stream and mbw, one cell each (real tools)
small_run() {
    MEMSUITE_LLC=256K "$ROOT/scripts/memsuite" run --bench stream,mbw --sizes 1x --threads 1 \
        --reps 2 --cooldown 0 --out "$1" >/dev/null 2>"$SANDBOX/run.err" || { cat "$SANDBOX/run.err"; return 1; }
}
cell_of() { grep -v '^#' "$1/plan.tsv" | awk -F '\t' -v b="$2" '$2 == b { print $1; exit }'; }

# ---- 1: no code from a result file ------------------------------------------

@test "1: a cache size that is not a number makes the cell invalid, named; never plotted" {
    need_plots
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
    # and the analyser, given the file directly, refuses it (exit 2, named)
    run /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" plot --result "$cell" --out w.png
    [ "$status" -eq 2 ]
    assert_output --partial "config.caches.l1d_bytes"
    [ ! -e w.png ]
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

# ---- 3: a planned cell that is a FIFO ----------------------------------------

@test "3: a cell file that is a FIFO is named invalid at once by report, report --html and compare" {
    small_run a
    cp -r a b
    local id
    id=$(cell_of b mbw)
    rm "b/cells/$id.json"
    mkfifo "b/cells/$id.json"
    run timeout 10 "$ROOT/scripts/memsuite" report b
    [ "$status" -eq 1 ]
    assert_output --partial "invalid: b/cells/$id.json: cannot read it: it is a FIFO, not a regular file"
    run timeout 10 "$ROOT/scripts/memsuite" report --html --output b.html b
    [ "$status" -eq 1 ]
    grep -q "invalid: b/cells/$id.json: cannot read it: it is a FIFO" b.html
    run timeout 10 "$ROOT/scripts/memsuite" compare a b
    [ "$status" -eq 1 ]
    assert_output --partial "invalid: b/cells/$id.json: cannot read it: it is a FIFO"
    # env.json as a FIFO: a damaged directory (exit 2), not a hang
    rm "b/cells/$id.json" && cp "a/cells/$id.json" "b/cells/$id.json"
    rm b/env.json && mkfifo b/env.json
    run timeout 10 "$ROOT/scripts/memsuite" report b
    [ "$status" -eq 2 ]
    assert_output --partial "b/env.json is not a regular file (a FIFO)"
    run timeout 10 "$ROOT/scripts/memsuite" compare a b
    [ "$status" -eq 2 ]
}

# ---- 9: --output /dev/stdout -------------------------------------------------

@test "9: report --html --output /dev/stdout writes the document alone: no path line after </html>" {
    small_run r
    local o
    for o in /dev/stdout /dev/fd/1 /proc/self/fd/1 -; do
        "$ROOT/scripts/memsuite" report --html --output "$o" r >r.html 2>err
        [ "$(tail -n 1 r.html)" = "</html>" ] || { echo "$o: $(tail -n 2 r.html)"; return 1; }
        ! grep -q '^html: ' r.html
    done
    # written to a file, the path is still printed
    run "$ROOT/scripts/memsuite" report --html --output x.html r
    assert_success
    assert_output "html: x.html"
}

# ---- 11: compare with no valid cell on a side ---------------------------------

@test "11: compare with no valid cell on a side exits 1 with no verdict of 'no change'" {
    small_run a
    cp -r a b
    rm -f b/cells/*.json
    jq '.complete = false | .status = "failed cells"' b/run.json >t && mv t b/run.json
    run --separate-stderr "$ROOT/scripts/memsuite" compare a b
    [ "$status" -eq 1 ]
    [[ "$output" == *"verdict: none: no valid cell in B (b), nothing to compare"* ]]
    [[ "$output" != *"no change beyond the noise"* ]]
    [[ "$stderr" == *"no valid cell in B (b): nothing to compare"* ]]
    run --separate-stderr "$ROOT/scripts/memsuite" compare b a
    [ "$status" -eq 1 ]
    [[ "$output" == *"verdict: none: no valid cell in A (b), nothing to compare"* ]]
}

# ---- 19: a result of another tool at a cell's path ---------------------------

@test "19: an mbw result at a stream cell's path is invalid, named, and kept out of the stream table" {
    small_run r
    local s m
    s=$(cell_of r stream) m=$(cell_of r mbw)
    cp "r/cells/$m.json" "r/cells/$s.json"
    run --separate-stderr "$ROOT/scripts/memsuite" report r
    [ "$status" -eq 1 ]
    [[ "$output" == *"invalid: r/cells/$s.json: it is a result of \"mbw\", but the planned cell runs stream"* ]]
    [[ "$output" != *"stream: MEMCPY"* ]]
    [[ "$output" != *"MiB/s"*"stream"* ]]
    # --resume of the run (marked interrupted) redoes it: the wrong result
    # is no finished cell
    jq '.complete = false | .status = "interrupted by SIGINT"' r/run.json >t && mv t r/run.json
    MEMSUITE_LLC=256K run "$ROOT/scripts/memsuite" run --resume r
    assert_success
    assert_output --partial "1 of 2 cell(s) already done"
    [ "$(jq -r .tool "r/cells/$s.json")" = stream ]
}

@test "19: a mencal result of another scenario at a cell's path is invalid, named" {
    MEMSUITE_LLC=256K "$ROOT/scripts/memsuite" run --bench mencal:seqread --sizes 1x --threads 1 \
        --reps 1 --cooldown 0 --out r >/dev/null 2>&1
    local c
    c=$(ls r/cells/*.json)
    "$BIN/mencal" run randread --size 1M --threads 1 --reps 1 -q --format json -O "$c"
    run "$ROOT/scripts/memsuite" report r
    [ "$status" -eq 1 ]
    assert_output --partial 'it is a result of mencal scenarios ["randread"], but the planned cell runs mencal seqread'
}

# ---- 20: a deleted cell of a complete run ------------------------------------

@test "20: a cell file deleted from a complete run is missing, named, exit 1 (report, --html, compare)" {
    small_run a
    cp -r a b
    local id
    id=$(cell_of b mbw)
    rm "b/cells/$id.json"
    run --separate-stderr "$ROOT/scripts/memsuite" report b
    [ "$status" -eq 1 ]
    [[ "$output" == *"1/2 cells valid, 1 missing, complete"* ]]
    [[ "$output" == *"missing: b/cells/$id.json: the run is complete (run.json), so the file was removed after it ran"* ]]
    [[ "$stderr" == *"1 cell file(s) missing from the complete run b"* ]]
    run "$ROOT/scripts/memsuite" report --html --output b.html b
    [ "$status" -eq 1 ]
    grep -q "missing: b/cells/$id.json" b.html
    run "$ROOT/scripts/memsuite" compare a b
    [ "$status" -eq 1 ]
    assert_output --partial "missing: b/cells/$id.json"
    # an incomplete run's absent cell is "not run", and no failure by itself
    jq '.complete = false | .status = "interrupted by SIGINT"' b/run.json >t && mv t b/run.json
    run "$ROOT/scripts/memsuite" report b
    assert_success
    assert_output --partial "1/2 cells valid, 1 not run, INCOMPLETE"
}

# ---- 1 (audit): every other path from a file to an interpreter ----------------

@test "1 (audit): a plan.tsv bench with commas cannot reach the plots as code (report --plots)" {
    need_plots
    MEMSUITE_LLC=256K "$ROOT/scripts/memsuite" run --bench stream --sizes 4x --threads 1,2 --reps 1 \
        --cooldown 0 --out r >/dev/null 2>&1
    # The bench field shifts summary.csv's columns so that the thread
    # count, a tick label, is text; the cells are forged to match.
    local p1="stream,-,1048576,1);x=system('touch $SANDBOX/pwned');set xtics (1" p2="stream,-,1048576,2" id b
    printf '#id\tbench\tscenario\tsize_bytes\tthreads\treps\nstream-s1048576-t1\t%s\t-\t1048576\t1\t1\nstream-s1048576-t2\t%s\t-\t1048576\t2\t1\n' \
        "$p1" "$p2" >r/plan.tsv
    for id in stream-s1048576-t1 stream-s1048576-t2; do
        b=$(awk -F '\t' -v i="$id" '$1 == i { print $2 }' r/plan.tsv)
        jq --arg b "$b" '.tool = $b' "r/cells/$id.json" >t && mv t "r/cells/$id.json"
    done
    run "$ROOT/scripts/memsuite" report --plots r
    [ ! -e "$SANDBOX/pwned" ]
    [ "$status" -eq 2 ]
    assert_output --partial "r/plan.tsv: line 2: bench is not one of: stream mbw mencal"
    run "$ROOT/scripts/memsuite" report --html --output r.html r
    [ ! -e "$SANDBOX/pwned" ]
    [ "$status" -eq 2 ]
}

@test "1 (audit): run.json's bind and env.json's LLC and peak must have their types (exit 2, named)" {
    small_run r
    # FILE|jq filter|subcommand|what the error says
    local -a cases=(
        'run.json|.config.bind = "spread,x,y"|report|config.bind is "spread,x,y", not none, close, spread or node:N'
        'env.json|.llc_bytes = "a[$(id)]"|report|b/env.json: llc_bytes is not a byte count'
        'env.json|.peak_mbps = "fast"|compare|b/env.json: peak_mbps is not a rate in MB/s'
    )
    local c f filter cmd want
    for c in "${cases[@]}"; do
        IFS='|' read -r f filter cmd want <<<"$c"
        rm -rf b && cp -r r b
        jq '.config.llc_bytes = 0' r/run.json >b/run.json    # the LLC then comes from env.json
        jq "$filter" "b/$f" >t && mv t "b/$f"
        if [ "$cmd" = compare ]; then run "$ROOT/scripts/memsuite" compare r b
        else run "$ROOT/scripts/memsuite" report b; fi
        [ "$status" -eq 2 ] || { echo "$filter: exit $status: $output"; return 1; }
        [[ "$output" == *"$want"* ]] || { echo "$filter: $output"; return 1; }
    done
}

@test "1 (audit): a metric whose value, unit or statistic is not its type makes the cell invalid, named" {
    small_run r
    local s id
    s=$(cell_of r stream)
    local -a cases=(
        '.records[0].metrics.min_time_s.value = "5,1,1"|Copy.min_time_s.value is "5,1,1", not a number'
        '.records[1].metrics.min_time_s.stats.cv = "0.01"|Scale.min_time_s.stats.cv is "0.01", not a number'
        '.records[2].metrics.min_time_s.stats = 3|Add.min_time_s.stats is not an object'
        '.records[3].metrics.best_rate_mbps.unit = {"a": 1}|Triad.best_rate_mbps.unit is {"a":1}, not a string'
        '.records[0].metrics = 7|Copy.metrics is neither an object nor an array of metrics'
    )
    local c
    for c in "${cases[@]}"; do
        rm -rf b && cp -r r b
        jq "${c%%|*}" "r/cells/$s.json" >"b/cells/$s.json"
        run "$ROOT/scripts/memsuite" report b
        [ "$status" -eq 1 ] || { echo "${c%%|*}: exit $status"; return 1; }
        [[ "$output" == *"invalid: b/cells/$s.json: ${c#*|}"* ]] || { echo "${c%%|*}: $output"; return 1; }
    done
    # a unit with a comma is a string: kept, and it cannot shift summary.csv
    rm -rf b && cp -r r b
    jq '.records[0].metrics.best_rate_mbps.unit = "MB/s,1,2"' "r/cells/$s.json" >"b/cells/$s.json"
    /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" summary --output - -- b >sum.csv
    run awk -F, -v s="$s" '$1 == s && $7 == "Copy" && $8 == "best_rate_mbps" { print NF, $9 }' sum.csv
    assert_output "$(head -n 1 sum.csv | awk -F, '{ print NF }') MB/s 1 2"
}

@test "1 (audit): text from env.json, run.json and cell facts cannot forge a health or environment row" {
    small_run r
    cp -r r b
    # awk -v turns "\n" and "\t" in a peak note into a new verdict line
    jq 'del(.peak_mbps) | .peak_note = "none\\npass\\tkernel-order\\tforged"' b/env.json >t && mv t b/env.json
    run "$ROOT/scripts/memsuite" report b
    refute_output --regexp '^  pass +kernel-order +forged'
    rm -rf b && cp -r r b
    local id
    id=$(cell_of b stream)
    jq --arg id "$id" '.cell_env[$id].throttle = {status: "warn", detail: "x\npass\tnoise\tforged"}' b/run.json >t && mv t b/run.json
    run "$ROOT/scripts/memsuite" report b
    refute_output --regexp '^  pass +noise +forged'
    assert_output --partial "cell $id: x pass noise forged"
    rm -rf b && cp -r r b
    local f
    for f in b/cells/*.json; do
        jq '.sysinfo.allocator = "glibc\nforged-knob\tperformance\tpowersave"' "$f" >t && mv t "$f"
    done
    run "$ROOT/scripts/memsuite" compare r b
    refute_output --regexp '^  forged-knob +performance -> powersave'
}

@test "1 (audit): an env.json fact of another type cannot hide compare's environment differences" {
    small_run a
    cp -r a b
    jq '.facts[0].value = {"a": 1} | .facts[1].value = "changed"' a/env.json >b/env.json
    local k1 k2
    k1=$(jq -r '.facts[0].key' a/env.json) k2=$(jq -r '.facts[1].key' a/env.json)
    run "$ROOT/scripts/memsuite" compare a b
    refute_line "  none"
    assert_output --regexp "  $k1 +.* -> \\{\"a\":1\\}"
    assert_output --regexp "  $k2 +.* -> changed"
    # a fact that is no object with a key is a damaged env.json (exit 2)
    jq '.facts[0] = 5' a/env.json >b/env.json
    run "$ROOT/scripts/memsuite" compare a b
    [ "$status" -eq 2 ]
    assert_output --partial "b/env.json is not a valid env.json"
}
