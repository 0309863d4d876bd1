# shellcheck shell=bash
# lock: one memsuite run (or profile change) at a time, via flock(1).
# MEMSUITE_LOCK sets the lock file; default /run/lock/memsuite.lock when
# writable, else $TMPDIR/memsuite-<uid>.lock.  The lock is released when
# the process exits (the fd closes); benchmarks do not inherit it.

ms_use sysfs

MS_LOCK_FD=""

ms_lock_path() {
    if [ -n "${MEMSUITE_LOCK:-}" ]; then
        printf '%s\n' "$MEMSUITE_LOCK"
    elif [ -d /run/lock ] && [ -w /run/lock ]; then
        printf '%s\n' /run/lock/memsuite.lock
    else
        printf '%s/memsuite-%s.lock\n' "${TMPDIR:-/tmp}" "$(id -u)"
    fi
}

ms_lock_take() {
    local path holder
    path=$(ms_lock_path)
    ms_require_cmd flock "install util-linux"
    # Never through a symlink or into a device (the rule of outfile.sh):
    # the default places are world-writable, and a link planted there
    # would have root truncate its target.
    if [ -L "$path" ] || { [ -e "$path" ] && [ ! -f "$path" ]; }; then
        ms_die "$MS_EX_ENV" "the lock file $path is a symbolic link or not a regular file; remove it, or set MEMSUITE_LOCK to another path"
    fi
    { exec {MS_LOCK_FD}<>"$path"; } 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot open the lock file $path; set MEMSUITE_LOCK to a writable path"
    if ! flock -n "$MS_LOCK_FD"; then
        holder=$(ms_read_line "$path" 2>/dev/null || true)
        ms_die "$MS_EX_ENV" "another memsuite run holds the lock $path${holder:+ (pid $holder)}; wait for it to finish"
    fi
    # our pid at the start, through the locked descriptor (never reopened)
    printf '%s\n' "$$" 1>&"$MS_LOCK_FD" 2>/dev/null || true
}

# The results directory has a lock of its own, DIR/.lock, held for the
# whole run or resume: MEMSUITE_LOCK guards the machine and can differ
# between users or hosts sharing DIR (NFS), so it cannot keep two runs
# from measuring the same cells into one directory.
MS_DIR_LOCK_FD=""

# ms_lock_dir DIR: takes DIR/.lock, or exits 3 naming DIR and the holder
# (the pid and host it wrote) when another run holds it.
ms_lock_dir() {
    local d="$1" path="$1/.lock" holder
    ms_require_cmd flock "install util-linux"
    if [ -L "$path" ] || { [ -e "$path" ] && [ ! -f "$path" ]; }; then
        ms_die "$MS_EX_ENV" "the lock file $path of results directory $d is a symbolic link or not a regular file; remove it"
    fi
    { exec {MS_DIR_LOCK_FD}<>"$path"; } 2>/dev/null ||
        ms_die "$MS_EX_ENV" "cannot open the lock file $path of results directory $d; is $d writable?"
    if ! flock -n "$MS_DIR_LOCK_FD"; then
        holder=$(ms_read_line "$path" 2>/dev/null || true)
        ms_die "$MS_EX_ENV" "results directory $d is in use by another memsuite run${holder:+ ($holder)}; wait for it to finish"
    fi
    # who holds it, through the locked descriptor (never reopened)
    printf 'pid %s on %s\n' "$$" "$(uname -n)" 1>&"$MS_DIR_LOCK_FD" 2>/dev/null || true
}

# ms_dir_lock_held_elsewhere DIR: DIR/.lock exists and another process
# holds it (a look before refusing a directory that is not empty).
ms_dir_lock_held_elsewhere() {
    local fd rc=1
    [ -f "$1/.lock" ] && [ ! -L "$1/.lock" ] || return 1
    { exec {fd}<"$1/.lock"; } 2>/dev/null || return 1
    flock -n -s "$fd" || rc=0
    exec {fd}<&-
    return "$rc"
}
