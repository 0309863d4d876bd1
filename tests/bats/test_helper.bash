# Shared Bats setup: a temp sandbox per test, stubs first on PATH, the
# built binaries under $BIN, fixture trees under $FIXTURES.
#
#   load test_helper        (first line of every .bats file)
#   stub NAME 'body'        creates an executable stub in $STUBS
#   use_fixture NAME        points MEMSUITE_SYSFS/PROCFS at fixtures/NAME/{sys,proc}

ROOT="${MEMSUITE_ROOT:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}"
BIN="${MEMSUITE_BIN:-$ROOT/bin}"
FIXTURES="$ROOT/tests/fixtures"
SCHEMA="$ROOT/docs/result.schema.json"          # memsuite/result/2, what the tools write
SCHEMA_V1="$ROOT/docs/result-v1.schema.json"    # memsuite/result/1, older documents

# memsuite check's busy look waits MEMSUITE_BUSY_WINDOW seconds (default
# 1) before it measures; a check in these tests asserts what it decides,
# not how long it looks, so a quarter of a second is enough (a continuous
# CPU hog is seen in any window).  A test of the window sets its own.
export MEMSUITE_BUSY_WINDOW="${MEMSUITE_BUSY_WINDOW:-0.25}"

# bats-support, then bats-assert.  Bats sources this file again for every
# test, and each library's load.bash forks a dirname per file it sources
# (some 40 ms a test on the 2-vCPU VM): their src/*.bash, which load.bash
# lists in full, are sourced directly instead; load.bash where a packaging
# has no src/.
for lib in /usr/lib/bats/bats-support /usr/lib/bats/bats-assert; do
    if [ -d "$lib/src" ]; then
        # shellcheck source=/dev/null # the packaged library
        for src in "$lib"/src/*.bash; do source "$src"; done
    elif [ -f "$lib/load.bash" ]; then
        load "$lib/load.bash"
    fi
done
unset lib src

setup() {
    SANDBOX=$(mktemp -d "${BATS_TMPDIR:-/tmp}/memsuite.XXXXXX")
    STUBS="$SANDBOX/stubs"
    mkdir -p "$STUBS"
    export PATH="$STUBS:$BIN:$PATH"
    export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
    unset MEMSUITE_SYSFS MEMSUITE_PROCFS MEMSUITE_LLC
    # files run side by side (tests/run-tests.sh lanes): each test has its
    # own run lock and saved-knob state, never the machine's
    export MEMSUITE_LOCK="$SANDBOX/memsuite.lock" MEMSUITE_STATE_DIR="$SANDBOX/state"
    cd "$SANDBOX" || return 1
    if declare -F local_setup >/dev/null; then local_setup; fi
}

teardown() {
    if declare -F local_teardown >/dev/null; then local_teardown; fi
    cd / && rm -rf "$SANDBOX"
}

# fifo_reader FIFO FILE: a reader of FIFO that copies what is written to
# FILE, in the background (its pid in READER_PID; it ends when the writer
# closes).  It holds the FIFO open for reading when this returns, so a
# writer that refuses a FIFO nobody reads finds this one read.
fifo_reader() {
    rm -f "$1.ready"
    timeout 120 python3 -c '
import os, select, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)   # no writer needed
open(sys.argv[1] + ".ready", "w").close()
out = open(sys.argv[2], "wb")
p = select.poll()
p.register(fd, select.POLLIN)
while True:
    p.poll()                  # data, or the writer gone (never before one came)
    try:
        b = os.read(fd, 65536)
    except BlockingIOError:
        continue
    if not b:
        break
    out.write(b)
' "$1" "$2" &
    READER_PID=$!
    while [ ! -e "$1.ready" ]; do
        kill -0 "$READER_PID" 2>/dev/null || { echo "fifo_reader: the reader of $1 died" >&2; return 1; }
        sleep 0.05
    done
    rm -f "$1.ready"
}

stub() {    # stub NAME BODY
    printf '#!/usr/bin/env bash\n%s\n' "$2" > "$STUBS/$1"
    chmod +x "$STUBS/$1"
}

# need_numa_calls: skips a test when the built tools cannot make the NUMA
# system calls although the kernel has them (numactl, a host binary, can):
# qemu-user answers get_mempolicy, mbind and move_pages with ENOSYS, which
# the tools report as no NUMA support.  Anywhere else it returns at once
# (a tool built without libnuma says so in its own tests).
need_numa_calls() {
    local err
    err=$("$BIN/stream" -s 1MiB -n 2 -q --membind 0 2>&1 >/dev/null) && return 0
    case "$err" in
        *"not implemented here"* | *"reports no NUMA support"*)
            skip "the built tools' NUMA calls fail here though numactl's work (qemu-user answers them ENOSYS): ${err#*error: }" ;;
    esac
}

# need_plots: skips a test when the analyser cannot draw charts
# (memsuite-analyse plot needs python3-matplotlib).
# bin_arch: the architecture of the binaries under test, from $BIN/stream's
# ELF header (an aarch64 build runs its tests under qemu-aarch64 too):
# x86_64, aarch64, or unknown.
bin_arch() {
    case "$(LC_ALL=C readelf -h "$BIN/stream" 2>/dev/null | sed -n 's/^ *Machine: *//p')" in
        AArch64) echo aarch64 ;;
        *X86-64*) echo x86_64 ;;
        *) echo unknown ;;
    esac
}

# arch_names: what the tools name on that architecture, into
#   NT_ISAS            stream --nt-isa's streaming variants, best first (no portable)
#   NT_ISA_BASE        the one every CPU of the architecture has
#   NT_STORE_VARIANTS  mencal's non-temporal store variants (storekern.c)
#   NT_STORE_BASE      the one every CPU of the architecture runs
arch_names() {
    case "$(bin_arch)" in
        aarch64)
            NT_ISAS="sve neon" NT_ISA_BASE=neon
            NT_STORE_VARIANTS="neonnt svent" NT_STORE_BASE=neonnt ;;
        *)
            NT_ISAS="avx512 avx2 sse2" NT_ISA_BASE=sse2
            NT_STORE_VARIANTS="v16nt v32nt v64nt" NT_STORE_BASE=v16nt ;;
    esac
}

# bin_cpu_has FEATURE: whether the CPU the binaries run on has it, as they
# see it (AT_HWCAP or cpuid, not /proc/cpuinfo, which under qemu-user is
# the host's): stream --help names the variants this CPU has.  FEATURE is
# one of stream's --nt-isa names (sve, avx512, avx2, ...).
bin_cpu_has() {
    "$BIN/stream" --help | grep -- '--nt-isa' | grep -q -E "this CPU has ([a-z0-9]+, )*$1[, ]"
}

need_plots() { /usr/bin/python3 -c 'import matplotlib' 2>/dev/null || skip "python3-matplotlib not installed"; }

# stub_python BODY: the analyser's interpreter (MEMSUITE_PYTHON, read by
# mencal --plot and scripts/lib/analysis.sh) becomes a stub running BODY;
# "$@" are the analyser's arguments, /usr/bin/python3 the real one.
stub_python() { stub python3-stub "$1"; export MEMSUITE_PYTHON="$STUBS/python3-stub"; }

# wait_children PID N: until PID has N child processes (10 s at most).
wait_children() {
    local _
    for _ in $(seq 1 200); do
        [ "$(pgrep -P "$1" | wc -l)" -ge "$2" ] && return 0
        sleep 0.05
    done
    return 1
}

# wait_catching PID SIG...: until PID has a handler installed for each
# SIG (a name: TERM, INT; its bit in /proc/PID/status SigCgt), so a signal
# sent next reaches the tool's own handling, not the default action.  60 s
# at most; fails, naming the process, when it ends first.
wait_catching() {
    local pid=$1 sig mask=0 cgt _
    shift
    for sig in "$@"; do
        mask=$((mask | 1 << ($(kill -l "$sig") - 1)))
    done
    for _ in $(seq 1 1200); do
        cgt=$(awk '$1 == "SigCgt:" { print $2 }' "/proc/$pid/status" 2>/dev/null) || cgt=
        if [ -z "$cgt" ]; then
            echo "process $pid ended before catching $*"
            return 1
        fi
        (( (16#$cgt & mask) == mask )) && return 0
        sleep 0.05
    done
    echo "process $pid did not catch $* in 60 s"
    return 1
}

# wait_for_text FILE TEXT PID [SECONDS]: until FILE (PID's stderr) holds
# TEXT (60 s at most).  Fails, showing FILE, when PID exits first or time
# runs out, so a run that ended early says why instead of "no such process".
wait_for_text() {
    local file=$1 text=$2 pid=$3 limit=${4:-60} _
    for _ in $(seq 1 $((limit * 20))); do
        grep -qF -- "$text" "$file" 2>/dev/null && return 0
        if ! kill -0 "$pid" 2>/dev/null; then
            grep -qF -- "$text" "$file" 2>/dev/null && return 0
            echo "process $pid ended before printing '$text'; its stderr:"
            cat "$file"
            return 1
        fi
        sleep 0.05
    done
    echo "no '$text' from process $pid in ${limit} s; its stderr so far:"
    cat "$file"
    return 1
}

# kill_a_worker PID N: once PID runs its N workers, SIGKILL the first one
# (PID itself is killed when they never start).
kill_a_worker() {
    wait_children "$1" "$2" || { kill -9 "$1"; return 1; }
    sleep 0.3
    kill -9 "$(pgrep -P "$1" | head -n1)"
}

# concurrent_with_a_dead_worker FILE [ARGS...]: mencal's concurrent with
# 2 workers for 2 s, the first worker killed; the run must exit 1 and
# FILE must be a valid result.
concurrent_with_a_dead_worker() {
    local out=$1 pid rc=0
    shift
    mencal run concurrent --size 16M --allow-cache --procs 2 --duration 2 -q \
        --format json -O "$out" "$@" 3>&- &
    pid=$!
    kill_a_worker "$pid" 2
    wait "$pid" || rc=$?
    [ "$rc" -eq 1 ] || { echo "concurrent exited $rc, not 1"; return 1; }
    validate_json "$out"
}

use_fixture() {
    export MEMSUITE_SYSFS="$FIXTURES/$1/sys"
    export MEMSUITE_PROCFS="$FIXTURES/$1/proc"
}

# validate_json FILE: the document must be valid JSON, conform to the
# result schema (checked by the real jsonschema validator) and mean what
# it says (result_v2_problems).
validate_json() {
    jq -e . "$1" >/dev/null || { echo "not JSON: $1"; return 1; }
    /usr/bin/jsonschema -i "$1" "$SCHEMA" || return 1
    local p
    p=$(result_v2_problems "$1") || { echo "result_v2_problems failed on $1"; return 1; }
    [ -z "$p" ] || { printf '%s: %s\n' "$1" "$p"; return 1; }
}

# The units the tools write with their base unit and scale, written here
# apart from common/units.c so that a wrong row there fails a test.
RESULT_V2_UNITS='{"B/s": ["B/s", 1], "MB/s": ["B/s", 1e6], "MiB/s": ["B/s", 1048576],
                  "GB/s": ["B/s", 1e9], "s": ["s", 1], "ns": ["s", 1e-9], "bytes": ["B", 1],
                  "fraction": ["fraction", 1], "%": ["fraction", 0.01], "ratio": ["fraction", 1],
                  "1/s": ["Hz", 1], "": ["", 1], "faults/op": ["faults/op", 1]}'

# result_v2_problems FILE: what JSON Schema cannot say about a
# memsuite/result/2 document, one line per problem (none: it is sound):
# a record's headline must name one of its metrics; a metric's base_unit
# and scale must be its unit's (RESULT_V2_UNITS, for the units listed); a
# bandwidth is better higher, a time never higher.
result_v2_problems() {
    jq -r --argjson u "$RESULT_V2_UNITS" '
        .records[]? | .name as $r | (.metrics // {}) as $m | .headline as $h
        | (if $h != null and ($m | has($h) | not)
           then "\($r): headline \($h) is none of its metrics" else empty end),
          ($m | to_entries[] | .key as $k | .value
           | (if $u[.unit] != null and [.base_unit, .scale] != $u[.unit]
              then "\($r).\($k): unit \(.unit) has base_unit \(.base_unit) and scale \(.scale), not \($u[.unit])"
              else empty end),
             (if .base_unit == "B/s" and .better != "higher"
              then "\($r).\($k): a bandwidth (\(.unit)) with better \(.better), not higher" else empty end),
             (if .base_unit == "s" and .better == "higher"
              then "\($r).\($k): a time (\(.unit)) with better higher" else empty end))' "$1"
}

# metric_meaning FILE RECORD METRIC: "unit base_unit scale better" of a
# metric (better "-" when it has none), e.g. "MB/s B/s 1000000 higher".
metric_meaning() {
    jq -r --arg r "$2" --arg k "$3" 'first(.records[] | select(.name == $r)) | .metrics[$k]
        | "\(.unit) \(.base_unit) \(.scale) \(.better // "-")"' "$1"
}

# headline_of FILE RECORD: the record's headline ("-" when it has none).
headline_of() {
    jq -r --arg r "$2" 'first(.records[] | select(.name == $r)) | .headline // "-"' "$1"
}

# match_lines FILE PATTERNS (tests/fixtures/match-lines.bash, shared with
# tests/cluster)
# shellcheck source=tests/fixtures/match-lines.bash
. "$FIXTURES/match-lines.bash"

# private_dev BASH-SCRIPT [ARGS...]: runs the script with bash where a
# rename over /dev/stdout or /dev/stderr (the defect the output-file tests
# look for) can only hit a private /dev: as root, in a private mount
# namespace with a tmpfs /dev holding null, zero, full, urandom and the
# fd links.  The script fails (97) when /dev/stdout or /dev/stderr is no
# longer a link afterwards.  Unprivileged, /dev is not writable anyway and
# the script runs as it is; as root without namespaces the test skips.
private_dev() {
    # shellcheck disable=SC2016  # expanded by the inner shell
    local check='rc=$?; for l in /dev/stdout /dev/stderr; do [ -L "$l" ] || { echo "$l was replaced" >&2; exit 97; }; done; exit $rc'
    if [ "$(id -u)" != 0 ]; then
        bash -c "$1; $check" "${@:2}"
        return
    fi
    unshare -m --propagation private true 2>/dev/null ||
        skip "root without a private mount namespace: /dev/stdout is not risked"
    # shellcheck disable=SC2016  # the script is the inner shell's
    MS_PD_CHECK=$check unshare -m --propagation private bash -c '
        mount -t tmpfs -o mode=755 memsuite-test-dev /dev || exit 98
        for n in null:1:3 zero:1:5 full:1:7 urandom:1:9; do
            IFS=: read -r name major minor <<<"$n"
            mknod -m 666 "/dev/$name" c "$major" "$minor" || exit 98
        done
        ln -s /proc/self/fd /dev/fd
        for i in 0:stdin 1:stdout 2:stderr; do ln -s "/proc/self/fd/${i%%:*}" "/dev/${i#*:}"; done
        mkdir /dev/shm && mount -t tmpfs memsuite-test-shm /dev/shm || exit 98
        script=$1
        shift
        bash -c "$script; $MS_PD_CHECK" "$@"' _ "$@"
}
