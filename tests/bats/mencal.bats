#!/usr/bin/env bats
# mencal: every scenario on small working sets, with assertions on the
# structure and sanity of the results, the error paths, signals and
# children, and allocator detection.

bats_require_minimum_version 1.5.0
load test_helper

SMALL=(--size 16M --allow-cache --reps 2 -q)

# JSON value of a metric: m FILE RECORD METRIC
m() { jq -r --arg r "$2" --arg k "$3" '.records[] | select(.name == $r) | .metrics[$k].value' "$1"; }

# a MemAvailable of $1 kB in a fake procfs
fake_meminfo() {
    mkdir -p "$SANDBOX/proc"
    printf 'MemTotal:       %s kB\nMemFree:        %s kB\nMemAvailable:   %s kB\n' \
        "$(($1 * 2))" "$1" "$1" > "$SANDBOX/proc/meminfo"
    export MEMSUITE_PROCFS="$SANDBOX/proc"
}

# wait until process $1 has $2 children (max ~10 s)
@test "mencal --help lists the commands, options and scenarios" {
    run mencal --help
    assert_success
    assert_output --partial "mencal run SCENARIO...|all"
    assert_output --partial "--read-pct"
    for s in seqread randread mixed concurrent stability; do
        assert_output --partial "$s"
    done
}

@test "mencal --version prints the build line" {
    run mencal --version
    assert_success
    assert_line --index 0 --regexp '^mencal \(memsuite\) [0-9]+\.[0-9]+\.[0-9]+'
}

@test "mencal list shows every scenario with its options" {
    run mencal list
    assert_success
    assert_line --regexp '^seqread '
    assert_line --regexp '^randread '
    assert_line --regexp '^concurrent '
    assert_output --partial "--chains --tlb-locality --sweep"
    assert_output --partial "--iterations --interval --duration"
}

@test "no command and an unknown command are usage errors" {
    run mencal
    assert_failure 2
    run mencal frobnicate
    assert_failure 2
    assert_output --partial "unknown command 'frobnicate'"
}

@test "an unknown scenario exits 2 and lists the valid ones" {
    run mencal run seqread nosuch
    assert_failure 2
    assert_output --partial "unknown scenario 'nosuch'"
    assert_output --partial "seqread, randread, mixed, concurrent, stability"
}

@test "bad values exit 2 without running anything" {
    local -a bad=(
        "mixed --read-pct 101"
        "mixed --read-pct -1"
        "concurrent --procs 0"
        "concurrent --procs 5000"
        "concurrent --procs 4000"
        "stability --interval 0"
        "stability --interval 5 --duration 2"
        "randread --chains 0"
        "randread --chains 17"
        "seqread --chains 2"
        "seqread --size 0"
        "seqread --size 12Q"
    )
    local a
    for a in "${bad[@]}"; do
        # shellcheck disable=SC2086
        run mencal run $a --allow-cache --size 16M -q
        [ "$status" -eq 2 ] || { echo "'$a' exited $status: $output"; return 1; }
        [[ "$output" == *"mencal: error:"* ]] || { echo "'$a': no error message"; return 1; }
    done
}

@test "a working set under 4x the LLC runs with a warning and the label; --strict refuses (2)" {
    export MEMSUITE_LLC=8M
    run --separate-stderr mencal run seqread --size 16M --reps 1 --format json -O r.json
    assert_success
    [[ "$stderr" == *"--size 16.0 MiB: the working set (16.0 MiB) is under 4x the last-level cache (8.0 MiB"*"from override) = 32.0 MiB"* ]]
    [[ "$stderr" == *"--size 32MiB or more"* ]]
    run jq -r '.label, (.label_reasons | join(";")), .config.cache_resident' r.json
    assert_line --index 0 "not-standard"
    assert_line --index 1 --partial "under 4x the last-level cache"
    assert_line --index 2 "true"
    run --separate-stderr mencal run seqread --size 16M --reps 1 -q --strict -O t.json
    assert_failure 2
    [[ "$stderr" == *"use --size 32MiB or more"* ]]
    [ ! -e t.json ]
    # --allow-cache is still accepted (a no-op)
    run mencal run seqread --size 16M --allow-cache --reps 1 -q
    assert_success
    # 4x LLC exactly is standard, --strict or not
    run mencal run seqread --size 32M --reps 1 -q --strict --format json -O s.json
    assert_success
    run jq -r '.label' s.json
    assert_output "standard"
}

@test "the size rule's sentence: once on stderr (none with -q), once in the text report" {
    export MEMSUITE_LLC=8M
    run --separate-stderr mencal run seqread randread --size 16M --reps 1
    assert_success
    [ "$(grep -c 'is under 4x the last-level cache' <<<"$stderr")" = 1 ]
    [ "$(grep -c 'is under 4x the last-level cache' <<<"$output")" = 1 ]
    assert_line --regexp '^Warning: --size 16\.0 MiB: the working set .* is under 4x the last-level cache'
    assert_line "Label: not-standard (the warning above)"
    run --separate-stderr mencal run seqread randread --size 16M --reps 1 -q
    assert_success
    [ -z "$stderr" ]
    [ "$(grep -c 'is under 4x the last-level cache' <<<"$output")" = 1 ]
}

@test "an LLC whose 4x overflows: the message says no size satisfies the rule (not 0MiB)" {
    export MEMSUITE_LLC=4611686018427387904
    run --separate-stderr mencal run seqread --size 4M --strict
    assert_failure 2
    [[ "$stderr" == *"no size can satisfy the rule"* ]]
    [[ "$stderr" != *"0MiB"* ]]
}

@test "VM fixtures (sysconf 508 MiB; sysfs none or 32 MiB): --size 64MiB runs, warns, labels; --strict exits 2" {
    export MEMSUITE_SYSCONF_L3=508MiB
    use_fixture llc-vm-nocache
    run --separate-stderr mencal run seqread --size 64MiB --reps 1 --format json -O r.json
    assert_success
    [[ "$stderr" == *"(508.0 MiB L3 from sysconf) = 2.0 GiB"* ]]
    run jq -r '"\(.label) \(.llc.source)"' r.json
    assert_output "not-standard sysconf"
    run mencal run seqread --size 64MiB --reps 1 -q --strict
    assert_failure 2
    use_fixture llc-vm-sysfs
    run --separate-stderr mencal run seqread --size 64MiB --reps 1 --format json -O s.json
    assert_success
    [[ "$stderr" == *"(32.0 MiB L3 from sysfs) = 128.0 MiB"* ]]
    run jq -r '"\(.label) \(.llc.source)"' s.json
    assert_output "not-standard sysfs"
    run mencal run seqread --size 64MiB --reps 1 -q --strict
    assert_failure 2
}

@test "a size beyond memory exits 3 before allocating" {
    fake_meminfo 1048576     # 1 GiB available
    run mencal run seqread --size 4G -q -O out.json
    assert_failure 3
    assert_output --partial "MemAvailable"
    # refused while resolving: neither the result file nor its temp exists
    run ls -A
    refute_output --partial "out.json"
}

@test "the default size is clamped to half of MemAvailable with a warning" {
    fake_meminfo 2097152     # 2 GiB available
    run mencal run seqread --dry-run
    assert_success
    assert_output --partial "exceeds half of MemAvailable"
    assert_line "size: 1073741824 bytes (1.0 GiB; default 8 GiB, clamped to MemAvailable/2)"
}

@test "threads default to one per physical core, never two SMT siblings" {
    taskset -c 0,1 true 2>/dev/null || skip "needs CPUs 0 and 1"
    local sys="$SANDBOX/sys/devices/system/cpu"
    mkdir -p "$sys/cpu0/topology" "$sys/cpu1/topology"
    echo 0-1 > "$sys/cpu0/topology/thread_siblings_list"
    echo 0-1 > "$sys/cpu1/topology/thread_siblings_list"
    export MEMSUITE_SYSFS="$SANDBOX/sys"
    run taskset -c 0,1 mencal run seqread --dry-run
    assert_success
    assert_line "threads: 1"
    assert_line "cpus: 0"
    run taskset -c 0,1 mencal run seqread --dry-run --threads 2
    assert_success
    assert_line "cpus: 0 1"
    assert_output --partial "SMT siblings"
}

@test "OMP_PROC_BIND does not shrink the CPUs mencal sees to one place" {
    taskset -c 0,1 true 2>/dev/null || skip "needs CPUs 0 and 1"
    # libgomp binds the initial thread to the first place before main();
    # mencal must still see both CPUs (memsuite run sets these variables)
    OMP_PROC_BIND=spread OMP_PLACES=cores run taskset -c 0,1 mencal run seqread --dry-run --threads 2
    assert_success
    assert_line "cpus: 0 1"
    refute_output --partial "exceeds the 1 physical cores"
}

@test "seqread: JSON validates; total and per-thread bandwidth are sane" {
    run mencal run seqread "${SMALL[@]}" --threads 2 --format json -O r.json
    assert_success
    validate_json r.json
    local bw min max
    bw=$(m r.json seqread bandwidth)
    min=$(m r.json seqread per_thread_min)
    max=$(m r.json seqread per_thread_max)
    awk -v b="$bw" -v lo="$min" -v hi="$max" 'BEGIN { exit !(b > 0 && lo > 0 && lo <= hi) }'
    run jq '.records[0].tables.per_thread | length' r.json
    assert_output 2
    run jq -r '.records[0].status, .complete, .sysinfo.swappiness != null or .sysinfo.swappiness_unavailable != null' r.json
    assert_line --index 0 ok
    assert_line --index 1 true
    assert_line --index 2 true
}

@test "seqread text output: environment lines and the summary table" {
    run mencal run seqread "${SMALL[@]}"
    assert_success
    assert_output --partial "threads: "
    assert_output --partial "tuning: swappiness"
    assert_line --regexp '^Record +Metric +Value +Unit +Median +Min +Max +CV'
    assert_line --regexp '^seqread +bandwidth '
}

@test "randread: latency, K chains, TLB groups, and --random-state reproduces the permutation" {
    run mencal run randread "${SMALL[@]}" --format json -O a.json
    assert_success
    validate_json a.json
    awk -v l="$(m a.json randread latency)" 'BEGIN { exit !(l > 0 && l < 100000) }'
    run mencal run randread "${SMALL[@]}" --format json -O b.json
    assert_success
    [ "$(m a.json randread permutation_signature)" = "$(m b.json randread permutation_signature)" ]
    run mencal run randread "${SMALL[@]}" --random-state 7 --format json -O c.json
    assert_success
    [ "$(m a.json randread permutation_signature)" != "$(m c.json randread permutation_signature)" ]
    run mencal run randread "${SMALL[@]}" --chains 4 --tlb-locality 8 --format json -O d.json
    assert_success
    validate_json d.json
    [ "$(m d.json randread chains)" = 4 ]
    awk -v g="$(m d.json randread bandwidth)" 'BEGIN { exit !(g > 0) }'
}

@test "seqread and randread JSON: schema 2, headlines bandwidth (GB/s, higher) and latency (ns, lower)" {
    run mencal run seqread "${SMALL[@]}" --format json -O s.json
    assert_success
    validate_json s.json
    [ "$(jq -r .schema s.json)" = memsuite/result/2 ]
    [ "$(headline_of s.json seqread)" = bandwidth ]
    [ "$(metric_meaning s.json seqread bandwidth)" = "GB/s B/s 1000000000 higher" ]
    [ "$(metric_meaning s.json seqread bytes_per_rep)" = "bytes B 1 -" ]
    [ "$(metric_meaning s.json seqread time)" = "s s 1 lower" ]
    run mencal run randread "${SMALL[@]}" --format json -O r.json
    assert_success
    validate_json r.json
    [ "$(headline_of r.json randread)" = latency ]
    [ "$(metric_meaning r.json randread latency)" = "ns s 1e-09 lower" ]
    [ "$(metric_meaning r.json randread bandwidth)" = "GB/s B/s 1000000000 higher" ]
    # the timing loop's own cost is a calibration, not a figure that improves
    [ "$(metric_meaning r.json randread loop_overhead)" = "ns s 1e-09 -" ]
    [ "$(metric_meaning r.json randread permutation_signature)" = "  1 -" ]
}

@test "randread --sweep: levels labelled, latency rises from the smallest to the largest point" {
    run mencal run randread --sweep --size 64M --allow-cache --reps 2 -q --format json -O w.json
    assert_success
    validate_json w.json
    [ "$(headline_of w.json randread)" = latency_largest ]   # memory, past the caches
    run jq '.records[0].tables.sweep | length' w.json
    assert_output 13                        # 16 KiB .. 64 MiB
    run jq -r '.records[0].tables.sweep[0].size_bytes, .records[0].tables.sweep[0].level' w.json
    assert_line --index 0 16384
    assert_line --index 1 L1
    local small large
    small=$(m w.json randread latency_smallest)
    large=$(m w.json randread latency_largest)
    awk -v s="$small" -v l="$large" 'BEGIN { exit !(s > 0 && l > s) }'
    run jq -r '.records[0].notes[]' w.json
    assert_output --partial "cache levels: L1d"
}

@test "mixed: exact read share and read + write bytes add up" {
    local pct
    for pct in 70 0 100; do
        run mencal run mixed "${SMALL[@]}" --read-pct "$pct" --format json -O x.json
        assert_success
        validate_json x.json
        local r w t a share
        r=$(m x.json mixed read_bytes); w=$(m x.json mixed write_bytes)
        t=$(m x.json mixed total_bytes); a=$(m x.json mixed bytes_with_write_allocate)
        share=$(m x.json mixed read_share)
        awk -v r="$r" -v w="$w" -v t="$t" -v a="$a" -v s="$share" -v p="$pct" \
            'BEGIN { exit !(r + w == t && a == r + 2 * w && s == p && t > 0) }' ||
            { echo "pct $pct: r=$r w=$w t=$t a=$a share=$share"; return 1; }
    done
    [ "$(m x.json mixed write_bytes)" = 0 ]
}

@test "mixed --pattern sequential runs and reports both directions" {
    run mencal run mixed "${SMALL[@]}" --pattern sequential --format json -O x.json
    assert_success
    awk -v r="$(m x.json mixed read_bandwidth)" -v w="$(m x.json mixed write_bandwidth)" \
        'BEGIN { exit !(r > 0 && w > 0) }'
}

@test "concurrent: per-worker figures, total, and fairness in (0,1]" {
    run mencal run concurrent --size 16M --allow-cache --procs 3 --duration 0.5 --reps 1 -q \
        --format json -O c.json
    assert_success
    validate_json c.json
    run jq -r '.records[0].tables.workers | length' c.json
    assert_output 3
    run jq -r '[.records[0].tables.workers[].status] | unique | join(",")' c.json
    assert_output ok
    local j
    j=$(m c.json concurrent fairness_jain)
    awk -v j="$j" 'BEGIN { exit !(j > 0 && j <= 1) }'
    # the total is the sum of the workers
    run jq -r '([.records[0].tables.workers[].bandwidth] | add) - .records[0].metrics.total_bandwidth.value | fabs < 1e-9' c.json
    assert_output true
    [ "$(m c.json concurrent workers_failed)" = 0 ]
}

@test "concurrent: SIGINT stops and reaps every worker and writes an incomplete result" {
    env --default-signal=INT mencal run concurrent --size 16M --allow-cache --procs 2 --duration 30 -q \
        --format json -O int.json 3>&- &
    local pid=$!
    wait_children "$pid" 2 || { kill -9 "$pid"; echo "workers never started"; return 1; }
    local kids
    kids=$(pgrep -P "$pid")
    wait_catching "$pid" INT || { kill -9 "$pid"; return 1; }
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 1 ]
    local k
    for k in $kids; do
        ! kill -0 "$k" 2>/dev/null || { echo "worker $k survived"; return 1; }
    done
    run pgrep -P "$pid"
    assert_failure
    validate_json int.json
    run jq -r '.complete, .records[0].status, .records[0].complete' int.json
    assert_line --index 0 false
    assert_line --index 1 interrupted
    assert_line --index 2 false
}

@test "concurrent: a worker that dies is reported with its signal, not averaged away" {
    concurrent_with_a_dead_worker dead.json
    run jq -r '.records[0].status, (.records[0].tables.workers | map(.status) | join("|"))' dead.json
    assert_line --index 0 failed
    assert_line --index 1 --partial "killed by signal 9"
    [ "$(m dead.json concurrent workers_failed)" = 1 ]
    run jq -r '.records[0].reason' dead.json
    assert_output --partial "1 of 2 workers failed"
}

@test "stability: samples with timestamps, drift and slope; CSV sample block" {
    run mencal run stability --size 16M --allow-cache --iterations 3 --interval 0.2 -q \
        --format json -O s.json
    assert_success
    validate_json s.json
    [ "$(m s.json stability samples)" = 3 ]
    run jq -r '.records[0].tables.samples | length, (.[0] | has("t") and has("unix_time") and has("rw_bandwidth") and has("read_bandwidth") and has("cpu_mhz") and has("pswpout"))' s.json
    assert_line --index 0 3
    assert_line --index 1 true
    run jq -r '.records[0].metrics.drift.value | type' s.json
    assert_output number
    run mencal run stability --size 16M --allow-cache --iterations 3 --interval 0.2 -q --format csv
    assert_success
    assert_line --index 0 "tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,validation"
    assert_line --regexp '^record,table,sample,t,unix_time,rw_bandwidth,read_bandwidth,cpu_mhz,throttle_count,pgscan_kswapd,'
    [ "$(grep -c '^stability,samples,' <<<"$output")" -eq 3 ]
    assert_line "stability,status,ok,true,\"\""
}

@test "stability: --duration/--interval sets the sample count" {
    run mencal run stability --dry-run --duration 3 --interval 0.5
    assert_success
    assert_line --partial "stability: 6 x 0.5 s"
}

@test "stability: SIGINT writes the samples gathered so far, marked incomplete" {
    env --default-signal=INT mencal run stability --size 16M --allow-cache --iterations 100 --interval 0.1 \
        --format json -O st.json 2>st.err 3>&- &
    local pid=$!
    wait_for_text st.err "stability: sample 2 of 100 " "$pid" || { kill -9 "$pid"; return 1; }
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 1 ]
    validate_json st.json
    run jq -r '.complete, .records[0].status, (.records[0].tables.samples | length > 0)' st.json
    assert_line --index 0 false
    assert_line --index 1 interrupted
    assert_line --index 2 true
}

@test "run all: every scenario in one valid document, short stability profile said" {
    run mencal run all --size 16M --allow-cache --reps 1 --duration 0.3 --iterations 2 \
        --interval 0.1 -q --format json -O all.json
    assert_success
    validate_json all.json
    run jq -r '[.records[].name] | join(" ")' all.json
    assert_output --partial "seqread randread mixed concurrent stability"
    run mencal run all --dry-run
    assert_success
    assert_output --partial "short profile under 'run all'"
}

@test "--hugepages madvise reports the THP share actually obtained" {
    run mencal run seqread "${SMALL[@]}" --hugepages madvise --format json -O h.json
    assert_success
    validate_json h.json
    run jq -r '.label, .records[0].buffer.thp_share' h.json
    assert_line --index 0 not-standard      # cache-resident and tuned
    awk -v s="${lines[1]}" 'BEGIN { exit !(s >= 0 && s <= 1) }'
}

@test "--counters: figures or 'unavailable: reason', rusage always" {
    run mencal run randread "${SMALL[@]}" --counters --format json -O k.json
    assert_success
    validate_json k.json
    run jq -r '.records[0].metrics.dtlb_miss_rate | if .value == null then .value_unavailable else "number" end' k.json
    [[ "$output" == number || "$output" == unavailable:* ]]
    run jq -r '.records[0].counters.rusage | has("minflt") and has("maxrss_kib")' k.json
    assert_output true
}

@test "an unwritable -O path fails before measuring" {
    run mencal run seqread "${SMALL[@]}" -O /nonexistent/dir/r.json
    assert_failure 3
    assert_output --partial "/nonexistent/dir/r.json"
}

@test "env: the tuning facts in text, GLIBC_TUNABLES parsed into keys" {
    GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.arena_max=2 run mencal env
    assert_success
    local k
    for k in swappiness numa_balancing numa_balancing_cmdline thp_enabled thp_defrag \
        thp_khugepaged_defrag zone_reclaim_mode overcommit_memory governor smt allocator_in_effect; do
        assert_line --regexp "^$k "
    done
    assert_output --partial "glibc.malloc.tcache_count = 0"
    assert_output --partial "glibc.malloc.arena_max = 2"
    assert_line --regexp '^hugepage_pools '
}

@test "env --format json validates and carries the parsed tunables" {
    GLIBC_TUNABLES=glibc.malloc.tcache_count=7 run mencal env --format json -O e.json
    assert_success
    validate_json e.json
    run jq -r '.config.glibc_tunables["glibc.malloc.tcache_count"], .config.allocator.name' e.json
    assert_line --index 0 7
    assert_line --index 1 glibc
}

preload_check() {   # preload_check LIB NAME
    # the library of the binary's architecture (an x86-64 library cannot
    # be preloaded into an aarch64 mencal, as under qemu-user)
    local dir=x86_64-linux-gnu
    case "$(file -b "$BIN/mencal")" in *aarch64*) dir=aarch64-linux-gnu ;; esac
    local so="/usr/lib/$dir/$1"
    [ -e "$so" ] || skip "$so is not installed"
    if ldd "$BIN/mencal" 2>/dev/null | grep -q libasan; then
        skip "sanitizer build: ASan owns malloc, another allocator cannot be preloaded"
    fi
    LD_PRELOAD="$so" run mencal env --format json -O a.json
    assert_success
    validate_json a.json
    run jq -r '.config.allocator.name, .sysinfo.allocator' a.json
    assert_line --index 0 "$2"
    assert_line --index 1 --partial "$2"
}

@test "allocator detection: jemalloc under LD_PRELOAD" {
    preload_check libjemalloc.so.2 jemalloc
}

@test "allocator detection: tcmalloc under LD_PRELOAD" {
    preload_check libtcmalloc.so.4 tcmalloc
}

@test "allocator detection: mimalloc under LD_PRELOAD" {
    preload_check libmimalloc.so.2 mimalloc
}

# --- review fixes ----------------------------------------------------------

@test "notes are not cut short: the cache-levels note carries the whole LLC note" {
    run mencal run randread "${SMALL[@]}" --format json -O n.json
    assert_success
    validate_json n.json
    # the LLC note (sysfs vs sysconf) made this note longer than the old
    # 256-byte buffer, which cut it mid-word ("pass --llc o")
    run jq -r '.llc.note as $n | .records[0].notes[] | select(startswith("cache levels"))
               | (contains($n) and endswith(")"))' n.json
    assert_output true
}

@test "randread --tlb-locality larger than the set: refused when given, the default says it has no effect" {
    # one thread, 8 MiB: a slice of 2048 pages
    run mencal run randread --size 8M --allow-cache --reps 2 -q -t 1 --tlb-locality 4096
    assert_failure 2
    assert_output --partial "randread: --tlb-locality 4096: a group of 4096 pages is larger than the set of 2048 pages (4 KiB) per thread; expected 0 to 2048"
    run mencal run randread --sweep --size 1M --allow-cache --reps 1 -q --tlb-locality 512
    assert_failure 2
    assert_output --partial "larger than the set of 256 pages (4 KiB) of --size; expected 0 to 256"
    # the default (64 pages) over a 128 KiB slice of 32 pages
    run mencal run randread --size 128K --allow-cache --reps 2 -q -t 1 --format json -O t.json
    assert_success
    validate_json t.json
    run jq -r '.records[0].notes[]' t.json
    assert_output --partial "--tlb-locality 64 has no effect"
    assert_output --partial "use fewer than 32 pages"
    refute_output --partial "hops stay inside groups"
    run mencal run randread --size 8M --allow-cache --reps 2 -q -t 1 --tlb-locality 4 \
        --format json -O t.json
    assert_success
    run jq -r '.records[0].notes[]' t.json
    # 4 pages of 4 KiB hold 64 nodes at the default 256-byte stride
    assert_output --partial "latency: stride 256 B, TLB locality 4 pages (hops stay inside groups of 16.0 KiB, 64 nodes)"
}

@test "randread and loaded: TLB groups and the page counts follow the kernel's page size (64 KiB pages)" {
    # a 64 KiB-page kernel (the hook; this machine's pages are 4 KiB and a
    # 64 KiB group is 16 of them, so the layout stays valid here)
    export MEMSUITE_TEST_PAGE_SIZE=65536
    run mencal run randread --size 8M --allow-cache --reps 2 -q -t 1 --tlb-locality 4 \
        --hugepages never --format json -O t.json
    assert_success
    run jq -r '.records[0].notes[]' t.json
    # 4 pages of 64 KiB hold 1024 nodes at the default 256-byte stride
    assert_output --partial "latency: stride 256 B, TLB locality 4 pages (hops stay inside groups of 256.0 KiB, 1024 nodes), 64 KiB pages (MADV_NOHUGEPAGE)"
    # 8 MiB is 128 pages of 64 KiB
    run mencal run randread --size 8M --allow-cache --reps 2 -q -t 1 --tlb-locality 256
    assert_failure 2
    assert_output --partial "randread: --tlb-locality 256: a group of 256 pages is larger than the set of 128 pages (64 KiB) per thread; expected 0 to 128"
    run mencal run loaded --size 8M --allow-cache -q -t 2 --tlb-locality 128 --dry-run
    assert_failure 2
    assert_output --partial "the latency thread's slice of 64 pages (64 KiB); expected 0 to 64"
}

@test "randread: multichase's defaults (stride 256 B, 64-page TLB locality) and two labelled figures" {
    run mencal run randread "${SMALL[@]}" -t 1 --format json -O r.json
    assert_success
    validate_json r.json
    run jq -r '.config.randread | "\(.stride_bytes) \(.tlb_locality_pages) \(.chain_layout)"' r.json
    assert_output "256 64 multichase"
    [ "$(jq -r .config.loaded.chain_layout r.json)" = multichase ]
    run jq -r '.label_reasons // [] | join("; ")' r.json
    refute_output --partial "chain-layout"
    [ "$(m r.json randread stride)" = 256 ]
    # the locality figure and the full-random one, each labelled
    awk -v l="$(m r.json randread latency)" -v f="$(m r.json randread latency_full_random)" \
        'BEGIN { exit !(l > 0 && f > 0) }'
    run jq -r '.records[0].notes[]' r.json
    assert_line --partial "latency: stride 256 B, TLB locality 64 pages (hops stay inside groups of 256.0 KiB, 1024 nodes), pages as the system THP policy gives (THP share in the buffer notes)"
    assert_line --partial "latency_full_random: stride 256 B, no TLB locality (hops span the 16.0 MiB slice, page walks included), pages as the system THP policy gives"
    assert_line --partial "chain layout multichase: a word per slot from multichase's 64-column mixer table (the table multichase draws from start value --random-state, its own being 1)"
    # the text table shows both figures
    run mencal run randread "${SMALL[@]}" -t 1
    assert_success
    assert_line --regexp '^randread +latency +[0-9.]+ +ns'
    assert_line --regexp '^randread +latency_full_random +[0-9.]+ +ns'
}

@test "randread, loaded: --chain-layout multichase by default, tuned labelled not standard" {
    run mencal run randread "${SMALL[@]}" -t 1 --chain-layout tuned --format json -O t.json
    assert_success
    validate_json t.json
    run jq -r '.config.randread.chain_layout' t.json
    assert_output tuned
    run jq -r '.records[0].notes[]' t.json
    assert_line --partial "chain layout tuned: a Fibonacci-hashed line per slot"
    run jq -r '[.label, (.label_reasons | join("; "))] | join(" ")' t.json
    assert_output --partial "not-standard"
    assert_output --partial "--chain-layout tuned (not multichase's layout; its latency is not multichase's figure)"
    # loaded's chase too
    run mencal run loaded --size 64M --allow-cache -t 2 --delays 0 --windows 2 -q --chain-layout tuned --format json -O lt.json
    assert_success
    run jq -r '[.config.loaded.chain_layout, (.label_reasons | join("; "))] | join(" ")' lt.json
    assert_output --partial "tuned"
    assert_output --partial "--chain-layout tuned (not multichase's layout"
    run jq -r '.records[0].notes[]' lt.json
    assert_line --partial "chain layout tuned: a Fibonacci-hashed line per slot"
    run mencal run randread "${SMALL[@]}" --chain-layout hashed
    assert_failure 2
    assert_output --partial "hashed"
    assert_output --partial "multichase|tuned"
    # each chain takes its own word of a slot: 16 chains need 128-byte slots
    run mencal run randread "${SMALL[@]}" --chains 16 --stride 64
    assert_failure 2
    assert_output --partial "--chains 16 with --chain-layout multichase: each chain takes its own word of every slot, so --stride 64 holds at most 8 chains; use --stride 128 or more"
    run mencal run randread "${SMALL[@]}" -t 1 --chains 16 --stride 64 --chain-layout tuned
    assert_success
}

@test "randread: latency is time per hop; the empty loop is reported, not subtracted" {
    run mencal run randread "${SMALL[@]}" -t 1 --tlb-locality 0 --format json -O o.json
    assert_success
    run jq -r '.records[0].metrics | [has("loop_overhead"), has("latency_raw")] | join(" ")' o.json
    assert_output "true false"
    # one thread: the per-thread median is the metric's median, both time / hops
    run jq -r '.records[0] | (.metrics.latency.value - .tables.per_thread[0].latency) | fabs < 1e-9' o.json
    assert_output true
}

@test "randread --tlb-locality 0 is full random only; --stride must be a multiple of 8" {
    run mencal run randread "${SMALL[@]}" -t 1 --tlb-locality 0 --stride 64 --format json -O z.json
    assert_success
    validate_json z.json
    [ "$(m z.json randread stride)" = 64 ]
    run jq -r '.records[0].metrics | has("latency_full_random")' z.json
    assert_output false
    run jq -r '.records[0].notes[]' z.json
    assert_line --partial "latency: stride 64 B, full random (--tlb-locality 0: hops span the 16.0 MiB slice, page walks included)"
    run mencal run randread "${SMALL[@]}" --stride 12
    assert_failure 2
    assert_output --partial "--stride 12: expected a multiple of 8 bytes"
    run mencal run randread "${SMALL[@]}" --stride 4
    assert_failure 2
    run mencal run randread "${SMALL[@]}" --stride 0
    assert_failure 2
    # the sweep names its stride
    run mencal run randread --sweep --size 64K --allow-cache --reps 1 -q --stride 512 --format json -O s.json
    assert_success
    run jq -r '.records[0].notes[]' s.json
    assert_line --partial "stride 512 B"
}

@test "randread --sweep: one repetition has no CV (null with a reason), the note names the last point" {
    run mencal run randread --sweep --size 100K --allow-cache --reps 1 -q --format json -O s.json
    assert_success
    validate_json s.json
    run jq -r '.records[0].tables.sweep[0] | "\(.cv) \(.cv_unavailable)"' s.json
    assert_output "null one repetition has no spread; use --reps 2 or more"
    # 100 KiB stops at 64 KiB: the note must not claim 100 KiB
    [ "$(m s.json randread largest_size)" = 65536 ]
    run jq -r '.records[0].notes[] | select(startswith("sweep:"))' s.json
    assert_output --partial "sizes 16 KiB to 64.0 KiB"
    run mencal run randread --sweep --size 32K --allow-cache --reps 2 -q --format json -O s2.json
    assert_success
    run jq -r '.records[0].tables.sweep[0].cv | type' s2.json
    assert_output number
}

@test "mixed: byte totals equal the per-thread counts and the note says they span the reps" {
    run mencal run mixed "${SMALL[@]}" --format json -O x.json
    assert_success
    local r w
    r=$(jq '[.records[0].tables.per_thread[].reads] | add * 64' x.json)
    w=$(jq '[.records[0].tables.per_thread[].writes] | add * 64' x.json)
    awk -v a="$r" -v b="$(m x.json mixed read_bytes)" -v c="$w" -v d="$(m x.json mixed write_bytes)" \
        'BEGIN { exit !(a == b && c == d && a > 0) }'
    run jq -r '.records[0].notes[0]' x.json
    assert_output --partial "totals over the 2 counted repetitions"
}

# ---- huge pages, buffer, reps, throttling (issue 18) ----------------------

# the system's THP policy ("always", "madvise", "never"), or "" without THP
thp_policy() { sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null; }

@test "huge pages follow the system by default (standard); never/madvise are labelled choices; every scenario reports its THP share" {
    run mencal run seqread randread mixed concurrent stability --size 16M --allow-cache --reps 1 \
        --duration 0.3 --iterations 2 --interval 0.1 -q --format json -O d.json
    assert_success
    validate_json d.json
    run jq -r '.config.hugepages, .config.buffer, ([.label_reasons[] | select(test("hugepages"))] | length)' d.json
    assert_output $'thp\nmmap\n0'
    # a THP share (0..1) or the reason, in every scenario's buffer block
    run jq -r '[.records[] | .buffer.thp_share | type] | unique | join(",")' d.json
    assert_output number
    run mencal run randread --size 16M --allow-cache --reps 1 -q --hugepages never --format json -O n.json
    assert_success
    run jq -r '.records[0].buffer.thp_share, (.label_reasons | map(select(test("--hugepages never \\(MADV_NOHUGEPAGE\\)"))) | length)' n.json
    assert_output $'0\n1'
    run mencal run randread --size 16M --allow-cache --reps 1 -q --hugepages madvise --format json -O a.json
    assert_success
    run jq -r '.label_reasons | map(select(test("--hugepages madvise"))) | length' a.json
    assert_output 1
    [ "$(thp_policy)" = never ] || [ -z "$(thp_policy)" ] ||
        jq -e '.records[0].buffer.thp_share > 0.9' a.json
}

@test "--buffer malloc: the allocator provides the buffer, so GLIBC_TUNABLES and a preloaded allocator show in the result" {
    run mencal run randread --size 64M --allow-cache --reps 1 -q --buffer mmap --dry-run
    assert_line "buffer: mmap"
    run mencal run randread --size 64M --allow-cache --reps 1 -q --buffer sbrk
    assert_failure 2
    assert_output --partial "sbrk"
    case "$(thp_policy)" in
        madvise) ;;
        *) skip "needs the THP policy madvise (here: $(thp_policy)) to tell glibc's advice apart" ;;
    esac
    # glibc.malloc.hugetlb=1: glibc advises MADV_HUGEPAGE on its mmapped chunks
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 run mencal run randread --size 64M --allow-cache --reps 1 -q \
        --buffer malloc --format json -O t.json
    assert_success
    # a sanitizer build's malloc is ASan's, not glibc's: the tunable cannot reach it
    if jq -e '.build | test("fsanitize")' t.json >/dev/null; then
        skip "sanitizer build: malloc is the sanitizer's, glibc.malloc tunables do not apply"
    fi
    run jq -r '.config.buffer, .sysinfo.glibc_tunables, (.records[0].buffer.thp_share > 0.9)' t.json
    assert_output $'malloc\nglibc.malloc.hugetlb=1\ntrue'
    # the same tunable cannot reach a buffer mmapped by mencal itself
    GLIBC_TUNABLES=glibc.malloc.hugetlb=1 run mencal run randread --size 64M --allow-cache --reps 1 -q \
        --buffer mmap --format json -O m.json
    assert_success
    run jq -r '.records[0].buffer.thp_share' m.json
    assert_output 0
    # a preloaded allocator is what the allocator report names
    local je
    je=$(ls /usr/lib/*/libjemalloc.so.2 2>/dev/null | head -n 1)
    [ -n "$je" ] || skip "libjemalloc2 not installed"
    LD_PRELOAD="$je" run mencal run randread --size 64M --allow-cache --reps 1 -q --buffer malloc \
        --format json -O j.json
    assert_success
    run jq -r '.sysinfo.allocator' j.json
    assert_output --partial jemalloc
}

@test "--reps: concurrent repeats its rounds (median/min/max/CV); stability refuses it; run all records why" {
    run mencal run concurrent --size 16M --allow-cache --procs 2 --duration 0.3 --reps 3 -q \
        --format json -O c.json
    assert_success
    validate_json c.json
    run jq -r '.records[0].metrics | .rounds.value, .total_bandwidth.stats.n, .fairness_jain.stats.n' c.json
    assert_output $'3\n3\n3'
    run jq -r '.records[0].notes[] | select(test("rounds"))' c.json
    assert_output --partial "3 rounds of --duration 0.3 s (--reps)"
    run mencal run stability --size 16M --allow-cache --reps 3 --iterations 2 --interval 0.1 -q
    assert_failure 2
    assert_output --partial "stability: --reps 3 does not apply: it is one long run"
    run mencal run all --dry-run --reps 3 --duration 2
    assert_success
    assert_line --partial "stability: 10 x 0.2 s (--duration 2 s / --interval 0.2 s = 10 samples)"
}

@test "stability: its byte convention next to the figure, a read-only figure, and a throttling watch" {
    run mencal run stability --size 16M --allow-cache --iterations 3 --interval 0.1 -q --format json -O s.json
    assert_success
    run jq -r '.records[0].metrics | (.read_bandwidth.value * 2 - .rw_bandwidth.value | fabs < 1e-9), (.frequency_drop | has("value"))' s.json
    assert_output $'true\ntrue'
    run jq -r '.records[0].notes[]' s.json
    assert_line --partial "rw_bandwidth counts read + write bytes (16 per 8-byte word), read_bandwidth the read bytes only (seqread's convention)"
    assert_line --regexp '^throttling watch .*: (4 sample\(s\), frequency|unavailable: )'
    # a fake machine whose CPUs slow down half way: a warning naming the sample
    mkdir -p "$SANDBOX/sys/devices/system/cpu/cpu0/cpufreq"
    echo 2000000 >"$SANDBOX/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"
    fake_meminfo 4000000
    # the frequency falls once the third of 7 frequency samples (the one
    # before the run, then one with each bandwidth sample) has been read
    MEMSUITE_SYSFS="$SANDBOX/sys" mencal run stability --size 16M --allow-cache --llc 1M \
        --iterations 6 --interval 0.15 --format json -O hot.json 2>hot.err 3>&- &
    local pid=$! rc=0
    wait_for_text hot.err "stability: sample 2 of 6 " "$pid" || { kill -9 "$pid"; return 1; }
    echo 1000000 >"$SANDBOX/sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq"
    wait "$pid" || rc=$?
    [ "$rc" -eq 0 ] || { echo "stability exited $rc"; cat hot.err; return 1; }
    run jq -r '.records[0].notes[] | select(test("throttling"))' hot.json
    assert_output --regexp 'WARNING: throttling watch .*: frequency fell from 2000 MHz to 1000 MHz \(-50\.0%, threshold 10%\) at sample [4-7] of 7'
    run jq -r '.records[0].metrics.frequency_drop.value' hot.json
    assert_output 50
    # no frequency source: unavailable with why
    rm -rf "$SANDBOX/sys/devices"
    MEMSUITE_SYSFS="$SANDBOX/sys" run mencal run stability --size 16M --allow-cache --llc 1M \
        --iterations 2 --interval 0.1 -q --format json -O none.json
    assert_success
    run jq -r '.records[0].metrics.frequency_drop.value_unavailable' none.json
    assert_output --partial "no frequency source"
}

@test "run all --duration 2 fits the stability interval to the run; run SCENARIO --help is that scenario's help" {
    run mencal run all --duration 2 --dry-run
    assert_success
    refute_output --partial "longer than the run"
    run mencal run randread --help
    assert_success
    assert_line "randread: pointer-chasing latency over a random cycle (ns per dependent load)"
    assert_line "Usage: mencal run randread [options]"
    assert_output --partial "--tlb-locality"
    refute_output --partial "--procs"
    run mencal run concurrent --help
    assert_success
    assert_output --partial "--procs"
    refute_output --partial "--tlb-locality"
    run mencal run seqread --help
    assert_line "Usage: mencal run seqread [options]"
    assert_output --partial "--kernel-variant auto|NAME[,NAME]"
    assert_output --partial "read: v16x4 v32x4 v32x8 v64x4 v64x8 v32x4pf v64x4pf"
    refute_output --partial "--tlb-locality"
}

@test "--counters with perf names: a counters block in the text, the aliases feed the per-load rates" {
    run mencal run randread --size 16M --allow-cache --reps 1 -q --counters=dTLB-load-misses,dTLB-loads
    assert_success
    assert_line "counters (randread):"
    assert_line --regexp '^  dTLB-load-misses \(PAPI_TLB_DM\) +([0-9]+|unavailable: .+)$'
    assert_line --regexp '^  dTLB miss rate +([0-9.]+ % of dTLB loads|unavailable: .+)$'
    run mencal run randread --size 16M --allow-cache --reps 1 -q --format json -O r.json \
        --counters=dTLB-load-misses
    assert_success
    # the alias stands for PAPI_TLB_DM: counted, or unavailable for PAPI's reason, never "not in the list"
    run jq -r '.records[0].metrics.dtlb_miss_rate | (.value // .value_unavailable) | tostring' r.json
    refute_output --partial "not in the --counters list"
    run mencal run randread --size 16M --allow-cache --reps 1 -q
    refute_line "counters (randread):"
}

@test "GLIBC_TUNABLES: a name this glibc does not know is warned about, naming the glibc version" {
    GLIBC_TUNABLES=glibc.malloc.max_total_thread_cache=1 run --separate-stderr \
        mencal run seqread --size 16M --allow-cache --reps 1 --format json -O t.json
    assert_success
    if jq -e '.sysinfo.glibc_tunables_check == null' t.json >/dev/null; then
        skip "this loader gives no tunables list: $(jq -r .sysinfo.glibc_tunables_check_unavailable t.json)"
    fi
    [[ $stderr == *"mencal: warning: GLIBC_TUNABLES: names unknown to glibc "*"which ignores them: glibc.malloc.max_total_thread_cache"* ]]
    GLIBC_TUNABLES=glibc.malloc.arena_max=2 run mencal env
    assert_line --regexp '^glibc_tunables_check +every name known to glibc [0-9.]+$'
}

@test "seqread --kernel-variant: each variant forced runs, validates and is named; a bad name lists the names" {
    local v
    for v in v16x4 v32x4 v32x8 v64x4 v64x8 v32x4pf v64x4pf; do
        run mencal run seqread --size 4M --allow-cache --reps 1 -q -t 1 --kernel-variant "$v" \
            --format json -O "k-$v.json"
        assert_success
        run jq -r '[.config.seqread.kernel_variant, (.records[0].metrics.bandwidth.value > 0),
                    (.records[0].tables | has("kernel_calibration"))] | join(" ")' "k-$v.json"
        assert_output "$v true false"
        run jq -r '.records[0].notes[]' "k-$v.json"
        assert_line --regexp "^kernel $v forced by --kernel-variant \([0-9]+-byte vectors, [48] accumulators, prefetch [0-9]+ B\); no calibration$"
    done
    run mencal run seqread --size 4M --allow-cache --kernel-variant v128x2
    assert_failure 2
    assert_output --partial "--kernel-variant: invalid value 'v128x2': must be one of auto|v16x4|v32x4|v32x8|v64x4|v64x8|v32x4pf|v64x4pf"
}

@test "seqread --kernel-variant auto: the calibration's figures and the winner in JSON and the notes" {
    # 11 repetitions of >= 20 ms: a 5% budget of >= 11 ms, trials of >= 0.5 ms
    run mencal run seqread --size 32M --allow-cache --reps 10 -q -t 1 --format json -O a.json
    assert_success
    validate_json a.json
    [ "$(jq -r .config.seqread.kernel_variant a.json)" = auto ]
    run jq -r '.records[0].notes[] | select(startswith("kernel "))' a.json
    # chosen, or (on a machine so busy that it overran its cap) the default, saying so
    assert_output --regexp '^kernel (v[0-9]+x[48](pf)? chosen by calibration, GB/s best of 3 alternating trials of .* per thread x 1 threads: v16x4 [0-9.e+]+, v32x4 .*; it took [0-9.e+]+ ms \(budget [0-9.e+]+ ms = min\(--kernel-calibration, 5% of a [0-9.e+]+ s run\)\)|v32x4 \(the default\): the calibration could not finish in time .*)$'
    run jq -r '.records[0].tables.kernel_calibration | [length, (map(select(.chosen == "yes")) | length),
               (map(.bandwidth > 0) | all)] | join(" ")' a.json
    assert_output "7 1 true"
    # the chosen row is the note's variant
    local chosen
    chosen=$(jq -r '.records[0].tables.kernel_calibration[] | select(.chosen == "yes") | .variant' a.json)
    run jq -r '.records[0].notes[] | select(startswith("kernel "))' a.json
    assert_output --regexp "^kernel $chosen "
}

@test "seqread: a calibration that cannot finish in time uses the default and says so; 0 turns it off" {
    run mencal run seqread --size 32M --allow-cache --reps 1 -q -t 1 --kernel-calibration 0.00001 --format json -O c.json
    assert_success
    run jq -r '.records[0].notes[] | select(startswith("kernel "))' c.json
    assert_output --regexp '^kernel v32x4 \(the default\): the calibration cannot finish in time: its trials would be shorter than 0.2 ms within its budget \(budget 0.01 ms = min\(--kernel-calibration, 5% of a [0-9.e+]+ s run\)\); force one with --kernel-variant$'
    run jq -r '.records[0].tables | has("kernel_calibration")' c.json
    assert_output false
    run mencal run seqread --size 32M --allow-cache --reps 1 -q -t 1 --kernel-calibration 0 --format json -O z.json
    assert_success
    run jq -r '.records[0].notes[] | select(startswith("kernel "))' z.json
    assert_output --partial "kernel v32x4 (the default): --kernel-calibration 0: no calibration"
    run mencal run seqread --size 32M --allow-cache --kernel-calibration 2
    assert_failure 2
    assert_output --partial "--kernel-calibration"
}

@test "messages: a GLIBC_TUNABLES name with ESC in caret notation; a 100 KB scenario name cut with its length" {
    GLIBC_TUNABLES=$'glibc.x\e[2J=1' run --separate-stderr "$BIN/mencal" run seqread -s 1MiB -r 1 -t 1
    assert_success
    [[ "$stderr" == *"GLIBC_TUNABLES: names unknown to glibc"*": glibc.x^[[2J"* ]] || { echo "$stderr"; return 1; }
    if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$stderr"; then echo "raw: $(cat -v <<<"$stderr")"; return 1; fi
    local long
    long=$(printf '%*s' 102400 '' | tr ' ' x)
    run --separate-stderr "$BIN/mencal" run "$long"
    assert_failure 2
    [[ "$stderr" == "mencal: error: run: unknown scenario '$(printf '%*s' 64 '' | tr ' ' x)... (102400 bytes)'; valid scenarios: "* ]] || { echo "${stderr:0:300}"; return 1; }
    [ "${#stderr}" -lt 400 ]
}

@test "run: SIGINT during the last scenario: the written file's complete and the exit code agree" {
    env --default-signal=INT "$BIN/mencal" run seqread randread -s 64MiB -r 3 -t 1 --allow-cache -f json -O o.json \
        2>err.txt 3>&- &
    local pid=$!
    wait_for_text err.txt "running randread" "$pid" || { kill -9 "$pid"; return 1; }
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    validate_json o.json
    run jq -r '.complete' o.json
    case "$output:$rc" in
        false:1) grep -qF "(complete: false)" err.txt ;;
        true:0) ! grep -qF "(complete: false)" err.txt ;;
        *) echo "file says complete $output, exit $rc: $(cat err.txt)"; return 1 ;;
    esac
}
