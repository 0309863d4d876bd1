#!/usr/bin/env bats
# bin/stream: STREAM 5.10 text compatibility, validation and exit codes,
# sizing policy, JSON/CSV results, tuned mode.
#
# Sizes stay small: --llc 256KiB makes 300000 elements (2.3 MiB per double
# array, 1.1 MiB per float array) a standard size regardless of the host.

bats_require_minimum_version 1.5.0
load test_helper

SMALL=(--llc 256KiB -s 300000 -n 4)

local_setup() {
    ST="$BIN/stream"
    [ -x "$ST" ] || skip "bin/stream not built (make bin/stream)"
    # More threads than CPUs would make every run not-standard.
    local n
    n=$(cpus)
    if [ "$OMP_NUM_THREADS" -gt "$n" ]; then
        export OMP_NUM_THREADS=$n
    fi
}

# CPUs this process may use (nproc itself honours OMP_NUM_THREADS).
cpus() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc; }

# The report STREAM 5.10 prints, one ERE per line.  $1: epsilon text
# ("1\.000000e-13" or "1\.000000e-06"), $2: bytes per element.
stream_patterns() {
    local eps=$1 bytes=$2
    local H='^-{61}$' T='[ 0-9]{3}[0-9]\.[0-9]{6}' R='[ 0-9]{9}[0-9]\.[0-9]'
    printf '%s\n' \
        "$H" \
        '^STREAM version \$Revision: 5\.10 \$$' \
        "$H" \
        "^This system uses $bytes bytes per array element\\.\$" \
        "$H" \
        '^Array size = [0-9]+ \(elements\), Offset = [0-9]+ \(elements\)$' \
        '^Memory per array = [0-9]+\.[0-9] MiB \(= [0-9]+\.[0-9] GiB\)\.$' \
        '^Total memory required = [0-9]+\.[0-9] MiB \(= [0-9]+\.[0-9] GiB\)\.$' \
        '^Each kernel will be executed [0-9]+ times\.$' \
        '^ The \*best\* time for each kernel \(excluding the first iteration\)$' \
        '^ will be used to compute the reported bandwidth\.$' \
        "$H" \
        '^Number of Threads requested = [0-9]+$' \
        '^Number of Threads counted = [0-9]+$' \
        "$H" \
        '^Your clock granularity/precision appears to be [1-9][0-9]* microseconds\.$' \
        '^Each test below will take on the order of [0-9]+ microseconds\.$' \
        '^   \(= [0-9]+ clock ticks\)$' \
        '^Increase the size of the arrays if this shows that$' \
        '^you are not getting at least 20 clock ticks per test\.$' \
        "$H" \
        '^WARNING -- The above is only a rough guideline\.$' \
        '^For best results, please be sure you know the$' \
        '^precision of your system timer\.$' \
        "$H" \
        '^Function    Best Rate MB/s  Avg time     Min time     Max time$' \
        "^Copy:      $R  $T  $T  $T\$" \
        "^Scale:     $R  $T  $T  $T\$" \
        "^Add:       $R  $T  $T  $T\$" \
        "^Triad:     $R  $T  $T  $T\$" \
        "$H" \
        "^Solution Validates: avg error less than $eps on all three arrays\$" \
        "$H"
}

# fake_meminfo KIB: a procfs fixture in the sandbox with that MemAvailable.
fake_meminfo() {
    mkdir -p "$SANDBOX/proc"
    printf 'MemTotal:       %s kB\nMemFree:        %s kB\nMemAvailable:   %s kB\nCached:         0 kB\n' \
        "$1" "$1" "$1" > "$SANDBOX/proc/meminfo"
    export MEMSUITE_PROCFS="$SANDBOX/proc"
}

# ---- STREAM 5.10 text ---------------------------------------------------

@test "the line patterns match a real STREAM 5.10 run (so they test the original's format)" {
    # tests/fixtures/stream-5.10/sample-output.txt: output of the original
    # STREAM 5.10 binary, 2 threads, 20M doubles
    match_lines "$FIXTURES/stream-5.10/sample-output.txt" <(stream_patterns '1\.000000e-13' 8)
}

# mask_numbers: every number (with the blanks that pad it) becomes " #",
# except on the version line, so two reports compare by their words only.
mask_numbers() {
    sed -E '/Revision/!s/ *[0-9]+(\.[0-9]+)?(e[-+][0-9]+)?/ #/g' "$@"
}

@test "standard text is STREAM 5.10's real output word for word (numbers masked)" {
    run --separate-stderr "$ST" "${SMALL[@]}"
    assert_success
    printf '%s\n' "$output" | mask_numbers > ours.txt
    mask_numbers "$FIXTURES/stream-5.10/sample-output.txt" > ref.txt
    diff -u ref.txt ours.txt
}

@test "the clock lines follow STREAM's checktick and arithmetic (quantum >= 1 us)" {
    run "$ST" "${SMALL[@]}" --format json -q
    assert_success
    printf '%s\n' "$output" > r.json
    # checktick on a microsecond clock never answers less than 1 us
    run jq -r '.config.clock | "\(.quantum_us >= 1) \(.ticks == ((.calibration_us / .quantum_us) | floor))"' r.json
    assert_output "true true"
}

@test "standard text matches STREAM 5.10 line by line (double)" {
    run --separate-stderr "$ST" "${SMALL[@]}"
    assert_success
    [[ "$stderr" != *"not a standard"* ]]
    printf '%s\n' "$output" > out.txt
    stream_patterns '1\.000000e-13' 8 > pat.txt
    match_lines out.txt pat.txt
    assert_line "Array size = 300000 (elements), Offset = 0 (elements)"
    assert_line "Memory per array = 2.3 MiB (= 0.0 GiB)."
    assert_line "Total memory required = 6.9 MiB (= 0.0 GiB)."
    assert_line "Each kernel will be executed 4 times."
    assert_line "Number of Threads requested = $OMP_NUM_THREADS"
    assert_line "Number of Threads counted = $OMP_NUM_THREADS"
}

@test "standard text matches STREAM 5.10 line by line (float)" {
    run --separate-stderr "$ST" "${SMALL[@]}" --type float
    assert_success
    printf '%s\n' "$output" > out.txt
    stream_patterns '1\.000000e-06' 4 > pat.txt
    match_lines out.txt pat.txt
    assert_line "Memory per array = 1.1 MiB (= 0.0 GiB)."
}

@test "no arguments: the build-time default runs as STREAM when it satisfies the rule" {
    default=$("$ST" --help | sed -n 's/.*--array-size.*(default: \([0-9]*\)[,)].*/\1/p')
    [ -n "$default" ]
    export MEMSUITE_LLC=256KiB
    run --separate-stderr "$ST" -n 2 -t 1
    assert_success
    assert_line "Array size = $default (elements), Offset = 0 (elements)"
    [ -z "$stderr" ]
}

@test "no arguments: a default under 4x the LLC is raised to the rule (standard, a note)" {
    default=$("$ST" --help | sed -n 's/.*--array-size.*(default: \([0-9]*\)[,)].*/\1/p')
    [ -n "$default" ]
    # 4x the LLC is one element more per array than the default holds
    elem=$("$ST" --help | grep -q 'TYPE.*default: float' && echo 4 || echo 8)
    llc=$(( (default * elem + 4 * elem) / 4 ))
    export MEMSUITE_LLC=$llc
    run --separate-stderr "$ST" -n 2 -t 1 --format json -O r.json
    assert_success
    [[ "$stderr" == *"--array-size not given: the default of $default elements"*"raised to"* ]]
    jq -e --argjson d "$default" '.label == "standard" and .config.array_size > $d
        and .config.array_bytes >= .config.min_array_bytes' r.json
}

@test "threads: -t sets the count; OMP_NUM_THREADS is the default" {
    run "$ST" "${SMALL[@]}" -t 1 -q
    assert_success
    assert_line "Number of Threads requested = 1"
    assert_line "Number of Threads counted = 1"
    OMP_NUM_THREADS=1 run "$ST" "${SMALL[@]}" -q
    assert_line "Number of Threads counted = 1"
}

@test "offset: -o shifts the arrays and still validates" {
    run "$ST" "${SMALL[@]}" -o 5 -q
    assert_success
    assert_line "Array size = 300000 (elements), Offset = 5 (elements)"
    assert_line --partial "Solution Validates"
}

# ---- validation --------------------------------------------------------

@test "--inject-error: double fails loudly with STREAM's failure text, exit 1" {
    run --separate-stderr "$ST" "${SMALL[@]}" --inject-error
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" > out.txt
    run grep -c 'Solution Validates' out.txt
    assert_output 0
    run grep -A2 '^Failed Validation' out.txt
    assert_line --index 0 "Failed Validation on array a[], AvgRelAbsErr > epsilon (1.000000e-13)"
    assert_line --index 1 --regexp '^     Expected Value: [0-9.e+-]+, AvgAbsErr: [0-9.e+-]+, AvgRelAbsErr: [0-9.e+-]+$'
    assert_line --index 2 "     For array a[], 1 errors were found."
    [ "$(grep -c '^Failed Validation' out.txt)" -eq 1 ]
}

@test "--inject-error=b: float failure text has the extra Epsilon line, exit 1" {
    run --separate-stderr "$ST" "${SMALL[@]}" --type float --inject-error=b
    [ "$status" -eq 1 ]
    printf '%s\n' "$output" > out.txt
    run grep -A3 '^Failed Validation' out.txt
    assert_line --index 0 "Failed Validation on array b[], AvgRelAbsErr > epsilon (1.000000e-06)"
    assert_line --index 1 --regexp '^     Expected Value: .*, AvgAbsErr: .*, AvgRelAbsErr: .*$'
    assert_line --index 2 "     AvgRelAbsErr > Epsilon (1.000000e-06)"
    assert_line --index 3 "     For array b[], 1 errors were found."
    [[ "$stderr" == *"validation failed"* ]]
}

@test "float with -n 40 would overflow to inf: refused before the run (exit 2)" {
    run --separate-stderr "$ST" "${SMALL[@]}" --type float -n 40 -q
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ $stderr == *"--ntimes 40: with float elements the values overflow after 32 rounds"* ]]
}

@test "double with -n 40 still validates (overflow failure is float-specific)" {
    run "$ST" "${SMALL[@]}" -n 40 -q
    assert_success
    assert_line "Solution Validates: avg error less than 1.000000e-13 on all three arrays"
}

# ---- JSON / CSV ---------------------------------------------------------

@test "JSON: schema 2: each kernel's headline is best_rate_mbps, every metric states its meaning" {
    run --separate-stderr "$ST" "${SMALL[@]}" --format json -O r.json
    assert_success
    validate_json r.json
    [ "$(jq -r .schema r.json)" = memsuite/result/2 ]
    for k in Copy Scale Add Triad; do
        [ "$(headline_of r.json "$k")" = best_rate_mbps ]
        [ "$(metric_meaning r.json "$k" best_rate_mbps)" = "MB/s B/s 1000000 higher" ]
        [ "$(metric_meaning r.json "$k" min_time_s)" = "s s 1 lower" ]
        [ "$(metric_meaning r.json "$k" cv_time)" = "fraction fraction 1 lower" ]
        [ "$(metric_meaning r.json "$k" bytes)" = "bytes B 1 -" ]
    done
}

@test "JSON: valid against the schema, standard label, per-kernel figures" {
    run --separate-stderr "$ST" "${SMALL[@]}" --format json -O r.json
    assert_success
    [ -z "$output" ]
    validate_json r.json
    [ "$(jq -r .tool r.json)" = stream ]
    [ "$(jq -r .label r.json)" = standard ]
    [ "$(jq -r '.label_reasons | length' r.json)" -eq 0 ]
    [ "$(jq -r '[.records[].name] | join(",")' r.json)" = "Copy,Scale,Add,Triad" ]
    [ "$(jq -r .validation.passed r.json)" = true ]
    [ "$(jq -r .config.array_size r.json)" -eq 300000 ]
    [ "$(jq -r .config.ntimes r.json)" -eq 4 ]
    # STREAM counting: 2 words for Copy, 3 for Add; +1 word write-allocate.
    [ "$(jq -r '.records[0].metrics.bytes.value' r.json)" -eq $((2 * 8 * 300000)) ]
    [ "$(jq -r '.records[0].metrics.bytes_write_allocate.value' r.json)" -eq $((3 * 8 * 300000)) ]
    [ "$(jq -r '.records[2].metrics.bytes.value' r.json)" -eq $((3 * 8 * 300000)) ]
    [ "$(jq -r '.records[2].metrics.bytes_write_allocate.value' r.json)" -eq $((4 * 8 * 300000)) ]
    # All raw times, statistics over rounds 2..N.
    [ "$(jq -r '.records[0].metrics.min_time_s.samples | length' r.json)" -eq 4 ]
    [ "$(jq -r '.records[0].metrics.min_time_s.stats.n' r.json)" -eq 3 ]
    jq -e '.config.init_s > 0 and .config.kernels_total_s > 0' r.json
    jq -e --argjson t "$OMP_NUM_THREADS" '.threads.counted == $t and (.threads.cpus | length) == $t' r.json
    jq -e '.config.numa_placement | (.a | type == "object") or (.a_unavailable | type == "string")' r.json
    jq -e '.validation.arrays.a.passed and .validation.arrays.c.errors == 0' r.json
    jq -e '.sysinfo | type == "object"' r.json
    jq -e '.llc.source == "override"' r.json
}

@test "JSON: best rate is 1e-6 * bytes / min time over rounds 2..N" {
    "$ST" "${SMALL[@]}" --format json -O r.json
    jq -e '.records[] | .metrics as $m
        | ($m.bytes.value / $m.min_time_s.value * 1e-6) as $r
        | (($r - $m.best_rate_mbps.value) | fabs) < 1e-6 * $r' r.json
    jq -e '.records[] | .metrics.min_time_s
        | .value == ([.samples[1:][]] | min) and .stats.max == ([.samples[1:][]] | max)' r.json
}

@test "JSON: a failed validation is recorded and exits 1" {
    run "$ST" "${SMALL[@]}" --format json -O r.json --inject-error=c -q
    [ "$status" -eq 1 ]
    validate_json r.json
    jq -e '.validation.passed == false' r.json
    jq -e '.validation.arrays.c.passed == false and .validation.arrays.c.errors == 1' r.json
    jq -e '.validation.arrays.a.passed' r.json
}

@test "CSV: header and one row per kernel metric" {
    run "$ST" "${SMALL[@]}" --format csv -q
    assert_success
    assert_line --index 0 "tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,validation"
    assert_line --regexp '^stream,standard,Triad,best_rate_mbps,MB/s,[0-9.e+]+,'
    assert_line --regexp '^stream,standard,Copy,min_time_s,s,[0-9.e+-]+,3,'
}

@test "--output writes the text atomically; an unwritable path fails early (exit 3)" {
    run "$ST" "${SMALL[@]}" -O out.txt -q
    assert_success
    [ -z "$output" ]
    grep -q '^Solution Validates' out.txt
    tmp=(out.txt.tmp.*)
    [ ! -e "${tmp[0]}" ]
    run --separate-stderr "$ST" "${SMALL[@]}" -O "$SANDBOX/missing/dir/r.json"
    [ "$status" -eq 3 ]
    [ -z "$output" ]                        # nothing was measured or printed
    [[ "$stderr" == *"result file"* ]]
}

# ---- bad input ------------------------------------------------------------

@test "bad array sizes are usage errors (exit 2) naming --array-size" {
    for s in 0 -5 abc "" 1.5 2e3x 12XB 1e30 99999999999999999999999; do
        run --separate-stderr "$ST" --llc 256KiB -s "$s"
        [ "$status" -eq 2 ] || { echo "size '$s' gave $status"; return 1; }
        [[ "$stderr" == *"--array-size"* ]] || { echo "size '$s': $stderr"; return 1; }
    done
}

@test "byte sizes are bytes per array" {
    run "$ST" --llc 256KiB -s 2400000B -n 2 -q
    assert_success
    assert_line "Array size = 300000 (elements), Offset = 0 (elements)"
    run "$ST" --llc 256KiB -s 1200000B -n 2 --type float -q
    assert_line "Array size = 300000 (elements), Offset = 0 (elements)"
    run "$ST" --llc 256KiB -s 2MiB -n 2 -q
    assert_line "Array size = 262144 (elements), Offset = 0 (elements)"
}

@test "NTIMES 0, 1, huge and non-numeric are rejected (exit 2), never silently changed" {
    for n in 0 1 -3 1000001 99999999999999999999 abc; do
        run --separate-stderr "$ST" "${SMALL[@]}" -n "$n"
        [ "$status" -eq 2 ] || { echo "-n $n gave $status"; return 1; }
        [[ "$stderr" == *"invalid value"* ]]
    done
}

@test "unknown or repeated kernels are rejected (exit 2)" {
    run --separate-stderr "$ST" "${SMALL[@]}" --kernels copy,bogus
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"unknown kernel 'bogus'"* ]]
    [[ "$stderr" == *"copy,scale,add,triad,dot,nstream"* ]]
    run "$ST" "${SMALL[@]}" --kernels copy,copy
    [ "$status" -eq 2 ]
    run "$ST" "${SMALL[@]}" --kernels ""
    [ "$status" -eq 2 ]
}

@test "--threads 0 and negative thread counts are rejected (exit 2)" {
    run "$ST" "${SMALL[@]}" --threads 0
    [ "$status" -eq 2 ]
    run "$ST" "${SMALL[@]}" -t -1
    [ "$status" -eq 2 ]
}

@test "more threads than CPUs: runs, warns, labelled not-standard" {
    n=$(( $(cpus) + 1 ))
    run --separate-stderr "$ST" "${SMALL[@]}" -t "$n" --format json -O r.json
    assert_success
    [[ "$stderr" == *"oversubscribed"* ]]
    jq -e '.label == "not-standard"' r.json
    jq -e "(.label_reasons | join(\" \")) | test(\"$n threads\")" r.json
}

@test "--membind with --interleave conflict (exit 2)" {
    run --separate-stderr "$ST" "${SMALL[@]}" --membind 0 --interleave 0
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"conflict"* ]]
}

@test "a NUMA node that does not exist: exit 2 in every build; a real one without libnuma: exit 4" {
    run --separate-stderr "$ST" "${SMALL[@]}" --membind 999
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"node 999"* ]]
    if ! "$ST" --version | grep -q 'NUMA on'; then
        run --separate-stderr "$ST" "${SMALL[@]}" --membind 0
        [ "$status" -eq 4 ]
        [[ "$stderr" == *"--membind: built without libnuma"* ]]
    fi
}

@test "positional arguments and unknown options are usage errors (exit 2)" {
    run "$ST" 1000
    [ "$status" -eq 2 ]
    run "$ST" --bogus
    [ "$status" -eq 2 ]
    run "$ST" --format xml
    [ "$status" -eq 2 ]
    run "$ST" --inject-error=z
    [ "$status" -eq 2 ]
}

# ---- sizing policy --------------------------------------------------------

@test "explicit size under 4x LLC runs as STREAM: a warning on stderr, the label in JSON" {
    run --separate-stderr "$ST" --llc 1MiB -s 100000 -n 2
    assert_success
    # stdout is STREAM's report, nothing added
    printf '%s\n' "$output" > out.txt
    stream_patterns '1\.000000e-13' 8 > pat.txt
    match_lines out.txt pat.txt
    # the warning names the LLC, its source and the size that satisfies the rule
    [[ "$stderr" == *"--array-size 100000: each array (781.2 KiB) is under 4x the last-level cache (1.0 MiB"*"from override) = 4.0 MiB"* ]]
    [[ "$stderr" == *"--array-size 524288 or more"* ]]
    run --separate-stderr "$ST" --llc 1MiB -s 100000 -n 2 --format json -O r.json
    assert_success
    validate_json r.json
    jq -e '.label == "not-standard" and (.label_reasons | length) == 1
           and (.label_reasons[0] | test("under 4x the last-level cache"))' r.json
}

@test "--strict refuses a size under 4x LLC (exit 2, nothing on stdout, names the minimum)" {
    run --separate-stderr "$ST" --llc 1MiB -s 100000 -n 2 --strict
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"use --array-size 524288 or more"* ]]
    run --separate-stderr "$ST" --llc 1MiB -s 524288 -n 2 --strict -q
    assert_success
}

@test "--allow-small is still accepted (a no-op: explicit sizes always run)" {
    run --separate-stderr "$ST" --llc 1MiB -s 100000 -n 2 --allow-small -q
    assert_success
    assert_line --partial "Solution Validates"
}

@test "an LLC whose 4x overflows: the rule cannot be satisfied, said so (no 0 suggested)" {
    export MEMSUITE_LLC=4611686018427387904
    run --separate-stderr "$ST" -s 4M -n 2 --strict
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"no size can satisfy the rule"* ]]
    [[ "$stderr" == *"4.0 EiB"* ]]
    [[ "$stderr" != *"--array-size 0 "* ]]
}

# A VM as the issue found it: sysconf (CPUID) reports the host's 508 MiB
# L3; sysfs has no cache directory, or a smaller L3 of its own.
@test "VM, no sysfs cache directory: -s 4000000 runs, warns with sysconf's LLC, labels; --strict exits 2" {
    use_fixture llc-vm-nocache
    export MEMSUITE_SYSCONF_L3=508MiB
    run --separate-stderr "$ST" -s 4000000 -n 10 --format json -O r.json
    assert_success
    [[ "$stderr" == *"under 4x the last-level cache (508.0 MiB L3 from sysconf) = 2.0 GiB"* ]]
    [[ "$stderr" == *"--array-size 266338304 or more"* ]]
    jq -e '.label == "not-standard" and .llc.source == "sysconf"' r.json
    run --separate-stderr "$ST" -s 4000000 -n 10 --strict
    [ "$status" -eq 2 ]
    [ -z "$output" ]
}

@test "VM, sysconf L3 larger than sysfs's: sysfs rules, the warning says so; --strict exits 2" {
    use_fixture llc-vm-sysfs
    export MEMSUITE_SYSCONF_L3=508MiB
    run --separate-stderr "$ST" -s 4000000 -n 10 --format json -O r.json
    assert_success
    [[ "$stderr" == *"under 4x the last-level cache (32.0 MiB L3 from sysfs) = 128.0 MiB"* ]]
    jq -e '.label == "not-standard" and .llc.source == "sysfs"
           and (.llc.note | test("sysconf reports a larger L3 of 508.0 MiB"))' r.json
    run --separate-stderr "$ST" -s 4000000 -n 10 --strict
    [ "$status" -eq 2 ]
}

@test "-s auto: each array 4x the LLC" {
    run "$ST" --llc 1MiB -s auto -n 2 -q
    assert_success
    assert_line "Array size = 524288 (elements), Offset = 0 (elements)"
    run "$ST" --llc 1MiB -s auto -n 2 -q --type float
    assert_line "Array size = 1048576 (elements), Offset = 0 (elements)"
}

@test "-s auto is clamped to memory with a warning (not-standard)" {
    fake_meminfo 102400           # 100 MiB available
    run --separate-stderr "$ST" --llc 1GiB -s auto -n 2 --format json -O r.json
    assert_success
    [[ "$stderr" == *"clamped"* ]]
    jq -e '.label == "not-standard"' r.json
    jq -e '.config.total_bytes <= 0.9 * 100 * 1048576' r.json
}

@test "arrays beyond MemAvailable: exit 3 before allocating" {
    fake_meminfo 102400           # 100 MiB available
    run --separate-stderr "$ST" --llc 256KiB -s 20000000
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    [[ "$stderr" == *"do not fit in memory (nothing was allocated)"* ]]
    [[ "$stderr" == *"457.8 MiB"* ]]
}

@test "2^31+16 float elements: size arithmetic is exact and the fit check refuses (exit 3)" {
    fake_meminfo 16777216         # 16 GiB available
    n=$(( (1 << 31) + 16 ))
    run --separate-stderr "$ST" --type float -s "$n"
    [ "$status" -eq 3 ]
    # 3 x (2^31+16) x 4 bytes, computed without overflow
    [[ "$stderr" == *"($(( 3 * n * 4 )) bytes)"* ]]
}

@test "element counts whose byte size overflows: exit 3, not a wrap-around" {
    run --separate-stderr "$ST" -s 10000000000000000000
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"overflows"* ]]
}

@test "2^31+16 float elements run and validate (needs ~24 GiB)" {
    avail_kib=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
    need=$(( 3 * ((1 << 31) + 16) * 4 ))
    usable=$(( avail_kib * 1024 * 9 / 10 ))
    if [ "$usable" -lt "$need" ]; then
        skip "needs $need bytes for 3 arrays of 2^31+16 floats; 90% of MemAvailable is $usable bytes"
    fi
    run "$ST" --type float -s $(( (1 << 31) + 16 )) -n 2 -q
    assert_success
    assert_line "Array size = $(( (1 << 31) + 16 )) (elements), Offset = 0 (elements)"
}

# ---- tuned mode ---------------------------------------------------------

@test "tuned text: one labelled line after the version block, the rest unchanged" {
    arch_names
    local isas=${NT_ISAS// /|}
    run --separate-stderr "$ST" "${SMALL[@]}" --nt-stores
    assert_success
    printf '%s\n' "$output" > out.txt
    stream_patterns '1\.000000e-13' 8 | sed "3a ^\\\\*\\\\*\\\\* tuned run: non-temporal stores \\\\(($isas|portable)[^)]*\\\\) \\\\*\\\\*\\\\*\$" > pat.txt
    match_lines out.txt pat.txt
}

@test "standard text carries no tuned marker; JSON labels tuned runs" {
    run "$ST" "${SMALL[@]}" -q
    refute_line --partial "tuned"
    run "$ST" "${SMALL[@]}" --nt-stores --format json -O r.json
    assert_success
    validate_json r.json
    jq -e '.label == "tuned" and .config.nt_stores.enabled' r.json
    arch_names
    jq -e --arg re "^(${NT_ISAS// /|}|portable)$" '.config.nt_stores.isa | test($re)' r.json
    # Streaming stores skip the write-allocate read.
    jq -e '.records[0].metrics.bytes_write_allocate.value == .records[0].metrics.bytes.value
           or (.config.nt_stores.nontemporal | not)' r.json
}

@test "every non-temporal variant this CPU has validates, float and double, odd sizes" {
    arch_names   # the variants of the binary's architecture
    for isa in $NT_ISAS portable; do
        for t in double float; do
            run --separate-stderr "$ST" --llc 64KiB -s 100003 -o 3 -t 3 -n 3 --type "$t" \
                --nt-isa "$isa" --kernels copy,scale,add,triad,nstream
            if [ "$status" -eq 4 ]; then
                [[ "$stderr" == *"not supported by this CPU"* ]]
                continue
            fi
            [ "$status" -eq 0 ] || { echo "$isa $t: $status $stderr"; return 1; }
            [[ "$output" == *"non-temporal stores ($isa"* ]]
        done
    done
}

@test "extra kernels: Dot and Nstream rows, their own validation, tuned" {
    run "$ST" "${SMALL[@]}" --kernels copy,scale,add,triad,dot,nstream -q
    assert_success
    assert_line --regexp '^Dot:       [ 0-9]{9}[0-9]\.[0-9]  '
    assert_line --regexp '^Nstream:   [ 0-9]{9}[0-9]\.[0-9]  '
    assert_line --regexp '^Dot product validates: '
    assert_line --partial "Solution Validates"
    assert_line --regexp '^\*\*\* tuned run: kernels copy,scale,add,triad,dot,nstream \*\*\*$'
}

@test "Dot failure: --inject-error=dot exits 1; without Dot it is a usage error" {
    run "$ST" "${SMALL[@]}" --kernels triad,dot --inject-error=dot -q
    [ "$status" -eq 1 ]
    assert_line --regexp '^Failed Validation on dot product: '
    run "$ST" "${SMALL[@]}" --inject-error=dot
    [ "$status" -eq 2 ]
}

@test "kernel subsets replay only what ran (nstream alone validates)" {
    run "$ST" "${SMALL[@]}" --kernels nstream -q
    assert_success
    assert_line --partial "Solution Validates"
    run "$ST" "${SMALL[@]}" --kernels dot --format json -q
    assert_success
    echo "$output" | jq -e '.validation.dot.passed and .validation.passed'
}

@test "--hugepages: advice applied and the THP share read back" {
    run "$ST" --llc 256KiB -s 4MiB -n 2 --hugepages never --format json -O r.json -q
    assert_success
    validate_json r.json
    jq -e '.label == "tuned" and .config.hugepages.mode == "never"' r.json
    jq -e '.config.hugepages.thp.share == 0' r.json
    run "$ST" --llc 256KiB -s 4MiB -n 2 --hugepages madvise --format json -O r.json -q
    assert_success
    jq -e '.config.hugepages.thp.share >= 0 and .config.hugepages.thp.share <= 1' r.json
    run "$ST" --llc 256KiB -s 4MiB -n 2 --format json -O r.json -q
    jq -e '.label == "standard" and .config.hugepages.mode == "thp"' r.json
}

@test "--counters: each kernel record carries counters or the reason they are unavailable" {
    run "$ST" "${SMALL[@]}" --counters --format json -O r.json -q
    assert_success
    validate_json r.json
    jq -e '[.records[].counters.hardware | has("available")] | all' r.json
    jq -e '.records[0].counters.hardware.available or (.records[0].counters.hardware.reason | length > 0)' r.json
}

@test "--counters in text: STREAM's stdout unchanged, a counters block per kernel on stderr with perf names, their PAPI events and the TLB miss rate" {
    run --separate-stderr "$ST" "${SMALL[@]}" --counters=dTLB-load-misses,dTLB-loads,cycles
    assert_success
    [[ "$output" != *counters* ]]
    grep -c '^stream: counters (\(Copy\|Scale\|Add\|Triad\)):$' <<<"$stderr" | grep -qx 4
    grep -q '^stream:   dTLB-load-misses (PAPI_TLB_DM) ' <<<"$stderr"
    grep -q '^stream:   cycles (PAPI_TOT_CYC) ' <<<"$stderr"
    # a figure in % of loads, or the reason it is missing
    grep -Eq '^stream:   dTLB miss rate +([0-9.]+ % of dTLB loads|unavailable: .+)$' <<<"$stderr"
    grep -Eq '^stream:   IPC +unavailable: instructions is not in the --counters list' <<<"$stderr"
    run "$ST" "${SMALL[@]}" --counters=dTLB-load-misses,dTLB-loads --format json -O r.json -q
    validate_json r.json
    jq -e '.records[0].counters.hardware.mapping == {"dTLB-load-misses": "PAPI_TLB_DM", "dTLB-loads": "PAPI_LD_INS"}' r.json
    jq -e '.records[0].counters.hardware.rates | has("dtlb_load_miss_pct")' r.json
}

@test "huge pages: the default follows the system policy and prints nothing extra; an explicit --hugepages prints the THP share on stderr" {
    run --separate-stderr "$ST" "${SMALL[@]}"
    assert_success
    [[ "$stderr" != *"huge pages"* ]]
    run --separate-stderr "$ST" --llc 256KiB -s 4MiB -n 2 --hugepages never
    assert_success
    grep -Eq '^stream: huge pages: --hugepages never, THP share 0\.0% of the arrays \(0 of [0-9]+ bytes in AnonHugePages\)$' <<<"$stderr"
    [[ "$output" != *"THP share"* ]]
}

# ---- warnings, help, version ----------------------------------------------

@test "fewer than 20 clock ticks per test warns on stderr; --quiet silences it" {
    run --separate-stderr "$ST" --llc 256KiB -s 1 --allow-small -n 10 -t 1
    assert_success
    [[ "$stderr" == *"clock ticks"* ]]
    run --separate-stderr "$ST" --llc 256KiB -s 1 --allow-small -n 10 -t 1 -q
    [ -z "$stderr" ]
}

@test "--help lists every option; --version names the build" {
    run "$ST" --help
    assert_success
    for o in --array-size --ntimes --offset --type --threads --cpunodebind --membind \
             --interleave --format --output --counters --llc --allow-small --kernels \
             --nt-stores --hugepages --inject-error --quiet --version; do
        assert_output --partial -- "$o"
    done
    # -s's default says that it is raised to the 4x LLC rule, as it is
    assert_output --partial "(default: 10000000, or auto's size when 10000000 elements are under 4x the LLC)"
    MEMSUITE_LLC=32M run --separate-stderr "$ST" -n 2
    [[ "$stderr" == *"--array-size not given: the default of 10000000 elements"*"raised to"* ]]
    run "$ST" --version
    assert_success
    assert_line --index 0 --regexp '^stream \(memsuite\) [0-9]+\.[0-9]+\.[0-9]+$'
    # the one build line: compiler | flags | OpenMP version | NUMA | PAPI
    assert_line --index 1 --regexp '^(gcc|clang) [0-9.]+ \| .* \| OpenMP [0-9]{6} \| NUMA (on|off) \| PAPI (on|off)$'
}

@test "build-time defaults: make STREAM_ARRAY_SIZE= NTIMES= STREAM_TYPE=" {
    command -v make >/dev/null || skip "make not installed"
    run make -s -C "$ROOT" BUILD="$SANDBOX/b" BIN="$SANDBOX/bin" STREAM_ARRAY_SIZE=123457 \
        NTIMES=3 OFFSET=2 STREAM_TYPE=float "$SANDBOX/bin/stream"
    assert_success
    run "$SANDBOX/bin/stream" --llc 64KiB -q
    assert_success
    assert_line "This system uses 4 bytes per array element."
    assert_line "Array size = 123457 (elements), Offset = 2 (elements)"
    assert_line "Each kernel will be executed 3 times."
}

# Sends signal $1 to a long run writing -O once it holds its temporary
# result file: stream catches the signals before it opens it (an unnamed
# O_TMPFILE, "#N (deleted)", or the named fallback).  Under qemu-user the
# emulator catches every signal itself, so SigCgt alone proves nothing
# there.  A background job's SIGINT is ignored by the shell, and stream
# keeps that: env gives it back its default, as a terminal's job has.
interrupt_run() {
    local sig=$1 out="$SANDBOX/int.json" pid i
    # Copy alone keeps the values finite, so a million rounds can validate.
    env --default-signal=INT "$ST" "${SMALL[@]}" --kernels copy -n 1000000 --format json \
        -O "$out" 2>"$SANDBOX/int.err" &
    pid=$!
    for i in $(seq 1200); do
        ls -l "/proc/$pid/fd" 2>/dev/null | grep -qE -- "-> ($SANDBOX/#[0-9]+ \(deleted\)|$out\.tmp\.)" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    wait_catching "$pid" "$sig" || { kill -9 "$pid"; return 1; }
    kill -"$sig" "$pid"
    status=0
    wait "$pid" || status=$?
}

@test "SIGTERM/SIGINT stop the run: exit 130, no result and no temporary file left" {
    interrupt_run TERM
    [ "$status" -eq 130 ]
    run cat "$SANDBOX/int.err"
    assert_output --regexp 'interrupted by a signal after [0-9]+ of 1000000 rounds: no result written to .*int\.json'
    run compgen -G "$SANDBOX/int.json*"
    assert_failure
    interrupt_run INT
    [ "$status" -eq 130 ]
    run compgen -G "$SANDBOX/int.json*"
    assert_failure
}

@test "a bad --llc or MEMSUITE_LLC is named once, by where it came from" {
    run --separate-stderr "$ST" --llc 0
    [ "$status" -eq 2 ]
    [[ "$stderr" == "stream: error: --llc: invalid size '0'"* ]]
    MEMSUITE_LLC=foo run --separate-stderr "$ST"
    [ "$status" -eq 2 ]
    [[ "$stderr" == "stream: error: MEMSUITE_LLC: invalid size 'foo'"* ]]
}

@test "a memory policy inherited from numactl is reported, not 'default (first touch)'" {
    command -v numactl >/dev/null || skip "numactl not installed"
    numactl --membind=0 true 2>/dev/null || skip "numactl --membind=0 is refused here"
    need_numa_calls
    run --separate-stderr numactl --membind=0 "$ST" "${SMALL[@]}" --format json -O "$SANDBOX/p.json"
    assert_success
    run jq -r .numa.policy "$SANDBOX/p.json"
    assert_output "inherited from the parent (e.g. numactl): membind=0"
    validate_json "$SANDBOX/p.json"
    run --separate-stderr "$ST" "${SMALL[@]}" --format json -O "$SANDBOX/q.json"
    run jq -r .numa.policy "$SANDBOX/q.json"
    assert_output "default (first touch)"
}

@test "-O to a FIFO or a device writes in place and leaves the node a FIFO/device" {
    mkfifo "$SANDBOX/fifo"
    fifo_reader "$SANDBOX/fifo" "$SANDBOX/got.json"
    run --separate-stderr "$ST" "${SMALL[@]}" -q --format json -O "$SANDBOX/fifo"
    assert_success
    wait "$READER_PID"
    [ -p "$SANDBOX/fifo" ]
    validate_json "$SANDBOX/got.json"
    run compgen -G "$SANDBOX/fifo.tmp.*"
    assert_failure
    # A character device (what -O /dev/null is); mknod needs root.
    mknod "$SANDBOX/null" c 1 3 2>/dev/null || skip "mknod not permitted"
    run --separate-stderr "$ST" "${SMALL[@]}" -q --format json -O "$SANDBOX/null"
    assert_success
    [ -c "$SANDBOX/null" ]
}

@test "standard Copy is what the compiler makes of STREAM 5.10's Copy (memcpy or not, same choice)" {
    local cfg="${MEMSUITE_BUILD:-$ROOT/build}/build_config.h" cc flags od=objdump arch
    [ -f "$cfg" ] || skip "no build_config.h in ${MEMSUITE_BUILD:-$ROOT/build}"
    cc=$(sed -n 's/^#define MB_BUILD_COMPILER "\([a-z]*\) .*/\1/p' "$cfg")
    flags=$(sed -n 's/^#define MB_BUILD_CFLAGS "\(.*\)"$/\1/p' "$cfg")
    # a cross build (aarch64 binaries on an x86-64 host): its flags are the
    # target's, so the probe compiles and disassembles with that toolchain
    arch=$(bin_arch)
    if [ "$arch" != unknown ] && [ "$arch" != "$(uname -m)" ]; then
        cc="$arch-linux-gnu-$cc" od="$arch-linux-gnu-objdump"
    fi
    command -v "$od" >/dev/null || skip "$od not installed (binutils)"
    command -v "$cc" >/dev/null || skip "the build's compiler ($cc) is not on PATH"
    # STREAM 5.10's shape: three distinct static arrays, an OpenMP loop.
    cat > probe.c <<'C'
#define N 10000000
static double a[N], b[N], c[N];
void copy(void) {
#pragma omp parallel for
    for (long j = 0; j < N; j++) c[j] = a[j];
}
double *keep(int i) { return i ? (i > 1 ? c : b) : a; }
C
    # shellcheck disable=SC2086 # the build's flags, word-split on purpose
    "$cc" $flags -fopenmp -c probe.c -o probe.o
    local stream_calls ours_calls
    stream_calls=$("$od" -dr probe.o | grep -c 'memcpy' || true)
    ours_calls=$("$od" -dr --disassemble=copy_part_d "${MEMSUITE_BUILD:-$ROOT/build}/stream/kernels.o" |
                 grep -c 'memcpy' || true)
    run "$od" -d --disassemble=copy_part_d "${MEMSUITE_BUILD:-$ROOT/build}/stream/kernels.o"
    assert_output --partial '<copy_part_d>:'
    # both call memcpy, or neither does
    [ "$(( stream_calls > 0 ))" = "$(( ours_calls > 0 ))" ]
}

@test "--nt-isa: only this architecture's variants; another's is a usage error naming what this CPU has" {
    arch_names
    local other
    case "$(bin_arch)" in aarch64) other="avx512 sse2" ;; *) other="sve neon" ;; esac
    run "$ST" --help
    assert_success
    local line
    line=$(grep -- '--nt-isa' <<<"$output")
    [[ "$line" == *"; this CPU has auto, "*"portable (one of auto|${NT_ISAS// /|}|portable)"* ]]
    local v
    for v in $other; do
        [[ "$line" != *"$v"* ]] || { echo "help names $v: $line"; return 1; }
        run --separate-stderr "$ST" -s 100000 -n 2 --nt-isa "$v"
        assert_failure 2
        [ -z "$output" ]
        [[ "$stderr" == *"--nt-isa: invalid value '$v': not a variant for "*"; this CPU has auto|"*"$NT_ISA_BASE"*"portable"* ]]
    done
}

@test "the result records which hot-loop body ran, and why" {
    run "$ST" "${SMALL[@]}" --format json -O r.json
    assert_success
    validate_json r.json
    local want
    case "$(bin_arch)" in
        aarch64) want='^(sve|neon|native)$' ;;
        *) want='^(x86-64-v4|x86-64-v3|avx512f|avx2|default|native)$' ;;
    esac
    jq -e --arg re "$want" '.hot_loops.isa | test($re)' r.json
    jq -e '.hot_loops.why | length > 0' r.json
    # the one the CPU has, as the resolver sees it
    if [ "$(bin_arch)" = aarch64 ] && [ "$(jq -r .hot_loops.isa r.json)" != native ]; then
        if bin_cpu_has sve; then want=sve; else want=neon; fi
        run jq -r .hot_loops.isa r.json
        assert_output "$want"
    fi
}

@test "--nt-stores --nt-isa auto: the variant chosen by calibration, its figures in JSON and a note; forced and too-short runs say so" {
    arch_names
    local isas=${NT_ISAS// /|}
    run --separate-stderr "$ST" -s 2000000 -n 10 --nt-stores --format json -O p.json
    assert_success
    local note=$stderr
    validate_json p.json
    run jq -r '.config.nt_stores | [.chosen_by, .isa, (.calibration.variants // [] | map(.isa) | join(",")),
               (.calibration.variants // [] | map(.triad_mbps > 0) | all)] | join(" ")' p.json
    # every non-temporal variant this CPU has, each with a figure (or, on a
    # machine too busy to trust the probe, the default and why)
    assert_output --regexp "^(calibration ($isas) [a-z0-9,]+ true|default ($isas) .*)\$"
    if [ "$(jq -r .config.nt_stores.chosen_by p.json)" = calibration ]; then
        run jq -r '.label_reasons[] | select(startswith("non-temporal"))' p.json
        assert_output --regexp "^non-temporal stores \\(($isas), chosen by calibration\\)\$"
        # the probe is part of the calibration's time and of its budget
        jq -e '.config.nt_stores.calibration | .probe_s > 0 and .probe_s < .budget_s
               and .took_s >= .probe_s' p.json
        [[ "$note" == *"--nt-isa auto: "*" chosen by calibration "*" probe included)"* ]]
    fi
    # too short to calibrate: the default, and the warning says why
    # (10^4 elements, 2 rounds: at 100 MB/s, the least the probe accepts, the run
    # lasts 19 ms, so trials would get 0.1 ms)
    run --separate-stderr "$ST" -s 10000 -n 2 --nt-stores --format json -O s.json
    assert_success
    run jq -r '.config.nt_stores | [.chosen_by, .calibration_unavailable] | join(" ")' s.json
    assert_output --regexp '^default the calibration cannot (finish in time: its trials would be shorter than 0.2 ms|run: its probe)'
    run jq -r '.validation.passed' s.json
    assert_output true
    # forced
    run "$ST" -s 100000 -n 2 --nt-stores --nt-isa "$NT_ISA_BASE" --format json -O f.json
    assert_success
    run jq -r '.config.nt_stores | [.chosen_by, .isa, has("calibration")] | join(" ")' f.json
    assert_output -- "--nt-isa $NT_ISA_BASE false"
}

@test "an argument stream refuses is quoted in caret notation, and a 100 KB one cut with its length" {
    run --separate-stderr "$BIN/stream" $'\e[2J'
    assert_failure 2
    [ "$stderr" = "stream: error: unexpected argument '^[[2J'; stream takes options only (see --help)" ] || { echo "$stderr"; return 1; }
    local long
    long=$(printf '%*s' 102400 '' | tr ' ' x)
    run --separate-stderr "$BIN/stream" -q --array-size "$long"
    assert_failure 2
    [[ "$stderr" == *"invalid count '$(printf '%*s' 40 '' | tr ' ' x)... (102400 bytes)': not a number"* ]] || { echo "${stderr:0:300}"; return 1; }
    [ "${#stderr}" -lt 400 ]
}
