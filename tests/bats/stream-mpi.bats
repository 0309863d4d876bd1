#!/usr/bin/env bats
# bin/stream_mpi run for real under Open MPI's mpirun on this machine:
# stream_mpi 1.8 text format, the split of the aggregate array, per-rank
# validation (an error injected on one rank fails the run and names it),
# the JSON per-rank/per-host tables, StarSTREAM, and ranks that die or
# hang.  Arrays stay small (--llc 256KiB makes them standard-sized).

bats_require_minimum_version 1.5.0
load test_helper

SMALL=(--llc 256KiB -n 4)

local_setup() {
    command -v mpirun >/dev/null 2>&1 ||
        skip "mpirun not found: install openmpi-bin (and libopenmpi-dev to build stream_mpi)"
    [ -x "$BIN/stream_mpi" ] ||
        skip "bin/stream_mpi not built: install libopenmpi-dev, then make MPI=1"
    MPI_BIN="$BIN/stream_mpi"
    # Root in a container: allow it, keep shared memory simple, one thread
    # per rank (four ranks share two CPUs).
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    export OMP_NUM_THREADS=1
    HOST=$(hostname)
}

# mpi NP [mpirun options --] stream_mpi arguments
mpi() {
    local np=$1
    shift
    local -a mo=()
    if [ "$np" -gt 2 ]; then mo+=(--oversubscribe); fi
    timeout 60 mpirun -np "$np" "${mo[@]}" "$MPI_BIN" "$@"
}

# mpi_patterns RANKS TOTAL PER_RANK: stream_mpi 1.8's report, one ERE a line
load ../fixtures/stream-mpi-layout

@test "mpirun -np 2: stream_mpi 1.8's report, line for line, and exit 0" {
    mpi 2 "${SMALL[@]}" -s 600000 >out.txt 2>err.txt || { cat err.txt; false; }
    mpi_patterns 2 600000 300000 >pat.txt
    match_lines out.txt pat.txt
    # Each row is %11.1f, not stream's %12.1f.
    run grep -E '^Triad: {5}[ 0-9]{8}[0-9]\.[0-9]  ' out.txt
    assert_success
}

@test "SCALAR is stream_mpi 1.8's 0.42: the arrays and the validation follow it" {
    mpi 2 "${SMALL[@]}" -s 600000 --format json -O r.json -q
    validate_json r.json
    run jq -r '.config.scalar' r.json
    assert_output "0.42"
    # STREAM's replay (a=2 after the calibration pass, then -n rounds of
    # c=a; b=s*c; c=a+b; a=b+s*c) with s = 0.42 gives the expected values.
    want=$(awk 'BEGIN { s = 0.42; a = 2; for (k = 0; k < 4; k++) { c = a; b = s * c; c = a + b; a = b + s * c }
                        printf "%.6g %.6g %.6g", a, b, c }')
    run jq -r '.validation.arrays | "\(.a.expected) \(.b.expected) \(.c.expected)"' r.json
    got=$(awk '{ printf "%.6g %.6g %.6g", $1, $2, $3 }' <<<"$output")
    [ "$got" = "$want" ]
    run jq -r '.validation.passed' r.json
    assert_output "true"
}

@test "mpirun -np 4 --oversubscribe: an uneven split is explained and counted exactly" {
    mpi 4 "${SMALL[@]}" -s 1000001 >out.txt 2>err.txt || { cat err.txt; false; }
    grep -qx 'Total Aggregate Array size = 1000001 (elements)' out.txt
    grep -qx 'Data is distributed across 4 MPI ranks' out.txt
    grep -qx '   Array size per MPI rank = 250001 (elements)' out.txt
    # explained on stderr; stdout keeps stream_mpi 1.8's lines only
    ! grep -q 'do not divide' out.txt
    grep -q '^Solution Validates' out.txt
    grep -q 'note: 1000001 elements do not divide by 4 ranks: rank 0 holds 250001 elements, ranks 1-3 hold 250000' err.txt

    mpi 4 "${SMALL[@]}" -s 1000002 --format json -O r.json -q
    validate_json r.json
    run jq -r '[.config.mpi.per_rank[].elements] | map(tostring) | join(",")' r.json
    assert_output "250001,250001,250000,250000"
    # Bytes count every element of the aggregate: Copy moves 2 words.
    run jq -r '.records[] | select(.name == "Copy") | .metrics.bytes.value' r.json
    assert_output "$((2 * 8 * 1000002))"
    run jq -r '.config.mpi.split | "\(.even) \(.ranks_with_max)"' r.json
    assert_output "false 2"
}

@test "an error injected on rank 2 of 4 fails the run (exit 1) and names the rank and host" {
    run -1 --separate-stderr mpi 4 "${SMALL[@]}" -s 1000000 --inject-rank 2
    [[ "$output" == *"Failed Validation on array a[], AvgRelAbsErr > epsilon"* ]]
    [[ "$output" == *"Rank 2 on $HOST failed validation: array a[] 1 errors;"* ]]
    [[ "$output" != *"Solution Validates"* ]]
    [[ "$stderr" == *"validation failed on rank 2 (host $HOST)"* ]]
    [[ "$stderr" != *"validation failed on rank 1 "* ]]

    run -1 mpi 4 "${SMALL[@]}" -s 1000000 --inject-rank 3 --inject-error=c --format json -O r.json -q
    validate_json r.json
    run jq -c '[.validation.passed, .config.mpi.failed_ranks, .config.mpi.inject_rank,
                [.config.mpi.per_rank[] | .validated], .config.mpi.per_rank[3].errors.c]' r.json
    assert_output '[false,[3],3,[true,true,true,false],1]'
}

@test "JSON: schema-valid, aggregate records, a per-rank and per-host table" {
    mpi 2 "${SMALL[@]}" -s 600000 --format json -O r.json -q
    validate_json r.json
    run jq -r '.tool, .config.mpi.mode, .config.mpi.ranks, .config.array_size, (.config.mpi.per_host | length)' r.json
    assert_output "$(printf 'stream_mpi\naggregate\n2\n600000\n1')"
    run jq -r --arg h "$HOST" '.config.mpi.per_rank[] | select(.host == $h) | "\(.rank) \(.elements) \(.threads) \(.allowed_cpus > 0) \(.best_rate_mbps.triad > 0)"' r.json
    assert_output "$(printf '0 300000 1 true true\n1 300000 1 true true')"
    run jq -r --arg h "$HOST" '.config.mpi.per_host[0] | "\(.host == $h) \(.ranks) \(.elements) \(.validated)"' r.json
    assert_output "true 2 600000 true"
    # best rate = bytes / min time, and min <= avg <= max over the ranks.
    run jq -r '.records[] | .metrics as $m
        | (($m.bytes.value / $m.min_time_s.value * 1e-6) / $m.best_rate_mbps.value - 1 | fabs < 1e-9)
          and ($m.rank_min_rate_mbps.value <= $m.rank_avg_rate_mbps.value)
          and ($m.rank_avg_rate_mbps.value <= $m.rank_max_rate_mbps.value)' r.json
    assert_output "$(printf 'true\ntrue\ntrue\ntrue')"
}

@test "--star: every rank runs the full size; min/avg/max over the ranks" {
    mpi 2 "${SMALL[@]}" -s 300000 --star >out.txt 2>err.txt || { cat err.txt; false; }
    grep -qx 'StarSTREAM: each of the 2 MPI ranks runs its own full-size STREAM at the same time.' out.txt
    grep -qx 'Array size per MPI rank = 300000 (elements), Offset = 0 (elements)' out.txt
    grep -qx 'Function    Rank Min MB/s  Rank Avg MB/s  Rank Max MB/s  Aggregate MB/s' out.txt
    run grep -cE '^(Copy|Scale|Add|Triad): +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9]$' out.txt
    assert_output 4
    grep -q '^Solution Validates' out.txt

    mpi 2 "${SMALL[@]}" -s 300000 --star --format json -O r.json -q
    validate_json r.json
    run jq -r '.config.mpi.mode, ([.config.mpi.per_rank[].elements] | map(tostring) | join(",")), .config.mpi.array_size_total' r.json
    assert_output "$(printf 'star\n300000,300000\n600000')"
}

@test "a rank that dies ends the job, named, without hanging the others" {
    run timeout 60 mpirun -np 2 "$MPI_BIN" "${SMALL[@]}" -s 600000 --fault die:1
    [ "$status" -ne 0 ]
    [ "$status" -ne 124 ]     # finished by itself, not by the timeout
    [[ "$output" == *"rank 1"* ]]
    [[ "$output" == *"signal 9"* ]]
    [[ "$output" != *"Solution Validates"* ]]
}

@test "a rank that hangs is named after --timeout and the job is aborted" {
    run timeout 60 mpirun -np 2 "$MPI_BIN" "${SMALL[@]}" -s 600000 --fault hang:1 --timeout 2
    [ "$status" -ne 0 ]
    [ "$status" -ne 124 ]
    [[ "$output" == *"stream_mpi: error: rank 1 on $HOST did not reach the end of the initialisation within 2 s: it died or hangs"* ]]
}

@test "bad input: fewer elements than ranks, a rank that does not exist (exit 2, said once)" {
    run -2 --separate-stderr mpi 3 "${SMALL[@]}" -s 2 --allow-small
    run grep -c 'fewer elements than the 3 MPI ranks; every rank needs at least one: use --array-size 3 or more' <<<"$stderr"
    assert_output 1
    run -2 --separate-stderr mpi 2 --inject-rank 5
    [[ "$stderr" == *"--inject-rank 5: there are only 2 ranks (0..1)"* ]]
    run -2 --separate-stderr mpi 2 --fault boom:1
    [[ "$stderr" == *"--fault: invalid value 'boom:1': use die:RANK or hang:RANK"* ]]
}

@test "VM fixtures (sysconf 508 MiB; sysfs none or 32 MiB): -s 4000000 runs, warns, labels; --strict exits 2" {
    export MEMSUITE_SYSCONF_L3=508MiB
    use_fixture llc-vm-nocache
    mpi 2 -s 4000000 -n 5 --format json -O r.json >out.txt 2>err.txt || { cat err.txt; false; }
    grep -q "this host's share of each array (2 ranks here) (30.5 MiB) is under 4x the last-level cache (508.0 MiB L3 from sysconf)" err.txt
    run jq -r '"\(.label) \(.llc.source)"' r.json
    assert_output "not-standard sysconf"
    # text mode: stdout stays stream_mpi's report, the warning on stderr only
    mpi 2 -s 4000000 -n 5 >out.txt 2>err.txt
    run grep -c 'under 4x' out.txt
    assert_output 0
    grep -q '^Solution Validates' out.txt
    run -2 --separate-stderr mpi 2 -s 4000000 -n 5 --strict
    [ -z "$output" ]
    run grep -c 'use --array-size 266338304 or more' <<<"$stderr"
    assert_output 1
    use_fixture llc-vm-sysfs
    run -2 --separate-stderr mpi 2 -s 4000000 -n 5 --strict
    [[ "$stderr" == *"(32.0 MiB L3 from sysfs) = 128.0 MiB"* ]]
}

@test "--help lists stream's options and the MPI ones" {
    run -0 mpi 1 --help
    for o in --array-size --ntimes --kernels --format --star --inject-rank --timeout --fault; do
        [[ "$output" == *"$o"* ]] || { echo "missing $o"; false; }
    done
}

@test "make MPI=1 without mpicc is a clear error naming the packages" {
    run make -s -C "$ROOT" -n MPI=1 MPICC=/nonexistent/mpicc bin/stream_mpi
    [ "$status" -ne 0 ]
    [[ "$output" == *"MPI=1 but /nonexistent/mpicc is missing"* ]]
    [[ "$output" == *"openmpi-bin"* && "$output" == *"libopenmpi-dev"* ]]
}
