# shellcheck shell=bash
# cleanup: one exit path for everything.
#
# ms_at_exit FUNC registers a function (by name, never user text) that runs
# when the script ends for any reason: normal exit, `exit N`, a set -e
# abort, or one of the terminating signals MS_SIGNALS (HUP INT TERM USR1
# USR2 PIPE ALRM): no temporary file or changed knob outlives a signal
# that can be caught.  Functions run last-registered first,
# with errexit off, so one failing restore does not skip the others.
# ms_run_child runs a benchmark in the background and waits for it, so a
# signal interrupts the wait at once; the handler then stops the child.

MS_CLEANUPS=()
MS_CHILD=""                 # pid of the running benchmark, if any
MS_SIGNAL=""                # INT/TERM/HUP/... once a signal arrived
MS_SIGNALS=(HUP INT TERM USR1 USR2 PIPE ALRM)

ms_at_exit() {              # once per name
    local f
    for f in "${MS_CLEANUPS[@]}"; do [ "$f" = "$1" ] && return 0; done
    MS_CLEANUPS+=("$1")
}
ms_at_exit_remove() {       # drop a registration (after a manual call)
    local i
    for i in "${!MS_CLEANUPS[@]}"; do
        [ "${MS_CLEANUPS[$i]}" = "$1" ] && unset 'MS_CLEANUPS[i]'
    done
    MS_CLEANUPS=("${MS_CLEANUPS[@]}")
}

MS_EXIT_RC=""               # for the cleanup functions: the status leaving
ms_run_cleanups() {
    local rc=$? i fn
    set +e
    MS_EXIT_RC=$rc
    trap '' "${MS_SIGNALS[@]}"
    ms_stop_child
    for ((i = ${#MS_CLEANUPS[@]} - 1; i >= 0; i--)); do
        fn="${MS_CLEANUPS[$i]}"
        "$fn"
    done
    MS_CLEANUPS=()
    # Only documented codes leave memsuite (docs/results-format.md, "Exit codes"): a helper
    # that failed under set -e (jq's 2, 4 or 5, a full disk) would
    # otherwise pass its own status on, which could read as a verdict.
    # A command's own documented code (check's 5, node busy) passes only
    # when that command chose it: MS_EXIT_INTENDED (jq also exits 5).
    case "$rc" in
        0|1|2|3|129|130|143|"${MS_EXIT_INTENDED:-0}") ;;
        *) if [ -n "$MS_SIGNAL" ] && [ "$rc" -eq $((128 + $(kill -l "$MS_SIGNAL"))) ]; then
               exit "$rc"      # stopped by a signal (docs/results-format.md: 128 + its number)
           fi
           ms_error "internal error: a command failed with status $rc (rerun with MEMSUITE_DEBUG=1 to see which); exit 3"
           rc=$MS_EX_ENV ;;
    esac
    exit "$rc"
}

ms_stop_child() {
    [ -n "$MS_CHILD" ] || return 0
    if kill -0 "$MS_CHILD" 2>/dev/null; then
        kill -TERM "$MS_CHILD" 2>/dev/null
        local n=0
        while kill -0 "$MS_CHILD" 2>/dev/null && [ "$n" -lt 50 ]; do
            sleep 0.1
            n=$((n + 1))
        done
        kill -KILL "$MS_CHILD" 2>/dev/null
    fi
    wait "$MS_CHILD" 2>/dev/null
    MS_CHILD=""
}

ms_on_signal() {            # exits 128 + the signal's number
    MS_SIGNAL="$1"
    local code=$((128 + $(kill -l "$1")))
    ms_note "interrupted by SIG$1; stopping and restoring" || true
    exit "$code"
}

trap ms_run_cleanups EXIT
for ms_sig in "${MS_SIGNALS[@]}"; do
    # shellcheck disable=SC2064  # the name is meant to be expanded now
    trap "ms_on_signal $ms_sig" "$ms_sig"
done
unset ms_sig

# Background processes (a benchmark, the throttle sampler, a cooldown
# sleep) follow one contract: they hold none of the caller's descriptors
# (stdin, stdout and stderr redirected; ms_drop_fds closes our lock and
# the saved copies of stdout and stderr, outfile.sh), so a caller reading
# memsuite's output to EOF sees it when memsuite ends however it ends; and
# a helper that loops ends when the shell that started it dies.  kill -0 cannot tell
# that (a SIGKILLed memsuite stays a zombie, still answering, until its
# own parent reaps it); the kernel reparents the helper the moment its
# parent dies, so the helper checks its parent pid instead.
#
# ms_drop_fds: in a child about to run (a subshell, before exec): close
# the descriptors of ours it must not inherit.
ms_drop_fds() {
    [ -n "${MS_LOCK_FD:-}" ] && exec {MS_LOCK_FD}>&-
    [ -n "${MS_DIR_LOCK_FD:-}" ] && exec {MS_DIR_LOCK_FD}>&-
    [ "${MS_OUT_STDOUT:-1}" -gt 2 ] && exec {MS_OUT_STDOUT}>&-
    [ "${MS_OUT_STDERR:-2}" -gt 2 ] && exec {MS_OUT_STDERR}>&-
    return 0
}

# ms_parent_is PID: this (sub)shell's parent process is still PID.
ms_parent_is() {
    local st
    read -r st 2>/dev/null <"/proc/$BASHPID/stat" || { kill -0 "$1" 2>/dev/null; return; }
    st=${st##*) }                  # after "pid (comm) ": state ppid ...
    st=${st#* }
    [ "${st%% *}" = "$1" ]
}

# ms_run_child LOG CMD...: run CMD with stdout and stderr to LOG, stdin
# from /dev/null, without our descriptors (ms_drop_fds).  Returns CMD's
# status.
ms_run_child() {
    local log="$1" rc=0
    shift
    ( ms_drop_fds; exec "$@" ) >"$log" 2>&1 </dev/null &
    MS_CHILD=$!
    wait "$MS_CHILD" || rc=$?
    MS_CHILD=""
    return "$rc"
}
