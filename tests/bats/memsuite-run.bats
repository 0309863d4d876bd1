#!/usr/bin/env bats
# memsuite run: the matrix, the results directory, resume, enforcement
# with restore on every exit path, the lock, and bad input.  Benchmarks
# are the fakes in tests/fixtures/memsuite-bin; sysfs/procfs are private
# copies of tests/fixtures/memsuite-host (2 physical cores, LLC 32 MiB).

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

# start_bg ARGS...: memsuite run in the background with job control, so
# it receives SIGINT like a foreground job would; sets BG_PID.
start_bg() {
    set -m
    # default signal actions: bash cannot trap a signal ignored at its
    # start (a suite run under nohup, or as a background job)
    env --default-signal=HUP,INT,QUIT,TERM "$MS" run "$@" >"$SANDBOX/bg.out" 2>&1 &
    BG_PID=$!
    set +m
}

@test "--dry-run prints the plan and exact commands, runs and writes nothing" {
    run "$MS" run --dry-run --out out
    assert_success
    assert_line "sizes per array: 32.0MiB(1x LLC) 128.0MiB(4x LLC) 256.0MiB(8x LLC)"
    assert_line "threads: 1,2"
    assert_line --regexp "^memsuite run plan: 6 cell\(s\); bind spread; cooldown 5 s$"
    assert_line "[1/6] stream-s33554432-t1: env OMP_NUM_THREADS=1 OMP_PLACES=cores OMP_PROC_BIND=spread $MEMSUITE_BIN/stream --format json --output out/cells/stream-s33554432-t1.json --array-size 4194304 --ntimes 21"
    # at or above 4x LLC the benchmark refuses a cache-sized run itself
    # (--strict); the 1x row is in cache on purpose and runs labelled
    assert_line --regexp '^\[3/6\] stream-s134217728-t1: env OMP_NUM_THREADS=1 .* --array-size 16777216 --ntimes 21 --strict$'
    assert_line --regexp '^\[6/6\] stream-s268435456-t2: env OMP_NUM_THREADS=2 .* --array-size 33554432 --ntimes 21 --strict$'
    # each command with the tool's own verdict (stream --plan, the real tool)
    run grep -A1 -F '[1/6] stream-s33554432-t1:' <<<"$output"
    assert_line '    stream plan: runs, label not-standard (size rule: under)'
    run "$MS" run --dry-run --out out
    run grep -A1 -F '[6/6] stream-s268435456-t2:' <<<"$output"
    assert_line '    stream plan: runs, label standard'
    [ ! -e out ]
    [ "$(bench_calls)" = 0 ]
}

@test "a run writes one JSON per cell, env.json, commands.txt and summary.csv" {
    run "$MS" run --sizes 4x,64M --threads 1,2 --reps 3 --cooldown 0 --out res
    assert_success
    assert_output --partial "[1/4] stream 64.0 MiB x 1 thread(s); elapsed 0:00, ETA unknown"
    assert_output --regexp '\[4/4\] stream 128\.0 MiB x 2 thread\(s\); elapsed [0-9:]+, ETA [0-9:]+'
    run jq -r '"\(.schema) \(.complete) \(.status) \(.cells_total) \(.cells_done)"' res/run.json
    assert_output "memsuite/run/1 true complete 4 4"
    run ls res/cells
    assert_output $'stream-s134217728-t1.json\nstream-s134217728-t2.json\nstream-s67108864-t1.json\nstream-s67108864-t2.json'
    run jq -r .schema res/env.json
    assert_output "memsuite/env/1"
    # commands.txt holds exactly what ran: each line, run again, gives the same call
    run grep -c '^env OMP_NUM_THREADS=' res/commands.txt
    assert_output 4
    grep '^env ' res/commands.txt >cmds
    : >"$FAKE_LOG.2"
    while IFS= read -r line; do
        FAKE_LOG="$FAKE_LOG.2" bash -c "$line" >/dev/null
    done <cmds
    run diff "$FAKE_LOG" "$FAKE_LOG.2"
    assert_success
    run grep -c 'OMP_NUM_THREADS=2 OMP_PROC_BIND=spread GLIBC_TUNABLES= --format json --output res/cells/stream-s67108864-t2.json --array-size 8388608 --ntimes 4$' "$FAKE_LOG"
    assert_output 1
    # summary.csv: header + 4 cells x 4 kernels x 3 metrics
    run wc -l <res/summary.csv
    assert_output 49
    run grep -c ',Triad,best_rate_mbps,MB/s,' res/summary.csv
    assert_output 4
}

@test "--bind close/none and node:N (numactl) reach the benchmark" {
    run "$MS" run --sizes 1M --threads 2 --cooldown 0 --bind close --out a
    assert_success
    run grep -c 'OMP_PROC_BIND=close' "$FAKE_LOG"
    assert_output 1
    run "$MS" run --sizes 1M --threads 2 --cooldown 0 --bind none --out b
    assert_success
    run grep -c 'OMP_NUM_THREADS=2 OMP_PROC_BIND= ' "$FAKE_LOG"
    assert_output 1
    run "$MS" run --sizes 1M --threads 1 --cooldown 0 --bind node:1 --out c
    assert_success
    run grep '^numactl' "$FAKE_LOG"
    assert_output "numactl --cpunodebind=1 --membind=1 $MEMSUITE_BIN/stream --format json --output c/cells/stream-s1048576-t1.json --array-size 131072 --ntimes 21"
}

@test "mbw runs once per size and thread count (its --threads); mencal takes a scenario" {
    run "$MS" run --bench mbw,mencal:randread --sizes 3M --threads 1,2 --reps 2 --cooldown 0 --out r
    assert_success
    run grep -c '^mbw -q -n 2 --threads \([12]\) --format json --output r/cells/mbw-s3145728-t\1.json 3$' "$FAKE_LOG"
    assert_output 2
    run grep -c '^mencal run randread --size 3145728 --threads \([12]\) --reps 2 --format json --output r/cells/mencal-randread-s3145728-t\1.json$' "$FAKE_LOG"
    assert_output 2
    run grep -c ',MEMCPY,avg_rate_mibps,MiB/s,8000,' r/summary.csv
    assert_output 2
}

@test "real mbw: --bench mbw --threads 1,2 gives two cells whose JSON shows 1 and 2 threads" {
    [ -x "$BIN/mbw" ] || skip "$BIN/mbw is not built (make builds it before the tests)"
    unset MEMSUITE_SYSFS MEMSUITE_PROCFS
    MEMSUITE_BIN="$BIN" MEMSUITE_LLC=1M run "$MS" run --bench mbw --sizes 4M --threads 1,2 --reps 2 --cooldown 0 --out m
    assert_success
    run jq -r '"\(.tool) \(.threads.requested) \(.threads.counted) \(.config.threads)"' m/cells/mbw-s4194304-t1.json m/cells/mbw-s4194304-t2.json
    assert_output "$(printf 'mbw 1 1 1\nmbw 2 2 2')"
    validate_json m/cells/mbw-s4194304-t2.json
}

@test "--dry-run: a cell its tool refuses for memory is left out with the tool's own message" {
    # MemAvailable 59.1 GiB (90%: 53.2 GiB): stream's 3 x 20 GiB and mbw's
    # 2 x 40 GiB do not fit, mencal's 40 GiB working set does; each tool
    # decides through its --plan (the real tools), the fakes never run
    run --separate-stderr "$MS" run --dry-run --bench stream,mbw,mencal:seqread --sizes 20G,40G --threads 1 --out o
    assert_success
    [[ "$stderr" == *"skipping stream at 20.0 GiB per array: arrays do not fit in memory (nothing was allocated): needs 60.0 GiB"* ]]
    [[ "$stderr" == *"skipping mbw at 40.0 GiB per array: array size 40960 MiB: the 2 arrays need 80.0 GiB but MemAvailable is 59.1 GiB"* ]]
    [[ "$stderr" != *"skipping mencal"* ]]
    assert_line --regexp '^memsuite run plan: 3 cell\(s\);'
    assert_line --regexp '^\[1/3\] mbw-s21474836480-t1: '
    assert_line --regexp '^\[3/3\] mencal-seqread-s42949672960-t1: '
    [ "$(bench_calls)" = 0 ]
    [ ! -e "$FAKE_LOG" ] || ! grep -q . "$FAKE_LOG"
    # nothing fits: the run is refused before anything is written
    run --separate-stderr "$MS" run --dry-run --bench stream --sizes 30G --threads 1 --out o
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"no cell fits in the available memory"* ]]
}

@test "mencal:sweep is the mountain, mencal:randread-sweep the latency curve: one cell each" {
    run "$MS" run --dry-run --bench mencal:sweep,mencal:randread-sweep --sizes 128M,256M --threads 1,2 --reps 2 --out d
    assert_success
    assert_line --regexp "^memsuite run plan: 2 cell\(s\);"
    assert_line --regexp '^\[1/2\] mencal-sweep-s268435456-t2: env OMP_NUM_THREADS=2 .*/mencal run sweep --size 268435456 --threads 2 --reps 2 --format json --output d/cells/mencal-sweep-s268435456-t2\.json --strict$'
    assert_line --regexp '^\[2/2\] mencal-randread-sweep-s268435456-t1: env OMP_NUM_THREADS=1 .*/mencal run randread --sweep --size 268435456 --threads 1 --reps 2 --format json --output d/cells/mencal-randread-sweep-s268435456-t1\.json --strict$'
}

@test "cells at or above 4x LLC run every tool with --strict; a cell in cache on purpose without" {
    run "$MS" run --bench mbw,mencal:seqread --sizes 1x,4x --threads 1 --reps 2 --cooldown 0 --out s
    assert_success
    run grep -c '^mbw --strict -q -n 2 --threads 1 --format json --output s/cells/mbw-s134217728-t1.json 128$' "$FAKE_LOG"
    assert_output 1
    run grep -c '^mbw -q -n 2 --threads 1 --format json --output s/cells/mbw-s33554432-t1.json 32$' "$FAKE_LOG"
    assert_output 1
    run grep -c '^mencal run seqread --size 134217728 .* --strict$' "$FAKE_LOG"
    assert_output 1
    run grep -c '^mencal run seqread --size 33554432 .*json$' "$FAKE_LOG"
    assert_output 1
}

@test "--quick: small sizes, one repetition, no cooldown" {
    run "$MS" run --quick --out q
    assert_success
    run grep -c -E -- '--ntimes 2( |$)' "$FAKE_LOG"
    assert_output 4
    run jq -r '.config | "\(.sizes_bytes | join(",")) \(.reps) \(.cooldown_s)"' q/run.json
    assert_output "33554432,134217728 1 0"
}

@test "malformed lists and options: exit 2 with a clear message, nothing created" {
    run "$MS" run --sizes 12Q --out x
    assert_failure 2
    assert_output "memsuite: run: --sizes: in size list '12Q': invalid size '12Q': trailing garbage 'Q'; use e.g. 512MiB, 2G, 64KB, 1e9 (K M G T = x1024, KB MB GB TB = x1000)"
    run "$MS" run --sizes 1M,,2M --out x
    assert_failure 2
    assert_output --partial "invalid size list '1M,,2M'"
    run "$MS" run --sizes 0.5 --out x
    assert_failure 2
    assert_output --partial "not a whole number of bytes"
    run "$MS" run --threads 0,2 --out x
    assert_failure 2
    assert_output --partial "invalid thread count '0' in '0,2'"
    run "$MS" run --threads 1,two --out x
    assert_failure 2
    run "$MS" run --bench stream,nbody --out x
    assert_failure 2
    assert_output "memsuite: run: --bench: unknown benchmark 'nbody'; choose from: stream,mbw,mencal"
    run "$MS" run --bench mencal:teleport --out x
    assert_failure 2
    assert_output "memsuite: run: --bench: mencal has no scenario 'teleport' (it has: seqread,randread,mixed,concurrent,stability,sweep, and memsuite's randread-sweep)"
    run "$MS" run --bind node:7 --out x
    assert_failure 2
    assert_output "memsuite: run: --bind: NUMA node 7 does not exist (nodes with CPUs: 0,1)"
    run "$MS" run --bind sideways --out x
    assert_failure 2
    run "$MS" run --reps -1 --out x
    assert_failure 2
    run "$MS" run --cooldown soon --out x
    assert_failure 2
    run "$MS" run --thp always --out x
    assert_failure 2
    assert_output "memsuite: run: --thp needs --enforce"
    run "$MS" run --sizes
    assert_failure 2
    assert_output "memsuite: run: option --sizes needs a value; see 'memsuite help run'"
    run "$MS" run --frobnicate
    assert_failure 2
    [ ! -e x ]
    [ "$(bench_calls)" = 0 ]
}

@test "unwritable or non-empty results directory; missing benchmark" {
    touch afile
    run "$MS" run --sizes 1M --cooldown 0 --out afile/res
    assert_failure 3
    assert_output "memsuite: run: cannot create results directory afile/res; choose a writable --out"
    mkdir full && touch full/x
    run "$MS" run --sizes 1M --cooldown 0 --out full
    assert_failure 2
    assert_output --partial "results directory full is not empty"
    rm "$MEMSUITE_BIN/stream"
    run "$MS" run --sizes 1M --cooldown 0 --out r
    assert_failure 3
    assert_output --partial "benchmark 'stream' not found in MEMSUITE_BIN=$MEMSUITE_BIN; build it with 'make'"
    [ ! -e r ]
}

@test "a failed cell: exit 1, marked incomplete; --resume reruns only what is missing" {
    FAKE_HOOK='case "$OMP_NUM_THREADS" in 2) exit 1 ;; esac' \
        run "$MS" run --sizes 1M,2M --threads 1,2 --cooldown 0 --out r
    assert_failure 1
    assert_output --partial "cell stream-s1048576-t2 failed: exit 1; see r/logs/stream-s1048576-t2.log"
    run jq -r '"\(.complete) \(.status) \(.failed | join(","))"' r/run.json
    assert_output "false failed cells stream-s1048576-t2,stream-s2097152-t2"
    [ "$(bench_calls)" = 4 ]
    run "$MS" run --resume r --cooldown 0
    assert_success
    assert_output --partial "2 of 4 cell(s) already done"
    [ "$(bench_calls)" = 6 ]
    run jq -r '"\(.complete) \(.failed | length) \(.resumed)"' r/run.json
    assert_output "true 0 1"
    run "$MS" run --resume r
    assert_success
    assert_output --partial "already complete"
}

@test "SIGTERM mid-run: incomplete with the reason; --resume finishes it" {
    FAKE_SLEEP=30 start_bg --sizes 1M --threads 1,2 --cooldown 0 --out r
    wait_for "$FAKE_STARTED"
    kill -TERM "$BG_PID"
    local st=0
    wait "$BG_PID" || st=$?
    [ "$st" = 143 ]
    run cat "$SANDBOX/bg.out"
    assert_output --partial "interrupted by SIGTERM"
    assert_output --partial "finish it with: memsuite run --resume r"
    run jq -r '"\(.complete) \(.status)"' r/run.json
    assert_output "false interrupted by SIGTERM"
    run ls -A r/cells
    assert_output ""
    run "$MS" run --resume r
    assert_success
    run jq -r .complete r/run.json
    assert_output true
}

@test "SIGKILL mid-cell: a caller reading to EOF sees it at once, and no sampler outlives memsuite" {
    # The caller is Python, as a user's script would be: it reads both
    # pipes to EOF and reaps memsuite only then, so the killed memsuite
    # stays a zombie (kill -0 still answers for it) all along.
    cat >caller.py <<'EOF2'
import os, select, signal, subprocess, sys, time
started, cmd = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
while not os.path.exists(started):          # the cell's benchmark runs
    if p.poll() is not None:
        sys.exit("memsuite ended before its cell started")
    time.sleep(0.02)
kids = subprocess.run(["pgrep", "-P", str(p.pid)], capture_output=True, text=True).stdout.split()
def alive(pid):                             # running, not a zombie
    try:
        return open("/proc/%s/stat" % pid).read().rsplit(") ", 1)[1][0] != "Z"
    except OSError:
        return False
bench = [k for k in kids if open("/proc/%s/comm" % k).read().strip() == "sleep"]
helpers = [k for k in kids if k not in bench]
os.kill(p.pid, signal.SIGKILL)
deadline, open_fds = time.time() + 20, [p.stdout, p.stderr]   # a hang guard
while open_fds and time.time() < deadline:
    for f in select.select(open_fds, [], [], 0.5)[0]:
        if not os.read(f.fileno(), 65536):
            open_fds.remove(f)
for k in bench:
    os.kill(int(k), signal.SIGTERM)         # SIGKILL left it running
if open_fds:
    pipe, holders = os.readlink("/proc/self/fd/%d" % p.stdout.fileno()), []
    for q in filter(str.isdigit, os.listdir("/proc")):
        try:
            if q != str(os.getpid()) and any(os.readlink("/proc/%s/fd/%s" % (q, f)) == pipe for f in os.listdir("/proc/%s/fd" % q)):
                holders.append(open("/proc/%s/cmdline" % q).read().replace("\0", " "))
        except OSError:
            pass
    sys.exit("no EOF 20 s after SIGKILL; held by %s" % holders)
while any(map(alive, helpers)) and time.time() < deadline:   # memsuite unreaped still
    time.sleep(0.05)
left = [k for k in helpers if alive(k)]
for k in left:
    os.kill(int(k), signal.SIGTERM)
print("EOF; helpers of the killed memsuite still running: %d; status %d" % (len(left), p.wait()))
sys.exit(0 if helpers else "no sampler was running beside the cell")
EOF2
    export MEMSUITE_THROTTLE_INTERVAL=0.1
    FAKE_SLEEP=60 run /usr/bin/python3 caller.py "$FAKE_STARTED" "$MS" run --sizes 1M --threads 1,2 --reps 2 --cooldown 0 --out O
    assert_success
    assert_output "EOF; helpers of the killed memsuite still running: 0; status -9"
}

@test "a results directory from another version is refused" {
    run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    jq '.schema = "memsuite/run/0" | .complete = false' r/run.json >tmp && mv tmp r/run.json
    run "$MS" run --resume r
    assert_failure 2
    assert_output "memsuite: run: r was written by another memsuite version (schema 'memsuite/run/0', this one reads 'memsuite/run/1'); use that version or rerun"
    run "$MS" run --resume nowhere
    assert_failure 2
    assert_output "memsuite: run: no such results directory: nowhere"
}

@test "the lock keeps a second run out" {
    exec {lockfd}>"$MEMSUITE_LOCK"
    flock "$lockfd"
    run "$MS" run --sizes 1M --cooldown 0 --out r
    exec {lockfd}>&-
    assert_failure 3
    assert_output --partial "another memsuite run holds the lock $MEMSUITE_LOCK"
    [ "$(bench_calls)" = 0 ]
}

@test "the results directory is locked for the run: a second run or resume into it under another MEMSUITE_LOCK gets exit 3" {
    FAKE_SLEEP=30 start_bg --sizes 1M --threads 1 --cooldown 0 --out d
    wait_for "$FAKE_STARTED" 600
    rm -f "$FAKE_STARTED"
    MEMSUITE_LOCK="$SANDBOX/other.lock" run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out d
    assert_failure 3
    assert_output "memsuite: run: results directory d is in use by another memsuite run (pid $BG_PID on $(uname -n)); wait for it to finish"
    MEMSUITE_LOCK="$SANDBOX/other.lock" run "$MS" run --resume d
    assert_failure 3
    assert_output --partial "results directory d is in use by another memsuite run (pid $BG_PID"
    [ ! -e "$FAKE_STARTED" ]       # neither measured a cell
    kill -TERM "$BG_PID"
    wait "$BG_PID" || true
    # the lock went with its holder: the resume runs, once
    MEMSUITE_LOCK="$SANDBOX/other.lock" run "$MS" run --resume d
    assert_success
    run jq -r .complete d/run.json
    assert_output true
}

# --- enforcement ---

@test "--enforce without root: exit 3, nothing changed" {
    tree_state >before
    MEMSUITE_ASSUME_ROOT=0 run "$MS" run --enforce --sizes 1M --cooldown 0 --out r
    assert_failure 3
    assert_output "memsuite: run: --enforce needs root (it writes to sysfs); run as root or drop --enforce"
    tree_state >after
    diff before after
    [ ! -e r ]
}

@test "--enforce: performance governor, SMT off and THP during the run; restored after" {
    tree_state >before
    export FAKE_HOOK="cat $MEMSUITE_SYSFS/devices/system/cpu/cpu*/cpufreq/scaling_governor $MEMSUITE_SYSFS/devices/system/cpu/smt/control $MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled >>$SANDBOX/seen"
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --enforce --thp always --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    run cat "$SANDBOX/seen"
    assert_output $'performance\nperformance\nperformance\nperformance\noff\nalways'
    tree_state >after
    run diff before after
    assert_output --partial "transparent_hugepage/enabled: always [madvise] never"
    assert_output --partial "transparent_hugepage/enabled: madvise"
    run diff <(grep -v transparent_hugepage/enabled before) <(grep -v transparent_hugepage/enabled after)
    assert_success
    [ ! -e "$MEMSUITE_STATE_DIR/enforce.state" ]
    run jq -r .config.enforce r/run.json
    assert_output "governor=performance on 4 cpu(s), smt=off, thp=always"
}

@test "--enforce restores after a benchmark failure" {
    tree_state >before
    FAKE_FAIL=1 MEMSUITE_ASSUME_ROOT=1 run "$MS" run --enforce --sizes 1M --threads 1 --cooldown 0 --out r
    assert_failure 1
    assert_output --partial "enforce: prior state restored"
    tree_state >after
    diff before after
}

@test "--enforce restores after SIGINT while the benchmark runs" {
    tree_state >before
    FAKE_SLEEP=4 MEMSUITE_ASSUME_ROOT=1 start_bg --enforce --sizes 1M --threads 1 --cooldown 0 --out r
    wait_for "$FAKE_STARTED"
    run cat "$MEMSUITE_SYSFS/devices/system/cpu/smt/control"
    assert_output off
    kill -INT "$BG_PID"
    local st=0
    wait "$BG_PID" || st=$?
    [ "$st" = 130 ]
    tree_state >after
    diff before after
    [ ! -e "$MEMSUITE_STATE_DIR/enforce.state" ]
    run jq -r .status r/run.json
    assert_output "interrupted by SIGINT"
}

@test "--enforce restores after SIGTERM during the cooldown" {
    tree_state >before
    MEMSUITE_ASSUME_ROOT=1 start_bg --enforce --sizes 1M --threads 1,2 --cooldown 30 --out r
    wait_for r/cells/stream-s1048576-t1.json
    kill -TERM "$BG_PID"
    local st=0
    wait "$BG_PID" || st=$?
    [ "$st" = 143 ]
    tree_state >after
    diff before after
}

@test "--enforce restores when a set -e abort ends the run" {
    tree_state >before
    FAKE_HOOK="echo garbage >$SANDBOX/r/run.json" MEMSUITE_ASSUME_ROOT=1 \
        run "$MS" run --enforce --sizes 1M --threads 1 --cooldown 0 --out r
    assert_failure
    assert_output --partial "enforce: prior state restored"
    tree_state >after
    diff before after
}

@test "--enforce on a VM: missing knobs skipped with the reason; --strict refuses" {
    use_tree memsuite-vm
    tree_state >before
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --enforce --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    assert_output --regexp "enforce: skipped governor: no cpufreq for CPU\(s\) 0-1 of 2 online \(.*/cpuN/cpufreq missing: VM or no cpufreq driver\)"
    assert_output --partial "enforce: skipped smt: control says 'notsupported' (no SMT to switch off)"
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --enforce --strict --sizes 1M --threads 1 --cooldown 0 --out r2
    assert_failure 3
    assert_output --partial "enforce: --strict: cannot enforce governor: no cpufreq for CPU(s) 0-1 of 2 online"
    tree_state >after
    diff before after
}

@test "--enforce first restores a state file left by a killed run" {
    mkdir -p "$MEMSUITE_STATE_DIR"
    echo performance >"$MEMSUITE_SYSFS/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    printf '#memsuite-state 1\nknob\tgovernor.cpu0\tpowersave\n' >"$MEMSUITE_STATE_DIR/enforce.state"
    FAKE_HOOK='true' MEMSUITE_ASSUME_ROOT=1 run "$MS" run --enforce --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    assert_output --partial "was left by a run that did not finish; restoring it first"
    run cat "$MEMSUITE_SYSFS/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    assert_output powersave
}

# --- profiles within a run ---

@test "--profile needs root; an unknown profile is a usage error" {
    MEMSUITE_ASSUME_ROOT=0 run "$MS" run --profile tuned --sizes 1M --cooldown 0 --out r
    assert_failure 3
    run "$MS" run --profile nosuch --sizes 1M --cooldown 0 --out r
    assert_failure 2
    assert_output --partial "no profile 'nosuch'"
    run "$MS" run --baseline --sizes 1M --out r
    assert_failure 2
}

@test "--profile tuned --baseline: both states, compared, and restored" {
    tree_state >before
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --profile tuned --baseline --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    [ -f r/baseline/cells/stream-s1048576-t1.json ]
    [ -f r/tuned/cells/stream-s1048576-t1.json ]
    run cat r/compare.txt
    assert_line --regexp '^  thp_enabled +madvise -> always$'
    assert_line --regexp '^  swappiness +60 -> 10$'
    assert_line --regexp '^  run.glibc_tunables +null -> glibc.malloc.tcache_count=1024$'
    run cat "$FAKE_LOG"
    assert_line --index 0 --partial "GLIBC_TUNABLES= --format"
    assert_line --index 1 --partial "GLIBC_TUNABLES=glibc.malloc.tcache_count=1024 --format"
    run jq -r .config.profile r/tuned/run.json
    assert_output tuned
    tree_state >after
    run diff before after
    refute_output --partial swappiness
    refute_output --partial numa_balancing
    [ ! -e "$MEMSUITE_STATE_DIR/profile.state" ]
}

# --- the real tools (built by make), on this machine ---

@test "real tools: run --quick end to end, every cell a valid result with the metrics memsuite reads" {
    local b
    for b in stream mbw mencal; do
        [ -x "$BIN/$b" ] || skip "$BIN/$b is not built (make builds it before the tests)"
    done
    unset MEMSUITE_SYSFS MEMSUITE_PROCFS
    MEMSUITE_BIN="$BIN" MEMSUITE_LLC=1M run "$MS" run --quick --threads 1 \
        --bench stream,mbw,mencal:seqread,mencal:randread --out real
    assert_success
    run jq -r '"\(.complete) \(.cells_done)"' real/run.json
    assert_output "true 8"
    local f
    for f in real/cells/*.json; do
        validate_json "$f"
    done
    # the headline metric of every record, as memsuite reads it
    run awk -F, 'NR > 1 && $14 == 1 { print $2 ":" $3, $7, $8, $9 }' real/summary.csv
    assert_line "stream:- Copy best_rate_mbps MB/s"
    assert_line "stream:- Triad best_rate_mbps MB/s"
    assert_line "mbw:- MEMCPY avg_rate_mibps MiB/s"
    assert_line "mencal:seqread seqread bandwidth GB/s"
    assert_line "mencal:randread randread latency ns"
    run "$MS" report real
    assert_success
    assert_line --regexp '^ +4\.0 MiB +1 +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9] +[0-9]+\.[0-9] *$'
}

# --- fixed bugs (operator review) ---

@test "a plain run after a SIGKILLed --enforce run puts the saved knobs back first" {
    # Fixed bug: only another --enforce run restored enforce.state, so a
    # plain run (or check) measured under the killed run's governor.
    tree_state >before
    FAKE_SLEEP=4 MEMSUITE_ASSUME_ROOT=1 "$MS" run --enforce --sizes 1M --threads 1 --cooldown 0 --out k 2>/dev/null &
    local pid=$!
    wait_for "$FAKE_STARTED"
    kill -KILL "$pid"
    wait "$pid" || true
    run cat "$MEMSUITE_SYSFS/devices/system/cpu/cpu0/cpufreq/scaling_governor"
    assert_output performance
    [ -f "$MEMSUITE_STATE_DIR/enforce.state" ]
    # Without root: reported, nothing written.
    MEMSUITE_ASSUME_ROOT=0 run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r1
    assert_success
    assert_output --partial "enforce.state was left by an --enforce run that did not finish"
    [ -f "$MEMSUITE_STATE_DIR/enforce.state" ]
    # As root: restored before the first cell.
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r2
    assert_success
    assert_output --partial "was left by a run that did not finish; restoring it first"
    [ ! -e "$MEMSUITE_STATE_DIR/enforce.state" ]
    tree_state >after
    diff before after
}

@test "a plain run after a SIGKILLed --enforce --profile run puts the profile's knobs back too" {
    # Found by make check-topology (real kernel): the next run restored
    # enforce.state but took the killed run's profile.state for a profile
    # applied on purpose, so swappiness and numa_balancing stayed as the
    # killed run set them.  (The lab profile leaves THP alone: a fake sysfs
    # file does not turn "madvise" back into "always [madvise] never".)
    mkdir -p profs
    printf 'vm.swappiness=10\nkernel.numa_balancing=0\n' >profs/lab.profile
    export MEMSUITE_PROFILES=$PWD/profs
    tree_state >before
    FAKE_SLEEP=4 MEMSUITE_ASSUME_ROOT=1 "$MS" run --enforce --profile lab --sizes 1M --threads 1 --cooldown 0 --out k 2>/dev/null &
    local pid=$!
    wait_for "$FAKE_STARTED"
    kill -KILL "$pid"
    wait "$pid" || true
    run cat "$MEMSUITE_PROCFS/sys/vm/swappiness"
    assert_output 10
    # Without root: reported, nothing written.
    MEMSUITE_ASSUME_ROOT=0 run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r1
    assert_success
    assert_output --partial "was left by a 'memsuite run --profile lab' that did not finish"
    [ -f "$MEMSUITE_STATE_DIR/profile.state" ]
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r2
    assert_success
    assert_output --partial "'memsuite run --profile lab' that did not finish; restoring it first"
    [ ! -e "$MEMSUITE_STATE_DIR/profile.state" ]
    [ ! -e "$MEMSUITE_STATE_DIR/enforce.state" ]
    tree_state >after
    diff before after
}

@test "a profile applied on purpose stays applied across runs" {
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply tuned
    assert_success
    MEMSUITE_ASSUME_ROOT=1 run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    [ -f "$MEMSUITE_STATE_DIR/profile.state" ]
    run cat "$MEMSUITE_PROCFS/sys/vm/swappiness"
    assert_output 10
}

@test "--resume of a directory started by another memsuite version warns and records both" {
    # Fixed bug: same schema, other version: resumed silently, run.json kept
    # claiming the old version for every cell.
    run "$MS" run --sizes 1M --threads 1,2 --cooldown 0 --out r
    assert_success
    rm r/cells/*-t2.json
    jq '.memsuite_version = "0.0.1" | .complete = false' r/run.json >t && mv t r/run.json
    run "$MS" run --resume r
    assert_success
    assert_output --partial "r was started by memsuite 0.0.1 and is resumed by"
    run jq -c '.memsuite_versions | length' r/run.json
    assert_output 2
}

@test "run.json and summary.csv are readable by others (umask), not mktemp's 0600" {
    umask 022
    run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    run stat -c %a r/run.json r/summary.csv
    assert_output "$(printf '644\n644')"
    (umask 077 && "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r7 2>/dev/null)
    run stat -c %a r7/run.json
    assert_output 600
}

@test "each cell records its THP policy and a throttling verdict from the frequency samples" {
    run "$MS" run --sizes 4x --threads 1 --cooldown 0 --out ok
    assert_success
    run jq -r '.cell_env | to_entries[0].value | "\(.thp_policy) \(.throttle.status)"' ok/run.json
    assert_output "madvise ok"
    run jq -r '.cell_env | to_entries[0].value.throttle.detail' ok/run.json
    assert_output --regexp '^[0-9]+ sample\(s\), frequency 2000-2000 MHz \(lowest -0\.0% of the first, threshold 10%\); no thermal_throttle counters'
    [ -s ok/logs/stream-s134217728-t1.freq.tsv ]

    # the CPUs slow down and throttle during the cell: a warning naming the sample
    mkdir -p "$MEMSUITE_SYSFS/devices/system/cpu/cpu0/thermal_throttle"
    echo 0 >"$MEMSUITE_SYSFS/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count"
    echo always >"$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    FAKE_HOOK='for f in "$MEMSUITE_SYSFS"/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq; do echo 1200000 >"$f"; done
               echo 3 >"$MEMSUITE_SYSFS/devices/system/cpu/cpu0/thermal_throttle/core_throttle_count"' \
        run "$MS" run --sizes 4x --threads 1 --cooldown 0 --out hot
    assert_success
    assert_line --regexp '^memsuite: run: warning: cell stream-s134217728-t1: throttling: frequency fell from 2000 MHz to 1200 MHz \(-40\.0%, threshold 10%\) at sample [0-9]+ of [0-9]+ \(t\+[0-9]+ s\); thermal throttle count rose by 3 by sample [0-9]+ of [0-9]+'
    run jq -r '.cell_env | to_entries[0].value | "\(.thp_policy) \(.throttle.status)"' hot/run.json
    assert_output "always warn"
    run "$MS" report hot
    assert_line --regexp '^ +warn +throttle +cell stream-s134217728-t1: frequency fell from 2000 MHz to 1200 MHz'
    run "$MS" report ok
    assert_line --regexp '^ +pass +throttle +1 cell\(s\) watched'
}

@test "no frequency source: the throttling verdict is unavailable with why" {
    use_tree memsuite-vm
    rm -f "$MEMSUITE_PROCFS/cpuinfo"
    run "$MS" run --sizes 4x --threads 1 --cooldown 0 --out vm
    assert_success
    run jq -r '.cell_env | to_entries[0].value.throttle | "\(.status): \(.detail)"' vm/run.json
    assert_output --regexp '^unavailable: no frequency source: no .*/cpu\*/cpufreq/scaling_cur_freq and no "cpu MHz" in .*/cpuinfo$'
    run "$MS" report vm
    assert_line --regexp '^ +skip +throttle +unavailable: no frequency source'
}

@test "GLIBC_TUNABLES with a name this glibc does not know: the run warns, naming the glibc version" {
    stub ld.so '
case "$1" in
    --version) echo "ld.so (Fake GLIBC 2.36-9) stable release version 2.36." ;;
    --list-tunables) echo "glibc.malloc.tcache_count: 0x0 (min: 0x0, max: 0xffff)" ;;
esac'
    GLIBC_TUNABLES=glibc.malloc.max_total_thread_cache=1 run "$MS" run --sizes 4x --threads 1 --cooldown 0 --out t
    assert_success
    assert_line "memsuite: run: warning: GLIBC_TUNABLES: GLIBC_TUNABLES names unknown to glibc 2.36 (not in ld.so --list-tunables), which ignores them: glibc.malloc.max_total_thread_cache"
}

@test "the KeyarchOS mencal study's before/after on a fake sysfs: setting, before, after, change, and the counters that explain it" {
    # the fake stream's THP share and dTLB rate follow the tree's THP policy
    export FAKE_THP_AUTO=1
    FAKE_HOOK='grep -Eq "\[always\]|^always$" "$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled" && echo 11500 >"$FAKE_RATE_FILE" || echo 10000 >"$FAKE_RATE_FILE"' \
        FAKE_RATE_FILE="$SANDBOX/rate" MEMSUITE_ASSUME_ROOT=1 \
        run "$MS" run --profile tuned --baseline --sizes 4x --threads 1 --cooldown 0 --out study
    assert_success
    run cat study/compare.txt
    # the settings, before -> after
    assert_line --regexp '^  thp_enabled +madvise -> always$'
    assert_line --regexp '^  swappiness +60 -> 10$'
    assert_line --regexp '^  numa_balancing +1 -> 0$'
    assert_line --regexp '^  run\.glibc_tunables +null -> glibc\.malloc\.tcache_count=1024$'
    # the counters that explain the change, per cell
    assert_line --regexp '^  stream-s134217728-t1 +madvise -> always +thp +2\.0% -> 97\.0% +2\.10% -> 1\.40%$'
    # the figures: before, after, change
    assert_line --regexp '^stream +128\.0 MiB +1 +Triad +best_rate_mbps +11100\.0 +12765\.0 +\+15\.0% +[0-9.]+% \*$'
}

@test "real mencal: --hugepages never vs madvise in one compare table: THP share and the full-random latency side by side" {
    [ -x "$BIN/mencal" ] || skip "bin/mencal not built"
    export MEMSUITE_BIN="$BIN"
    unset MEMSUITE_SYSFS MEMSUITE_PROCFS
    local hp
    for hp in never madvise; do
        run "$MS" run --bench mencal:randread --sizes 4x --threads 1 --reps 1 --cooldown 0 \
            --mencal-args "--hugepages $hp" --out "$hp"
        assert_success
    done
    run "$MS" compare never madvise
    # the verdict is the machine's (two single repetitions of a real
    # latency): no change or a change, never an error
    [ "$status" -le 1 ] || { echo "compare exited $status"; return 1; }
    assert_line --regexp '^verdict: '
    assert_line --regexp '^  run\.tool_args +\{"mencal":\["--hugepages","never"\]\} -> \{"mencal":\["--hugepages","madvise"\]\}$'
    assert_line --regexp '^  cell +THP policy +hugepages +THP share +dTLB miss rate +full-random latency$'
    assert_line --regexp '^  mencal-randread-s[0-9]+-t1 +[a-z]+ +never -> madvise +0\.0% -> [0-9.]+% +(unavailable|[0-9.]+% -> [0-9.]+%) +[0-9.]+ ns -> [0-9.]+ ns \([-+][0-9.]+%\)$'
}

@test "--resume and report refuse a plan.tsv they cannot run: 0 threads or reps, empty, no cells (exit 2, field and value named)" {
    FAKE_HOOK='case "$OMP_NUM_THREADS" in 2) exit 1 ;; esac' \
        run "$MS" run --sizes 1M --threads 1,2 --cooldown 0 --out r
    assert_failure 1
    # awk program on plan.tsv (empty: the file is emptied)|what the message says
    local -a cases=(
        'NR > 1 { $5 = 0 } 1|b/plan.tsv: line 2: threads is 0, not 1..1024; the directory is damaged'
        'NR > 1 { $5 = 1025 } 1|b/plan.tsv: line 2: threads is 1025, not 1..1024; the directory is damaged'
        'NR > 1 { $6 = 0 } 1|b/plan.tsv: line 2: reps is 0, not 1 or more; the directory is damaged'
        'NR > 1 { $4 = 0 } 1|b/plan.tsv: line 2: size_bytes is 0, not 1 or more; the directory is damaged'
        'NR == 1|b/plan.tsv: it lists no cells; the directory is damaged'
        '|b/plan.tsv: it is empty (no header); the directory is damaged'
    )
    local c prog cmd
    for c in "${cases[@]}"; do
        prog=${c%%|*}
        rm -rf b && cp -r r b
        if [ -n "$prog" ]; then awk -F '\t' -v OFS='\t' "$prog" r/plan.tsv >b/plan.tsv; else : >b/plan.tsv; fi
        for cmd in "run --resume b --cooldown 0" "report b"; do
            : >"$FAKE_LOG"
            run $MS $cmd
            [ "$status" -eq 2 ] || { echo "$prog: $cmd: exit $status: $output"; return 1; }
            [[ "$output" == *"${c#*|}"* ]] || { echo "$prog: $cmd: $output"; return 1; }
            [ ! -s "$FAKE_LOG" ] || { echo "$prog: $cmd: a cell ran"; return 1; }
        done
    done
}

@test "--threads past the tools' limit is refused by --dry-run as by the run (exit 2), nothing written" {
    run "$MS" run --dry-run --threads 1,1025 --out out
    assert_failure 2
    assert_output --partial "invalid thread count '1025' in '1,1025'; use whole numbers 1..1024"
    [ ! -e out ]
    [ "$(bench_calls)" = 0 ]
}

@test "--dry-run: a cell its tool's own plan refuses makes the dry run exit 2, as the run would, the tool's reason shown" {
    run "$MS" run --dry-run --bench stream,mbw --sizes 128M --threads 1 --out out --stream-args "--no-such-option"
    assert_failure 2
    assert_line --regexp "^    stream plan: refused \(exit 2\): stream: .*--no-such-option"
    assert_line '    mbw plan: runs, label standard'
    assert_output --partial "1 of 2 cell(s) would be refused by their tool (its plan above)"
    [ ! -e out ]
    [ "$(bench_calls)" = 0 ]
    # the run itself refuses the same options before the first cell
    run "$MS" run --bench stream,mbw --sizes 128M --threads 1 --cooldown 0 --out out --stream-args "--no-such-option"
    assert_failure 2
    [ "$(bench_calls)" = 0 ]
}
