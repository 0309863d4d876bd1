#!/usr/bin/env bats
# The exit-code tables (the man pages; docs/results-format.md sums them
# up) are the single truth: a sweep of hostile (and a few good)
# invocations of every memsuite subcommand and of stream, mbw and mencal,
# each with the code the docs document for it.  Every status must also be
# one of the documented set, so a helper's own code (jq's 4 or 5, bash's
# 127) can never leak out.

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

C="$FIXTURES/memsuite-check"
# 128+N: memsuite's trapped signals (scripts/lib/cleanup.sh MS_SIGNALS)
DOCUMENTED=" 0 1 2 3 4 5 129 130 138 140 141 142 143 "

# The directories and files the table's commands refer to.
local_setup() {
    ms_test_env "$SANDBOX" "$STUBS"
    export MEMSUITE_LLC=1M
    "$MS" run --sizes 4M --threads 1,2 --reps 2 --cooldown 0 --out good 2>/dev/null
    cp -r good badcell
    : >"badcell/cells/$(grep -v '^#' good/plan.tsv | head -n 1 | cut -f 1).json"
    cp -r good badenv && printf '{"facts": [' >badenv/env.json
    cp -r good badrun && printf '[]' >badrun/run.json
    cp -r good empty && rm -f empty/cells/*.json
    jq '.validation = {passed: false}' "$C/result-node.json" >vfail.json
    printf 'root:x:0:0:root:/root:/bin/bash\n' >passwd
    mkdir -p res nopeers
    : >file
}

# sweep TABLE: lines "CODE<TAB>command" (bash, run in the sandbox); every
# command must exit CODE, and CODE must be documented.
sweep() {
    local code cmd n=0 bad=0 got
    while IFS=$'\t' read -r code cmd; do
        [ -n "$code" ] || continue
        [[ "$DOCUMENTED" == *" $code "* ]] || { echo "table error: $code is not documented"; return 1; }
        got=0
        bash -c "$cmd" </dev/null >/dev/null 2>"$SANDBOX/err" || got=$?
        n=$((n + 1))
        if [ "$got" != "$code" ]; then
            echo "exit $got, want $code: $cmd"; sed 's/^/    /' "$SANDBOX/err" | head -n 3
            bad=$((bad + 1))
        elif [[ "$DOCUMENTED" != *" $got "* ]]; then
            echo "undocumented exit $got: $cmd"; bad=$((bad + 1))
        fi
    done
    echo "$n case(s), $bad wrong"
    [ "$bad" -eq 0 ]
}

@test "memsuite: every subcommand exits with the documented code" {
    export MS C
    sweep <<'EOF'
2	"$MS"
2	"$MS" nosuch
0	"$MS" --version
0	"$MS" help run
2	"$MS" run --bogus
2	"$MS" run --sizes ''
2	"$MS" run --sizes 0
2	"$MS" run --sizes 12Q
2	"$MS" run --threads 0
2	"$MS" run --threads ''
2	"$MS" run --reps -1
2	"$MS" run --cooldown ''
2	"$MS" run --bench nosuch
2	"$MS" run --bind node:99
2	"$MS" run --thp always
2	"$MS" run --profile ../../../../etc/passwd
2	"$MS" run --profile ''
2	"$MS" run --resume ''
2	"$MS" run --resume nowhere
2	"$MS" run --out ''
2	"$MS" run --sizes 4M --threads 1 --out good
3	"$MS" run --sizes 4M --threads 1 --cooldown 0 --out file/x
3	MEMSUITE_ASSUME_ROOT=0 "$MS" run --sizes 4M --threads 1 --enforce --out r1
3	MEMSUITE_BIN="$PWD/nowhere" "$MS" run --sizes 4M --threads 1 --out r2
1	FAKE_FAIL=1 "$MS" run --sizes 4M --threads 1 --cooldown 0 --out r3
0	"$MS" run --sizes 4M --threads 1 --cooldown 0 --out r4
2	"$MS" check
2	"$MS" check --ref ''
2	"$MS" check --ref /dev/null --result "$C/result-node.json"
2	"$MS" check --ref "$C/ref-not-json.json" --result "$C/result-node.json"
2	"$MS" check --ref "$C/ref-stream.json" --result "$C/ref-stream.json"
0	"$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json"
1	"$MS" check --ref "$C/ref-stream.json" --result "$C/result-slow-triad.json"
1	"$MS" check --ref "$C/ref-stream.json" --result vfail.json
1	"$MS" check --ref "$C/ref-stream.json" --result "$C/result-incomplete.json"
3	"$MS" check --ref "$C/ref-stream.json" --result "$C/result-node.json" >/dev/full
3	FAKE_FAIL=3 "$MS" check --ref "$C/ref-stream.json" --retries 0
2	"$MS" check --record --ref ref.json --result vfail.json
2	"$MS" check --record --ref ref.json --result "$C/result-node.json" --floor 101
3	"$MS" check --record --ref nowhere/ref.json --result "$C/result-node.json"
0	"$MS" report good
1	"$MS" report badcell
1	"$MS" report empty
2	"$MS" report badenv
2	"$MS" report badrun
2	"$MS" report nowhere
2	"$MS" report
2	"$MS" report --tolerance '' good
0	"$MS" compare good good
1	"$MS" compare good badcell
2	"$MS" compare good badenv
2	"$MS" compare good
0	"$MS" env
2	"$MS" env --bogus
0	"$MS" profile list
2	"$MS" profile
2	"$MS" profile nosuch
2	"$MS" profile show nosuch
2	"$MS" profile show ../x
3	MEMSUITE_ASSUME_ROOT=0 "$MS" profile apply tuned
2	"$MS" peers 'Bad Name'
3	MEMSUITE_PEERS_DIR="$PWD/nopeers" "$MS" peers all
2	"$MS" peers --rounds 0
2	"$MS" peers --skip nosuch
2	"$MS" peers --bogus
2	"$MS" cluster
2	"$MS" cluster --ref "$C/ref-stream.json" --format xml --aggregate res
2	"$MS" cluster --ref "$C/ref-stream.json" --aggregate res --nodes ''
2	"$MS" cluster --ref "$C/ref-stream.json" --aggregate res --nodes @passwd
3	"$MS" cluster --ref "$C/ref-stream.json" --aggregate nowhere
1	"$MS" cluster --ref "$C/ref-stream.json" --aggregate res
1	"$MS" cluster --ref "$C/ref-stream.json" --aggregate res --nodes n1,n2
2	MEMSUITE_NODE_NAME="$(printf 'n%.0s' {1..300})" "$MS" cluster --node-run --ref "$C/ref-stream.json" --results res
EOF
}

@test "stream, mbw, mencal: usage errors exit with the documented code" {
    export ST="$BIN/stream" MBW="$BIN/mbw" MC="$BIN/mencal"
    sweep <<'EOF'
2	"$ST" --bogus
2	"$ST" -n 1
2	"$ST" --ntimes=abc
2	"$ST" --format xml
2	"$ST" -s ''
2	"$ST" --membind ''
2	"$ST" --interleave=
2	"$ST" --cpunodebind ''
2	"$ST" --kernels ''
2	"$ST" -O ''
0	"$ST" --version
1	"$MBW" -n abc 8
1	"$MBW" --bogus 8
1	"$MBW"
2	"$MBW" --strict -n abc 8
2	"$MBW" --strict -t 9 8
2	"$MBW" --strict --output '' 8
2	"$MC"
2	"$MC" --bogus
2	"$MC" run nosuch
2	"$MC" run seqread --size 12Q
2	"$MC" run seqread --membind ''
2	"$MC" run seqread --interleave ''
2	"$MC" run seqread --cpunodebind ''
2	"$MC" run stability --duration 0.3 --iterations 3
2	"$MC" run stability --interval 5 --duration 2
0	"$MC" list
EOF
}

@test "the bash exit codes mirror common/exitcodes.h by name, both ways" {
    # MB_EXIT_X = N in the C enum <-> MS_EX_X=N in scripts/lib/common.sh
    c=$(sed -n 's/^ *MB_EXIT_\([A-Z_]*\) *= *\([0-9]*\).*/\1=\2/p' "$ROOT/common/exitcodes.h" | sort)
    sh=$(sed -n 's/^MS_EX_\([A-Z_]*\)=\([0-9]*\)\( .*\)\{0,1\}$/\1=\2/p' "$ROOT/scripts/lib/common.sh" |
         sort)
    [ "$(printf '%s\n' "$c" | wc -l)" -ge 6 ] || { echo "C list: $c"; return 1; }
    [ "$c" = "$sh" ] || { diff <(printf '%s\n' "$c") <(printf '%s\n' "$sh"); return 1; }
    # the sourced values agree with the text
    run bash -c ". '$ROOT/scripts/lib/common.sh' && for n in $(printf '%s\n' "$c" | cut -d= -f1 | tr '\n' ' '); do v=MS_EX_\$n; echo \"\$n=\${!v}\"; done"
    assert_success
    [ "$(printf '%s\n' "$output" | sort)" = "$c" ]
}

@test "the analyser's exit codes (memsuite_analysis/exitcodes.py) mirror common/exitcodes.h by name, both ways" {
    c=$(sed -n 's/^ *MB_EXIT_\([A-Z_]*\) *= *\([0-9]*\).*/\1=\2/p' "$ROOT/common/exitcodes.h" | sort)
    run python3 -c "import sys; sys.path.insert(0, '$ROOT/scripts/analysis'); sys.dont_write_bytecode = True
from memsuite_analysis import exitcodes
print('\n'.join('%s=%d' % (k, v) for k, v in vars(exitcodes).items() if k.isupper()))"
    assert_success
    [ "$(printf '%s\n' "$output" | sort)" = "$c" ] || { diff <(printf '%s\n' "$c") <(printf '%s\n' "$output" | sort); return 1; }
}

@test "memsuite help and docs/results-format.md name every exit code of common/exitcodes.h" {
    local codes c
    codes=$(sed -n 's/^ *MB_EXIT_[A-Z_]* *= *\([0-9]*\).*/\1/p' "$ROOT/common/exitcodes.h")
    [ "$(printf '%s\n' "$codes" | wc -l)" -ge 7 ]
    run "$MS" help
    assert_success
    local help_codes
    help_codes=$(printf '%s\n' "$output" | sed -n '/^Exit codes:/,$p')
    for c in $codes; do
        [[ "$help_codes" =~ (^|[^0-9])$c\ [a-z] ]] || { echo "memsuite help leaves out exit $c"; return 1; }
        [ "$c" = 130 ] && continue      # the table says 128+N for the signals
        grep -q "^| $c | " "$ROOT/docs/results-format.md" || { echo "results-format.md has no row for exit $c"; return 1; }
    done
}

