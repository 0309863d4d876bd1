#!/usr/bin/env bats
# Hostile node reports and node lists against `memsuite cluster`: the
# third hardening sweep (issue 23), the cluster defects.  Each test is a
# defect that crashed, hung or gave a wrong verdict; the number is the
# sweep's.  Reports come from scripts/bench-aggregate.sh --generate
# (node00001..N, deterministic values, in the writer's one-line shape).

bats_require_minimum_version 1.5.0
load test_helper

MS="$ROOT/scripts/memsuite"

# gen N [generator options]: reports in g/, reference g.ref
gen() {
    local n=$1
    shift
    "$ROOT/scripts/bench-aggregate.sh" --generate g --ref-out g.ref --nodes "$n" "$@"
}

# edit FILE [JQ ARGS] PROGRAM: FILE rewritten by jq -c (one line, keys kept
# in order)
edit() {
    jq -c "${@:2}" "$1" >edit.tmp && mv edit.tmp "$1"
}

aggregate() {   # aggregate [options]: cluster --aggregate g against g.ref
    "$MS" cluster --aggregate g --ref g.ref "$@"
}

@test "2: a node report with a summary over 8 KB is read like any other (mawk's sprintf limit aborted every node)" {
    gen 3
    local long
    long=$(printf 'x%.0s' {1..10000})
    edit g/node00002.json --arg s "memsuite: FAIL $long" '.verdict = "FAIL" | .summary = $s'
    [ "$(wc -l <g/node00002.json)" -eq 1 ]
    run -1 --separate-stderr aggregate --format json
    run jq -r '.reported, .counts.pass, .counts.fail, (.nodes[0] | "\(.node) \(.status) \(.detail | startswith("memsuite: FAIL xxxx"))")' <<<"$output"
    assert_output "$(printf '3\n2\n1\nnode00002 FAIL true')"
}

@test "5: --nodes @FIFO is refused at once (exit 2), never blocks" {
    gen 2
    mkfifo list
    run -2 --separate-stderr timeout 20 "$MS" cluster --aggregate g --ref g.ref --nodes @list
    [[ "$stderr" == *"--nodes: the node list file 'list' is a FIFO, not a regular file; give a file of names, one per line"* ]]
    run -2 --separate-stderr timeout 20 "$MS" cluster --aggregate g --ref g.ref --nodes @/dev/null/x
    [[ "$stderr" == *"--nodes: the node list file '/dev/null/x' does not exist"* ]]
    printf 'node00001\n  node00002  # a comment\n' >ok.txt
    run -0 --separate-stderr "$MS" cluster --aggregate g --ref g.ref --nodes @ok.txt
    assert_line --index 0 'memsuite cluster: 2 nodes expected (--nodes), 2 reported'
}

@test "12: a report counts for the node its file is named for; a planted claim never overrides it, whatever its finished" {
    gen 4 --fail 3
    # x.json claims the failing node00003 with a later (and an absurd) finished
    jq -c '.node = "node00003" | .finished = "2099-01-01T00:00:00Z"' g/node00001.json >g/x.json
    jq -c '.node = "node00003" | .finished = "zzzz"' g/node00001.json >g/y.json
    run -1 --separate-stderr aggregate --nodes 'node[00001-00004]' --format json
    echo "$output" >r.json
    run jq -r '.nodes[] | "\(.node) \(.status)"' r.json
    assert_line 'node00003 FAIL'
    assert_line 'x ERROR'
    assert_line 'y ERROR'
    [[ "$stderr" == *"file g/x.json names node node00003, not x: counted for neither; node x is ERROR"* ]]
    [[ "$stderr" == *"file g/y.json names node node00003, not y: counted for neither; node y is ERROR"* ]]
    run jq -r '.nodes[] | select(.node == "x") | .detail' r.json
    assert_output 'report x.json names node node00003, not x (counted for neither); not in the expected node list'
    # node00001's own file claiming node00003: node00001 is ERROR, named, never MISSING
    rm g/x.json g/y.json
    edit g/node00001.json '.node = "node00003"'
    run -1 --separate-stderr aggregate --nodes 'node[00001-00004]' --format json
    run jq -r '.counts.missing, (.nodes[] | select(.node == "node00001" or .node == "node00003") | "\(.node) \(.status)")' <<<"$output"
    assert_output "$(printf '0\nnode00001 ERROR\nnode00003 FAIL')"
}

@test "13: symlinks, FIFOs, directories and hidden files are listed by name; a failing node cannot vanish; FIFOs never block" {
    gen 6 --fail 2
    mv g/node00002.json g/.node00002.json               # the failing node, hidden
    cp g/node00003.json elsewhere.json
    rm g/node00003.json
    ln -s ../elsewhere.json g/node00003.json            # a symbolic link
    rm g/node00004.json
    mkfifo g/node00004.json                             # a FIFO, no writer
    rm g/node00005.json
    mkdir g/node00005.json                              # a directory
    cp g/node00006.json g/.node00006.json               # a hidden copy beside the real one
    run -1 --separate-stderr timeout 30 "$MS" cluster --aggregate g --ref g.ref --format json
    run jq -r '.reported, (.nodes[] | "\(.node) \(.status) \(.detail)")' <<<"$output"
    assert_line --index 0 6
    assert_line 'node00002 ERROR report unreadable: .node00002.json is a hidden file (not read)'
    assert_line 'node00003 ERROR report unreadable: node00003.json is a symbolic link (not followed)'
    assert_line 'node00004 ERROR report unreadable: node00004.json is a FIFO (not read)'
    assert_line 'node00005 ERROR report unreadable: node00005.json is a directory'
    assert_line 'node00006 PASS null'
    [[ "$stderr" == *"file g/.node00006.json is a hidden file (not read); node00006 has a visible report (ignored)"* ]]
    [[ "$stderr" == *"file g/node00004.json is a FIFO (not read): node node00004 is ERROR (report unreadable)"* ]]
    run -1 --separate-stderr aggregate --format json
    run jq -r '.ignored[] | "\(.file): \(.why)"' <<<"$output"
    assert_output 'g/.node00006.json: is a hidden file (not read); node00006 has a visible report'
}

@test "15: --nodes 'a b' and a name with a newline are refused (exit 2), never joined or split" {
    gen 2
    run -2 --separate-stderr aggregate --nodes 'node00001,node 00002'
    [[ "$stderr" == *'--nodes: invalid node list "node00001,node 00002": entry "node 00002" holds white space or a control character'* ]]
    run -2 --separate-stderr aggregate --nodes $'node00001\nnode00002'
    [[ "$stderr" == *'--nodes: invalid node list "node00001\nnode00002": entry "node00001\nnode00002" holds white space'* ]]
    printf 'node00001\nnode 00002\n' >list
    run -2 --separate-stderr aggregate --nodes @list
    [[ "$stderr" == *"--nodes: entry 2, 'node 00002', is not a host name"* ]]
    # blanks around an entry are not part of it
    run -0 --separate-stderr aggregate --nodes ' node00001 , node00002 '
    assert_line --index 0 'memsuite cluster: 2 nodes expected (--nodes), 2 reported'
}

@test "lock: a node where another memsuite held the lock (check exit 3) is busy, not broken: ERROR, never proposed for draining" {
    export MEMSUITE_LOCK="$SANDBOX/lock" MEMSUITE_LLC=256KiB MEMSUITE_PROCFS="$FIXTURES/memsuite-host/proc"
    unset SLURM_JOB_NODELIST SLURM_JOB_ID SLURMD_NODENAME
    gen 3 --error 3
    cat >easy.json <<'JSON'
{ "schema": "memsuite/ref/1", "description": "passes anywhere", "created": "2024-01-01T00:00:00Z",
  "run": { "bench": "stream", "size_bytes": 4194304, "threads": 1, "reps": 3, "bind": "none" },
  "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 12000, "lower_pct": 10, "upper_pct": 25 },
               { "record": "Copy", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 11000, "lower_pct": 10, "upper_pct": 25 } ] }
JSON
    # the real check on this node, while another run holds the lock
    exec {lockfd}>"$MEMSUITE_LOCK"
    flock -n "$lockfd"
    mkdir res
    MEMSUITE_NODE_NAME=node00002 run -0 "$MS" cluster --node-run --ref easy.json --results res
    exec {lockfd}>&-
    run jq -r '"\(.verdict) \(.exit)"' res/node00002.json
    assert_output 'ERROR 3'
    # in the generated cluster, against the generated reference
    jq -c --arg id "$(jq -r .ref.id g/node00001.json)" '.ref.id = $id' res/node00002.json >g/node00002.json
    run -1 --separate-stderr aggregate --nodes 'node[00001-00003]' --drain-suggest
    assert_line --regexp '^node00002 +ERROR .*busy, not judged \(rerun when idle\): memsuite check exited 3: .*another memsuite run holds the lock'
    refute_line --partial 'nodename=node00002 '
    # an exit 3 for another reason (arrays do not fit) is still a broken node
    assert_line --regexp '^scontrol update nodename=node00003 state=drain reason="memsuite: check could not run: memsuite check exited 3: stream: arrays do not fit'
}
