#!/usr/bin/env bats
# helpers/memsuite-facts: the one C collector of environment facts, on the
# fixture machines (bare metal with DIMMs, a QEMU VM without cpufreq, a
# machine without cache directories), its document validated against
# docs/facts.schema.json with a real validator.

bats_require_minimum_version 1.5.0
load test_helper
load ../fixtures/memsuite-bats/helpers

FACTS_SCHEMA="$ROOT/docs/facts.schema.json"

facts_valid() {     # facts_valid FILE
    jq -e . "$1" >/dev/null || { echo "not JSON: $1"; return 1; }
    /usr/bin/jsonschema -i "$1" "$FACTS_SCHEMA"
}

fact() {    # fact FILE KEY -> "verdict<TAB>value<TAB>why"
    jq -r --arg k "$2" '.facts[] | select(.key == $k) | [.verdict, .value, .why] | @tsv' "$1"
}

@test "bare metal as root: DIMMs, peak, topology, NUMA and LLC in a valid memsuite/facts/1 document" {
    MEMSUITE_ASSUME_ROOT=1 run --separate-stderr "$BIN/memsuite-facts" --json
    assert_success
    [ -z "$stderr" ]
    echo "$output" >f.json
    facts_valid f.json
    run jq -r '.schema, .cores, .sockets, .llc_bytes, .llc_source, (.numa_nodes | join(",")), .peak_mbps, .virtualization.hypervisor' f.json
    assert_output $'memsuite/facts/1\n2\n2\n33554432\nsysfs\n0,1\n204800\nnone'
    run fact f.json dimms
    assert_output $'ok\t8/16 slots populated, DDR4, 16 GB each, 3200 MT/s (socket 0 4/8, socket 1 4/8)\t'
    run fact f.json numa
    assert_output $'ok\t2 node(s): node0 cpus 0,2 32000 MB; node1 cpus 1,3 32000 MB\t'
    run fact f.json firmware
    assert_output $'ok\tDell Inc. 1.5.6 (2022-03-21)\t'
    # one key per fact
    run jq -r '[.facts[].key] | length == (unique | length)' f.json
    assert_output true
}

@test "the QEMU VM: virtualization named, no cpufreq, no DMI table: each unavailable with its reason" {
    use_tree memsuite-vm
    MEMSUITE_ASSUME_ROOT=1 run "$BIN/memsuite-facts" --json
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run jq -r '.virtualization.hypervisor, .peak_mbps' f.json
    assert_output $'qemu\nnull'
    run fact f.json governor
    assert_output --regexp $'^unavailable\t\tno cpufreq under .*/cpu\\*/cpufreq \\(VM, or no cpufreq driver loaded\\)$'
    run fact f.json dimms
    assert_output --regexp $'^unavailable\t\tno DMI table at .*/firmware/dmi/tables/DMI'
    run fact f.json smt
    assert_output $'ok\tnotsupported (no SMT siblings)\t'
    run jq -r '[.facts[].key | select(startswith("governor.cpu"))] | length' f.json
    assert_output 0
}

@test "firmware: the DMI BIOS strings, unavailable with the reason without them, control characters shown as \\xHH" {
    use_tree memsuite-vm
    run "$BIN/memsuite-facts" --json --only host
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run fact f.json firmware
    assert_output "$(printf 'unavailable\t\tno %s/class/dmi/id/bios_version (no DMI: a VM or non-x86 may have none)' "$MEMSUITE_SYSFS")"
    # QEMU's SeaBIOS, its date as SMBIOS writes it (MM/DD/YYYY) shown as ISO 8601
    local id="$MEMSUITE_SYSFS/class/dmi/id"
    printf 'SeaBIOS\n' >"$id/bios_vendor"
    printf 'rel-1.16.0\n' >"$id/bios_version"
    printf '04/01/2014\n' >"$id/bios_date"
    run "$BIN/memsuite-facts" --only host
    assert_success
    assert_line --regexp '^ok +firmware +SeaBIOS rel-1\.16\.0 \(2014-04-01\)$'
    # a terminal escape in a DMI string never reaches the terminal raw
    printf 'Evil\033]0;pwned\a\n' >"$id/bios_vendor"
    rm "$id/bios_date"
    run "$BIN/memsuite-facts" --only host
    assert_success
    assert_line --regexp '^ok +firmware +Evil\\x1b\]0;pwned\\x07 rel-1\.16\.0 \(date unknown\)$'
    if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$output"; then echo "raw control characters: $(cat -v <<<"$output")"; return 1; fi
    "$BIN/memsuite-facts" --json --only host >f.json
    facts_valid f.json
    run jq -r '.facts[] | select(.key == "firmware") | .verdict + " " + .value' f.json
    assert_output 'ok Evil\x1b]0;pwned\x07 rel-1.16.0 (date unknown)'
}

@test "no cache directories: the LLC is not claimed from sysfs" {
    export MEMSUITE_SYSFS="$FIXTURES/llc-nocache/sys" MEMSUITE_PROCFS="$FIXTURES/llc-nocache/proc"
    run "$BIN/memsuite-facts" --json --only host
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run jq -r '.llc_source' f.json
    refute_output sysfs
    run jq -r '.facts[] | select(.key == "llc") | .verdict' f.json
    assert_output --regexp '^(warn|unavailable)$'
    # --only host: nothing of the other groups was collected
    run jq -r '[.facts[].key] | map(select(. == "dimms" or . == "numa" or . == "counters")) | length' f.json
    assert_output 0
}

@test "env-vm, env-mixed and env-uniform trees: documents valid, the physical cores of each (sysinfo's count)" {
    local t
    for t in env-vm:2 env-mixed:8 env-uniform:2; do
        export MEMSUITE_SYSFS="$FIXTURES/${t%%:*}/sys" MEMSUITE_PROCFS="$FIXTURES/${t%%:*}/proc"
        "$BIN/memsuite-facts" --json --only host,virtualization,smt,thp >f.json
        facts_valid f.json
        run jq -r '.cores' f.json
        [ "$output" = "${t#*:}" ] || { echo "$t: cores $output"; return 1; }
    done
}

@test "text form: verdict, key, value; fix lines under warnings" {
    run "$BIN/memsuite-facts" --only smt,numa
    assert_success
    assert_line --regexp '^warn +smt +on: SMT siblings share'
    assert_line --regexp "^ +fix: echo off > $MEMSUITE_SYSFS/devices/system/cpu/smt/control"
    assert_line --regexp '^warn +numa_balancing +1: '
    refute_line --regexp '^(ok|warn|unavailable) +(hostname|dimms) '
}

@test "bad usage: an unknown group or argument is exit 2, naming it and the accepted form" {
    run --separate-stderr "$BIN/memsuite-facts" --only host,bogus
    assert_failure 2
    [[ "$stderr" == *"unknown fact group 'bogus'; the groups are: host memory virtualization governor smt thp numa dimms build counters tunables frequency"* ]]
    [ -z "$output" ]
    run --separate-stderr "$BIN/memsuite-facts" --frobnicate
    assert_failure 2
    [[ "$stderr" == *"unknown argument '--frobnicate'; accepted: --json, --only GROUP[,GROUP...], --env [--profile NAME], --throttle-verdict FILE [--threshold PCT], --help"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --throttle-verdict /dev/null --threshold 1x
    assert_failure 2
    [[ "$stderr" == *"--threshold: invalid value '1x'; use a percentage from 0 to 100"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --only
    assert_failure 2
    run "$BIN/memsuite-facts" --help
    assert_success
    assert_output --partial "Usage: memsuite-facts"
}

@test "--env: the env document is the facts plus memsuite's version and the applied profile, a fact too" {
    run "$BIN/memsuite-facts" --env --profile tuned --json --only host
    assert_success
    run jq -r '[.schema, .memsuite_version, .profile, (.facts[-1] | .key, .verdict, .value, .fix)] | join("|")' <<<"$output"
    assert_output "memsuite/env/1|$(sed -n 's/^#define MB_VERSION "\(.*\)"/\1/p' "$ROOT/common/buildinfo.h")|tuned|profile|ok|tuned (applied)|memsuite profile restore tuned"
    run "$BIN/memsuite-facts" --env --only host
    assert_line --regexp '^ok +profile +none$'
    run "$BIN/memsuite-facts" --json --only host
    run jq -r '[.schema, (.profile | type), ([.facts[] | select(.key == "profile")] | length)] | join(" ")' <<<"$output"
    assert_output "memsuite/facts/1 null 0"
    run --separate-stderr "$BIN/memsuite-facts" --profile tuned
    assert_failure 2
    [[ "$stderr" == *"--profile names the applied profile of the env document; it needs --env"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --env --profile ''
    assert_failure 2
    [[ "$stderr" == *"--profile needs a value: NAME, the applied memsuite profile"* ]]
}

@test "--throttle-verdict: common/cpufreq's rule on memsuite run's samples, the sample and its time named" {
    printf '0\t2000000\t5\n1\t1990000\t5\n' >calm.tsv
    run "$BIN/memsuite-facts" --throttle-verdict calm.tsv
    assert_success
    assert_output "$(printf 'ok\t2 sample(s), frequency 1990-2000 MHz (lowest -0.5%% of the first, threshold 10%%); thermal throttle counts unchanged')"
    printf '0\t2000000\t5\nnot a sample\n4\t1500000\t5\n9\t2000000\t8\n' >hot.tsv
    run "$BIN/memsuite-facts" --throttle-verdict hot.tsv --threshold 20
    assert_output "$(printf 'warn\tfrequency fell from 2000 MHz to 1500 MHz (-25.0%%, threshold 20%%) at sample 2 of 3 (t+4 s); thermal throttle count rose by 3 by sample 3 of 3 (t+9 s)')"
    run "$BIN/memsuite-facts" --throttle-verdict hot.tsv --threshold 30
    assert_output --regexp $'^warn\tthermal throttle count rose by 3 by sample 3 of 3 \(t\+9 s\)$'
    printf '0\t\t\n' >none.tsv
    MEMSUITE_SYSFS=/nonexistent/sys MEMSUITE_PROCFS=/nonexistent/proc run "$BIN/memsuite-facts" --throttle-verdict none.tsv
    assert_output "$(printf 'unavailable\tno frequency source: no /nonexistent/sys/devices/system/cpu/cpu*/cpufreq/scaling_cur_freq and no "cpu MHz" in /nonexistent/proc/cpuinfo')"
    : >empty.tsv
    run "$BIN/memsuite-facts" --throttle-verdict empty.tsv
    assert_output "$(printf 'unavailable\tno sample was taken')"
    run --separate-stderr "$BIN/memsuite-facts" --throttle-verdict missing.tsv
    assert_failure 3
    [[ "$stderr" == *"cannot read 'missing.tsv': No such file or directory"* ]]
    # a FIFO nobody writes is refused at once, never waited on
    mkfifo fifo
    run --separate-stderr timeout 5 "$BIN/memsuite-facts" --throttle-verdict fifo
    assert_failure 3
    [[ "$stderr" == *"cannot read 'fifo': not a regular file"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --throttle-verdict $'x\e[31m'
    assert_failure 3
    [[ "$stderr" == *"cannot read 'x\\x1b[31m'"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --throttle-verdict
    assert_failure 2
    [[ "$stderr" == *"--throttle-verdict needs a value: FILE of frequency samples"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --threshold 5
    assert_failure 2
    [[ "$stderr" == *"--threshold is the drop --throttle-verdict warns at; it needs --throttle-verdict FILE"* ]]
    run --separate-stderr "$BIN/memsuite-facts" --throttle-verdict calm.tsv --json
    assert_failure 2
    [[ "$stderr" == *"does not go with --json, --env or --only"* ]]
}

@test "memsuite env --json is the facts document plus version and profile, valid against the same schema" {
    MEMSUITE_ASSUME_ROOT=1 run "$MS" env --json
    assert_success
    echo "$output" >e.json
    facts_valid e.json
    run jq -r '.schema, (.memsuite_version | length > 0), ([.facts[] | select(.key == "profile")] | length)' e.json
    assert_output $'memsuite/env/1\ntrue\n1'
}

@test "a memory-only node: in numa_nodes, not in numa_cpu_nodes (the bind targets)" {
    MEMSUITE_SYSFS="$ROOT/tests/fixtures/numa-cpuless/sys" run "$BIN/memsuite-facts" --json --only numa
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run jq -r '(.numa_nodes | join(",")), (.numa_cpu_nodes | join(","))' f.json
    assert_output $'0,1,2\n0,1'
}

@test "build: the memory as built (slots, channels per socket, node memory, EDAC counts) in a valid document" {
    cp -r "$ROOT/tests/fixtures/edac/ce/sys/devices/system/edac" "$MEMSUITE_SYSFS/devices/system/"
    printf 'Node 0 MemTotal:       32768000 kB\n' >"$MEMSUITE_SYSFS/devices/system/node/node0/meminfo"
    FAKE_DMI=one-empty MEMSUITE_ASSUME_ROOT=1 run --separate-stderr "$BIN/memsuite-facts" --json --only build
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run jq -c '.memory_build | [.slots | length, (map(select(.populated)) | length)], .channels_per_socket,
        (.slots[] | select(.locator == "CPU0_DIMM_A1") | [.size_mb, .type, .rated_mts, .configured_mts, .rank, .manufacturer, .part]),
        (.slots[] | select(.locator == "CPU1_DIMM_D1")), .nodes, .peak_mbps,
        [.edac[0].controller, .edac[0].ce_count, .edac[0].dimms[1].label, .edac[0].dimms[1].ce_count]' f.json
    assert_output '[16,7]
[{"socket":0,"channels":4},{"socket":1,"channels":3}]
[16384,"DDR4",3200,3200,2,"Samsung","M393A2K43DB3-CWE"]
{"locator":"CPU1_DIMM_D1","bank":"P1_Node1_Channel3_Dimm0","socket":1,"channel":"3","populated":false}
[{"node":0,"mem_total_bytes":33554432000},{"node":1,"mem_total_bytes":null,"mem_total_bytes_unavailable":"no MemTotal in its meminfo"}]
179200
["mc0",5,"CPU1_DIMM_A1",5]'
    run fact f.json edac
    assert_output $'warn\tmc0 ce 5 ue 0 (CPU0_DIMM_A1 ce 0 ue 0, CPU1_DIMM_A1 ce 5 ue 0)\tthe memory controllers counted errors since boot'
}

@test "build: not root, no EDAC driver, junk counts and garbage from dmidecode are unavailable with the reason" {
    MEMSUITE_ASSUME_ROOT=0 run --separate-stderr "$BIN/memsuite-facts" --json --only build
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run jq -r '.memory_build | .slots, .slots_unavailable, .edac, .edac_unavailable' f.json
    assert_line --index 0 null
    assert_line --index 1 'dmidecode needs root to read the SMBIOS tables'
    assert_line --index 2 null
    assert_line --index 3 --regexp '^no EDAC driver loaded \(.*/devices/system/edac/mc lists no memory controller'
    cp -r "$ROOT/tests/fixtures/edac/junk/sys/devices/system/edac" "$MEMSUITE_SYSFS/devices/system/"
    FAKE_DMI=garbage MEMSUITE_ASSUME_ROOT=1 run --separate-stderr "$BIN/memsuite-facts" --json --only build
    assert_success
    echo "$output" >f.json
    facts_valid f.json
    run jq -r '.memory_build | .slots_unavailable, .edac[0].ce_count_unavailable, .edac[0].ue_count_unavailable,
        .edac[0].dimms[1].label, .edac[0].dimms[1].ce_count_unavailable' f.json
    assert_output "dmidecode lists no memory devices (VM?)
mc0/ce_count holds 'abc', not a count (0..1000000000000000)
mc0/ue_count holds '99999999999999999999', not a count (0..1000000000000000)
CPU1^IDIMM^AA1
mc0/dimm1/dimm_ce_count is not a regular file"
}
