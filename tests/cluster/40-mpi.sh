# shellcheck shell=bash
# Scenario: stream_mpi across the hosts: mpirun inside an allocation and srun --mpi=pmix
#
# One rank per host, 1,000,000 elements in all (--llc 256KiB keeps them
# standard-sized): the text is stream_mpi 1.8's layout line for line
# (tests/fixtures/stream-mpi-layout.bash, the same patterns as
# tests/bats/stream-mpi.bats), and the JSON's per-rank table names every
# host once, each with its own figures.
#
# Direct launch is --mpi=pmix: Debian's Open MPI is built with PMIx and
# without Slurm's PMI-2, so `srun --mpi=pmi2` stops every rank in
# MPI_Init ("OMPI was not built with SLURM's PMI support").  On a site
# whose Open MPI has PMI-2 the same check runs with LAB_SRUN_MPI=pmi2.

# shellcheck source=tests/fixtures/match-lines.bash
. "$ROOT/tests/fixtures/match-lines.bash"
# shellcheck source=tests/fixtures/stream-mpi-layout.bash
. "$ROOT/tests/fixtures/stream-mpi-layout.bash"

LAB_MPI_ARGS=(--llc 256KiB -n 4 -s 1000000)

# mpi_checks NAME: NAME.txt against the layout, NAME.json's ranks
mpi_checks() {
    mpi_patterns "$LAB_HOSTS" 1000000 250000 >"$LAB/$1.pat"
    match_lines "$LAB/$1.txt" "$LAB/$1.pat"
    jq -e --argjson n "$LAB_HOSTS" '.tool == "stream_mpi" and .config.mpi.ranks == $n and .validation.passed' "$LAB/$1.json"
    expect "one rank on each host, each with its own Triad rate" test \
        "$(jq -r '[.config.mpi.per_rank[] | select(.best_rate_mbps.triad > 0) | .host] | sort | join(",")' "$LAB/$1.json")" = \
        "$(seq -f 'node%g' 1 "$LAB_HOSTS" | paste -sd, -)"
    jq -e --argjson n "$LAB_HOSTS" '(.config.mpi.per_host | length) == $n' "$LAB/$1.json"
}

mpi_mpirun() {
    ctl timeout 120 salloc --quiet -N"$LAB_HOSTS" --ntasks-per-node=1 \
        mpirun --map-by ppr:1:node stream_mpi "${LAB_MPI_ARGS[@]}" >"$LAB/mpirun.txt"
    ctl timeout 120 salloc --quiet -N"$LAB_HOSTS" --ntasks-per-node=1 \
        mpirun --map-by ppr:1:node stream_mpi "${LAB_MPI_ARGS[@]}" --format json -O "$LAB/mpirun.json" -q
    mpi_checks mpirun
}
lab_check "salloc + mpirun: stream_mpi over $LAB_HOSTS hosts, 1.8's aggregate layout, per-rank figures of every host in JSON" mpi_mpirun

mpi_srun() {
    ctl timeout 120 srun --mpi="${LAB_SRUN_MPI:-pmix}" -N"$LAB_HOSTS" --ntasks-per-node=1 stream_mpi "${LAB_MPI_ARGS[@]}" >"$LAB/srun.txt"
    ctl timeout 120 srun --mpi="${LAB_SRUN_MPI:-pmix}" -N"$LAB_HOSTS" --ntasks-per-node=1 stream_mpi "${LAB_MPI_ARGS[@]}" --format json -O "$LAB/srun.json" -q
    mpi_checks srun
}
lab_check "srun --mpi=${LAB_SRUN_MPI:-pmix}: stream_mpi over $LAB_HOSTS hosts, the same layout and per-rank JSON" mpi_srun
