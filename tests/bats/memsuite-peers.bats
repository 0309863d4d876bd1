#!/usr/bin/env bats
# memsuite peers: runs the scripts/peers-*.sh that exist.

load test_helper
load ../fixtures/memsuite-bats/helpers

peer() {    # peer NAME BODY
    mkdir -p "$SANDBOX/peers"
    printf '#!/usr/bin/env bash\n%s\n' "$2" >"$SANDBOX/peers/peers-$1.sh"
    export MEMSUITE_PEERS_DIR="$SANDBOX/peers"
}

@test "every peer script runs under its heading" {
    peer stream 'echo "stream vs STREAM 5.10: within 2%"'
    peer mbw 'echo "mbw vs mbw 1.2.2: within 3%"'
    run "$MS" peers
    assert_success
    assert_output --partial $'== peers-mbw.sh ==\nmbw vs mbw 1.2.2: within 3%'
    assert_output --partial $'== peers-stream.sh ==\nstream vs STREAM 5.10: within 2%'
    assert_output --partial "2 peer script(s) run"
}

@test "a failing peer script: its exit status shown, exit 1" {
    peer stream 'echo partial; exit 4'
    peer mbw 'echo fine'
    run "$MS" peers
    assert_failure 1
    assert_line "== peers-stream.sh: exit 4 =="
    assert_line "fine"
}

@test "only the named ones; unknown names and no scripts are errors" {
    peer stream 'echo S'
    peer mbw 'echo M'
    run "$MS" peers mbw
    assert_success
    refute_line "S"
    assert_line "M"
    run "$MS" peers nbody
    assert_failure 2
    assert_output "memsuite: peers: no peer script $SANDBOX/peers/peers-nbody.sh"
    mkdir empty
    MEMSUITE_PEERS_DIR="$SANDBOX/empty" run "$MS" peers
    assert_failure 3
    assert_output "memsuite: peers: no peer scripts (peers-*.sh) in $SANDBOX/empty"
}

@test "arguments after -- reach every script" {
    peer stream 'echo "args: $*"'
    run "$MS" peers stream -- --size 256MiB --rounds 5
    assert_success
    assert_line "args: --size 256MiB --rounds 5"
}
