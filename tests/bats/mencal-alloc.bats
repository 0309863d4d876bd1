#!/usr/bin/env bats
# mencal run alloc: the allocator comparison.  Tiny sizes only
# (4K..1M blocks, a few hundred steps, one repetition).

load test_helper

TINY=(--block-sizes 4K --ops 200 --reps 1 -q)

local_setup() {
    unset JEMALLOC_CONF MALLOC_CONF MEMSUITE_ALLOC_LIBDIR LD_PRELOAD
}

# installed LIB: the shared library is known to the dynamic linker
installed() {
    ldconfig -p 2>/dev/null | grep -q "$1" ||
        /sbin/ldconfig -p 2>/dev/null | grep -q "$1"
}

# An AddressSanitizer build cannot preload another allocator (it says so).
no_preload_in_asan() {
    if mencal --version | grep -q 'fsanitize=[a-z,]*address'; then
        skip "AddressSanitizer build: allocators cannot be preloaded"
    fi
}

# build_lib DIR NAME SOURCE: a test allocator library, or skip without a compiler
build_lib() {
    local cc=${CC:-cc}
    command -v "$cc" >/dev/null || skip "no C compiler to build a test library"
    mkdir -p "$1"
    printf '%s\n' "$3" > "$SANDBOX/lib.c"
    "$cc" -shared -fPIC -o "$1/$2" "$SANDBOX/lib.c"
}

@test "every allocator asked for is the one the child detected" {
    run mencal run alloc "${TINY[@]}" --format json -O a.json
    assert_success
    validate_json a.json
    run jq -r '.records[] | "\(.allocator) \(.status) \(.allocator_detected // "-")"' a.json
    assert_success
    [ "${#lines[@]}" -eq 4 ]
    for line in "${lines[@]}"; do
        read -r name status detected <<<"$line"
        if [ "$status" = ok ]; then
            [[ "$detected" == "$name "* ]] || { echo "asked $name, got $detected"; return 1; }
        else
            [ "$status" = skipped ] || { echo "$line"; return 1; }
        fi
    done
    assert_line --regexp '^glibc ok glibc '
    no_preload_in_asan
    for pair in jemalloc:libjemalloc.so.2 tcmalloc:libtcmalloc mimalloc:libmimalloc.so.2; do
        if installed "${pair#*:}"; then
            assert_line --regexp "^${pair%%:*} ok ${pair%%:*} "
        fi
    done
}

@test "the text table has a column per allocator, the best cell marked and verdicts" {
    no_preload_in_asan
    run mencal run alloc --allocators glibc,jemalloc --block-sizes 4K,16K --ops 200 --reps 1 -q \
        --threads 1
    assert_success
    assert_line --regexp '^block +glibc +jemalloc$'
    assert_line --regexp '^4K +[0-9.e+-]+\*? +[0-9.e+-]+\*?$'
    assert_output --partial "== 1 thread =="
    assert_output --partial "verdicts"
    assert_output --partial "1 thread, small blocks (<= 16K) (4K..16K):"
    run grep -c '\*' <<<"$output"
    [ "$output" -ge 1 ]
}

@test "--nofree takes no more minor faults than freeing, for large blocks" {
    no_preload_in_asan
    local common=(--allocators glibc --block-sizes 1M --blocks-per-thread 4 --ops 400
                  --threads 1 --reps 1 -q --format json)
    run mencal run alloc "${common[@]}" -O free.json
    assert_success
    run mencal run alloc "${common[@]}" --nofree -O nofree.json
    assert_success
    free=$(jq '.records[0].metrics.minflt.value' free.json)
    nofree=$(jq '.records[0].metrics.minflt.value' nofree.json)
    echo "free $free nofree $nofree"
    [ "$nofree" -le "$free" ]
    # nofree faults each of the 4 blocks in once (at most 4 x 256 pages), never again
    [ "$nofree" -le $((1024 + 256)) ]
    run jq -r '.config.nofree, .records[0].nofree' nofree.json
    assert_output "true
true"
}

@test "a missing allocator library is skipped with the package to install" {
    no_preload_in_asan
    mkdir empty
    MEMSUITE_ALLOC_LIBDIR=$SANDBOX/empty run mencal run alloc --allocators glibc,jemalloc \
        "${TINY[@]}" --format json -O skip.json
    assert_success
    validate_json skip.json
    run jq -r '.records[] | "\(.allocator) \(.status)"' skip.json
    assert_output "glibc ok
jemalloc skipped"
    run jq -r '.records[1].why, .records[1].metrics.wall_time.value' skip.json
    assert_line --index 0 --partial "libjemalloc.so.2 not found in MEMSUITE_ALLOC_LIBDIR="
    assert_line --index 0 --partial "install libjemalloc2"
    assert_line --index 1 null
    MEMSUITE_ALLOC_LIBDIR=$SANDBOX/empty run mencal run alloc --allocators glibc,jemalloc \
        --block-sizes 4K,8K --ops 200 --reps 1 -q --threads 1
    assert_success
    assert_line --regexp '^8K +[0-9.e+-]+ +skipped$'
    assert_output --partial "jemalloc skipped (all 2 cells): libjemalloc.so.2 not found"
}

@test "a preload that does not take is an error, never a glibc figure" {
    no_preload_in_asan
    build_lib "$SANDBOX/fake" libjemalloc.so.2 'int not_an_allocator(void) { return 1; }'
    MEMSUITE_ALLOC_LIBDIR=$SANDBOX/fake run mencal run alloc --allocators glibc,jemalloc \
        "${TINY[@]}" --format json -O fake.json
    assert_failure 1
    validate_json fake.json
    run jq -r '.records[1].status, .records[1].why, .records[1].metrics.wall_time.value' fake.json
    assert_line --index 0 failed
    assert_line --index 1 --partial "asked for jemalloc but the allocator in effect is glibc"
    assert_line --index 1 --partial "the preload did not take"
    assert_line --index 2 null
    run jq -r '.records[0].status' fake.json
    assert_output ok
}

@test "a child killed by a signal is reported with it; the other rows complete" {
    no_preload_in_asan
    # a "mimalloc" that is glibc underneath and crashes on blocks of 1 MiB or more
    build_lib "$SANDBOX/crashy" libmimalloc.so.2 '#include <signal.h>
#include <stddef.h>
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
int mi_version(void) { return 209; }
void *malloc(size_t n) { if (n >= (1u << 20)) raise(SIGSEGV); return __libc_malloc(n); }
void free(void *p) { __libc_free(p); }'
    MEMSUITE_ALLOC_LIBDIR=$SANDBOX/crashy run mencal run alloc --allocators glibc,mimalloc \
        --block-sizes 4K,1M --ops 200 --reps 1 --threads 1 -q --format json -O crash.json
    assert_failure 1
    validate_json crash.json
    run jq -r '.records[] | "\(.name) \(.status)"' crash.json
    assert_output "glibc/t1/4K ok
mimalloc/t1/4K ok
glibc/t1/1M ok
mimalloc/t1/1M failed"
    run jq -r '.records[] | select(.status == "failed") | .why' crash.json
    assert_output --partial "killed by signal 11 (SIGSEGV)"
}

@test "a --jemalloc-conf that jemalloc rejects fails the row with jemalloc's words" {
    no_preload_in_asan
    installed libjemalloc.so.2 || skip "libjemalloc2 not installed"
    run mencal run alloc --allocators glibc,jemalloc "${TINY[@]}" \
        --jemalloc-conf 'narenas:abc,no_such_option:1' --format json -O conf.json
    assert_failure 1
    validate_json conf.json
    run jq -r '.records[1].status, .records[1].why, .records[0].status' conf.json
    assert_line --index 0 failed
    assert_line --index 1 --partial "<jemalloc>: Invalid conf value: narenas:abc"
    assert_line --index 1 --partial "<jemalloc>: Invalid conf pair: no_such_option:1"
    assert_line --index 2 ok
}

@test "percpu_arena under a narrowed CPU mask: the reason and the fix" {
    no_preload_in_asan
    installed libjemalloc.so.2 || skip "libjemalloc2 not installed"
    command -v taskset >/dev/null || skip "no taskset"
    [ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
    run taskset -c 0 mencal run alloc --allocators jemalloc "${TINY[@]}" --threads 1 \
        --jemalloc-conf 'percpu_arena:percpu,background_thread:false'
    assert_success
    assert_output --partial "allows 1 of $(nproc --all) configured CPUs"
    assert_output --partial "the fix: --jemalloc-conf 'percpu_arena:disabled,narenas:1,background_thread:false'"
    assert_output --partial "jemalloc said: <jemalloc>: Number of CPUs detected is not deterministic"
    # the full mask: no pitfall
    run mencal run alloc --allocators jemalloc "${TINY[@]}" --threads 1 \
        --jemalloc-conf 'percpu_arena:percpu'
    assert_success
    refute_output --partial "not deterministic"
}

@test "the environment that changes the figures is recorded" {
    GLIBC_TUNABLES=glibc.malloc.tcache_count=0 run mencal run alloc --allocators glibc \
        "${TINY[@]}" --format json -O env.json
    assert_success
    validate_json env.json
    run jq -r '.config.glibc_tunables, .config.thp_enabled, .config.cpus_allowed,
               .sysinfo.glibc_tunables' env.json
    assert_line --index 0 glibc.malloc.tcache_count=0
    assert_line --index 1 --regexp '^(always|madvise|never)$|^null$'
    assert_line --index 2 --regexp '^[0-9]+$'
    run jq -r '.records[0].metrics | keys | join(" ")' env.json
    for k in wall_time ops_per_s cpu_util minflt majflt minflt_per_op maxrss latency_p50 \
             latency_p99 rss_peak_sampled; do
        assert_output --partial "$k"
    done
}

@test "CSV has one row per metric of every cell" {
    run mencal run alloc --allocators glibc "${TINY[@]}" --format csv
    assert_success
    assert_line --index 0 "tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,validation"
    assert_line --regexp '^mencal,standard,glibc/t[0-9]+/4K,wall_time,s,[0-9.e-]+,1,'
    assert_line --regexp '^mencal,standard,glibc/t[0-9]+/4K,minflt,faults,[0-9]+,1,'
}

@test "--overhead reports the harness share of the step time" {
    run mencal run alloc --allocators glibc --block-sizes 4K --ops 20000 --reps 1 -q \
        --overhead --format json -O o.json
    assert_success
    validate_json o.json
    # a share in (0, 100] %, or, where noise made the harness alone read
    # slower per step than the step, no figure and that reason
    v=$(jq '.records[0].metrics.harness_overhead.value' o.json)
    if [ "$v" = null ]; then
        run jq -r '.records[0].metrics.harness_overhead.unavailable' o.json
        assert_output --partial "no share in (0, 100] %: the harness-only pass read slower"
    else
        awk -v v="$v" 'BEGIN { exit !(v > 0 && v <= 100) }' || { echo "harness_overhead $v"; return 1; }
    fi
    run mencal run alloc --allocators glibc "${TINY[@]}" --harness-only --format json -O h.json
    assert_success
    validate_json h.json
    run jq -r '.label, .label_reasons[0]' h.json
    assert_line --index 0 not-standard
    assert_line --index 1 --partial "--harness-only"
}

@test "more threads than CPUs is said in the output" {
    n=$(( $(nproc) + 1 ))
    run mencal run alloc --allocators glibc "${TINY[@]}" --threads "$n"
    assert_success
    assert_output --partial "== $n threads (more than the $(nproc) allowed CPUs"
    assert_output --partial "$n threads on $(nproc) allowed CPUs"
}

@test "--plot draws time and minor faults against block size" {
    need_plots
    run mencal run alloc --allocators glibc --block-sizes 4K,64K --ops 200 --reps 1 -q \
        --plot chart.png
    assert_success
    [ "$(head -c 4 chart.png | od -An -c | tr -d ' ')" = '211PNG' ]
    run ls
    refute_output --partial ".tmp."
}

@test "bad input is refused before anything runs" {
    local -a cases=(
        "--allocators glibc,nosuch|2|unknown allocator 'nosuch'; known: glibc, jemalloc, tcmalloc, mimalloc"
        "--block-sizes 0|2|--block-sizes: invalid value '0': a block must be at least 1 byte"
        "--block-sizes 4K,lots|2|--block-sizes: invalid size 'lots'"
        "--block-sizes 4K,,1M|2|an item is empty"
        "--threads 2 --block-sizes 64T|3|--block-sizes 64T: 2 threads x (16 blocks + 1 source buffer) x 64T ="
        "--threads 0|2|--threads: invalid value '0': must be an integer in 1..1024"
        "--threads 2,two|2|--threads: invalid value 'two'"
        "--ops 10 --duration 1|2|give one of them, not both"
        "--blocks-per-thread 0|2|--blocks-per-thread: invalid value '0'"
    )
    for c in "${cases[@]}"; do
        IFS='|' read -r args code msg <<<"$c"
        # shellcheck disable=SC2086
        run mencal run alloc $args
        echo "case: $args -> $status: $output"
        [ "$status" -eq "$code" ]
        assert_output --partial "$msg"
        refute_output --partial "== "
    done
}

@test "--help lists the allocator options" {
    run mencal run alloc --help
    assert_success
    for o in --allocators --threads --block-sizes --blocks-per-thread --ops --duration --nofree \
             --jemalloc-conf --reps --plot --overhead --harness-only; do
        assert_output --partial -- "$o"
    done
}
