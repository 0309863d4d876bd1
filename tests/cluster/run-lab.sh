#!/usr/bin/env bash
# Summary: the cluster lab: a real Slurm + Open MPI cluster of namespace hosts, memsuite's node validation on it
# Usage: tests/cluster/run-lab.sh [SCENARIO...]
#
# Builds LAB_HOSTS (default 4) hosts on one machine (tests/cluster/lab.sh:
# network, UTS, PID and mount namespaces on a bridge), munge, one
# slurmctld and a slurmd per host, memsuite installed with `make install
# PREFIX=`, then runs the scenarios (tests/cluster/[0-9]*-*.sh, in order,
# or those named) and ends with "N passed, N failed".  Each scenario is
# a list of checks (lab_check), each of which fails when the behaviour it
# shows breaks.  Everything is stopped by PID and removed at the end,
# also on failure or interrupt.  Needs root, iproute2, util-linux,
# slurmctld/slurmd/slurm-client, munge and openmpi-bin (make deps).
# Exit: 0 all passed, 1 a check failed, 3 the lab could not be built.
set -euo pipefail

HERE=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd -- "$HERE/../.." && pwd)
LAB_HOSTS="${LAB_HOSTS:-4}"
LAB_ID=$(( $$ % 10000 ))
LAB_BR="msbr$LAB_ID"
LAB_LLC=16M             # MEMSUITE_LLC on every host: 64 MiB arrays satisfy the 4x rule
LAB="/var/tmp/mslab.$$"
# shellcheck source=tests/cluster/lab.sh
. "$HERE/lab.sh"

[ "$(id -u)" = 0 ] || lab_die "needs root (network namespaces, a bridge, Slurm daemons)"
for t in ip nsenter unshare munged munge unmunge slurmctld slurmd srun sbatch scontrol mpirun jq; do
    command -v "$t" >/dev/null 2>&1 || lab_die "$t not found; run 'make deps'"
done
[[ "$LAB_HOSTS" =~ ^[4-9]$ ]] || lab_die "LAB_HOSTS='$LAB_HOSTS': use 4 to 9"

LAB_PASS=0 LAB_FAIL=0 LAB_N=0
# lab_check DESCRIPTION CMD...: one check; its output is kept in
# $LAB/checks/N.log and shown when it fails
lab_check() {
    local d="$1" rc=0
    shift
    LAB_N=$((LAB_N + 1))
    mkdir -p "$LAB/checks"
    # not in a condition: errexit must hold inside the check
    set +e
    ( set -e; "$@" ) >"$LAB/checks/$LAB_N.log" 2>&1
    rc=$?
    set -e
    if [ "$rc" = 0 ]; then
        LAB_PASS=$((LAB_PASS + 1))
        printf 'ok %d %s\n' "$LAB_N" "$d"
    else
        LAB_FAIL=$((LAB_FAIL + 1))
        printf 'not ok %d %s\n' "$LAB_N" "$d"
        sed 's/^/#   /' "$LAB/checks/$LAB_N.log" | tail -n 25
    fi
}
# expect WHAT COND...: fail the check with WHAT unless COND succeeds
expect() {
    local what="$1"
    shift
    "$@" || { echo "expected: $what"; return 1; }
}

t0=$SECONDS
finish() {
    local rc=$?
    trap - EXIT INT TERM
    lab_down
    if [ "${LAB_KEEP:-0}" = 1 ]; then lab_log "kept $LAB"; else rm -rf -- "$LAB"; fi
    lab_log "$((SECONDS - t0)) s"
    exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

mapfile -t scenarios < <(
    if [ $# -gt 0 ]; then for s in "$@"; do ls "$HERE"/[0-9]*-"$s".sh; done
    else ls "$HERE"/[0-9]*-*.sh; fi)
lab_log "lab $LAB: $LAB_HOSTS hosts on bridge $LAB_BR ($LAB_NET.0/24)"
lab_up
lab_log "up in $((SECONDS - t0)) s"
for s in "${scenarios[@]}"; do
    printf '# %s\n' "$(sed -n 's/^# Scenario: //p' "$s")"
    # shellcheck source=/dev/null
    . "$s"
done
printf '# teardown\n'
lab_down
lab_check "teardown: every daemon stopped by PID, no process, namespace, bridge or cgroup of the lab left" lab_clean
printf '%d passed, %d failed\n' "$LAB_PASS" "$LAB_FAIL"
[ "$LAB_FAIL" = 0 ]
