#!/usr/bin/env bats
# bin/mbw: mbw's command line, texts and exit codes (parity with Debian's
# /usr/bin/mbw where installed), input validation, the copy methods'
# correctness (--verify), and the memsuite extensions (JSON/CSV, threads,
# huge pages, counters, NUMA, --strict).
#
# Arrays stay small (1-8 MiB) and runs few.

bats_require_minimum_version 1.5.0
load test_helper

DEBIAN_MBW=/usr/bin/mbw

local_setup() {
    MBW="$BIN/mbw"
    [ -x "$MBW" ] || skip "bin/mbw not built (make bin/mbw)"
    export OMP_NUM_THREADS=1
    # The 4x LLC rule then holds from 1 MiB arrays, whatever this host's cache.
    export MEMSUITE_LLC=256KiB
}

# mbw's output lines, one ERE each (tabs between the fields).
TAB=$'\t'
F5='[0-9]+\.[0-9]{5}'
RUN_RE="^([0-9]+|AVG)${TAB}Method: (MEMCPY|DUMB|MCBLOCK)${TAB}Elapsed: ${F5}${TAB}MiB: ${F5}${TAB}Copy: [0-9]+\.[0-9]{3} MiB/s\$"
ALLOC_RE='^Long uses [0-9]+ bytes\. Allocating 2\*[0-9]+ elements = [0-9]+ bytes of memory\.$'
BLOCK_RE='^Using [0-9]+ bytes as blocks for memcpy block copy test\.$'
START_RE='^Getting down to business\.\.\. Doing [0-9]+ runs per test\.$'

# shape: stdin lines -> one class per line.  Result lines keep their index
# and method (numbers vary); informational and error lines are kept whole
# (they are deterministic).  A line of no known format prints "UNKNOWN: ...".
shape() {
    local line
    while IFS= read -r line; do
        if [ -z "$line" ]; then
            echo "empty"
        elif [[ $line =~ $RUN_RE ]]; then
            echo "run ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
        elif [[ $line =~ $ALLOC_RE || $line =~ $BLOCK_RE || $line =~ $START_RE ]]; then
            echo "info $line"
        elif [[ $line =~ ^Error:\ .+$ ]]; then
            echo "error $line"
        else
            echo "UNKNOWN: $line"
        fi
    done
}

# no_bad_numbers TEXT: never inf or nan, and no negative times.
no_bad_numbers() {
    if grep -Eiq 'inf|nan|Elapsed: -' <<< "$1"; then
        echo "bad number in: $1"
        return 1
    fi
}

# ---- mbw's own output ---------------------------------------------------

@test "default run prints mbw's lines: three informational, runs from 0, AVG per method" {
    run --separate-stderr "$MBW" -n 2 2
    assert_success
    mapfile -t got < <(shape <<< "$output")
    local want=(
        "info Long uses 8 bytes. Allocating 2*262144 elements = 4194304 bytes of memory."
        "info Using 262144 bytes as blocks for memcpy block copy test."
        "info Getting down to business... Doing 2 runs per test."
        "run 0 MEMCPY" "run 1 MEMCPY" "run AVG MEMCPY"
        "run 0 DUMB" "run 1 DUMB" "run AVG DUMB"
        "run 0 MCBLOCK" "run 1 MCBLOCK" "run AVG MCBLOCK")
    [ "${#got[@]}" -eq "${#want[@]}" ] || { printf '%s\n' "${got[@]}"; false; }
    for i in "${!want[@]}"; do
        [ "${got[$i]}" = "${want[$i]}" ] || { echo "line $i: '${got[$i]}' != '${want[$i]}'"; false; }
    done
    no_bad_numbers "$output"
}

@test "MiB column is the size, Copy is MiB / Elapsed, AVG uses the mean time" {
    run --separate-stderr "$MBW" -q -n 3 -t0 4
    assert_success
    awk -F'\t' '
        { split($3, e, ": "); split($4, m, ": "); split($5, c, /[: ]+/)
          if (m[2] != "4.00000") { print "MiB " m[2]; bad = 1 }
          if ($1 != "AVG") { sum += e[2]; n++ }
          else avg = e[2]
          last_rate = c[2] }
        END { if (bad) exit 1
              # AVG Elapsed is the mean of the printed times (within rounding)
              d = avg - sum / n; if (d < 0) d = -d
              if (d > 0.00002) { print "avg " avg " mean " sum / n; exit 1 } }' <<< "$output"
    # AVG Copy = MiB / AVG time, as mbw does (not the mean of the rates)
    local avgline
    avgline=$(grep '^AVG' <<< "$output")
    awk -F'\t' '{ split($3, e, ": "); split($5, c, /[: ]+/)
                  if (e[2] > 0 && (c[2] - 4 / e[2]) / c[2] > 0.2) exit 1 }' <<< "$avgline"
}

@test "-q drops the informational lines, -a the AVG lines; clusters like -qan1 work" {
    run --separate-stderr "$MBW" -qan1 -t0 -t1 2
    assert_success
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun 0 DUMB')" ]
}

@test "-t may be repeated; attached values (-t1) and separate ones (-t 2) both work" {
    run --separate-stderr "$MBW" -q -n1 -t1 -t 2 2
    assert_success
    [ "$(shape <<< "$output")" = "$(printf 'run 0 DUMB\nrun AVG DUMB\nrun 0 MCBLOCK\nrun AVG MCBLOCK')" ]
}

@test "the block line appears only when test 2 runs" {
    run --separate-stderr "$MBW" -n1 -t0 2
    assert_success
    refute_line --regexp '^Using '
    run --separate-stderr "$MBW" -n1 -t2 -b 65536 2
    assert_success
    assert_line 'Using 65536 bytes as blocks for memcpy block copy test.'
}

@test "options after the size are taken (GNU permutation), '--' ends options" {
    run --separate-stderr "$MBW" 2 -q -n1 -t0
    assert_success
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun AVG MEMCPY')" ]
    run --separate-stderr "$MBW" -q -n1 -t0 -- 2
    assert_success
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun AVG MEMCPY')" ]
}

@test "-h prints mbw's usage text on stdout and exits 1; the long options come from the table" {
    run --separate-stderr "$MBW" -h
    assert_failure 1
    assert_line --index 0 'Usage: mbw [options] array_size_in_MiB'
    assert_line "${TAB}-t2 : memcpy test with fixed block size"
    assert_line 'The default is to run all tests available.'
    for opt in threads numa-node hugepages format output counters verify strict; do
        assert_output --partial "--$opt"
    done
    run --separate-stderr "$MBW" --help
    assert_success
    assert_line --index 0 'Usage: mbw [options] array_size_in_MiB'
}

@test "-h wins over what follows it, as in mbw" {
    run --separate-stderr "$MBW" -h -x
    assert_failure 1
    [ -z "$stderr" ]
}

# ---- errors: mbw's texts on stdout, exit 1 --------------------------------

# check_error EXPECTED_STDOUT ARGS...: exit 1, exactly that line on stdout,
# no crash (status < 128), no inf/nan.
check_error() {
    local want=$1; shift
    run --separate-stderr "$MBW" "$@"
    [ "$status" -eq 1 ] || { echo "mbw $*: status $status (want 1); out: $output; err: $stderr"; return 1; }
    [ "$output" = "$want" ] || { echo "mbw $*: stdout '$output' (want '$want')"; return 1; }
    no_bad_numbers "$output$stderr"
}

@test "no array size" {
    check_error 'Error: no array size given!'
    check_error 'Error: no array size given!' -q -n 1
}

@test "array size 0, non-numeric, negative, with garbage or a sign: array size wrong" {
    for s in 0 00 abc -5 8abc ' 8' +8 '' 1.5 1e3 0x10; do
        check_error 'Error: array size wrong!' -q -n1 -t0 -- "$s"
    done
}

@test "array size whose byte count overflows is refused before allocating" {
    for s in 99999999999999999999 18446744073709551615 17592186044416 8796093022208; do
        check_error "Error: array size too large ($s MiB overflows the byte count)!" -q -n1 -t0 "$s"
    done
}

@test "-b 0, negative, non-numeric, overflowing: what block size do you mean" {
    for b in 0 -1 abc 1x '' 4K 99999999999999999999 ' 8'; do
        check_error 'Error: what block size do you mean?' -b "$b" 8
    done
}

@test "block larger than the array: mbw's text with the block size" {
    check_error 'Error: array size larger than block size (2097152 bytes)!' -b 2097152 1
    check_error 'Error: array size larger than block size (18446744073709551615 bytes)!' \
        -b 18446744073709551615 1
    # the check applies whatever tests run, as in mbw
    check_error 'Error: array size larger than block size (2097152 bytes)!' -t0 -b 2097152 1
}

@test "a block that fills the array exactly is accepted" {
    run --separate-stderr "$MBW" -q -n1 -t2 -b 1048576 --verify 1
    assert_success
}

@test "-t outside 0..2, negative, non-numeric, huge: test number must be between 0 and 2" {
    for t in 3 9 -1 abc 1x '' 99999999999999999999 18446744073709551616; do
        check_error 'Error: test number must be between 0 and 2' -t "$t" 8
    done
}

@test "-n negative, non-numeric, absurd: number of runs must be between 0 and 1000000" {
    for n in -1 abc 2x '' 1000001 99999999999999999999 1e3; do
        check_error 'Error: number of runs must be between 0 and 1000000' -q -n "$n" -t0 1
    done
}

@test "-n 1000000 (the maximum) is accepted by the parser" {
    # -b larger than the array stops it right after parsing: no long run.
    check_error 'Error: array size larger than block size (2097152 bytes)!' -n 1000000 -b 2097152 1
}

@test "-n 0 needs exactly one test" {
    check_error 'Error: -n 0 (run until interrupted) needs exactly one test (-t 0, 1 or 2)' -n 0 8
    check_error 'Error: -n 0 (run until interrupted) needs exactly one test (-t 0, 1 or 2)' -n 0 -t0 -t1 8
}

@test "-n 0 with one test runs until SIGINT, then prints a clean AVG line and exits 0" {
    env --default-signal=INT "$MBW" -q -n 0 -t0 1 > n0.out 2> n0.err &
    local pid=$! i
    for i in $(seq 1 100); do
        [ -s n0.out ] && break
        sleep 0.05
    done
    wait_catching "$pid" INT || { kill -9 "$pid"; return 1; }
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 0 ] || { echo "status $rc"; cat n0.err; false; }
    local last
    last=$(tail -n 1 n0.out)
    [[ $last =~ $RUN_RE ]] && [ "${BASH_REMATCH[1]}" = AVG ]
    [ "$(grep -c '^AVG' n0.out)" -eq 1 ]
    [ "$(wc -l < n0.out)" -ge 2 ]
    run shape < n0.out
    refute_output --partial UNKNOWN
    no_bad_numbers "$(cat n0.out)"
}

@test "a SIGINT ignored at start (a background job) stays ignored: the run goes on; SIGTERM still stops it" {
    env --ignore-signal=INT "$MBW" -q -n 0 -t0 1 > bg.out 2> bg.err &
    local pid=$! i n
    wait_for_text bg.out "Method" "$pid" || return 1
    kill -INT "$pid"
    n=$(wc -l < bg.out)
    # the run goes on: more lines come after the SIGINT (the old tools
    # re-enabled SIGINT and stopped)
    for ((i = 0; i < 1200; i++)); do
        [ "$(wc -l < bg.out)" -gt $((n + 1)) ] && break
        kill -0 "$pid" 2>/dev/null || { echo "stopped by the ignored SIGINT"; cat bg.err; return 1; }
        sleep 0.05
    done
    [ "$(wc -l < bg.out)" -gt $((n + 1)) ]
    kill -TERM "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$(grep -c '^AVG' bg.out)" -eq 1 ] || { echo "status $rc"; cat bg.out bg.err; return 1; }
}

@test "SIGINT during -n N: AVG over the finished runs, exit 130, JSON marked incomplete" {
    env --default-signal=INT "$MBW" -q -n 1000000 -t1 --format json --output r.json 1 > n.out 2> n.err &
    local pid=$! i
    for i in $(seq 1 100); do
        [ -s n.out ] && break
        sleep 0.05
    done
    kill -INT "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 130 ]
    tail -n 1 n.out | grep -q '^AVG'
    validate_json r.json
    [ "$(jq -r .complete r.json)" = false ]
    [ "$(jq '.records[0].metrics.time_s.samples | length' r.json)" -eq "$(grep -vc '^AVG' n.out)" ]
}

@test "SIGTERM during -n N stops like SIGINT: exit 130, JSON committed, no temporary file left" {
    "$MBW" -q -n 1000000 -t1 --format json --output t.json 1 > t.out 2> t.err &
    local pid=$! i
    for i in $(seq 1 100); do
        [ -s t.out ] && break
        sleep 0.05
    done
    kill -TERM "$pid"
    local rc=0
    wait "$pid" || rc=$?
    [ "$rc" -eq 130 ] || { echo "status $rc"; cat t.err; false; }
    validate_json t.json
    [ "$(jq -r .complete t.json)" = false ]
    run compgen -G 't.json.tmp.*'
    assert_failure
}

@test "--output to a FIFO or a device writes in place and leaves the node a FIFO/device" {
    mkfifo fifo
    fifo_reader fifo got.json
    run --separate-stderr "$MBW" -q -n 2 -t0 1 --format json --output fifo
    assert_success
    wait "$READER_PID"
    [ -p fifo ]
    validate_json got.json
    run compgen -G 'fifo.tmp.*'
    assert_failure
    mknod null c 1 3 2>/dev/null || skip "mknod not permitted"
    run --separate-stderr "$MBW" -q -n 2 -t0 1 --format json --output null
    assert_success
    [ -c null ]
}

@test "unknown short flag: getopt's message on stderr, the run goes on (exit 0), as mbw" {
    run --separate-stderr "$MBW" -x -q -n 1 -t0 2
    assert_success
    [[ $stderr == *"invalid option -- 'x'"* ]]
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun AVG MEMCPY')" ]
}

@test "unknown short flag under --strict is a usage error (exit 2)" {
    run --separate-stderr "$MBW" --strict -x -q -n 1 -t0 2
    assert_failure 2
    [[ $stderr == *"invalid option -- 'x'"* ]]
    [[ $stderr == *"mbw: error: -x: unknown option"*"-n N, -t 0|1|2"* ]]
    [ -z "$output" ]
}

@test "missing option arguments: getopt's message, then no array size (exit 1)" {
    for o in -n -t -b; do
        run --separate-stderr "$MBW" "$o"
        assert_failure 1
        assert_output 'Error: no array size given!'
        [[ $stderr == *"option requires an argument -- '${o#-}'"* ]]
    done
    # "-5" is an unknown option, not a negative size
    run --separate-stderr "$MBW" -5
    assert_failure 1
    assert_output 'Error: no array size given!'
    [[ $stderr == *"invalid option -- '5'"* ]]
}

@test "a size larger than MemAvailable is refused before allocating, naming MemAvailable" {
    mkdir -p fake/proc
    printf 'MemTotal:        2048000 kB\nMemFree:         1024000 kB\nMemAvailable:    1024000 kB\n' \
        > fake/proc/meminfo
    export MEMSUITE_PROCFS="$PWD/fake/proc"
    run --separate-stderr "$MBW" -q -n1 -t0 1024
    assert_failure 1
    [ -z "$output" ]
    [[ $stderr == *MemAvailable* ]]
    [[ $stderr == *"at most 450 MiB"* ]]
    run --separate-stderr "$MBW" --strict -q -n1 -t0 1024
    assert_failure 3
    # a size that fits runs
    run --separate-stderr "$MBW" -q -n1 -t0 4
    assert_success
}

@test "an allocation that fails anyway gives mbw's perror text, exit 1" {
    # AddressSanitizer reserves terabytes of address space: no ulimit -v.
    if grep -q __asan_init "$MBW"; then skip "sanitizer build"; fi
    mkdir -p fake/proc
    printf 'MemTotal:  1048576000 kB\nMemFree:   1000000000 kB\nMemAvailable: 1000000000 kB\n' \
        > fake/proc/meminfo
    export MEMSUITE_PROCFS="$PWD/fake/proc"
    run --separate-stderr bash -c 'ulimit -v 400000 && exec "$0" -q -n1 -t0 1024' "$MBW"
    assert_failure 1
    [[ $stderr == *"Error allocating memory: Cannot allocate memory"* ]]
}

@test "the real machine's huge size: refused, exit 1, nothing on stdout with -q" {
    run --separate-stderr "$MBW" -q -n1 -t0 100000000
    assert_failure 1
    [ -z "$output" ]
    [[ $stderr == *MemAvailable* ]]
}

# ---- long options: values checked by the table -----------------------------

# check_long_error ARGS...: exit 1 (2 with --strict), message on stderr
# naming the option, nothing on stdout.
check_long_error() {
    local opt=$1
    run --separate-stderr "$MBW" "$@" -q -n1 -t0 1
    [ "$status" -eq 1 ] || { echo "mbw $*: status $status; err: $stderr"; return 1; }
    [ -z "$output" ] || { echo "mbw $*: stdout: $output"; return 1; }
    [[ $stderr == *"${opt%%=*}"* ]] || { echo "mbw $*: stderr does not name $opt: $stderr"; return 1; }
    run --separate-stderr "$MBW" --strict "$@" -q -n1 -t0 1
    [ "$status" -eq 2 ] || { echo "mbw --strict $*: status $status"; return 1; }
}

@test "--threads: 0, negative, non-numeric, huge, missing are errors" {
    for v in 0 -1 abc 1.5 1025 99999999999999999999 ''; do
        check_long_error --threads "$v"
    done
    check_long_error --threads=0
    run --separate-stderr "$MBW" -q -n1 -t0 1 --threads
    assert_failure 1
    [[ $stderr == *"requires an argument"* ]]
}

@test "--numa-node, --hugepages, --format: bad values are errors" {
    for v in -1 abc 64 99999999999999999999 ''; do
        check_long_error --numa-node "$v"
    done
    for v in always yes '' NEVER; do
        check_long_error --hugepages "$v"
    done
    for v in xml JSON ''; do
        check_long_error --format "$v"
    done
}

@test "unknown long option and a value given to a flag are errors" {
    check_long_error --frobnicate
    check_long_error --verify=1
    check_long_error --strict=yes
}

@test "--output into a missing directory fails before measuring" {
    run --separate-stderr "$MBW" -q -n1 -t0 --output nodir/r.json --format json 1
    assert_failure 1
    [[ $stderr == *nodir/r.json* ]]
    [ -z "$output" ]
    run --separate-stderr "$MBW" --strict -q -n1 -t0 --output nodir/r.json --format json 1
    assert_failure 3
}

@test "--version prints the build summary" {
    run --separate-stderr "$MBW" --version
    assert_success
    assert_line --index 0 --regexp '^mbw \(memsuite\) [0-9]'
}

# ---- correctness: every byte is copied --------------------------------------

@test "--verify: every method copies every byte" {
    run --separate-stderr "$MBW" -n 2 --verify 2
    assert_success
    for m in MEMCPY DUMB MCBLOCK; do
        [[ $stderr == *"--verify: $m: all 2097152 bytes copied"* ]]
    done
}

@test "--verify: MCBLOCK with a block that does not divide the array copies the tail" {
    # 3 MiB = 3 blocks of 1000000 bytes + a 145728-byte tail; 7 and 262143
    # leave odd tails too.
    for b in 1000000 7 262143 3145727; do
        run --separate-stderr "$MBW" -q -n 2 -t2 -b "$b" --verify --format json --output v.json 3
        assert_success
        [ "$(jq -r '.validation.passed' v.json)" = true ]
        [ "$(jq -r '.records[0].verify.ok' v.json)" = true ]
        [ "$(jq -r '.records[0].block_bytes' v.json)" = "$b" ]
        [ "$(jq -r '.records[0].verify.src_checksum == .records[0].verify.dst_checksum' v.json)" = true ]
    done
}

@test "--verify with threads: slices cover the array, tails included" {
    for t in 2 3 7; do
        run --separate-stderr "$MBW" -q -n 1 --threads "$t" -b 100000 --verify 3
        assert_success
        no_bad_numbers "$output"
    done
}

@test "DUMB stays a scalar element loop: mbw_dumb_copy calls no memcpy and uses no vector register" {
    # the binary's own architecture decides the disassembler and the
    # instructions: a call, a vector register, an 8-byte scaled load
    local od=objdump call vreg load
    case "$(bin_arch)" in
        aarch64)
            [ "$(uname -m)" = aarch64 ] || od=aarch64-linux-gnu-objdump
            call='(bl|b)[[:space:]]+[0-9a-f]+ <' vreg='\b[qv][0-9]+\b|\bz[0-9]+\.'
            load='ldr[[:space:]]+x[0-9]+, \[x[0-9]+, x[0-9]+, lsl #3\]' ;;
        *)
            call='(call|jmp) +.*<' vreg='%[xyz]mm[0-9]'
            load='mov +\(%r[a-z0-9]+,%r[a-z0-9]+,8\),%r' ;;
    esac
    command -v "$od" >/dev/null || skip "$od not installed (binutils)"
    # every body of it (a clone would be named mbw_dumb_copy.<target>)
    "$od" -d --no-show-raw-insn "$MBW" |
        awk '/^[0-9a-f]+ <mbw_dumb_copy[.>]/ { on = 1 } /^$/ { on = 0 } on' >dumb.s
    run grep -c '^[0-9a-f]* <mbw_dumb_copy' dumb.s
    assert_output 1
    run cat dumb.s
    refute_output --regexp "$call(memcpy|memmove|__memcpy)"
    # the original's loop (Debian's gcc -O2 build): one 8-byte load and
    # store per element, no vector register (xmm/ymm/zmm; q/v/z)
    refute_output --regexp "$vreg"
    assert_output --regexp "$load"
    # and MEMCPY/MCBLOCK do use memcpy
    run "$od" -d --no-show-raw-insn "$MBW"
    assert_output --regexp "${call}memcpy"
}

@test "a copy too quick for the clock never prints inf or nan" {
    # 1 MiB over many threads is the quickest copy the CLI allows.
    run --separate-stderr "$MBW" -q -n 5 --threads 8 1
    assert_success
    no_bad_numbers "$output"
    run shape <<< "$output"
    refute_output --partial UNKNOWN
}

# ---- JSON / CSV -----------------------------------------------------------

@test "--format json: schema 2: each method's headline is avg_rate_mibps (MiB/s = B/s x 1048576)" {
    run --separate-stderr "$MBW" -q -n 2 --format json 2
    assert_success
    printf '%s\n' "$output" > r.json
    validate_json r.json
    [ "$(jq -r .schema r.json)" = memsuite/result/2 ]
    for m in MEMCPY DUMB MCBLOCK; do
        [ "$(headline_of r.json "$m")" = avg_rate_mibps ]
        [ "$(metric_meaning r.json "$m" avg_rate_mibps)" = "MiB/s B/s 1048576 higher" ]
        [ "$(metric_meaning r.json "$m" worst_rate_mibps)" = "MiB/s B/s 1048576 higher" ]
        [ "$(metric_meaning r.json "$m" time_s)" = "s s 1 lower" ]
    done
}

@test "--format json: valid against the schema, every run's time as a sample" {
    run --separate-stderr "$MBW" -q -n 3 --format json 2
    assert_success
    printf '%s\n' "$output" > r.json
    validate_json r.json
    [ "$(jq -r .tool r.json)" = mbw ]
    [ "$(jq -r .label r.json)" = standard ]
    [ "$(jq -r '[.records[].name] | join(",")' r.json)" = MEMCPY,DUMB,MCBLOCK ]
    for i in 0 1 2; do
        [ "$(jq ".records[$i].metrics.time_s.samples | length" r.json)" -eq 3 ]
        [ "$(jq ".records[$i].metrics.time_s.stats.n" r.json)" -eq 3 ]
        jq -e ".records[$i].metrics.time_s.stats | has(\"min\") and has(\"median\") and has(\"mean\") and has(\"max\") and has(\"cv\")" r.json
    done
    [ "$(jq -r .config.size_mib r.json)" -eq 2 ]
    [ "$(jq -r .config.array_bytes r.json)" -eq 2097152 ]
    jq -e '.sysinfo and .threads' r.json
}

@test "--format json --output FILE: mbw's lines on stdout, the same figures in the file" {
    run --separate-stderr "$MBW" -q -n 2 -t0 --format json --output r.json 2
    assert_success
    validate_json r.json
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun 1 MEMCPY\nrun AVG MEMCPY')" ]
    # the AVG line's rate is the JSON avg_rate (to the printed precision)
    local text json
    text=$(awk -F'\t' '/^AVG/ {split($5, c, /[: ]+/); print c[2]}' <<< "$output")
    json=$(jq -r '.records[0].metrics.avg_rate_mibps.value' r.json)
    awk -v a="$text" -v b="$json" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d < 0.001 + 1e-9 * b)}'
}

@test "--format csv: the common header and one row per metric" {
    run --separate-stderr "$MBW" -q -n 2 -t1 --format csv 2
    assert_success
    assert_line --index 0 --regexp '^tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv'
    assert_line --regexp '^mbw,standard,DUMB,time_s,s,[0-9.e-]+,2,'
}

@test "--output FILE with text: mbw's lines go to the file" {
    run --separate-stderr "$MBW" -q -n 1 -t0 --output out.txt 2
    assert_success
    [ -z "$output" ]
    [ "$(shape < out.txt)" = "$(printf 'run 0 MEMCPY\nrun AVG MEMCPY')" ]
}

# ---- extensions ---------------------------------------------------------

@test "--threads N: same text format, labelled tuned, each thread recorded" {
    run --separate-stderr "$MBW" -q -n 2 -t0 --threads 2 --format json --output r.json 2
    assert_success
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun 1 MEMCPY\nrun AVG MEMCPY')" ]
    validate_json r.json
    [ "$(jq -r .label r.json)" = tuned ]
    [ "$(jq -r .config.threads r.json)" -eq 2 ]
    [ "$(jq -r .threads.counted r.json)" -eq 2 ]
}

@test "--hugepages never|thp|madvise: runs, records the mode and the THP bytes or why not" {
    for m in never thp madvise; do
        run --separate-stderr "$MBW" -q -n 1 -t0 --hugepages "$m" --verify --format json --output r.json 4
        assert_success
        validate_json r.json
        [ "$(jq -r .config.hugepages r.json)" = "$m" ]
        [ "$(jq -r .label r.json)" = tuned ]
        jq -e '.config | has("anon_huge_bytes")' r.json
    done
    # never means no huge page at all when the figure is known
    run --separate-stderr "$MBW" -q -n 1 -t0 --hugepages never --format json --output r.json 4
    local b
    b=$(jq -r .config.anon_huge_bytes r.json)
    [ "$b" = null ] || [ "$b" -eq 0 ]
}

@test "--counters: the run goes on with or without hardware counters; reasons recorded" {
    run --separate-stderr "$MBW" -q -n 1 -t0 --counters --format json --output r.json 2
    assert_success
    [[ $stderr == *"counters: MEMCPY:"* ]]
    validate_json r.json
    jq -e '.records[0].counters' r.json
    run --separate-stderr "$MBW" -q -n 1 -t0 --counters=PAPI_TOT_CYC 2
    assert_success
    [ "$(shape <<< "$output")" = "$(printf 'run 0 MEMCPY\nrun AVG MEMCPY')" ]
    # perf's names; the dTLB miss rate (% of loads) or that it is unavailable
    run --separate-stderr "$MBW" -q -n 1 -t0 --counters=dTLB-load-misses,dTLB-loads --format json --output r.json 2
    assert_success
    [[ $stderr =~ dtlb_load_miss_pct=([0-9.]+|unavailable) ]]
    jq -e '.records[0].counters.hardware.mapping == {"dTLB-load-misses": "PAPI_TLB_DM", "dTLB-loads": "PAPI_LD_INS"}' r.json
}

@test "--numa-node 0 binds where libnuma is built; otherwise says so (exit 4 with --strict)" {
    if "$MBW" --version | grep -q 'NUMA on' && numactl --hardware >/dev/null 2>&1; then
        need_numa_calls
        run --separate-stderr "$MBW" -q -n 1 -t0 --numa-node 0 --format json --output r.json 2
        assert_success
        validate_json r.json
        [ "$(jq -r .config.numa_node r.json)" -eq 0 ]
        [ "$(jq -r .label r.json)" = tuned ]
    else
        run --separate-stderr "$MBW" --strict -q -n 1 -t0 --numa-node 0 2
        assert_failure 4
        [[ $stderr == *libnuma* ]]
    fi
}

@test "arrays under 4x the LLC: mbw's lines unchanged, a warning on stderr, labelled; --strict exits 2" {
    export MEMSUITE_LLC=8MiB
    run --separate-stderr "$MBW" -n 1 -t0 16
    assert_success
    printf '%s\n' "$output" | grep -Ev "$ALLOC_RE|$BLOCK_RE|$START_RE|$RUN_RE" && false
    [[ "$stderr" == *"array size 16 MiB: each array (16.0 MiB) is under 4x the last-level cache (8.0 MiB"*"from override) = 32.0 MiB"* ]]
    [[ "$stderr" == *"an array size of 32 (MiB) or more"* ]]
    run "$MBW" -q -n 1 -t0 16 --format json --output r.json
    assert_success
    validate_json r.json
    jq -e '.label == "not-standard" and (.label_reasons[0] | test("under 4x the last-level cache"))' r.json
    run --separate-stderr "$MBW" --strict -q -n 1 -t0 16 --format json --output s.json
    [ "$status" -eq 2 ]
    [ -z "$output" ]
    [[ "$stderr" == *"use an array size of 32 (MiB) or more"* ]]
    [ ! -e s.json ]
    run "$MBW" --strict -q -n 1 -t0 32
    assert_success
}

@test "VM fixture (no sysfs cache, sysconf 508 MiB): mbw 64 warns with sysconf's LLC; --strict exits 2" {
    unset MEMSUITE_LLC
    export MEMSUITE_SYSCONF_L3=508MiB
    use_fixture llc-vm-nocache
    run --separate-stderr "$MBW" -n 1 -t0 64
    assert_success
    [[ "$stderr" == *"(508.0 MiB L3 from sysconf) = 2.0 GiB"* ]]
    run "$MBW" --strict -q -n 1 -t0 64
    [ "$status" -eq 2 ]
}

@test "--strict: stray arguments and usage errors exit 2" {
    run --separate-stderr "$MBW" --strict -q -n1 -t0 2 3
    assert_failure 2
    run --separate-stderr "$MBW" --strict -t 5 2
    assert_failure 2
    assert_output 'Error: test number must be between 0 and 2'
    run --separate-stderr "$MBW" --strict
    assert_failure 2
    # without --strict the extra argument is ignored, as mbw does
    run --separate-stderr "$MBW" -q -n1 -t0 2 3
    assert_success
}

@test "--strict: a refused -n, -b, -t or size is named on stderr, mbw's own line kept on stdout" {
    local -a cases=(
        "-n|-1|Error: number of runs must be between 0 and 1000000|-n '-1': not a number of runs from 0 to 1000000 (--strict)"
        "-b|0x10|Error: what block size do you mean?|-b '0x10': not a block size"
        "-t|7|Error: test number must be between 0 and 2|-t '7': not a test number"
    )
    local c opt val line says
    for c in "${cases[@]}"; do
        IFS='|' read -r opt val line says <<<"$c"
        run --separate-stderr "$MBW" --strict -q "$opt" "$val" 16
        assert_failure 2
        assert_output "$line"
        [[ "$stderr" == "mbw: error: $says"* ]] || { echo "$opt $val: $stderr"; return 1; }
    done
    run --separate-stderr "$MBW" --strict -q -n 1 -t0 -- $'-5\e[2J'
    assert_failure 2
    assert_output "Error: array size wrong!"
    [[ "$stderr" == "mbw: error: the array size '-5^[[2J': not an array size"* ]] || { echo "$stderr"; return 1; }
    # without --strict mbw's behaviour and words are unchanged: no extra line
    run --separate-stderr "$MBW" -q -n -1 16
    assert_failure 1
    assert_output "Error: number of runs must be between 0 and 1000000"
    [ -z "$stderr" ]
}

# ---- parity with Debian's mbw 1.2.2 ---------------------------------------

# parity ARGS...: our mbw and Debian's print the same sequence of line
# formats (informational and error lines verbatim) and exit alike.
parity() {
    local ours deb ours_rc=0 deb_rc=0
    ours=$("$MBW" "$@" 2>ours.err) || ours_rc=$?
    deb=$("$DEBIAN_MBW" "$@" 2>deb.err) || deb_rc=$?
    if [ "$ours_rc" -ne "$deb_rc" ]; then
        echo "mbw $*: exit $ours_rc, Debian $deb_rc"
        return 1
    fi
    if [ "$(shape <<< "$ours")" != "$(shape <<< "$deb")" ]; then
        echo "mbw $*: formats differ"
        diff <(shape <<< "$ours") <(shape <<< "$deb")
        return 1
    fi
    if shape <<< "$ours" | grep -q UNKNOWN; then
        echo "mbw $*: unknown line"; shape <<< "$ours"; return 1
    fi
    no_bad_numbers "$ours"
}

@test "parity with Debian's mbw: runs, options and informational lines" {
    [ -x "$DEBIAN_MBW" ] || skip "Debian's mbw is not installed (apt-get install mbw)"
    parity -n 2 2
    parity -q -n 2 -t0 2
    parity -q -n 1 -t1 2
    parity -a -n 1 -t2 -b 65536 2
    parity -qan1 -t0 -t2 2
    parity 2 -q -n1 -t1
    parity -q -n1 -t0 -- 2
    parity -x -q -n1 -t0 2
    grep -q "invalid option -- 'x'" ours.err
    grep -q "invalid option -- 'x'" deb.err
}

@test "parity with Debian's mbw: error texts and exit codes" {
    [ -x "$DEBIAN_MBW" ] || skip "Debian's mbw is not installed (apt-get install mbw)"
    parity
    parity 0
    parity abc
    parity -b 0 8
    parity -b 2097152 1
    parity -n
    parity -5
    parity -t 1
    parity -q -n1 -t0 100000000
}

@test "parity with Debian's mbw: -h text" {
    [ -x "$DEBIAN_MBW" ] || skip "Debian's mbw is not installed (apt-get install mbw)"
    local ours deb rc1=0 rc2=0
    ours=$("$MBW" -h) || rc1=$?
    deb=$("$DEBIAN_MBW" -h) || rc2=$?
    [ "$rc1" -eq "$rc2" ]
    local n
    n=$(wc -l <<< "$deb")
    [ "$(head -n "$n" <<< "$ours")" = "$deb" ]
}

@test "documented fixes: where Debian 1.2.2 misbehaves, ours refuses cleanly" {
    # Debian: -t9 runs all tests; -n 0 / -n -1 print nan/inf; -b -1 and
    # "-- -5" report a bogus block error; "8abc" runs 8 MiB.
    check_error 'Error: test number must be between 0 and 2' -q -n1 -t9 2
    check_error 'Error: -n 0 (run until interrupted) needs exactly one test (-t 0, 1 or 2)' -n 0 -t0 -t1 2
    check_error 'Error: number of runs must be between 0 and 1000000' -q -n -1 -t0 2
    check_error 'Error: what block size do you mean?' -b -1 2
    check_error 'Error: array size wrong!' -- -5
    check_error 'Error: array size wrong!' -q -n1 -t1 8abc
}
