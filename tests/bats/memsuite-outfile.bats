#!/usr/bin/env bats
# memsuite's files (scripts/lib/outfile.sh, the twin of common/outfile.c):
# references, run directories and session temp directories.  Device nodes
# are made in the sandbox, never the system's /dev nodes.

load test_helper
load ../fixtures/memsuite-bats/helpers
bats_require_minimum_version 1.5.0

C="$FIXTURES/memsuite-check"

@test "defect 3: check --record --ref <device node> writes in place; the node stays a device" {
    mknod "$SANDBOX/null" c 1 3 2>/dev/null || skip "mknod not permitted"
    run --separate-stderr "$MS" check --record --ref "$SANDBOX/null" --result "$C/result-node.json"
    assert_success
    [ -c "$SANDBOX/null" ]
    run compgen -G "$SANDBOX/null.tmp.*"
    assert_failure
}

@test "defect 3: a symlink to a device or a block device as --ref is refused (exit 3) before anything runs" {
    mknod "$SANDBOX/null" c 1 3 2>/dev/null || skip "mknod not permitted"
    mknod "$SANDBOX/blk" b 7 250
    ln -s "$SANDBOX/null" "$SANDBOX/link"
    run --separate-stderr "$MS" check --record --ref "$SANDBOX/link" --runs 1
    assert_failure 3
    [[ "$stderr" == *"cannot write the reference '$SANDBOX/link': is a symbolic link to a character device"* ]]
    run --separate-stderr "$MS" check --record --ref "$SANDBOX/blk" --runs 1
    assert_failure 3
    [[ "$stderr" == *"is a block device, which is never written"* ]]
    [ "$(bench_calls)" = 0 ]
    [ -L "$SANDBOX/link" ] && [ -c "$SANDBOX/null" ] && [ -b "$SANDBOX/blk" ]
}

@test "defect 3: --ref /dev/stdout with stdout redirected puts the reference in the file; /dev/stdout stays a link" {
    # private_dev (test_helper): a regression may only replace a private
    # /dev/stdout, and fails the test with 97 when it does
    run --separate-stderr private_dev "'$MS' check --record --ref /dev/stdout --result '$C/result-node.json' > '$SANDBOX/ref.json'"
    assert_success
    run jq -r .schema "$SANDBOX/ref.json"
    assert_output memsuite/ref/1
    # and that reference checks the result it came from
    run "$MS" check --ref "$SANDBOX/ref.json" --result "$C/result-node.json"
    assert_success
}

@test "--ref at a planted symlink replaces the link, never writes its target" {
    echo precious > "$SANDBOX/victim"
    ln -s "$SANDBOX/victim" "$SANDBOX/ref.json"
    run "$MS" check --record --ref "$SANDBOX/ref.json" --result "$C/result-node.json"
    assert_success
    [ "$(cat "$SANDBOX/victim")" = precious ]
    [ ! -L "$SANDBOX/ref.json" ]
    run jq -r .schema "$SANDBOX/ref.json"
    assert_output memsuite/ref/1
}

@test "run --resume: env-resume.json and summary.csv planted as symlinks are replaced, their targets untouched" {
    FAKE_HOOK='case "$OMP_NUM_THREADS" in 2) exit 1 ;; esac' \
        run "$MS" run --sizes 1M --threads 1,2 --cooldown 0 --out r
    assert_failure 1                    # one cell left for --resume
    echo precious > victim
    rm -f r/summary.csv
    ln -s "$SANDBOX/victim" r/env-resume.json
    ln -s "$SANDBOX/victim" r/summary.csv
    run "$MS" run --resume r --cooldown 0
    assert_success
    [ "$(cat victim)" = precious ]
    [ ! -L r/env-resume.json ] && jq -e . r/env-resume.json >/dev/null
    [ ! -L r/summary.csv ] && grep -q . r/summary.csv
}

@test "defect 15: a session temp directory left by SIGKILL is removed by the next run; live, foreign and linked ones stay" {
    export TMPDIR="$SANDBOX/tmp"
    mkdir -p "$TMPDIR"
    FAKE_SLEEP=30 "$MS" check --ref "$C/ref-stream.json" >/dev/null 2>&1 &
    local pid=$! i
    for i in $(seq 100); do
        compgen -G "$TMPDIR/memsuite.$pid.*" >/dev/null && break
        sleep 0.05
    done
    run compgen -G "$TMPDIR/memsuite.$pid.*"
    assert_success
    kill -KILL "$pid"
    wait "$pid" || true
    pkill -KILL -P "$pid" 2>/dev/null || true
    run compgen -G "$TMPDIR/memsuite.$pid.*"
    assert_success                      # SIGKILL cannot be caught
    mkdir "$TMPDIR/memsuite.$$.AbC123" "$TMPDIR/memsuite.Xy12ab" "$SANDBOX/elsewhere"
    ln -s "$SANDBOX/elsewhere" "$TMPDIR/memsuite.999999999.ZZzz99"
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
    assert_success
    run compgen -G "$TMPDIR/memsuite.$pid.*"
    assert_failure                      # the dead run's directory is gone
    [ -d "$TMPDIR/memsuite.$$.AbC123" ]  # a live process's stays
    [ -d "$TMPDIR/memsuite.Xy12ab" ]     # not ours to judge (no pid)
    [ -L "$TMPDIR/memsuite.999999999.ZZzz99" ] && [ -d "$SANDBOX/elsewhere" ]
}

@test "a session directory of another PID namespace is never judged by its pid; one of ours is" {
    export TMPDIR="$SANDBOX/tmp"
    local d="$SANDBOX/tmp/memsuite.999999998.AbCd12"
    mkdir -p "$d"
    echo "pid:[1]" >"$d/.pidns"          # a namespace that is not this one
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
    assert_success
    [ -d "$d" ]                         # its pid means nothing here: kept
    readlink /proc/self/ns/pid >"$d/.pidns"
    run "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
    assert_success
    [ ! -e "$d" ]                       # our namespace and the pid is dead: removed
}

@test "USR1, ALRM and PIPE stop memsuite with 128+N (not an internal error) and leave no session temp directory" {
    export TMPDIR="$SANDBOX/tmp"
    mkdir -p "$TMPDIR"
    local sig pid i st num
    for sig in USR1 ALRM PIPE; do
        FAKE_SLEEP=30 "$MS" check --ref "$C/ref-stream.json" >/dev/null 2>"$SANDBOX/err" &
        pid=$!
        for i in $(seq 100); do
            [ -e "$FAKE_STARTED" ] && break
            sleep 0.05
        done
        rm -f "$FAKE_STARTED"
        kill -"$sig" "$pid"
        st=0
        wait "$pid" || st=$?
        num=$(kill -l "$sig")
        [ "$st" -eq $((128 + num)) ] || { echo "SIG$sig: status $st"; cat "$SANDBOX/err"; return 1; }
        run compgen -G "$TMPDIR/memsuite.*"
        assert_failure
    done
}

@test "a reference's stale temporaries (dead pid) are removed; a live one's and a symlink stay" {
    local dead
    bash -c 'exit 0' & dead=$!
    wait "$dead"
    : > "$SANDBOX/ref.json.tmp.$dead.abcdef"
    : > "$SANDBOX/ref.json.tmp.$$.abcdef"
    echo precious > "$SANDBOX/victim"
    ln -s "$SANDBOX/victim" "$SANDBOX/ref.json.tmp.$dead.link"
    run "$MS" check --record --ref "$SANDBOX/ref.json" --result "$C/result-node.json"
    assert_success
    [ ! -e "$SANDBOX/ref.json.tmp.$dead.abcdef" ]
    [ -e "$SANDBOX/ref.json.tmp.$$.abcdef" ]
    [ -L "$SANDBOX/ref.json.tmp.$dead.link" ] && [ "$(cat "$SANDBOX/victim")" = precious ]
}

@test "a symlink planted at the lock file is refused (exit 3), its target never truncated" {
    echo precious > "$SANDBOX/victim"
    ln -s "$SANDBOX/victim" "$MEMSUITE_LOCK"
    run "$MS" run --sizes 1M --cooldown 0 --out r
    assert_failure 3
    assert_output --partial "the lock file $MEMSUITE_LOCK is a symbolic link or not a regular file"
    [ "$(cat "$SANDBOX/victim")" = precious ]
    [ "$(bench_calls)" = 0 ]
    # a regular lock file works, and holds our pid on its first line
    rm "$MEMSUITE_LOCK"
    run "$MS" run --sizes 1M --cooldown 0 --out r
    assert_success
    [ -f "$MEMSUITE_LOCK" ] && [ ! -L "$MEMSUITE_LOCK" ]
}

# a run directory R of the fake tools (one cell) and its first cell in CELL
make_run() {
    "$MS" run --sizes 1M --threads 1 --reps 1 --cooldown 0 --out R >/dev/null 2>&1
    CELL=$(compgen -G 'R/cells/*.json' | head -1)
    [ -n "$CELL" ]
}

@test "a FIFO nobody reads (--ref, --prom, report's default R/report.html) is refused at once, exit 3, named; nothing measured" {
    make_run
    mkfifo ff R/report.html
    run --separate-stderr timeout 60 "$MS" check --record --ref ff --runs 1
    assert_failure 3
    [[ "$stderr" == *"cannot write the reference 'ff': is a FIFO that nobody reads; start its reader first"* ]]
    : >"$FAKE_LOG"
    run --separate-stderr timeout 60 "$MS" check --ref "$C/ref-stream.json" --retries 0 --prom ff
    assert_failure 3
    [[ "$stderr" == *"--prom: cannot write 'ff': is a FIFO that nobody reads"* ]]
    [ "$(bench_calls)" = 0 ]
    run --separate-stderr timeout 60 "$MS" report --html R
    assert_failure 3
    [[ "$stderr" == *"cannot write the HTML report: 'R/report.html': is a FIFO that nobody reads"* ]]
    [ -p ff ] && [ -p R/report.html ]
}

@test "a FIFO that is read gets the whole document: held from the check before measuring to the write" {
    mkfifo ff
    fifo_reader ff got.json
    run --separate-stderr timeout 60 "$MS" check --record --ref ff --runs 1
    assert_success
    wait "$READER_PID"
    run jq -r .schema got.json
    assert_output memsuite/ref/1
}

@test "concurrent writers of one file (check --record --ref X, report --html --output X) all exit 0; X is one whole document" {
    make_run
    local i rc=0
    local -a pids=()
    for ((i = 0; i < 12; i++)); do
        "$MS" check --record --ref X.json --result "$CELL" >/dev/null 2>"err.$i" & pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || { rc=1; cat "err.$i"; }; done
    [ "$rc" = 0 ]
    run jq -r .schema X.json
    assert_output memsuite/ref/1
    run compgen -G 'X.json.tmp.*'
    assert_failure
    pids=()
    for ((i = 0; i < 6; i++)); do
        "$MS" report --html --output X.html R >/dev/null 2>"err.$i" & pids+=($!)
    done
    for i in "${!pids[@]}"; do wait "${pids[$i]}" || { rc=1; cat "err.$i"; }; done
    [ "$rc" = 0 ]
    [ "$(grep -c '</html>' X.html)" = 1 ]
}

@test "/dev/stdout with stdout closed: report --html, --prom and --record exit 3, naming it" {
    make_run
    run --separate-stderr bash -c '"$1" report --html --output /dev/stdout R >&-' _ "$MS"
    assert_failure 3
    [[ "$stderr" == *"cannot write the HTML report: '/dev/stdout': descriptor is not open"* ]]
    run --separate-stderr bash -c '"$1" check --ref "$2" --result "$3" --prom /dev/stdout >&-' _ "$MS" "$C/ref-stream.json" "$C/result-node.json"
    assert_failure 3
    [[ "$stderr" == *"--prom: cannot write '/dev/stdout': descriptor is not open"* ]]
    run --separate-stderr bash -c '"$1" check --record --ref /dev/stdout --result "$2" >&-' _ "$MS" "$C/result-node.json"
    assert_failure 3
    [[ "$stderr" == *"cannot write the reference '/dev/stdout': descriptor is not open"* ]]
    [[ "$stderr" != *"cannot duplicate fd"* ]]
}

@test "an output that is an input is refused (exit 2), by any name of it; the input is untouched" {
    make_run
    cp "$CELL" c.json
    cp c.json c.orig
    ln c.json hard.json
    ln -s c.json soft.json
    local out
    for out in c.json ./c.json hard.json soft.json "$PWD/c.json"; do
        run --separate-stderr "$MS" check --record --ref "$out" --result c.json
        assert_failure 2
        [[ "$stderr" == *"is the input 'c.json' (the same file)"* ]]
        run --separate-stderr "$MS" check --ref "$C/ref-stream.json" --result c.json --prom "$out"
        assert_failure 2
        [[ "$stderr" == *"--prom: cannot write '$out': is the input"* ]]
    done
    run --separate-stderr "$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" --prom "$C/ref-stream.json"
    assert_failure 2
    cmp c.json c.orig
    cp "$CELL" cell.orig
    run --separate-stderr "$MS" report --html --output "$CELL" R
    assert_failure 2
    [[ "$stderr" == *"is the input"* ]]
    run --separate-stderr "$MS" report --html --output R/cells/../env.json R
    assert_failure 2
    cmp "$CELL" cell.orig
}

@test "a full file system is refused before anything is measured (exit 3, named)" {
    mkdir small
    mount -t tmpfs -o size=64k tmpfs small 2>/dev/null || skip "cannot mount a small tmpfs (not root)"
    dd if=/dev/zero of=small/fill bs=4k 2>/dev/null || true
    : >"$FAKE_LOG"
    run --separate-stderr "$MS" check --record --ref small/ref.json --runs 1
    umount small
    assert_failure 3
    [[ "$stderr" == *"cannot write the reference 'small/ref.json': cannot reserve"*"No space left on device"* ]]
    [ "$(bench_calls)" = 0 ]
}
