# shellcheck shell=bash disable=SC2153
# (LAB, LAB_ID, LAB_BR, LAB_HOSTS, LAB_LLC and ROOT are set by run-lab.sh)
# The cluster lab's hosts and daemons (sourced by tests/cluster/run-lab.sh).
#
# A host is a network namespace (its own address on the lab's bridge),
# a UTS namespace (its own host name), a PID namespace (it sees only its
# own processes, as a real node does) and a mount namespace in which its
# private /tmp and /run/lock are tmpfs and the kernel-wide pressure files
# are quiet copies (every lab host shares one kernel; a real node's
# pressure is its own).  "ctl" runs slurmctld and every client command
# (sinfo, srun, sbatch, scontrol); node1..nodeN run a slurmd each.  The
# lab's shared directory ($LAB, under /var/tmp) stands for the cluster's
# shared file system: memsuite installed there (make install PREFIX=),
# the references and the results directories.
#
# Nothing outside the lab is touched: its own munged (private socket and
# key), its own bridge without a host address (no route from the host),
# every daemon started and stopped by PID, the namespaces deleted at the
# end.  Addresses: 10.213.0.0/24, on the lab's own bridge only.

LAB_NET=10.213.0
LAB_PIDS=()             # host-side PIDs of daemons outside the hosts (munged)

lab_log() { printf 'check-cluster: %s\n' "$*" >&2; }
lab_die() { lab_log "$*"; exit 3; }

# lab_ns HOST: the network namespace name of HOST
lab_ns() { printf 'mslab%s-%s\n' "$LAB_ID" "$1"; }

# lab_addr HOST: ctl is .1, nodeK is .(10+K)
lab_addr() {
    case "$1" in
        ctl) printf '%s.1\n' "$LAB_NET" ;;
        node*) printf '%s.%d\n' "$LAB_NET" "$((10 + ${1#node}))" ;;
    esac
}

# lab_env: the environment of every lab command and daemon; PATH has the
# installed tools under their own names (PREFIX/lib/memsuite/bin, as
# module load memsuite gives them: stream_mpi for mpirun and srun)
lab_env() {
    printf '%s\n' "SLURM_CONF=$LAB/slurm.conf" \
        "PATH=$LAB/prefix/bin:$LAB/prefix/lib/memsuite/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
        "MEMSUITE_LLC=$LAB_LLC" "HOME=$LAB" "LANG=C" "OMP_NUM_THREADS=1" "OMPI_MCA_btl=tcp,self" \
        "OMPI_MCA_btl_tcp_if_include=$LAB_NET.0/24" "OMPI_MCA_oob_tcp_if_include=$LAB_NET.0/24" \
        "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
}

# on HOST CMD...: run CMD on HOST (in its namespaces: network, and for a
# running host its UTS, PID and mount namespaces through its init)
on() {
    local h="$1" pid
    local -a e
    shift
    mapfile -t e < <(lab_env)
    pid=$(cat "$LAB/hosts/$h.init" 2>/dev/null || true)
    if [ -n "$pid" ] && [ -d "/proc/$pid" ]; then
        nsenter -t "$pid" --net --uts --pid --mount -- env -i "${e[@]}" "$@"
    else
        nsenter --net="/run/netns/$(lab_ns "$h")" -- env -i "${e[@]}" "$@"
    fi
}
ctl() { on ctl "$@"; }

# lab_host_start HOST DAEMON...: a host whose PID 1 is `sh` running
# DAEMON (exec'd), with the host's mounts prepared first.  Records the
# host-side PID of that init in $LAB/hosts/HOST.init.
# LAB_HOST_EXTRA (shell text) runs before the daemon (a host's quirk).
lab_host_start() {
    local h="$1" pid="" n=0
    local -a e
    shift
    mapfile -t e < <(lab_env)
    # shellcheck disable=SC2016
    nsenter --net="/run/netns/$(lab_ns "$h")" -- env -i "${e[@]}" LAB_H="$h" LAB="$LAB" \
        unshare --uts --pid --fork --kill-child --mount --propagation private --mount-proc sh -c '
            hostname "$LAB_H"
            mount -t tmpfs -o size=256m lab-tmp /tmp
            mount -t tmpfs -o size=16m lab-lock /run/lock
            for r in cpu memory; do
                [ -e /proc/pressure/$r ] && mount --bind "$LAB/quiet-pressure" /proc/pressure/$r
            done
            '"${LAB_HOST_EXTRA:-}"'
            exec "$@"' lab-init "$@" \
        >"$LAB/hosts/$h.out" 2>&1 </dev/null &
    # the init: the child of unshare that is PID 1 in its namespace
    # (unshare may fork helpers first)
    local u=$! c
    while [ "$n" -lt 50 ] && [ -z "${pid:-}" ]; do
        for c in $(tr ' ' '\n' 2>/dev/null <"/proc/$u/task/$u/children"); do
            [ "$(awk '$1 == "NSpid:" { print $NF }' "/proc/$c/status" 2>/dev/null)" = 1 ] && pid="$c"
        done
        [ -n "${pid:-}" ] || sleep 0.1
        n=$((n + 1))
    done
    disown "$u" 2>/dev/null || true
    [ -n "$pid" ] || lab_die "host $h did not start: $(tail -n 3 "$LAB/hosts/$h.out")"
    echo "$pid" >"$LAB/hosts/$h.init"
    echo "$u" >"$LAB/hosts/$h.unshare"
}

# lab_descendant PID WORD: the first descendant of PID (breadth first)
# whose command line holds WORD as one argument
lab_descendant() {
    local -a queue=("$1")
    local p c
    while [ "${#queue[@]}" -gt 0 ]; do
        p="${queue[0]}"
        queue=("${queue[@]:1}")
        for c in $(cat /proc/"$p"/task/*/children 2>/dev/null | tr ' ' '\n'); do
            if tr '\0' '\n' 2>/dev/null </proc/"$c"/cmdline | grep -qxF "$2"; then echo "$c"; return 0; fi
            queue+=("$c")
        done
    done
    return 1
}

# lab_stop_pid PID [SECONDS]: TERM, wait up to SECONDS (default 10), KILL
lab_stop_pid() {
    local pid="$1" max="${2:-10}" n=0
    kill -0 "$pid" 2>/dev/null || return 0
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null && [ "$n" -lt $((max * 10)) ]; do sleep 0.1; n=$((n + 1)); done
    kill -KILL "$pid" 2>/dev/null || true
}

# lab_kill_host HOST: the host dies at once (its PID namespace's init is
# killed, which kills every process in it), then its network goes.
lab_kill_host() {
    local pid
    pid=$(cat "$LAB/hosts/$1.init")
    kill -KILL "$pid" 2>/dev/null || true
    ip netns del "$(lab_ns "$1")" 2>/dev/null || true
}

# lab_host_restart HOST [EXTRA]: HOST's slurmd stopped (its namespace
# emptied) and started again, with EXTRA shell text run before it; back
# to idle.
lab_host_restart() {
    local h="$1" pid
    pid=$(cat "$LAB/hosts/$h.init")
    lab_stop_pid "$pid" 3
    lab_stop_pid "$(cat "$LAB/hosts/$h.unshare")" 2
    LAB_HOST_EXTRA="${2:-}" lab_host_start "$h" slurmd -D -N "$h"
    ctl scontrol update nodename="$h" state=resume 2>/dev/null || true
    lab_wait_idle
}

lab_slow_host() {     # lab_slow_host HOST QUOTA_US PERIOD_US: HOST's init (and its future children) into a quota
    local h="$1" pid cg
    pid=$(cat "$LAB/hosts/$h.init")
    if [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu/cgroup.procs ]; then
        cg="/sys/fs/cgroup/cpu/mslab$LAB_ID-$h"
        mkdir -p "$cg"
        echo "$3" >"$cg/cpu.cfs_period_us"
        echo "$2" >"$cg/cpu.cfs_quota_us"
    elif [ -w /sys/fs/cgroup/cgroup.procs ]; then
        cg="/sys/fs/cgroup/mslab$LAB_ID-$h"
        mkdir -p "$cg"
        echo "$2 $3" >"$cg/cpu.max"
    else
        echo "no writable cgroup cpu controller"; return 1
    fi
    echo "$pid" >"$cg/cgroup.procs"
    LAB_CGROUP="$cg"
}
lab_fast_host() {     # lab_fast_host HOST: back to the root cgroup, the cgroup removed
    local pid root
    pid=$(cat "$LAB/hosts/$1.init")
    root=$(dirname "$LAB_CGROUP")
    echo "$pid" >"$root/cgroup.procs" 2>/dev/null || true
    rmdir "$LAB_CGROUP" 2>/dev/null || true
    LAB_CGROUP=""
}

lab_slurm_conf() {
    local i
    {
        printf '%s\n' "ClusterName=mslab" "SlurmctldHost=ctl($(lab_addr ctl))" \
            "SlurmUser=root" "SlurmdUser=root" "AuthType=auth/munge" "CredType=cred/munge" \
            "AuthInfo=socket=$LAB/munge/munge.socket" "MpiDefault=none" "MailProg=/bin/true" \
            "ProctrackType=proctrack/linuxproc" "TaskPlugin=task/none" "JobAcctGatherType=jobacct_gather/none" \
            "AccountingStorageType=accounting_storage/none" "SelectType=select/cons_tres" \
            "SelectTypeParameters=CR_Core" "SlurmdParameters=config_overrides" "ReturnToService=2" \
            "SlurmdTimeout=10" "MessageTimeout=5" "KillWait=2" "InactiveLimit=0" "MinJobAge=2" \
            "StateSaveLocation=$LAB/spool/ctld" "SlurmdSpoolDir=$LAB/spool/%n" \
            "SlurmctldPidFile=$LAB/slurmctld.pid" "SlurmdPidFile=$LAB/spool/slurmd.%n.pid" \
            "SlurmctldLogFile=$LAB/slurmctld.log" "SlurmdLogFile=$LAB/slurmd.%n.log" \
            "HealthCheckInterval=0"
        [ -z "${LAB_SLURM_EXTRA:-}" ] || printf '%s\n' "$LAB_SLURM_EXTRA"
        for ((i = 1; i <= LAB_HOSTS; i++)); do
            printf 'NodeName=node%d NodeAddr=%s CPUs=2 State=UNKNOWN\n' "$i" "$(lab_addr "node$i")"
        done
        printf 'PartitionName=lab Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4\n'
    } >"$LAB/slurm.conf"
}

# lab_wait_idle: until sinfo says idle for every node (30 s)
lab_wait_idle() {
    local n=0 states
    while [ "$n" -lt 300 ]; do
        states=$(ctl sinfo -h -N -o '%N %T' 2>/dev/null | sort -u)
        if [ -n "$states" ] && ! grep -qv ' idle$' <<<"$states" && [ "$(grep -c ' idle$' <<<"$states")" -ge "$LAB_HOSTS" ]; then
            return 0
        fi
        sleep 0.1
        n=$((n + 1))
    done
    lab_log "nodes not idle after 30 s: $(tr '\n' ' ' <<<"$states")"
    return 1
}

lab_up() {
    local i h
    mkdir -p "$LAB"/{hosts,munge,spool/ctld,results,prefix}
    printf '0\n' >"$LAB/one-cpu"          # a host of another kind (30-fingerprint.sh)
    printf 'some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n' >"$LAB/quiet-pressure"
    # memsuite as a user installs it
    make -s -C "$ROOT" install PREFIX="$LAB/prefix" >"$LAB/install.log" 2>&1 ||
        lab_die "make install PREFIX=$LAB/prefix failed: $(tail -n 3 "$LAB/install.log")"
    # the network: a bridge, one veth pair per host
    ip link add "$LAB_BR" type bridge || lab_die "cannot create the bridge $LAB_BR (needs root and iproute2)"
    ip link set "$LAB_BR" up
    for h in ctl $(seq -f 'node%g' 1 "$LAB_HOSTS"); do
        ip netns add "$(lab_ns "$h")"
        ip link add "v$LAB_ID${h#node}" type veth peer name eth0 netns "$(lab_ns "$h")"
        ip link set "v$LAB_ID${h#node}" master "$LAB_BR" up
        ip -n "$(lab_ns "$h")" addr add "$(lab_addr "$h")/24" dev eth0
        ip -n "$(lab_ns "$h")" link set eth0 up
        ip -n "$(lab_ns "$h")" link set lo up
        printf '%s %s\n' "$(lab_addr "$h")" "$h" >>"$LAB/hosts.txt"
    done
    # munge: our own key and socket
    dd if=/dev/urandom of="$LAB/munge/munge.key" bs=1024 count=1 status=none
    chmod 0400 "$LAB/munge/munge.key"
    munged --foreground --force --socket="$LAB/munge/munge.socket" --key-file="$LAB/munge/munge.key" \
        --pid-file="$LAB/munge/munged.pid" --log-file="$LAB/munge/munged.log" >/dev/null 2>&1 &
    LAB_PIDS+=("$!")
    disown "$!"
    for i in $(seq 50); do [ -S "$LAB/munge/munge.socket" ] && break; sleep 0.1; done
    munge -S "$LAB/munge/munge.socket" -n | unmunge -S "$LAB/munge/munge.socket" >/dev/null ||
        lab_die "munged does not answer (see $LAB/munge/munged.log)"
    lab_slurm_conf
    lab_host_start ctl slurmctld -D -i
    for ((i = 1; i <= LAB_HOSTS; i++)); do
        lab_host_start "node$i" slurmd -D -N "node$i"
    done
    lab_wait_idle || lab_die "the lab did not come up (logs in $LAB)"
}

# lab_leftovers: PIDs of processes still carrying the lab's environment
# (SLURM_CONF pointing into $LAB): what a teardown must not leave
lab_leftovers() {
    local e pid
    for e in /proc/[0-9]*/environ; do
        pid="${e#/proc/}"; pid="${pid%/environ}"
        [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] && continue
        tr '\0' '\n' 2>/dev/null <"$e" | grep -qxF "SLURM_CONF=$LAB/slurm.conf" && echo "$pid"
    done
    return 0
}

lab_down() {
    local i h
    # jobs first (nothing left in squeue), then the hosts (from their
    # .init files: a host restarted inside a check too): TERM to each
    # init (the daemon), KILL after 3 s (every process of its PID
    # namespace dies with it; unshare --kill-child as well), then munged
    if [ -e "$LAB/hosts/ctl.init" ]; then ctl scancel --full --quiet -u root 2>/dev/null || true; fi
    for h in $(seq -f 'node%g' "$LAB_HOSTS" -1 1) ctl; do
        [ -e "$LAB/hosts/$h.init" ] && lab_stop_pid "$(cat "$LAB/hosts/$h.init")" 3
        [ -e "$LAB/hosts/$h.unshare" ] && lab_stop_pid "$(cat "$LAB/hosts/$h.unshare")" 2
        ip netns del "$(lab_ns "$h")" 2>/dev/null || true
    done
    for ((i = ${#LAB_PIDS[@]} - 1; i >= 0; i--)); do lab_stop_pid "${LAB_PIDS[i]}" 3; done
    ip link del "$LAB_BR" 2>/dev/null || true
    [ -z "${LAB_CGROUP:-}" ] || rmdir "$LAB_CGROUP" 2>/dev/null || true
    rmdir /sys/fs/cgroup/cpu/mslab"$LAB_ID"-* /sys/fs/cgroup/mslab"$LAB_ID"-* 2>/dev/null || true
    # anything that escaped its host (a daemonised step): by PID
    for pid in $(lab_leftovers); do kill -KILL "$pid" 2>/dev/null || true; done
}

# lab_clean: 0 when nothing of the lab is left (processes, namespaces,
# the bridge, cgroups); else says what is
lab_clean() {
    local left
    left=$(lab_leftovers)
    [ -z "$left" ] || { echo "processes left: $(ps -o pid=,cmd= -p "$(paste -sd, <<<"$left")")"; return 1; }
    ! ip netns list | grep -q "^mslab$LAB_ID-" || { echo "namespaces left: $(ip netns list | grep "^mslab$LAB_ID-")"; return 1; }
    ! ip link show "$LAB_BR" >/dev/null 2>&1 || { echo "bridge $LAB_BR left"; return 1; }
    if compgen -G "/sys/fs/cgroup/cpu/mslab$LAB_ID-*" >/dev/null || compgen -G "/sys/fs/cgroup/mslab$LAB_ID-*" >/dev/null; then
        echo "cgroups left"; return 1
    fi
}
