#!/usr/bin/env bats
# Hostile input to stream, stream_mpi, mbw and mencal (issue 17): counter
# lists, OpenMP environment, numeric limits, labels and output errors.
# Every case here once crashed, hung, lied or misreported; each asserts the
# documented exit code and a message that names the bad value.  Nothing
# here needs hardware counters, a real cpufreq or SMT knob: sizes stay
# tiny (--llc 256KiB) and CPU counts come from the process mask.

bats_require_minimum_version 1.5.0
load test_helper

SMALL=(--llc 256KiB -s 300000 -n 3)

local_setup() {
    ST="$BIN/stream"
    MBW="$BIN/mbw"
    MC="$BIN/mencal"
    export OMP_NUM_THREADS=1
    unset OMP_THREAD_LIMIT
    # a 256 KiB last-level cache: mbw's and mencal's few MiB are standard sizes
    export MEMSUITE_LLC=256K
}

# CPUs this process may use (nproc itself honours OMP_NUM_THREADS).
cpus() { env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc; }

# ---- CLI: --counters lists (defect 4) -----------------------------------

# Each malformed list is a usage error with its reason, never a signal.
BAD_LISTS=(
    ',|empty event name at position 1'
    'NOPE,NOPE|appears twice'
    'PAPI_TOT_CYC,PAPI_TOT_CYC|appears twice'
    'E0,E1,E2,E3,E4,E5,E6,E7,E8,E9,E10,E11,E12,E13,E14,E15,E16,E17|18 event names, at most 8'
    "$(printf 'A%.0s' {1..130})|longer than 63 characters"
    'PAPI_TOT_CYC;id|contains '"';'"
)

@test "stream --counters: malformed lists exit 2 with the reason (was SIGSEGV)" {
    local item list why
    for item in "${BAD_LISTS[@]}"; do
        list=${item%%|*} why=${item#*|}
        run --separate-stderr "$ST" --allow-small -s 1000 -n 2 --counters="$list"
        echo "list '$list': status $status: $stderr"
        [ "$status" -eq 2 ]
        [[ $stderr == *"--counters: invalid counter list"*"$why"* ]]
        [ -z "$output" ]
    done
}

@test "mbw and mencal --counters: the same rule and message as stream" {
    local item list why
    for item in "${BAD_LISTS[@]}"; do
        list=${item%%|*} why=${item#*|}
        run --separate-stderr "$MBW" --strict -q -n 1 --counters="$list" 1
        echo "mbw '$list': status $status: $stderr"
        [ "$status" -eq 2 ]
        [[ $stderr == *"invalid counter list"*"$why"* ]]
        run --separate-stderr "$MC" run seqread --size 1M --counters="$list"
        echo "mencal '$list': status $status: $stderr"
        [ "$status" -eq 2 ]
        [[ $stderr == *"--counters: invalid counter list"*"$why"* ]]
    done
}

@test "an empty --counters= is refused the same way by stream, mbw (with and without --strict) and mencal (defect 22)" {
    local want="--counters: invalid value '': empty; give a value (LIST), or leave the option out for the default"
    run --separate-stderr "$ST" --allow-small -s 1000 -n 2 --counters=
    echo "stream: status $status: $stderr"
    [ "$status" -eq 2 ] && [ -z "$output" ]
    [[ $stderr == *"$want"* ]]
    run --separate-stderr "$MBW" --strict -q -n 1 --counters= 1
    echo "mbw --strict: status $status: $stderr"
    [ "$status" -eq 2 ] && [ -z "$output" ]
    [[ $stderr == *"$want"* ]]
    run --separate-stderr "$MBW" -q -n 1 --counters= 1
    echo "mbw: status $status: $stderr"
    [ "$status" -eq 1 ] && [ -z "$output" ]    # mbw's own exit code for every error
    [[ $stderr == *"$want"* ]]
    run --separate-stderr "$MC" run seqread --size 1M --counters=
    echo "mencal: status $status: $stderr"
    [ "$status" -eq 2 ]
    [[ $stderr == *"$want"* ]]
    # --counters alone still means the default list
    run --separate-stderr "$ST" --allow-small -s 1000 -n 2 --counters --format json -O d.json -q
    [ "$status" -eq 0 ]
    run jq -r '.records[0].counters.hardware.events | keys_unsorted | map(select(endswith("_unavailable") | not)) | join(",")' d.json
    [ "$output" = "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,PAPI_TLB_DM,PAPI_LD_INS" ]
}

@test "stream_mpi: a malformed --counters list or OMP_NUM_THREADS exits 2 before MPI starts work" {
    [ -x "$BIN/stream_mpi" ] || skip "bin/stream_mpi not built"
    command -v mpirun >/dev/null 2>&1 || skip "mpirun not found"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    run --separate-stderr timeout 60 mpirun -np 1 "$BIN/stream_mpi" --llc 256KiB -n 2 --counters=NOPE,NOPE
    echo "status $status: $stderr"
    [ "$status" -eq 2 ]
    [[ $stderr == *"appears twice"* ]]
    # and the OpenMP environment, on every rank, before any parallel region
    run --separate-stderr timeout 60 mpirun -np 2 -x OMP_NUM_THREADS=100000 "$BIN/stream_mpi" \
        --llc 256KiB -n 2
    echo "status $status: $stderr"
    [ "$status" -eq 2 ]
    [[ $stderr == *"OMP_NUM_THREADS='100000': more than 1024 threads"* ]]
}

@test "stream --counters with an unknown event runs and records why it is unavailable" {
    run --separate-stderr "$ST" "${SMALL[@]}" --counters=NOPE --format json -O r.json -q
    [ "$status" -eq 0 ]
    jq -e '[.records[].counters.hardware.available] | all | not' r.json
}

# ---- environment: OMP_NUM_THREADS / OMP_THREAD_LIMIT (defect 5) ---------

# value|what the message says
BAD_OMP=(
    '100000|more than 1024 threads'
    '40000|more than 1024 threads'
    '1025|more than 1024 threads'
    '4,100000|more than 1024 threads'
    '99999999999999999999999999|more than 1024 threads'
    'abc|not a thread count'
    '0|not a thread count'
    '2,,2|not a thread count'
)

@test "stream, mbw, mencal: an OMP_NUM_THREADS they cannot run is exit 2 naming the variable (was SIGSEGV)" {
    local item v why
    for item in "${BAD_OMP[@]}"; do
        v=${item%%|*} why=${item#*|}
        OMP_NUM_THREADS=$v run --separate-stderr "$ST" --allow-small -s 100000 -n 3
        echo "stream OMP_NUM_THREADS=$v: status $status: $stderr"
        [ "$status" -eq 2 ]
        [[ $stderr == *"OMP_NUM_THREADS='$v': $why"* ]]
        OMP_NUM_THREADS=$v run --separate-stderr "$MBW" --strict -q -n 1 1
        [ "$status" -eq 2 ]
        [[ $stderr == *"OMP_NUM_THREADS='$v': $why"* ]]
        OMP_NUM_THREADS=$v run --separate-stderr "$MC" run seqread --size 1M --allow-cache --reps 1
        [ "$status" -eq 2 ]
        [[ $stderr == *"OMP_NUM_THREADS='$v': $why"* ]]
    done
    OMP_NUM_THREADS=100000 run --separate-stderr "$MBW" -q -n 1 1
    [ "$status" -eq 1 ]          # mbw's compatible mode: 1 for every error
}

@test "OMP_THREAD_LIMIT that is not a count is exit 2; a large one is harmless" {
    OMP_THREAD_LIMIT=none run --separate-stderr "$ST" "${SMALL[@]}" -q
    [ "$status" -eq 2 ]
    [[ $stderr == *"OMP_THREAD_LIMIT='none': not a thread count"* ]]
    OMP_THREAD_LIMIT=100000 run --separate-stderr "$ST" "${SMALL[@]}" -q
    [ "$status" -eq 0 ]
}

@test "OpenMP threads that cannot be created: exit 3 with the reason, no temporary file left" {
    if grep -q __asan_init "$ST"; then skip "sanitizer build: no ulimit -v"; fi
    # 8 stacks of 400 MiB do not fit in 1 GB of address space.
    run --separate-stderr bash -c 'ulimit -v 1000000 && OMP_STACKSIZE=400M exec "$0" "$@"' \
        "$ST" "${SMALL[@]}" -t 8 --format json -O r.json -q
    echo "status $status: $stderr"
    [ "$status" -eq 3 ]
    [[ $stderr == *"cannot start 8 OpenMP threads"* ]]
    [ ! -e r.json ]
    [ -z "$(ls -A | grep -v '^stubs$')" ]
    run --separate-stderr bash -c 'ulimit -v 1000000 && OMP_STACKSIZE=400M exec "$0" "$@"' \
        "$MBW" --strict --threads 8 -q -n 1 -t0 4
    echo "mbw status $status: $stderr"
    [ "$status" -eq 3 ]
    [[ $stderr == *"cannot start 8 OpenMP threads"* ]]
}

# ---- labels: threads the runtime did not give, oversubscription (defect 16)

@test "OMP_THREAD_LIMIT=1 with -t 2: a warning says 1 thread ran (stream, mbw, mencal)" {
    OMP_THREAD_LIMIT=1 run --separate-stderr "$ST" "${SMALL[@]}" -t 2 --format json -O r.json
    [ "$status" -eq 0 ]
    [[ $stderr == *"2 threads requested but 1 ran: OMP_THREAD_LIMIT=1"* ]]
    jq -e '.warnings | map(test("2 threads requested but 1 ran")) | any' r.json
    OMP_THREAD_LIMIT=1 run --separate-stderr "$MBW" --threads 2 -n 1 -t0 4
    [ "$status" -eq 0 ]
    [[ $stderr == *"2 threads requested but 1 ran"* ]]
    OMP_THREAD_LIMIT=1 MEMSUITE_LLC=256K run --separate-stderr "$MC" run seqread --size 4M \
        --reps 1 -t 2 --format json -O m.json
    [ "$status" -eq 0 ]
    [[ $stderr == *"2 threads requested but 1 ran"* ]]
    jq -e '.config.threads == 1 and .threads.counted == 1' m.json
}

@test "mencal -t or --procs above the allowed CPUs is labelled not-standard, like stream" {
    local n=$(( $(cpus) * 4 ))
    MEMSUITE_LLC=256K run --separate-stderr "$MC" run seqread --size 4M --reps 1 -t "$n" \
        --format json -O m.json
    [ "$status" -eq 0 ]
    jq -e '.label == "not-standard"' m.json
    jq -e --arg r "$n threads on $(cpus) allowed CPUs: oversubscribed" \
        '.label_reasons | map(startswith($r)) | any' m.json
    MEMSUITE_LLC=256K run --separate-stderr "$MC" run concurrent --size 4M --procs "$n" \
        --duration 0.2 --format json -O c.json
    [ "$status" -eq 0 ]
    jq -e '.label == "not-standard"' c.json
    jq -e --arg r "--procs $n on $(cpus) allowed CPUs: oversubscribed" \
        '.label_reasons | map(startswith($r)) | any' c.json
    # one thread per CPU stays standard
    MEMSUITE_LLC=256K run --separate-stderr "$MC" run seqread --size 4M --reps 1 -t 1 \
        --format json -O s.json
    jq -e '.label == "standard"' s.json
}

# ---- results: a failed validation is never standard (defect 8) ----------

@test "a failed validation is labelled not-standard in JSON, and CSV carries the outcome" {
    run --separate-stderr "$ST" "${SMALL[@]}" --inject-error --format json -O r.json -q
    [ "$status" -eq 1 ]
    jq -e '.validation.passed == false' r.json
    jq -e '.label == "not-standard"' r.json
    jq -e '.label_reasons[0] | startswith("validation failed")' r.json
    validate_json r.json
    run --separate-stderr "$ST" "${SMALL[@]}" --inject-error --format csv -q
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "tool,label,record,metric,unit,value,n,min,median,mean,max,stddev,cv,note,validation" ]
    [ "$(grep -c '^stream,not-standard,.*,failed$' <<<"$output")" -eq $(( ${#lines[@]} - 1 )) ]
    run --separate-stderr "$ST" "${SMALL[@]}" --format csv -q
    [ "$status" -eq 0 ]
    [ "$(grep -c '^stream,standard,.*,passed$' <<<"$output")" -eq $(( ${#lines[@]} - 1 )) ]
    # mbw --verify is mbw's validation; without it there is none
    run --separate-stderr "$MBW" -q -n 1 -t0 --verify --format csv 2
    [ "$status" -eq 0 ]
    [[ ${lines[1]} == *",passed" ]]
    run --separate-stderr "$MBW" -q -n 1 -t0 --format csv 2
    [[ ${lines[1]} == *",none" ]]
}

# ---- numeric limits: -n that cannot validate (defect 16) ----------------

@test "-n past the type's overflow is refused up front (exit 2), not failed after the run" {
    local args
    for args in "--type float -n 33|float elements the values overflow after 32 rounds" \
                "--type float -n 1000|overflow after 32 rounds" \
                "-n 262|double elements the values overflow after 261 rounds" \
                "-n 1000000|overflow after 261 rounds"; do
        # shellcheck disable=SC2086
        MEMSUITE_LLC=1K run --separate-stderr "$ST" ${args%%|*} -s 100000 --format json -O r.json
        echo "${args%%|*}: status $status: $stderr"
        [ "$status" -eq 2 ]
        [[ $stderr == *"${args#*|}"* ]]
        [ ! -e r.json ]
    done
    MEMSUITE_LLC=1K run --separate-stderr "$ST" --type float -n 32 -s 100000 -q
    [ "$status" -eq 0 ]
    MEMSUITE_LLC=1K run --separate-stderr "$ST" --kernels copy -n 5000 -s 1000 --allow-small -q
    [ "$status" -eq 0 ]
}

# ---- CLI messages (defect 16) -------------------------------------------

@test "-s with 40+ fractional digits is 'not a whole number', not 'too large'" {
    run --separate-stderr "$ST" -s 1.0000000000000000000000000000000000000000001
    [ "$status" -eq 2 ]
    [[ $stderr == *"not a whole number of elements"* ]]
    [[ $stderr != *"too large"* ]]
    run --separate-stderr "$MC" run seqread --size 1.0000000000000000000000000000000000000000001M
    [ "$status" -eq 2 ]
    [[ $stderr == *"not a whole number"* ]]
}

@test "an unknown non-ASCII short option is named by its bytes, escaped" {
    run --separate-stderr "$ST" -é
    [ "$status" -eq 2 ]
    [[ $stderr == *"unknown option '-\\xc3\\xa9'"* ]]
    run --separate-stderr "$MC" run seqread -qé
    [ "$status" -eq 2 ]
    [[ $stderr == *"unknown option '-\\xc3\\xa9'"* ]]
}

@test "mencal run alloc --allocators '' suggests allocators, not block sizes" {
    local v
    for v in '' 'glibc,,jemalloc' ','; do
        run --separate-stderr "$MC" run alloc --allocators "$v"
        echo "--allocators '$v': status $status: $stderr"
        [ "$status" -eq 2 ]
        [[ $stderr == *"--allocators: invalid value '$v': "* ]]
        [[ $stderr != *"4K,16K"* ]]
    done
    [[ $stderr == *"an item is empty"*"such as glibc,"* ]]
    run --separate-stderr "$MC" run alloc --block-sizes 4K,,8K
    [ "$status" -eq 2 ]
    [[ $stderr == *"such as 4K,16K,1M"* ]]
}

@test "mencal run alloc --plot that cannot be written fails before the run (exit 3)" {
    stub_python 'echo "analyser stub: must not run" >&2; exit 99'
    local p
    for p in "$PWD/missing/x.png" "$PWD/file/x.png" "$PWD"; do
        : > file
        run --separate-stderr "$MC" run alloc --allocators glibc --block-sizes 4K --ops 400 -r1 \
            --plot "$p" --format json -O a.json
        echo "--plot $p: status $status: $stderr"
        [ "$status" -eq 3 ]
        [[ $stderr == *"--plot file '$p': "* ]]
        [[ $stderr != *"running"* && $stderr != *"analyser"* ]]
        [ ! -e a.json ]
    done
    run --separate-stderr "$MC" run alloc --allocators glibc --block-sizes 4K --ops 400 -r1 --plot ''
    [ "$status" -eq 2 ]
}

# ---- output: a full device (defect 16) ------------------------------------

@test "stdout on a full device: mbw and mencal say 'No space left on device', exit 3" {
    [ -w /dev/full ] || skip "no /dev/full"
    run --separate-stderr bash -c '"$0" --strict -q -n 1 -t0 2 > /dev/full' "$MBW"
    [ "$status" -eq 3 ]
    [[ $stderr == *"No space left on device"* ]]
    run --separate-stderr bash -c '"$0" --strict -q -n 1 -t0 --format json 2 > /dev/full' "$MBW"
    [ "$status" -eq 3 ]
    [[ $stderr == *"No space left on device"* ]]
    run --separate-stderr bash -c '"$0" -q -n 1 -t0 2 > /dev/full' "$MBW"
    [ "$status" -eq 1 ]          # compatible mode
    [[ $stderr == *"No space left on device"* ]]
    local f
    for f in text json csv; do
        run --separate-stderr bash -c '"$0" run seqread --size 1M --allow-cache --reps 1 -q --format "$1" > /dev/full' "$MC" "$f"
        echo "mencal --format $f: status $status: $stderr"
        [ "$status" -eq 3 ]
        [[ $stderr == *"No space left on device"* ]]
        [[ $stderr != *"Input/output error"* ]]
    done
}
