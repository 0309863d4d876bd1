#!/usr/bin/env bats
# memsuite profile: list/show/apply/restore on a fake sysfs/procfs tree,
# prior values saved and restored, unknown keys refused before any change.

load test_helper
load ../fixtures/memsuite-bats/helpers

# a profile directory of our own for the bad cases
bad_profile() {     # bad_profile NAME CONTENT
    mkdir -p "$SANDBOX/profiles"
    printf '%s\n' "$2" >"$SANDBOX/profiles/$1.profile"
    export MEMSUITE_PROFILES="$SANDBOX/profiles"
}

@test "list: the shipped profiles with their summaries" {
    run "$MS" profile list
    assert_success
    assert_line --regexp "^tuned +the \"after\" OS profile for memory-bound work$"
    assert_line --regexp '^default +common distribution defaults'
}

@test "show: documentation, then profile vs current value" {
    run "$MS" profile show tuned
    assert_success
    assert_line --partial "vm.swappiness 60 -> 10"
    assert_line --regexp '^vm\.swappiness +10 +60 +would change$'
    assert_line --regexp '^kernel\.numa_balancing +0 +1 +would change$'
    assert_line --regexp '^thp +always +madvise +would change$'
    assert_line --regexp '^glibc\.tunables +glibc\.malloc\.tcache_count=1024 +none +\(passed to benchmarks as GLIBC_TUNABLES\)$'
}

@test "apply saves the prior values and sets the profile's; restore puts them back" {
    tree_state >before
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply tuned
    assert_success
    assert_output --partial "profile tuned applied; prior values saved in $MEMSUITE_STATE_DIR/profile.state"
    run cat "$MEMSUITE_PROCFS/sys/vm/swappiness" "$MEMSUITE_PROCFS/sys/kernel/numa_balancing" "$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    assert_output $'10\n0\nalways'
    run cat "$MEMSUITE_STATE_DIR/profile.state"
    assert_output $'#memsuite-state 1\nprofile\ttuned\nenv\tGLIBC_TUNABLES\tglibc.malloc.tcache_count=1024\nknob\tvm.swappiness\t60\nknob\tkernel.numa_balancing\t1\nknob\tthp\tmadvise'
    run "$MS" env
    assert_line --regexp '^ok +profile +tuned \(applied\)$'
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile restore tuned
    assert_success
    run cat "$MEMSUITE_PROCFS/sys/vm/swappiness" "$MEMSUITE_PROCFS/sys/kernel/numa_balancing"
    assert_output $'60\n1'
    run cat "$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    assert_output madvise
    [ ! -e "$MEMSUITE_STATE_DIR/profile.state" ]
}

@test "a run under an applied profile passes its GLIBC_TUNABLES and records it" {
    MEMSUITE_ASSUME_ROOT=1 "$MS" profile apply tuned 2>/dev/null
    run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    run grep -c 'GLIBC_TUNABLES=glibc.malloc.tcache_count=1024 ' "$FAKE_LOG"
    assert_output 1
    run jq -r '.profile, .glibc_tunables' r/env.json
    assert_output $'tuned\nglibc.malloc.tcache_count=1024'
}

@test "apply needs root; nothing changes" {
    tree_state >before
    MEMSUITE_ASSUME_ROOT=0 run "$MS" profile apply tuned
    assert_failure 3
    assert_output "memsuite: profile: applying a profile needs root (it writes sysctl and sysfs knobs); run as root"
    tree_state >after
    diff before after
    [ ! -e "$MEMSUITE_STATE_DIR/profile.state" ]
}

@test "an unknown key is refused before anything changes" {
    bad_profile typo $'vm.swappiness=10\nvm.swapiness=5'
    tree_state >before
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply typo
    assert_failure 2
    assert_output "memsuite: profile: profile typo: $SANDBOX/profiles/typo.profile:2: unknown key 'vm.swapiness' (known: vm.swappiness kernel.numa_balancing vm.zone_reclaim_mode vm.overcommit_memory vm.dirty_ratio vm.dirty_background_ratio thp thp.defrag governor smt glibc.tunables); nothing was changed"
    tree_state >after
    diff before after
    [ ! -e "$MEMSUITE_STATE_DIR/profile.state" ]
}

@test "bad values and malformed lines are refused" {
    bad_profile big 'vm.swappiness=500'
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply big
    assert_failure 2
    assert_output --partial "vm.swappiness=500: must be a whole number 0..200; nothing was changed"
    bad_profile thp 'thp=sometimes'
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply thp
    assert_failure 2
    assert_output --partial "thp=sometimes: must be one of always,madvise,never"
    bad_profile junk 'just words'
    run "$MS" profile show junk
    assert_failure 2
    assert_output --partial "junk.profile:1: expected key=value, got 'just words'"
    bad_profile twice $'thp=never\nthp=always'
    run "$MS" profile show twice
    assert_failure 2
    assert_output --partial "'thp' set twice"
    run "$MS" profile show nosuch
    assert_failure 2
    assert_output --partial "no profile 'nosuch'"
}

@test "apply twice is refused; restore without a saved state fails" {
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply tuned
    assert_success
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply default
    assert_failure 3
    assert_output --partial "profile 'tuned' is already applied"
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile restore default
    assert_failure 2
    assert_output "memsuite: profile: the applied profile is 'tuned', not 'default'; run 'memsuite profile restore tuned'"
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile restore
    assert_success
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile restore
    assert_failure 1
    assert_output --partial "no applied profile to restore"
}

@test "a knob the machine lacks is skipped, or refused with --strict" {
    use_tree memsuite-vm
    tree_state >before
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply tuned --strict
    assert_failure 3
    assert_output --regexp "--strict: cannot apply kernel.numa_balancing: kernel.numa_balancing not present \(.*missing\); nothing was changed$"
    tree_state >after
    diff before after
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply tuned
    assert_success
    assert_output --partial "skipped kernel.numa_balancing"
    run cat "$MEMSUITE_PROCFS/sys/vm/swappiness"
    assert_output 10
}

@test "usage errors" {
    run "$MS" profile
    assert_failure 2
    run "$MS" profile frob tuned
    assert_failure 2
    assert_output "memsuite: profile: unknown action 'frob'; use list, show, apply or restore"
    run "$MS" profile show
    assert_failure 2
    run "$MS" profile show tuned default
    assert_failure 2
}

@test "a run under a profile applied beforehand names it in run.json, so compare shows it" {
    # Fixed bug: run.json's config.profile was null unless --profile was
    # given, although the figures were taken under the profile.
    "$MS" run --sizes 1M --threads 1 --cooldown 0 --out before 2>/dev/null
    MEMSUITE_ASSUME_ROOT=1 "$MS" profile apply tuned 2>/dev/null
    run "$MS" run --sizes 1M --threads 1 --cooldown 0 --out r
    assert_success
    run jq -r '.config.profile' r/run.json
    assert_output tuned
    run "$MS" compare before r
    assert_success
    assert_line --regexp '^  run\.profile +null -> tuned$'
    MEMSUITE_ASSUME_ROOT=1 "$MS" profile restore tuned 2>/dev/null
}

@test "profile apply first puts back the knobs a killed --enforce run left, then saves the true prior values" {
    # Fixed bug: apply saved the killed run's performance governor / THP as
    # the "prior" values, so restore re-installed them.
    mkdir -p "$MEMSUITE_STATE_DIR"
    local prior
    prior=$(cat "$MEMSUITE_PROCFS/sys/vm/swappiness")
    echo 1 >"$MEMSUITE_PROCFS/sys/vm/swappiness"
    printf '#memsuite-state 1\nknob\tvm.swappiness\t%s\n' "$prior" >"$MEMSUITE_STATE_DIR/enforce.state"
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply tuned
    assert_success
    assert_output --partial "restoring it first"
    run awk -F '\t' '$2 == "vm.swappiness" { print $3 }' "$MEMSUITE_STATE_DIR/profile.state"
    assert_output "$prior"
    [ "$prior" != 1 ]
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile restore tuned
    assert_success
    run cat "$MEMSUITE_PROCFS/sys/vm/swappiness"
    assert_output "$prior"
}

@test "vm.dirty_ratio and vm.dirty_background_ratio: checked, set, saved, restored" {
    bad_profile dirty $'# Summary: writeback\nvm.dirty_ratio=5\nvm.dirty_background_ratio=2'
    run "$MS" profile show dirty
    assert_success
    assert_line --regexp '^vm\.dirty_ratio +5 +20 +would change$'
    assert_line --regexp '^vm\.dirty_background_ratio +2 +10 +would change$'
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile apply dirty
    assert_success
    run cat "$MEMSUITE_PROCFS/sys/vm/dirty_ratio" "$MEMSUITE_PROCFS/sys/vm/dirty_background_ratio"
    assert_output $'5\n2'
    run grep -P '^knob\tvm\.dirty' "$MEMSUITE_STATE_DIR/profile.state"
    assert_output $'knob\tvm.dirty_ratio\t20\nknob\tvm.dirty_background_ratio\t10'
    run "$MS" env
    assert_line --regexp '^ok +dirty_ratio +5$'
    MEMSUITE_ASSUME_ROOT=1 run "$MS" profile restore dirty
    assert_success
    run cat "$MEMSUITE_PROCFS/sys/vm/dirty_ratio" "$MEMSUITE_PROCFS/sys/vm/dirty_background_ratio"
    assert_output $'20\n10'
    bad_profile dirtybad 'vm.dirty_ratio=101'
    run "$MS" profile show dirtybad
    assert_failure 2
    assert_output --partial "vm.dirty_ratio=101: must be a whole number 0..100; nothing was changed"
}

@test "glibc.tunables: a name this glibc does not know is warned about, naming the glibc version" {
    ms_stub "$STUBS" ld.so '
case "$1" in
    --version) echo "ld.so (Fake GLIBC 2.36-9) stable release version 2.36." ;;
    --list-tunables) printf "glibc.malloc.tcache_count: 0x0 (min: 0x0, max: 0xffff)\nglibc.malloc.arena_max: 0x0 (min: 0x1, max: 0xffff)\n" ;;
esac'
    bad_profile tun 'glibc.tunables=glibc.malloc.tcache_count=1024:glibc.malloc.max_total_thread_cache=0'
    run "$MS" profile show tun
    assert_success
    assert_line "memsuite: profile: warning: profile tun: glibc.tunables: GLIBC_TUNABLES names unknown to glibc 2.36 (not in ld.so --list-tunables), which ignores them: glibc.malloc.max_total_thread_cache"
    GLIBC_TUNABLES=glibc.malloc.arena_max=2:glibc.nosuch.knob=1 run "$MS" env
    assert_line --regexp '^warn +glibc_tunables +glibc\.malloc\.arena_max=2:glibc\.nosuch\.knob=1: unknown to glibc 2\.36 .*: glibc\.nosuch\.knob$'
    GLIBC_TUNABLES=glibc.malloc.arena_max=2 run "$MS" env
    assert_line --regexp '^ok +glibc_tunables +glibc\.malloc\.arena_max=2$'
    # a glibc without --list-tunables: not checked, no false warning
    ms_stub "$STUBS" ld.so 'exit 1'
    GLIBC_TUNABLES=glibc.nosuch.knob=1 run "$MS" env
    assert_line --regexp '^ok +glibc_tunables +glibc\.nosuch\.knob=1$'
}
