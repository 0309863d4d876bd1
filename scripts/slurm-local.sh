#!/usr/bin/env bash
# Summary: bring up (and tear down) a real one-node Slurm on localhost, for tests.
# Usage: scripts/slurm-local.sh start DIR
#        scripts/slurm-local.sh stop DIR
#        scripts/slurm-local.sh status DIR
#
# start: munge (reused when one already answers), slurmctld and slurmd,
# everything under DIR (config, spool, state, logs, PID files); waits
# until the node is idle, then prints the environment to use it:
#   SLURM_CONF=DIR/slurm.conf
#   SLURM_LOCAL_NODE=<hostname -s>
# The configuration follows docs/slurm-local.md: proctrack/linuxproc,
# task/none (the cgroup plugins need mounts a container lacks), NodeName =
# hostname -s, CPUs from `slurmd -C`.  A failed start stops what it
# started.  More tasks than CPUs need `srun --overcommit`; wrap srun in
# `timeout`.
# stop: TERM slurmd, slurmctld and (only when start launched it) munged by
# their recorded PIDs, KILL whatever is still there after 10 s, then
# remove DIR.  Safe to call twice, or after a failed start.
#
# Exit: 0 ok; 1 a daemon did not come up (logs on stderr); 2 usage;
# 3 not possible here (not root, Slurm or munge not installed).
set -euo pipefail
[ "${MEMSUITE_DEBUG:-0}" = 1 ] && set -x

prog=slurm-local
say() { printf '%s: %s\n' "$prog" "$*" >&2; }
die() {
    local code=$1
    shift
    say "$*"
    exit "$code"
}

usage() {
    sed -n 's/^# Usage: //p; s/^#        /  /p' "$0" | head -n 3 >&2
    exit 2
}

# Runs a daemon in the background with no descriptor of ours but
# stdin/stdout/stderr (a test runner waits for its pipes to close).
spawn() {   # spawn LOG CMD... ; sets SPAWNED to its PID
    local log=$1
    shift
    (
        for fd in "/proc/$BASHPID/fd/"*; do
            fd=${fd##*/}
            [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
        done
        exec "$@"
    ) </dev/null >>"$log" 2>&1 &
    SPAWNED=$!
}

# pid_alive PIDFILE NAME: the PID in the file runs a process called NAME
pid_alive() {
    local pid comm
    [ -s "$1" ] || return 1
    pid=$(head -n 1 "$1")
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [ "$comm" = "$2" ]
}

# stop_all PIDFILE:NAME...: TERM them all at once (slurmctld and munged
# take about 2 s each to exit), wait up to 10 s, KILL what is left.
stop_all() {
    local spec file name i left
    for spec in "$@"; do
        file=${spec%%:*} name=${spec#*:}
        if pid_alive "$file" "$name"; then
            kill -TERM "$(head -n 1 "$file")" 2>/dev/null || true
        fi
    done
    for ((i = 0; i < 100; i++)); do
        left=0
        for spec in "$@"; do
            pid_alive "${spec%%:*}" "${spec#*:}" && left=1
        done
        [ "$left" = 0 ] && break
        sleep 0.1
    done
    for spec in "$@"; do
        file=${spec%%:*} name=${spec#*:}
        if pid_alive "$file" "$name"; then
            say "$name (pid $(head -n 1 "$file")) ignored TERM for 10 s; killing it"
            kill -KILL "$(head -n 1 "$file")" 2>/dev/null || true
        fi
        rm -f -- "$file"
    done
}

cmd_stop() {
    local dir=$1
    local -a what=("$dir/slurmd.ours:slurmd" "$dir/slurmctld.ours:slurmctld")
    [ -d "$dir" ] || return 0
    [ -f "$dir/slurm-local.state" ] || die 2 "$dir was not made by '$0 start'; not touching it"
    [ -f "$dir/munged.ours" ] && what+=("$dir/munged.ours:munged")
    stop_all "${what[@]}"
    rm -rf -- "$dir"
}

munge_works() { munge -n 2>/dev/null | unmunge >/dev/null 2>&1; }

start_munge() {
    local dir=$1 i pidfile=/run/munge/munged.pid
    if munge_works; then
        say "munge already answers; using it"
        return 0
    fi
    if [ ! -s /etc/munge/munge.key ]; then
        mungekey --create --keyfile=/etc/munge/munge.key >/dev/null 2>&1 ||
            die 1 "cannot create /etc/munge/munge.key (mungekey --create failed)"
    fi
    chown munge:munge /etc/munge/munge.key
    chmod 0400 /etc/munge/munge.key
    install -d -o munge -g munge -m 0755 /run/munge
    spawn "$dir/munged.log" runuser -u munge -- /usr/sbin/munged
    wait "$SPAWNED" || { tail -n 5 "$dir/munged.log" >&2; die 1 "munged did not start (log above)"; }
    for ((i = 0; i < 50; i++)); do
        munge_works && break
        sleep 0.1
    done
    munge_works || die 1 "munged started but munge -n | unmunge fails; see $dir/munged.log and /var/log/munge/munged.log"
    [ -s "$pidfile" ] && cp -- "$pidfile" "$dir/munged.ours"
}

write_conf() {
    local dir=$1 node=$2 cpus=$3
    cat >"$dir/slurm.conf" <<EOF
ClusterName=memsuite
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/spool/ctld
SlurmdSpoolDir=$dir/spool/d
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
}

START_DIR=""
start_failed() {
    local rc=$?
    if [ "$rc" -ne 0 ] && [ -n "$START_DIR" ]; then
        say "start failed; stopping what was started"
        cmd_stop "$START_DIR"
    fi
}

cmd_start() {
    local dir=$1 node cpus c state i
    [ "$(id -u)" -eq 0 ] || die 3 "needs root (slurmd and munged run as root/munge)"
    for c in slurmctld slurmd sinfo srun munged munge unmunge mungekey runuser; do
        command -v "$c" >/dev/null 2>&1 || [ -x "/usr/sbin/$c" ] ||
            die 3 "'$c' is not installed; apt-get install slurm-wlm munge (Debian/Ubuntu)"
    done
    export PATH="$PATH:/usr/sbin"
    mkdir -p -- "$dir"
    [ -z "$(ls -A -- "$dir")" ] || die 2 "$dir is not empty; give a new directory"
    dir=$(cd -- "$dir" && pwd)
    echo "started $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$dir/slurm-local.state"
    # From here on, a failure (or a signal) stops what was started.
    START_DIR=$dir
    trap start_failed EXIT
    trap 'exit 130' INT TERM HUP

    node=$(hostname -s)
    cpus=$(slurmd -C 2>/dev/null | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -n 1 || true)
    [[ "$cpus" =~ ^[0-9]+$ ]] || cpus=$(nproc)
    mkdir -p "$dir/spool/ctld" "$dir/spool/d"
    write_conf "$dir" "$node" "$cpus"
    export SLURM_CONF="$dir/slurm.conf"

    start_munge "$dir"
    spawn "$dir/slurmctld.out" slurmctld -D -f "$SLURM_CONF"
    echo "$SPAWNED" >"$dir/slurmctld.ours"
    spawn "$dir/slurmd.out" slurmd -D -f "$SLURM_CONF"
    echo "$SPAWNED" >"$dir/slurmd.ours"

    state=""
    for ((i = 0; i < 200; i++)); do
        state=$(timeout 5 sinfo -h -n "$node" -o %T 2>/dev/null | head -n 1 || true)
        [ "$state" = idle ] && break
        pid_alive "$dir/slurmctld.ours" slurmctld || break
        pid_alive "$dir/slurmd.ours" slurmd || break
        sleep 0.1
    done
    if [ "$state" != idle ]; then
        for c in slurmctld.out slurmctld.log slurmd.out slurmd.log; do
            [ -s "$dir/$c" ] && { say "--- $c"; tail -n 8 "$dir/$c" >&2; }
        done
        die 1 "node $node did not become idle within 20 s, or a daemon exited (state: ${state:-none})"
    fi
    trap - EXIT INT TERM HUP
    printf 'SLURM_CONF=%s\nSLURM_LOCAL_NODE=%s\nSLURM_LOCAL_CPUS=%s\n' "$SLURM_CONF" "$node" "$cpus"
}

cmd_status() {
    local dir=$1
    [ -f "$dir/slurm-local.state" ] || die 1 "no slurm-local in $dir"
    SLURM_CONF="$dir/slurm.conf" timeout 5 sinfo -h -o '%N %T %c'
}

[ $# -eq 2 ] || usage
case "$1" in
    start) cmd_start "$2" ;;
    stop) cmd_stop "$2" ;;
    status) cmd_status "$2" ;;
    *) usage ;;
esac
