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

@test "stream_mpi --counters: a malformed list exits 2 before MPI starts work" {
    [ -x "$BIN/stream_mpi" ] || skip "bin/stream_mpi not built"
    command -v mpirun >/dev/null 2>&1 || skip "mpirun not found"
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    run --separate-stderr timeout 60 mpirun -np 1 "$BIN/stream_mpi" --llc 256KiB -n 2 --counters=NOPE,NOPE
    echo "status $status: $stderr"
    [ "$status" -eq 2 ]
    [[ $stderr == *"appears twice"* ]]
}

@test "stream --counters with an unknown event runs and records why it is unavailable" {
    run --separate-stderr "$ST" "${SMALL[@]}" --counters=NOPE --format json -O r.json -q
    [ "$status" -eq 0 ]
    jq -e '[.records[].counters.hardware.available] | all | not' r.json
}
