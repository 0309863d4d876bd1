#!/usr/bin/env bats
# Defects the hostile sweep (scripts/sweep-hostile.sh, tests/hostile/)
# found in the C tools; each test names the sweep's case ids.  Each failed
# on the code before the fix.

bats_require_minimum_version 1.5.0
load test_helper

# no_raw_control TEXT: no control byte but newline and tab in TEXT
no_raw_control() {
    if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$1"; then
        echo "raw control characters in: $(cat -v <<<"$1")"
        return 1
    fi
}

@test "node lists, --kernels and --counters quote a control character in caret notation (opt-stream-119, -135, -151, -175, -200)" {
    local v=$'1\e[31m' o
    for o in --cpunodebind --membind --interleave; do
        run --separate-stderr "$BIN/stream" -s 2000 -n 2 -q "$o" "$v"
        [ "$status" -eq 2 ]
        no_raw_control "$stderr"
        [[ "$stderr" == *"$o: invalid node list '1^[[31m': unexpected ^[ after node 1;"* ]] || { echo "$stderr"; return 1; }
        run --separate-stderr "$BIN/mencal" run seqread --size 4M --dry-run -q "$o" $'0\xc3\xa9'
        [ "$status" -eq 2 ]
        [[ "$stderr" == *"invalid node list '0\\xc3\\xa9': unexpected \\xc3 after node 0"* ]] || { echo "$stderr"; return 1; }
    done
    run --separate-stderr "$BIN/stream" -s 2000 -n 2 -q --cpunodebind $'\x01'
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"'^A': ^A is not part of a node number"* ]] || { echo "$stderr"; return 1; }
    run --separate-stderr "$BIN/stream" -s 2000 -n 2 -q --kernels "copy,$v"
    [ "$status" -eq 2 ]
    no_raw_control "$stderr"
    [[ "$stderr" == *"--kernels: unknown kernel '1^[[31m'; known kernels: "* ]]
    local t
    for t in "$BIN/stream -s 2000 -n 2" "$BIN/mencal run seqread --size 4M --dry-run" "$BIN/mbw --strict -n 1 1"; do
        # shellcheck disable=SC2086
        run --separate-stderr $t -q "--counters=cycles,$v"
        [ "$status" -eq 2 ] || { echo "$t: exit $status"; return 1; }
        no_raw_control "$stderr"
        [[ "$stderr" == *"event name '1^[[31m' contains ^[;"* ]] || { echo "$t: $stderr"; return 1; }
        # shellcheck disable=SC2086
        run --separate-stderr $t -q "--counters=$v,,x"
        [ "$status" -eq 2 ]
        no_raw_control "$stderr"
    done
}

@test "mencal --interleave-weights and weights --ratios quote a control character in caret notation (opt-mencal-182, -444)" {
    run --separate-stderr "$BIN/mencal" run seqread --size 4M --dry-run -q --interleave-weights $'0:1,1\e[31m'
    [ "$status" -eq 2 ]
    no_raw_control "$stderr"
    [[ "$stderr" == *"--interleave-weights '0:1,1^[[31m': '1^[[31m' is not NODE:WEIGHT"* ]] || { echo "$stderr"; return 1; }
    run --separate-stderr "$BIN/mencal" run weights --size 4M --dry-run -q --ratios $'1:1,\a2:1'
    [ "$status" -eq 2 ]
    no_raw_control "$stderr"
    [[ "$stderr" == *"--ratios '1:1,^G2:1': '^G2:1' is not N:M"* ]] || { echo "$stderr"; return 1; }
}

@test "mbw: getopt's messages keep their words but quote the option in caret notation (opt-unknown-021)" {
    run --separate-stderr "$BIN/mbw" $'--size\e[31m' 1
    [ "$status" -eq 1 ]
    no_raw_control "$stderr"
    [[ "$stderr" == *"unrecognized option '--size^[[31m'"* ]] || { echo "$stderr"; return 1; }
    run --separate-stderr "$BIN/mbw" --strict $'-\x01' 1
    [ "$status" -eq 2 ]
    no_raw_control "$stderr"
    [[ "$stderr" == *"invalid option -- '^A'"* ]] || { echo "$stderr"; return 1; }
    # the words mbw's users know stay as getopt says them
    run --separate-stderr "$BIN/mbw" -x 1
    [[ "$stderr" == *"invalid option -- 'x'"* ]]
    run --separate-stderr "$BIN/mbw" -n
    [[ "$stderr" == *"option requires an argument -- 'n'"* ]]
    run --separate-stderr "$BIN/mbw" --threads
    [[ "$stderr" == *"option '--threads' requires an argument"* ]]
    run --separate-stderr "$BIN/mbw" --verify=3 1
    [[ "$stderr" == *"option '--verify' doesn't allow an argument"* ]]
    run --separate-stderr "$BIN/mbw" --strict 1 $'2\e[2J'
    [ "$status" -eq 2 ]
    no_raw_control "$stderr"
    [[ "$stderr" == *"unexpected argument '2^[[2J' after the array size"* ]]
}

@test "stream --inject-error= (empty) is refused like --counters=, not taken for array a (opt-stream-222)" {
    run --separate-stderr "$BIN/stream" -s 2000 -n 2 -q --inject-error=
    [ "$status" -eq 2 ]
    [[ "$stderr" == *"--inject-error: invalid value '': empty; give a, b, c or dot"* ]] || { echo "$stderr"; return 1; }
    [ -z "$output" ]
    # left out, it still means a: the run fails its validation (exit 1)
    run --separate-stderr "$BIN/stream" -s 2000 -n 2 -q --inject-error
    [ "$status" -eq 1 ]
    [[ "$output" == *"Failed Validation on array a[]"* ]]
}

@test "memsuite: a control character in an option's value reaches the terminal in caret notation (opt-memsuite: --sizes, --retries, --k, unknown options, ...)" {
    local -a cases=(
        "run --dry-run --sizes"  "run --dry-run --threads"  "run --dry-run --bench"
        "check --ref /nonexistent --retries"  "cluster --aggregate . --ref /nonexistent --k"  "env"
    )
    local c
    for c in "${cases[@]}"; do
        # shellcheck disable=SC2086
        run --separate-stderr "$ROOT/scripts/memsuite" $c $'1\e[31m\a'
        [ "$status" -eq 2 ] || { echo "$c: exit $status: $stderr"; return 1; }
        no_raw_control "$stderr"
        [[ "$stderr" == *'1^[[31m^G'* ]] || { echo "$c: $stderr"; return 1; }
    done
    # plain messages keep their tabs and UTF-8 as they are
    run bash -c '. "$1/scripts/lib/common.sh"; ms_msg_line "$2"' _ "$ROOT" $'a\tb \xc3\xa9'
    [ "$output" = $'a\tb \xc3\xa9' ]
    run bash -c '. "$1/scripts/lib/common.sh"; ms_msg_line "$2"' _ "$ROOT" $'x\xc2\x9b31m\x7f'
    [ "$output" = 'xM-^[31m^?' ]
}

@test "memsuite: a 100 KB argument is cut in every message, marked with its length (memsuite CMD, run --bench/--bind/--sizes)" {
    local long cut c
    long=$(printf '%*s' 102400 '' | tr ' ' x)
    cut="$(printf '%*s' 64 '' | tr ' ' x)... (102400 bytes)"
    run --separate-stderr "$ROOT/scripts/memsuite" "$long"
    assert_failure 2
    [ "$stderr" = "memsuite: no such command '$cut'; run 'memsuite help' for the list" ] || { echo "${stderr:0:300}"; return 1; }
    for c in --bench --bind --sizes; do
        run --separate-stderr "$ROOT/scripts/memsuite" run --dry-run "$c" "$long"
        assert_failure 2
        [[ "$stderr" == *"'$cut'"* || "$stderr" == *"'${cut:24}"* ]] || { echo "$c: ${stderr:0:300}"; return 1; }
        [ "${#stderr}" -lt 600 ] || { echo "$c: ${#stderr} bytes"; return 1; }
    done
    # the quoting function itself: 40 characters, marked, caret notation
    run bash -c '. "$1/scripts/lib/common.sh"; ms_shown "$2"' _ "$ROOT" $'\e[1m'"$long"
    assert_output "'^[[1m$(printf '%*s' 36 '' | tr ' ' x)'... (102404 bytes)"
}

@test "memsuite env with stdout on /dev/full: exit 3 with memsuite's message, not jq's exit 2 or a raw printf error (output-042)" {
    local j
    for j in "" --json; do
        # shellcheck disable=SC2086
        run --separate-stderr bash -c '"$1" env $2 >/dev/full' _ "$ROOT/scripts/memsuite" "$j"
        [ "$status" -eq 3 ] || { echo "env $j: exit $status: $stderr"; return 1; }
        [ "$stderr" = "memsuite: env: cannot write to standard output (disk full, /dev/full or a closed pipe?); the result is lost" ]
    done
}
