#!/usr/bin/env bats
# mencal run c2c (core-to-core latency), matrix (initiator x memory node
# latency and bandwidth) and injection (bandwidth by read:write ratio):
# small sizes, assertions on structure, placement and bad input, never on
# machine-specific figures.  Multi-node behaviour (every cell, CPU-less
# targets, HMAT read back) is checked on real kernels in the topology
# lab's hmat shape (tests/topology).

bats_require_minimum_version 1.5.0
load test_helper

# metric FILE NAME: a metric's value (metrics is an object or an array)
metric() {
    jq -r --arg m "$2" '.records[0].metrics | (if type == "array" then map({key: .name, value: .}) | from_entries else . end) | .[$m].value' "$1"
}

ncpu() { env -u OMP_NUM_THREADS nproc; }

# a fake sysfs of two CPU nodes and one CPU-less node (no measuring)
fake_nodes() {
    local N="$SANDBOX/sys/devices/system/node" n
    mkdir -p "$N"/node{0,1,2}
    echo 0-1 >"$N/node0/cpulist"
    echo 2-3 >"$N/node1/cpulist"
    echo >"$N/node2/cpulist"
    echo 0-2 >"$N/has_memory"
    for n in 0 1 2; do echo "Node $n MemTotal: 4194304 kB" >"$N/node$n/meminfo"; done
    export MEMSUITE_SYSFS="$SANDBOX/sys"
}

# ---- c2c ---------------------------------------------------------------------

@test "c2c: every pair of allowed CPUs, a symmetric matrix, each CPU placed" {
    [ "$(ncpu)" -ge 2 ] || skip "needs two CPUs"
    run mencal run c2c --c2c-samples 50 -q --format json -O c.json
    assert_success
    validate_json c.json
    local n pairs
    n=$(ncpu)
    pairs=$((n * (n - 1) / 2))
    [ "$(jq '.records[0].tables.pairs | length' c.json)" -eq "$pairs" ]
    [ "$(metric c.json pairs_measured)" -eq "$pairs" ]
    [ "$(metric c.json pairs_total)" -eq "$pairs" ]
    # every pair figure positive, and each shown both ways in the matrix
    run jq -r '.records[0].tables as $t | $t.pairs[] | . as $p
        | ($t.matrix[] | select(.cpu == $p.cpu_a) | .["cpu\($p.cpu_b)"]) as $ab
        | ($t.matrix[] | select(.cpu == $p.cpu_b) | .["cpu\($p.cpu_a)"]) as $ba
        | "\($p.one_way > 0) \($ab == $p.one_way) \($ba == $p.one_way)"' c.json
    assert_success
    refute_output --partial false
    # the diagonal is not a measurement
    run jq -r '.records[0].tables.matrix[] | .["cpu\(.cpu)"]' c.json
    refute_output --regexp '[0-9]'
    [ "$(jq '.records[0].tables.cpus | length' c.json)" -eq "$n" ]
    run jq -r '.records[0].tables.pairs[0].between' c.json
    assert_output --regexp '^(same L3|other L3|other die|other package|same package|unknown)$'
    [ "$(jq '.config.c2c.round_trips_per_sample' c.json)" -eq 100 ]
}

@test "c2c: one allowed CPU is refused (exit 3) naming the CPU" {
    command -v taskset >/dev/null || skip "no taskset"
    run --separate-stderr taskset -c 0 "$BIN/mencal" run c2c
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"c2c: cannot run here: c2c needs two CPUs"* ]]
    [[ "$stderr" == *"only CPU 0"* ]]
}

@test "c2c: bad sample and pair counts are usage errors naming the value" {
    local bad
    for bad in "--c2c-samples 0" "--c2c-samples x" "--c2c-max-pairs 0" "--c2c-max-pairs -3"; do
        # shellcheck disable=SC2086
        run --separate-stderr mencal run c2c $bad -q
        [ "$status" -eq 2 ] || { echo "$bad: exit $status"; return 1; }
        [[ "$stderr" == *"${bad%% *}"* ]] || { echo "$bad: $stderr"; return 1; }
    done
}

@test "c2c: SIGINT keeps what was measured and marks the result incomplete" {
    [ "$(ncpu)" -ge 2 ] || skip "needs two CPUs"
    env --default-signal=INT mencal run c2c --c2c-samples 1000000 -q --format json -O int.json 3>&- &
    local pid=$!
    sleep 1
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -ne 0 ]
    validate_json int.json
    [ "$(jq -r '.complete' int.json)" = false ]
    [ "$(jq -r '.records[0].complete' int.json)" = false ]
    # the pair cut short keeps its fastest sample so far
    [ "$(jq '.records[0].tables.pairs | length' int.json)" -ge 1 ]
}

# ---- matrix -------------------------------------------------------------------

@test "matrix: every initiator x target cell, pages checked on the target, HMAT said" {
    run mencal run matrix --size 16M --reps 2 -q --format json -O m.json
    assert_success
    validate_json m.json
    local ni nt
    ni=$(jq '.config.matrix.initiators | length' m.json)
    nt=$(jq '.config.matrix.targets | length' m.json)
    [ "$ni" -ge 1 ] && [ "$nt" -ge 1 ]
    [ "$(jq '.records[0].tables.cells | length' m.json)" -eq $((ni * nt)) ]
    [ "$(metric m.json cells_measured)" -eq $((ni * nt)) ]
    # each square view has a row per initiator and a column per target
    local t
    for t in latency bandwidth mix_bandwidth; do
        [ "$(jq --arg t "$t" '.records[0].tables[$t] | length' m.json)" -eq "$ni" ]
        [ "$(jq --arg t "$t" '.records[0].tables[$t][0] | keys | map(select(startswith("node"))) | length' m.json)" -eq "$nt" ]
    done
    # measured figures, every page where it was bound
    run jq -r '.records[0].tables.cells[] | "\(.latency > 0) \(.bandwidth > 0) \(.mix_bandwidth > 0) \(.pages_on_target)"' m.json
    assert_success
    refute_output --partial false
    run jq -r '.records[0].tables.cells[].pages_on_target' m.json
    refute_output --regexp '^([0-9]|[0-9][0-9])(\.[0-9]+)?$'
    # HMAT: a figure with its ratio, or the reason there is none
    run jq -r '.records[0].tables.cells[0] | if .hmat_read_latency == null then .hmat_read_latency_unavailable else "declared" end' m.json
    assert_output --regexp '^(declared|.*no HMAT entry.*)$'
    [ "$(metric m.json latency_local)" != null ]
}

@test "matrix: the local cell is randread's latency at the same settings (the same code)" {
    run mencal run matrix --size 16M --reps 2 -q --format json -O m.json
    assert_success
    run jq -r '.records[0].notes[] | select(startswith("matrix: latency is randread"))' m.json
    assert_success
    [ -n "$output" ]
}

@test "matrix: a node that does not exist, a CPU-less initiator and a CPU-only target are refused" {
    fake_nodes
    run --separate-stderr mencal run matrix --size 16M --initiators 7 -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"node 7 does not exist; the nodes are 0, 1, 2"* ]]
    run --separate-stderr mencal run matrix --size 16M --initiators 2 -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"node 2 is CPU-less memory; the nodes with CPUs are 0, 1"* ]]
    echo 0-1 >"$SANDBOX/sys/devices/system/node/has_memory"
    run --separate-stderr mencal run matrix --size 16M --targets 2 -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"node 2 is neither CPUs nor memory; the nodes with memory are 0, 1"* ]]
    run --separate-stderr mencal run matrix --size 16M --targets 'x-' -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--targets 'x-'"* ]]
}

@test "matrix: --sweep is refused; a size that does not fit a node is refused before running" {
    run --separate-stderr mencal run matrix --size 16M --sweep -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--sweep"* ]]
    fake_nodes
    run --separate-stderr mencal run matrix --size 3G --targets 0
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"matrix: cannot run here: --size 3.0 GiB does not fit in half of node 0's memory (4.0 GiB)"* ]]
}

# ---- injection ----------------------------------------------------------------

@test "injection: all reads, 3:1, 2:1, 1:1 and triad-like, in that order, on every thread" {
    run mencal run injection --size 16M --reps 2 -q --format json -O i.json
    assert_success
    validate_json i.json
    run jq -r '.records[0].tables.injection[] | "\(.kernel) \(.reads_per_write // "none")"' i.json
    assert_line --index 0 "read none"
    assert_line --index 1 "rw:75 3"
    assert_line --index 2 --regexp '^rw:67 2\.03'
    assert_line --index 3 "rw:50 1"
    assert_line --index 4 "triad 2"
    [ "${#lines[@]}" -eq 5 ]
    # every row measured, each kept sample at least 10 ms, the write-allocate figure
    # at least the STREAM one (equal for all reads)
    run jq -r '.records[0].tables.injection[] | "\(.bandwidth > 0) \(.samples >= 1) \(.with_write_allocate >= .bandwidth)"' i.json
    refute_output --partial false
    run jq -r '.records[0].tables.injection[0] | .with_write_allocate == .bandwidth' i.json
    assert_output true
    local m
    for m in bandwidth_read bandwidth_3to1 bandwidth_2to1 bandwidth_1to1 bandwidth_triad; do
        [ "$(metric i.json "$m")" != null ] || { echo "no $m"; return 1; }
    done
}

# ---- weighted placement and the weights sweep ----------------------------------

@test "--interleave-weights: the placement used and the page shares asked and got are in the result" {
    run mencal run seqread --size 16M --reps 2 --hugepages never --interleave-weights 0:3 -q \
        --format json -O w.json
    assert_success
    validate_json w.json
    [ "$(jq -r .label w.json)" != standard ]
    run jq -r '.label_reasons[]' w.json
    assert_line "--interleave-weights 0:3"
    run jq -r '.records[0].notes[] | select(startswith("placed by weight"))' w.json
    assert_output --regexp '^placed by weight 0:3 \((kernel MPOL_WEIGHTED_INTERLEAVE|ranges of ).*\): pages on node0 100\.0% \(asked 100\.0%\)$'
}

@test "--interleave-weights: empty, negative, all-zero, twice-named and foreign nodes are usage errors" {
    local bad
    for bad in "0:" "0:-1" ":1" "0:1," "0:0" "0:1,0:2" "0:1001" "63:1" "x:1" "0:1:2"; do
        run --separate-stderr mencal run seqread --size 16M --interleave-weights "$bad" -q
        [ "$status" -eq 2 ] || { echo "'$bad': exit $status"; return 1; }
        [[ "$stderr" == *"--interleave-weights"* ]] || { echo "'$bad': $stderr"; return 1; }
    done
    run --separate-stderr mencal run seqread --size 16M --interleave-weights 0:1 --membind 0 -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"conflict"* ]]
    # a node that is not a usable memory node is named, with the ones that are
    fake_nodes
    echo 0-1 >"$SANDBOX/sys/devices/system/node/has_memory"
    mkdir -p "$SANDBOX/proc/self"
    printf 'Mems_allowed_list:\t0-2\n' >"$SANDBOX/proc/self/status"
    MEMSUITE_PROCFS="$SANDBOX/proc" run --separate-stderr mencal run seqread --size 16M \
        --interleave-weights 0:1,2:1 -q
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"node 2 is not a memory node this process may use (those are 0-1)"* ]]
}

@test "weights: a machine without a CPU-less node skips it naming why; bad ratios and tiers are usage errors" {
    # node0 alone (the fake tree's has_memory says so): nothing to weigh against
    fake_nodes
    echo 0 >"$SANDBOX/sys/devices/system/node/has_memory"
    run --separate-stderr mencal run weights --size 16M
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"weights: cannot run here: no CPU-less far memory node to spread the buffer over (usable memory nodes: 0)"* ]]
    unset MEMSUITE_SYSFS
    local bad
    for bad in "0:0" "3:1," "a:1" "1:1001" "-1:2" "1:2:3"; do
        run --separate-stderr mencal run weights --size 16M --ratios "$bad" -q
        [ "$status" -eq 2 ] || { echo "'$bad': exit $status"; return 1; }
        [[ "$stderr" == *"--ratios"* ]] || { echo "'$bad': $stderr"; return 1; }
    done
    for bad in "0" "0,0" "0,x" "0,63"; do
        run --separate-stderr mencal run weights --size 16M --tiers "$bad" -q
        [ "$status" -eq 2 ] || { echo "tiers '$bad': exit $status"; return 1; }
        [[ "$stderr" == *"--tiers"* ]] || { echo "tiers '$bad': $stderr"; return 1; }
    done
}

# ---- heatmaps in memsuite report ------------------------------------------------

is_png() { [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

@test "memsuite report --plots draws the c2c and matrix heatmaps, cells labelled, boundaries from the topology" {
    need_plots
    [ "$(ncpu)" -ge 2 ] || skip "needs two CPUs"
    run "$ROOT/scripts/memsuite" run --bench mencal:c2c,mencal:matrix --sizes 16M --threads 2 --reps 1 \
        --cooldown 0 --out r
    assert_success
    run "$ROOT/scripts/memsuite" report --plots r
    assert_success
    assert_output --regexp 'r/plots/c2c-[^ ]+\.png'
    assert_output --regexp 'r/plots/matrix-[^ ]+\.png'
    is_png "$(ls r/plots/c2c-*.png)"
    is_png "$(ls r/plots/matrix-*.png)"
    # the analyser's series: numbers only, null where not measured (the
    # diagonal), the colour bar's unit named; the matrix in two panels
    local cell
    cell=$(ls r/cells/mencal-c2c-*.json)
    run /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" plot --result "$cell" --series
    assert_success
    [ "$(jq -r '.panels[0].unit' <<<"$output")" = "One-way latency (ns)" ]
    jq -e '.panels[0].values[0] | (.[0] == null) and (.[1] | type == "number")' <<<"$output"
    cell=$(ls r/cells/mencal-matrix-*.json)
    run /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" plot --result "$cell" --series
    [ "$(jq -c '[.panels[].unit]' <<<"$output")" = '["Latency (ns)","Bandwidth (GB/s)"]' ]
}

@test "the heatmap draws a line where the L3 domain or the package changes" {
    # a hand-made c2c result of four CPUs on two packages
    jq -n '{schema: "memsuite/result/1", tool: "mencal", complete: true, sysinfo: {cpu_model: "Fixture"},
            records: [{name: "c2c", metrics: {latency: {value: 50, unit: "ns"}},
              tables: {cpus: [range(4) | {cpu: ., package: (. / 2 | floor), die: 0, l3_domain: ((. / 2 | floor) * 2)}],
                       pairs: [{cpu_a: 0, cpu_b: 1, one_way: 40, between: "same L3"}],
                       matrix: [range(4) as $r | {cpu: $r} + ([range(4) as $c | {"cpu\($c)": (if $r == $c then null elif ($r / 2 | floor) != ($c / 2 | floor) then 100 else 40 end)}] | add)]}}]}' >c.json
    run /usr/bin/python3 "$ROOT/scripts/analysis/memsuite-analyse" plot --result c.json --series
    assert_success
    [ "$(jq -c '.panels[0].bounds' <<<"$output")" = '[2]' ]
    [ "$(jq -c '.panels[0].values[0]' <<<"$output")" = '[null,40,100,100]' ]
    [ "$(jq -c '.panels[0].values[2]' <<<"$output")" = '[100,100,null,40]' ]
}
