#!/usr/bin/env bats
# mencal run loaded (latency under load) and mencal run sweep (the memory
# mountain): small sizes and short windows; the assertions are on the
# structure of the curves, never on machine-specific figures.

bats_require_minimum_version 1.5.0
load test_helper

# JSON helpers: rows of a table as TSV
rows() { jq -r --arg t "$2" ".records[0].tables[\$t][] | [$3] | @tsv" "$1"; }

# fake_caches L1D L2 L3: a sysfs tree where cpu0 and cpu1 have these
# caches (the L3 shared by both), so the plateau regions are known
fake_caches() {
    local cpu idx
    for cpu in 0 1; do
        for idx in "0 1 Data $1 $cpu" "1 2 Unified $2 $cpu" "2 3 Unified $3 0-1"; do
            read -r i lvl typ sz shared <<<"$idx"
            local d="$SANDBOX/sys/devices/system/cpu/cpu$cpu/cache/index$i"
            mkdir -p "$d"
            echo "$lvl" >"$d/level"
            echo "$typ" >"$d/type"
            echo "$sz" >"$d/size"
            echo "$shared" >"$d/shared_cpu_list"
        done
    done
    echo 0-1 >"$SANDBOX/sys/devices/system/cpu/possible"
    echo 0-1 >"$SANDBOX/sys/devices/system/cpu/online"
    export MEMSUITE_SYSFS="$SANDBOX/sys"
}

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# ---- loaded -----------------------------------------------------------------

@test "loaded: a curve per delay, bandwidth falls as the delay grows, idle point last, PNG" {
    run mencal run loaded --size 32M --threads 2 --delays 20000,0,2000 --windows 4 -q \
        --format json -O l.json --plot l.png
    assert_success
    validate_json l.json
    # the ladder runs in ascending order, then the idle point (delay null, reason)
    run rows l.json curve '(.delay // "idle"), .bandwidth, .latency, .windows'
    assert_line --index 0 --regexp $'^0\t'
    assert_line --index 1 --regexp $'^2000\t'
    assert_line --index 2 --regexp $'^20000\t'
    assert_line --index 3 --regexp $'^idle\t0\t'
    [ "${#lines[@]}" -eq 4 ]
    run jq -r '.records[0].tables.curve[3].delay_unavailable' l.json
    assert_output --partial "idle"
    # measured bandwidth: no delay moves far more than a 20 us delay
    run rows l.json curve '.bandwidth'
    awk -v a="${lines[0]}" -v c="${lines[2]}" 'BEGIN { exit !(a > 0 && c > 0 && a > 2 * c) }'
    # latency, p99 >= median, windows as asked
    run rows l.json curve '.latency, .latency_p99, .windows'
    local l
    for l in "${lines[@]}"; do
        awk -F '\t' -v s="$l" 'BEGIN { split(s, f, "\t"); exit !(f[1] > 0 && f[2] >= f[1] && f[3] == 4) }'
    done
    # the latency thread on its own CPU, recorded
    run rows l.json threads '.thread, .role, .cpu'
    assert_line --index 0 --regexp $'^0\tlatency\t[0-9]+$'
    assert_line --index 1 --regexp $'^1\ttraffic\t[0-9]+$'
    [ "$(cut -f3 <<<"${lines[0]}")" != "$(cut -f3 <<<"${lines[1]}")" ]
    run jq -r '.records[0].metrics | .latency_idle.value > 0, .bandwidth_max.value > 0,
        .bandwidth_max_with_write_allocate.value >= .bandwidth_max.value' l.json
    assert_output $'true\ntrue\ntrue'
    is_png l.png
}

@test "loaded: the default ladder is monotone, from no delay to nearly idle" {
    run mencal run loaded --dry-run
    assert_success
    local ladder
    ladder=$(sed -n 's/^loaded: traffic read, [0-9]* delays (ns): \([0-9 ]*\), then idle.*/\1/p' <<<"$output")
    [ -n "$ladder" ]
    read -r -a d <<<"$ladder"
    [ "${d[0]}" = 0 ]
    [ "${#d[@]}" -ge 6 ]
    local i
    for ((i = 1; i < ${#d[@]}; i++)); do [ "${d[i]}" -gt "${d[i - 1]}" ]; done
    [ "${d[-1]}" -ge 50000 ]
}

@test "loaded: write, copy, triad and rw:PCT count bytes; write-allocate adds the stores" {
    local t
    arch_names   # NT_STORE_BASE: the architecture's non-temporal store variant
    for t in write:nt copy:nt write copy triad rw:50 rw:100; do
        # the store variant forced: calibration may pick a non-temporal one
        local v=v64
        local -a kv=()
        case "$t" in *:nt) t=${t%:nt} v=$NT_STORE_BASE ;; esac   # every CPU of the architecture
        case "$t" in write|copy) kv=(--kernel-variant "$v") ;; esac
        run mencal run loaded --size 32M --threads 2 --traffic "$t" "${kv[@]}" --delays 0 --windows 2 -q \
            --format json -O t.json
        assert_success
        run jq -r '.records[0].metrics | [.bandwidth_max.value, .bandwidth_max_with_write_allocate.value] | @tsv' t.json
        case "$t/$v" in
            rw:100/*) awk -F '\t' '{ exit !($1 > 0 && $2 == $1) }' <<<"$output" ;;   # loads only
            */"$NT_STORE_BASE") awk -F '\t' '{ exit !($1 > 0 && $2 == $1) }' <<<"$output" ;;   # nt stores read no line
            *) awk -F '\t' '{ exit !($1 > 0 && $2 > $1) }' <<<"$output" ;;
        esac
    done
    run jq -r '.config.loaded.traffic' t.json
    assert_output "rw:100"
}

@test "loaded: one thread has no traffic thread: says so and runs the idle point" {
    run mencal run loaded --size 16M --threads 1 --windows 3 -q --format json -O one.json
    assert_success
    validate_json one.json
    run jq -r '(.records[0].tables.curve | length), .records[0].metrics.bandwidth_max.value_unavailable,
        (.records[0].notes | map(select(test("no traffic thread"))) | length)' one.json
    assert_line --index 0 1
    assert_line --index 1 --partial "no traffic thread"
    assert_line --index 2 --regexp '^[1-9]'
}

@test "loaded: bad delays and traffic are usage errors naming the value" {
    local -a bad=(
        "--delays ,|an empty item"
        "--delays 0,,5|an empty item"
        "--delays abc|'abc': an item is not a number"
        "--delays 10,x|is not a number"
        "--delays -5|-5 is negative"
        "--delays 1e9|over 1e7"
        "--delays nan|is not a number"
        "--traffic rw:101|rw:PCT must be a whole percentage 0..100"
        "--traffic rw:-1|whole percentage"
        "--traffic rw:|whole percentage"
        "--traffic stream|expected read, write, copy, triad or rw:PCT"
        "--windows 1|--windows"
    )
    local b args want
    for b in "${bad[@]}"; do
        args=${b%%|*} want=${b#*|}
        # shellcheck disable=SC2086
        run --separate-stderr mencal run loaded --size 16M $args
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; return 1; }
        [[ "$stderr" == *"$want"* ]] || { echo "$args: $stderr"; return 1; }
        [ -z "$output" ]
    done
    run --separate-stderr mencal run loaded --delays ''
    assert_failure 2
}

@test "loaded: a size under the rule is labelled; --strict refuses it" {
    run --separate-stderr mencal run loaded --size 16M --threads 2 --delays 0 --windows 2 \
        --format json -O s.json
    assert_success
    [[ "$stderr" == *"under 4x the last-level cache"* ]] || [[ "$stderr" == *"LLC"* ]]
    run jq -r '.label' s.json
    assert_output not-standard
    MEMSUITE_LLC=64M run --separate-stderr mencal run loaded --size 16M --strict --delays 0
    assert_failure 2
}

@test "loaded: a progress note per point on stderr, the idle point last; --quiet silences them" {
    run --separate-stderr mencal run loaded --size 16M --threads 2 --delays 0,2000 --windows 2 \
        --format json -O p.json
    assert_success
    local notes
    notes=$(grep -c '^mencal: note: loaded: point ' <<<"$stderr")
    [ "$notes" -eq 3 ]
    [[ "$stderr" == *"point 1 of 3 (delay 0 ns): latency "*" ns, bandwidth "*" MB/s"* ]]
    [[ "$stderr" == *"point 2 of 3 (delay 2000 ns): latency "* ]]
    [[ "$stderr" == *"point 3 of 3 (idle): latency "*" ns"* ]]
    run --separate-stderr mencal run loaded --size 16M --threads 2 --delays 0 --windows 2 -q \
        --format json -O q.json
    assert_success
    [[ "$stderr" != *"loaded: point"* ]]
}

@test "loaded: SIGINT mid-curve keeps the points measured so far, marked incomplete" {
    local ladder
    ladder=$(seq -s, 0 100 6300)
    env --default-signal=INT mencal run loaded --size 16M --threads 2 --delays "$ladder" --windows 20 \
        --format json -O int.json 2>int.err 3>&- &
    local pid=$!
    # interrupted once two points are in, whatever the machine's speed
    wait_for_text int.err "loaded: point 2 of 65" "$pid"
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 1 ]
    validate_json int.json
    run jq -r '.complete, .records[0].status, .records[0].complete,
        (.records[0].tables.curve | length), .records[0].metrics.points.value' int.json
    assert_line --index 0 false
    assert_line --index 1 interrupted
    assert_line --index 2 false
    [ "${lines[3]}" -ge 2 ] && [ "${lines[3]}" -lt 65 ]
    [ "${lines[3]}" = "${lines[4]}" ]
    run jq -r '.records[0].notes[]' int.json
    assert_output --partial "interrupted:"
}

# ---- sweep ------------------------------------------------------------------

@test "sweep: 16 KiB to beyond 4x LLC, every kernel at 1 and 2 threads, plateaus named, PNG" {
    fake_caches 32K 256K 2048K
    run mencal run sweep --threads 2 --reps 2 -q --format json -O w.json --plot w.png
    assert_success
    validate_json w.json
    run jq -r '.config.sweep.top_bytes' w.json
    [ "$output" -ge $((8 * 2048 * 1024)) ]      # the default top: 2 x pow2 >= 4 x LLC
    # every curve starts at 16 KiB, has the midpoints, ascends
    local k t
    for k in read write copy triad; do
        for t in 1 2; do
            run jq -r --arg k "$k" --argjson t "$t" \
                '[.records[0].tables.mountain[] | select(.kernel == $k and .threads == $t) | .size] | @tsv' w.json
            read -r -a s <<<"$output"
            [ "${s[0]}" = 16384 ] && [ "${s[1]}" = 24576 ] && [ "${s[2]}" = 32768 ]
            local i
            for ((i = 1; i < ${#s[@]}; i++)); do [ "${s[i]}" -gt "${s[i - 1]}" ]; done
        done
    done
    # four plateaus per curve, each a figure with where it was read
    run rows w.json plateaus '.kernel, .threads, .level, (.bandwidth > 0), .from, .to, .points'
    [ "${#lines[@]}" -eq 32 ]
    run rows w.json plateaus 'select(.kernel == "read" and .threads == 1) | .level, .from, .to'
    assert_line --index 0 $'L1\t16384\t16384'
    assert_line --index 1 $'L2\t65536\t131072'
    assert_line --index 2 $'L3\t524288\t1048576'
    assert_line --index 3 --regexp $'^DRAM\t8388608\t[0-9]+$'
    run jq -r '.records[0].tables.plateaus[] | select(.bandwidth == null)' w.json
    assert_output ""
    run jq -r '.records[0].metrics | .L1_read_1t.value > 0, .DRAM_read_all.value > 0' w.json
    assert_output $'true\ntrue'
    is_png w.png
}

@test "sweep: a top under 4x LLC has no DRAM plateau and says why" {
    fake_caches 32K 256K 2048K
    run mencal run sweep --size 1M --threads 1 --kernels read --reps 1 -q --format json -O s.json
    assert_success
    validate_json s.json
    run jq -r '.records[0].tables.plateaus[] | select(.level == "DRAM") | .bandwidth_unavailable' s.json
    assert_output --partial "no point at or above 4x LLC"
    run jq -r '.label' s.json
    assert_output not-standard
}

@test "sweep: bad kernels and sizes are usage errors" {
    local -a bad=(
        "--kernels foo|unknown kernel"
        "--kernels read,|empty item"
        "--kernels rw:50|unknown kernel"
        "--size 8K|--size"
    )
    local b args want
    for b in "${bad[@]}"; do
        args=${b%%|*} want=${b#*|}
        # shellcheck disable=SC2086
        run --separate-stderr mencal run sweep $args
        [ "$status" -eq 2 ] || { echo "$args: exit $status"; return 1; }
        [[ "$stderr" == *"$want"* ]] || { echo "$args: $stderr"; return 1; }
    done
}

@test "sweep: SIGINT keeps the points measured so far, marked incomplete" {
    env --default-signal=INT mencal run sweep --size 2G --reps 20 --format json -O int.json 2>int.err 3>&- &
    local pid=$!
    # interrupted once two points are in, whatever the machine's speed
    # (a fixed 1.5 s failed on a loaded Intel guest: no point yet)
    wait_for_text int.err ": point 2 of" "$pid"
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 1 ]
    validate_json int.json
    run jq -r '.complete, .records[0].status, (.records[0].tables.mountain | length > 0)' int.json
    assert_line --index 0 false
    assert_line --index 1 interrupted
    assert_line --index 2 true
    # the progress notes name the kernel, the point and its figure
    grep -E '^mencal: note: sweep: [^,]+, [0-9]+ threads?: point 1 of [0-9]+ \([0-9.]+ [KMG]?i?B\): ([0-9.]+ GB/s|no figure)$' int.err
}

@test "--plot writes a PNG drawn by the analyser (file(1) says PNG), the result unchanged" {
    need_plots
    mencal run sweep --size 64K --threads 1 --kernels read --reps 1 -q --format json -O s.json --plot s.png
    run file -b s.png
    assert_output --regexp '^PNG image data'
    mencal run loaded --size 8M --threads 2 --delays 0,20000 --windows 2 -q --format json -O l.json --plot l.png
    run file -b l.png
    assert_output --regexp '^PNG image data'
    run jq -r '[.records[0].notes[] | select(startswith("--plot"))] | length' l.json
    assert_output 0
}

@test "--plot finds the analyser from a build tree's BUILD/bin inside the sources (build-arm64/bin)" {
    need_plots
    mkdir -p tree/build-x/bin
    ln -s "$ROOT/scripts" tree/scripts
    cp "$BIN/mencal" tree/build-x/bin/
    unset MEMSUITE_ANALYSE
    tree/build-x/bin/mencal run sweep --size 64K --threads 1 --kernels read --reps 1 -q --format json -O s.json --plot s.png
    run file -b s.png
    assert_output --regexp '^PNG image data'
    run jq -r '[.records[0].notes[] | select(startswith("--plot"))] | length' s.json
    assert_output 0
}

# ---- charts from the JSON: memsuite report and device-curves --replot -------

@test "memsuite report --plots draws the loaded curve of a mencal:loaded cell" {
    # memsuite report --plots draws with the analyser's plots module
    run "$ROOT/scripts/memsuite" run --bench mencal:loaded --sizes 1x --threads 2 --reps 2 \
        --cooldown 0 --out r --mencal-args "--delays 0,20000 --windows 3"
    assert_success
    run "$ROOT/scripts/memsuite" report --plots r
    assert_success
    assert_output --regexp 'r/plots/loaded-[^ ]+\.png'
    local png
    png=$(ls r/plots/loaded-*.png)
    is_png "$png"
}

@test "device-curves.sh --replot draws both charts from the JSON alone" {
    mkdir d
    mencal run loaded --size 32M --threads 2 --delays 0,20000 --windows 3 -q --format json -O d/l.json
    fake_caches 32K 256K 2048K
    mencal run sweep --size 1M --threads 2 --kernels read,triad --reps 1 -q --format json -O d/s.json
    run "$ROOT/scripts/device-curves.sh" --replot d
    assert_success
    assert_line d/l.png
    assert_line d/s.png
    is_png d/l.png
    is_png d/s.png
    # the sweep chart marks the cache sizes of the run
    run /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" plot --result d/s.json --series
    assert_success
    [ "$(jq -c '[.panels[0].marks[] | [.x, .label]]' <<<"$output")" = '[[32,"L1d 32 KiB per core"],[256,"L2 256 KiB per core"],[2048,"LLC 2 MiB"]]' ]
    [ "$(jq -r '.panels[0].xlabel' <<<"$output")" = "Working set, all arrays of all threads (KiB, log scale)" ]
    jq -e '.panels[0] | .logx and .logy' <<<"$output"
}

@test "--plot that cannot be written fails before anything is measured (exit 3); no python3 is a note" {
    local s
    for s in loaded sweep; do
        run --separate-stderr mencal run "$s" --size 1M --threads 2 --plot nodir/x.png --format json -O x.json
        [ "$status" -eq 3 ] || { echo "$s: exit $status: $stderr"; return 1; }
        [[ "$stderr" == *"nodir"* ]]
    done
    # python3 missing: the result is written, the chart is a note
    env MEMSUITE_PYTHON=/nonexistent/python3 "$BIN/mencal" run loaded --size 32M --threads 2 --delays 0 --windows 2 -q \
        --format json -O n.json --plot n.png
    [ ! -e n.png ]
    run jq -r '.records[0].notes[] | select(test("chart not drawn"))' n.json
    assert_output --partial "python3 not found"
    # matplotlib missing: the same, with the analyser's reason
    mkdir nompl
    echo 'raise ImportError("no matplotlib here")' >nompl/matplotlib.py
    env PYTHONPATH="$PWD/nompl" "$BIN/mencal" run loaded --size 32M --threads 2 --delays 0 --windows 2 -q \
        --format json -O m.json --plot m.png
    [ ! -e m.png ]
    run jq -r '.records[0].notes[] | select(test("chart not drawn"))' m.json
    assert_output "--plot m.png: chart not drawn: plots unavailable: matplotlib is not installed (Debian: python3-matplotlib)"
}
