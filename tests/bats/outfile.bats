#!/usr/bin/env bats
# Output files of every tool (common/outfile.c): /dev/stdout and
# /proc/self/fd/N are the descriptor, devices are written in place or
# refused (never replaced), symlinks are never followed, and nothing is
# left behind by a signal.  Device nodes are made in the sandbox, never
# the system's /dev nodes.

load test_helper
bats_require_minimum_version 1.5.0

ST_SMALL=(--llc 256KiB -s 300000 -n 4 -q)

# Each tool once, writing JSON to the path in $1 (extra args follow).
stream_to()  { stream "${ST_SMALL[@]}" --format json -O "$@"; }
mbw_to()     { mbw -q -n 2 -t0 1 --format json --output "$@"; }
seqread_to() { mencal run seqread --size 16M --allow-cache --reps 1 -q --format json -O "$@"; }
env_to()     { mencal env --format json -O "$@"; }
alloc_to()   { mencal run alloc --allocators glibc --block-sizes 4K --ops 200 --reps 1 -q --format json -O "$@"; }
TOOLS=(stream_to mbw_to seqread_to env_to alloc_to)

# A long run of each tool (stopped by the test's signal); exec, so the
# background job's pid is the tool's.  It starts with the default action
# for every signal the tests send: a suite started under nohup or as a
# background job inherits HUP/INT ignored, and the tools rightly keep an
# inherited "ignore" (that is what nohup asks for).
SIGS_DEFAULT=(env --default-signal=HUP,INT,QUIT,TERM,USR1,USR2,PIPE,ALRM)
long_run() {
    case "$1" in
        stream) exec "${SIGS_DEFAULT[@]}" stream --llc 256KiB -s 300000 --kernels copy -n 1000000 -q \
                    --format json -O "$2" ;;
        mbw)    exec "${SIGS_DEFAULT[@]}" mbw -q -n 1000000 -t1 --format json --output "$2" 1 ;;
        mencal) exec "${SIGS_DEFAULT[@]}" mencal run stability --size 16M --allow-cache --iterations 200 \
                    --interval 0.1 -q --format json -O "$2" ;;
    esac
}

@test "defect 2: -O /dev/stdout with stdout redirected to a file: the JSON lands in the file, /dev/stdout stays a link" {
    local t
    for t in "${TOOLS[@]}"; do
        # private_dev (test_helper): a regression may only ever replace a
        # private /dev/stdout, and fails the test with 97 when it does
        run --separate-stderr private_dev "$(declare -f "$t"); ST_SMALL=(${ST_SMALL[*]}); $t /dev/stdout > '$SANDBOX/$t.json'; ! compgen -G '/dev/stdout.tmp.*'"
        [ "$status" -eq 0 ] || { echo "$t: status $status: $stderr"; return 1; }
        jq -e .schema "$SANDBOX/$t.json" >/dev/null || { echo "$t: no JSON in the redirected file"; return 1; }
    done
}

@test "defect 2: -O /proc/self/fd/1, /dev/fd/1 and a symlink chain to them write to the descriptor" {
    ln -s /proc/self/fd/1 "$SANDBOX/to-fd1"
    ln -s to-fd1 "$SANDBOX/to-to-fd1"
    local p
    for p in /proc/self/fd/1 /dev/fd/1 "$SANDBOX/to-fd1" "$SANDBOX/to-to-fd1"; do
        rm -f "$SANDBOX/out.json"
        run --separate-stderr bash -c "stream ${ST_SMALL[*]} --format json -O '$p' > '$SANDBOX/out.json'"
        [ "$status" -eq 0 ] || { echo "$p: status $status: $stderr"; return 1; }
        validate_json "$SANDBOX/out.json"
    done
    [ -L "$SANDBOX/to-fd1" ] && [ -L "$SANDBOX/to-to-fd1" ]
    # stdout into a pipe works too (nothing to stat-follow)
    run --separate-stderr private_dev "mbw -q -n 2 -t0 1 --format json --output /dev/stdout | jq -r .tool"
    assert_success
    assert_output mbw
    # /dev/stderr is descriptor 2
    run --separate-stderr private_dev "mencal env --format json -O /dev/stderr 2> '$SANDBOX/err.json'"
    assert_success
    [ "$(jq -r .tool "$SANDBOX/err.json")" = mencal ]
}

@test "defect 2: a closed descriptor is refused before measuring (exit 3), naming it" {
    run --separate-stderr bash -c "stream ${ST_SMALL[*]} --format json -O /proc/self/fd/9 9>&-"
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"result file '/proc/self/fd/9': descriptor is not open"* ]]
}

@test "defect 1: --plot to a device node writes in place; the node stays a device" {
    need_plots
    mknod "$SANDBOX/null" c 1 3 2>/dev/null || skip "mknod not permitted"
    run --separate-stderr mencal run alloc -r1 --allocators glibc --block-sizes 4K --ops 400 -q \
        --plot "$SANDBOX/null" -O "$SANDBOX/r.json"
    assert_success
    [ -c "$SANDBOX/null" ]
    run compgen -G "$SANDBOX/null.tmp.*"
    assert_failure
}

@test "defect 1: --plot to a planted symlink replaces the link with the PNG, never writes its target" {
    need_plots
    echo precious > "$SANDBOX/victim"
    ln -s "$SANDBOX/victim" "$SANDBOX/chart.png"
    run --separate-stderr mencal run alloc -r1 --allocators glibc --block-sizes 4K --ops 400 -q \
        --plot "$SANDBOX/chart.png" -O "$SANDBOX/r.json"
    assert_success
    [ "$(cat "$SANDBOX/victim")" = precious ]
    [ ! -L "$SANDBOX/chart.png" ]
    [ "$(head -c 8 "$SANDBOX/chart.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
    run compgen -G "$SANDBOX/chart.png.tmp.*"
    assert_failure
}

@test "defect 1: a symlink planted at the old temporary name <plot>.tmp.<pid> redirects nothing" {
    need_plots
    echo precious > "$SANDBOX/victim"
    # the shell plants the link at its own pid, then becomes mencal (same pid)
    run --separate-stderr bash -c 'ln -s "$1/victim" "$1/chart.png.tmp.$$" &&
        exec mencal run alloc -r1 --allocators glibc --block-sizes 4K --ops 400 -q \
            --plot "$1/chart.png" -O "$1/r.json"' _ "$SANDBOX"
    assert_success
    [ "$(cat "$SANDBOX/victim")" = precious ]
    [ "$(head -c 8 "$SANDBOX/chart.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

@test "--plot into a missing directory fails before anything is measured (exit 3)" {
    run --separate-stderr mencal run alloc -r1 --allocators glibc --block-sizes 4K --ops 400 \
        --plot "$SANDBOX/no/such/x.png" -O "$SANDBOX/r.json"
    [ "$status" -eq 3 ]
    [[ "$stderr" == *"--plot"*"$SANDBOX/no/such"* ]]
    [ -z "$output" ]
    [ ! -e "$SANDBOX/r.json" ]
}

@test "-O to a symlink to a device, or to a block device node, is refused (exit 3); the nodes are intact" {
    mknod "$SANDBOX/null" c 1 3 2>/dev/null || skip "mknod not permitted"
    mknod "$SANDBOX/blk" b 7 250
    ln -s "$SANDBOX/null" "$SANDBOX/link"
    local t want
    for t in stream_to mbw_to env_to; do
        want=3
        [ "$t" != mbw_to ] || want=1    # mbw exits 1 for every error (unless --strict)
        run --separate-stderr "$t" "$SANDBOX/link"
        [ "$status" -eq "$want" ] || { echo "$t link: status $status"; return 1; }
        [[ "$stderr" == *"is a symbolic link to a character device"* ]]
        run --separate-stderr "$t" "$SANDBOX/blk"
        [ "$status" -eq "$want" ] || { echo "$t blk: status $status"; return 1; }
        [[ "$stderr" == *"is a block device"* ]]
    done
    [ -L "$SANDBOX/link" ] && [ -c "$SANDBOX/null" ] && [ -b "$SANDBOX/blk" ]
}

@test "-O to a planted symlink replaces the link, never writes its target" {
    echo precious > "$SANDBOX/victim"
    local t
    for t in "${TOOLS[@]}"; do
        ln -sfn "$SANDBOX/victim" "$SANDBOX/r.json"
        run --separate-stderr "$t" "$SANDBOX/r.json"
        [ "$status" -eq 0 ] || { echo "$t: status $status: $stderr"; return 1; }
        [ "$(cat "$SANDBOX/victim")" = precious ] || { echo "$t wrote through the link"; return 1; }
        [ ! -L "$SANDBOX/r.json" ] && jq -e .schema "$SANDBOX/r.json" >/dev/null
    done
}

# kill_run TOOL SIG OUT: a long run of TOOL writing OUT, stopped by SIG.
kill_run() {
    local pid i
    long_run "$1" "$3" 2>"$SANDBOX/kill.err" &
    pid=$!
    for i in $(seq 100); do      # until it has opened its output
        if [ "${MEMSUITE_OUT_NAMED_TEMP:-}" = 1 ]; then
            compgen -G "$3.tmp.*" >/dev/null && break
        else
            [ -e "/proc/$pid/fd" ] && ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$SANDBOX" && break
        fi
        sleep 0.05
    done
    kill -"$2" "$pid"
    wait "$pid" || true
}

@test "defect 15: HUP, USR1, PIPE, ALRM and KILL leave no temporary file (stream, mbw, mencal)" {
    local tool sig
    for tool in stream mbw mencal; do
        for sig in HUP USR1 PIPE ALRM KILL; do
            kill_run "$tool" "$sig" "$SANDBOX/k.json"
            if compgen -G "$SANDBOX/k.json*" >/dev/null; then
                echo "$tool SIG$sig left:"; ls -la "$SANDBOX"; return 1
            fi
        done
    done
}

@test "defect 15: a named temporary (no O_TMPFILE) is removed by HUP/USR1/PIPE/ALRM; one left by KILL is cleaned by the next run" {
    export MEMSUITE_OUT_NAMED_TEMP=1
    local tool sig
    for tool in stream mbw mencal; do
        for sig in HUP USR1 PIPE ALRM; do
            kill_run "$tool" "$sig" "$SANDBOX/k.json"
            if compgen -G "$SANDBOX/k.json*" >/dev/null; then
                echo "$tool SIG$sig left:"; ls -la "$SANDBOX"; return 1
            fi
        done
    done
    kill_run stream KILL "$SANDBOX/k.json"
    run compgen -G "$SANDBOX/k.json.tmp.*"
    assert_success                      # SIGKILL cannot be caught
    run --separate-stderr stream_to "$SANDBOX/k.json"
    assert_success
    run compgen -G "$SANDBOX/k.json.tmp.*"
    assert_failure                      # the dead run's temporary is gone
    validate_json "$SANDBOX/k.json"
}

@test "a FIFO nobody reads is refused at once (exit 3, named), by every tool; the FIFO stays" {
    mkfifo "$SANDBOX/fifo"
    local t want
    for t in "${TOOLS[@]}"; do
        want=3
        [ "$t" != mbw_to ] || want=1   # mbw's compatible exit status for any error (3 with --strict)
        run --separate-stderr timeout 60 bash -c "$(declare -f "$t"); ST_SMALL=(${ST_SMALL[*]}); $t '$SANDBOX/fifo'"
        [ "$status" -eq "$want" ] || { echo "$t: status $status: $stderr"; return 1; }
        [[ $stderr == *"'$SANDBOX/fifo': is a FIFO that nobody reads; start its reader first"* ]] ||
            { echo "$t: $stderr"; return 1; }
    done
    [ -p "$SANDBOX/fifo" ]
    # read, it is written in place
    fifo_reader "$SANDBOX/fifo" "$SANDBOX/got.json"
    run --separate-stderr seqread_to "$SANDBOX/fifo"
    assert_success
    wait "$READER_PID"
    validate_json "$SANDBOX/got.json"
}

@test "stdout closed: -O and --plot /dev/stdout are refused (exit 3, named); no output lands in another" {
    need_plots
    run --separate-stderr bash -c "mencal run sweep --size 64K --threads 1 --kernels read --reps 1 -q \
        --format json -O '$SANDBOX/s.json' --plot /dev/stdout >&-"
    [ "$status" -eq 3 ]
    [[ $stderr == *"--plot file '/dev/stdout': descriptor is not open"* ]]
    # the result file is the result (or nothing), never the chart
    [ ! -e "$SANDBOX/s.json" ] || jq -e .schema "$SANDBOX/s.json" >/dev/null
    run --separate-stderr bash -c "stream ${ST_SMALL[*]} --format json -O /dev/stdout >&-"
    [ "$status" -eq 3 ]
    [[ $stderr == *"result file '/dev/stdout': descriptor is not open"* ]]
}

@test "a full file system fails at open, before measuring (exit 3, named); nothing is left there" {
    mkdir "$SANDBOX/small"
    mount -t tmpfs -o size=64k tmpfs "$SANDBOX/small" 2>/dev/null || skip "cannot mount a small tmpfs (not root)"
    dd if=/dev/zero of="$SANDBOX/small/fill" bs=4k 2>/dev/null || true
    run --separate-stderr mencal run stability --size 16M --allow-cache --iterations 20 \
        --interval 0.1 -q --format json -O "$SANDBOX/small/r.json"
    umount "$SANDBOX/small"
    [ "$status" -eq 3 ]
    [[ $stderr == *"result file '$SANDBOX/small/r.json': cannot reserve"*"No space left on device"* ]]
}
