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

@test "firmware: the DMI BIOS strings, unavailable with the reason without them, control characters in caret notation" {
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
    assert_line --regexp '^ok +firmware +Evil\^\[\]0;pwned\^G rel-1\.16\.0 \(date unknown\)$'
    if LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' <<<"$output"; then echo "raw control characters: $(cat -v <<<"$output")"; return 1; fi
    "$BIN/memsuite-facts" --json --only host >f.json
    facts_valid f.json
    run jq -r '.facts[] | select(.key == "firmware") | .verdict + " " + .value' f.json
    assert_output 'ok Evil^[]0;pwned^G rel-1.16.0 (date unknown)'
}

@test "a FIFO or a sparse 1 GiB file in the sysfs/procfs trees: every tool goes on at once, the fact unavailable with why" {
    use_tree memsuite-host
    local thp="$MEMSUITE_SYSFS/kernel/mm/transparent_hugepage/enabled"
    rm -f "$thp" "$MEMSUITE_PROCFS/meminfo" "$MEMSUITE_PROCFS/cpuinfo"
    mkfifo "$thp" "$MEMSUITE_PROCFS/meminfo"
    truncate -s 1G "$MEMSUITE_PROCFS/cpuinfo"
    # a plain open() of a FIFO waits for a writer for ever: timeout is the hang guard
    run --separate-stderr timeout 20 "$BIN/memsuite-facts"
    assert_success
    assert_line --regexp '^unavailable +thp_enabled +cannot read .*/transparent_hugepage/enabled: not a regular file \(a FIFO\)'
    assert_line --regexp '^unavailable +mem_total_bytes +no MemTotal from .*/proc/meminfo: not a regular file \(a FIFO\)$'
    assert_line --regexp '^unavailable +cpu_model +cannot read .*/proc/cpuinfo: larger than 16 MiB, not a kernel fact file$'
    local t
    for t in "stream -n 2 -q --array-size 64K" "mbw -q -n 1 -t0 1" "mencal run seqread -s 1MiB -r 1 -t 1 -q"; do
        # shellcheck disable=SC2086  # the tool's words
        run --separate-stderr timeout 20 "$BIN"/$t
        [ "$status" -eq 0 ] || { echo "$t: exit $status: $stderr"; return 1; }
    done
    run --separate-stderr timeout 20 "$ROOT/scripts/memsuite" env
    assert_success
    assert_line --regexp 'thp_enabled +cannot read .*: not a regular file \(a FIFO\)'
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
    [[ "$stderr" == *"cannot read 'x^[[31m'"* ]]
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

@test "aarch64 trees: Grace, Graviton3 and A64FX named from the MIDR and the firmware, Features as the flags, the page sizes" {
    local t want flags pmd page
    # aarch64 glibc answers 0 for sysconf's L3: only sysfs gives the LLC
    export MEMSUITE_SYSCONF_L3=0
    for t in arm-grace arm-graviton3 arm-a64fx; do
        use_tree "$t"
        case $t in
            arm-grace) want="NVIDIA Grace (ARM Neoverse V2 r0p0; SoC ID jep106:036b:0241)"
                       flags="asimd sve sve2 atomics lrcpc dcpop dcpodp i8mm bf16"; pmd="512 MiB (hpage_pmd_size)"; page=64 ;;
            arm-graviton3) want="AWS Graviton3 (ARM Neoverse V1 r1p1; SMBIOS processor version)"
                       flags="asimd sve atomics lrcpc dcpop dcpodp i8mm bf16"; pmd="2 MiB (hpage_pmd_size)"; page=4 ;;
            arm-a64fx) want="Fujitsu A64FX r1p0"
                       flags="asimd sve atomics dcpop"; pmd="512 MiB (hpage_pmd_size)"; page=64 ;;
        esac
        # the base page these kernels run with (this machine's is 4 KiB)
        export MEMSUITE_TEST_PAGE_SIZE=$((page * 1024))
        "$BIN/memsuite-facts" --json --only host,memory,virtualization,governor >f.json
        facts_valid f.json
        run fact f.json cpu_model
        assert_output "$(printf 'ok\t%s\t' "$want")"
        run fact f.json cpu_flags
        assert_output "$(printf 'ok\t%s\t' "$flags")"
        run fact f.json microcode
        assert_output "$(printf 'unavailable\t\taarch64 has no microcode line in cpuinfo (the firmware fact names the firmware)')"
        run fact f.json page_size
        assert_output "$(printf 'ok\t%s KiB\t' "$page")"
        run fact f.json pmd_huge_page
        assert_output "$(printf 'ok\t%s\t' "$pmd")"
        run jq -r '.llc_source' f.json
        assert_output sysfs
    done
    # Graviton3 is an EC2 guest; A64FX's 8 MiB L2 per CMG is its last level
    run fact f.json llc
    assert_output --regexp $'^ok\t16\\.0 MiB total: 2 x 8\\.0 MiB L2 \\(sysfs\\)'
    use_tree arm-graviton3
    "$BIN/memsuite-facts" --json --only virtualization >f.json
    run jq -r '.virtualization.hypervisor' f.json
    assert_output amazon
}

@test "aarch64 naming rule: without the SMBIOS entry EC2 names the Graviton, with its evidence; a part not in the table by its numbers" {
    use_tree arm-graviton3
    rm "$MEMSUITE_SYSFS/firmware/dmi/entries/4-0/raw"    # only root reads it on a real system
    run "$BIN/memsuite-facts" --only host
    assert_success
    assert_line --regexp "^ok +cpu_model +AWS Graviton3 \(ARM Neoverse V1 r1p1; DMI sys_vendor 'Amazon EC2'\)$"
    # the same core outside EC2 is what its MIDR says, nothing more
    echo "Some OEM" >"$MEMSUITE_SYSFS/class/dmi/id/sys_vendor"
    run "$BIN/memsuite-facts" --only host
    assert_line --regexp '^ok +cpu_model +ARM Neoverse V1 r1p1$'
    sed -i 's/0xd40/0xd99/' "$MEMSUITE_PROCFS/cpuinfo"
    run "$BIN/memsuite-facts" --only host
    assert_line --regexp "^ok +cpu_model +ARM \(implementer 0x41\) part 0xd99 r1p1 \(part not in memsuite's table\)$"
}

@test "a device-tree aarch64 guest: QEMU named from the device tree, sizeless caches give no LLC with the reason, cppc_cpufreq advised" {
    use_tree arm-graviton3
    export MEMSUITE_SYSCONF_L3=0
    rm -r "$MEMSUITE_SYSFS/class/dmi" "$MEMSUITE_SYSFS/firmware/dmi"
    find "$MEMSUITE_SYSFS/devices/system/cpu" -path '*/cache/index*/size' -delete
    mkdir -p "$MEMSUITE_SYSFS/firmware/devicetree/base"
    printf 'linux,dummy-virt\0' >"$MEMSUITE_SYSFS/firmware/devicetree/base/compatible"
    "$BIN/memsuite-facts" --json --only host,virtualization,governor >f.json
    facts_valid f.json
    run jq -r '.virtualization.hypervisor, .llc_source' f.json
    assert_output $'qemu\nnone'
    run fact f.json virtualization
    assert_output --regexp $'^ok\tqemu \\(device tree compatible \'linux,dummy-virt\'; no DMI strings under .*; aarch64 cpuinfo has no hypervisor flag\\)\t$'
    run fact f.json llc
    assert_output --regexp $'^unavailable\t\tthe caches have no sizes in sysfs \\(a device tree without cache sizes\\?\\); sysconf reports no L3 size \\(aarch64 glibc always answers 0\\)'
    run jq -r '.facts[] | select(.key == "governor") | .fix' f.json
    assert_output --partial "cppc_cpufreq on ARM servers"
    # the x86 advice is unchanged on an x86 tree
    use_tree memsuite-vm
    "$BIN/memsuite-facts" --json --only governor >f.json
    run jq -r '.facts[] | select(.key == "governor") | .fix' f.json
    assert_output --partial "(intel_pstate, amd-pstate, acpi-cpufreq)"
}

@test "x86 trees keep their names and flags; the page sizes are this machine's without the test hook" {
    use_tree memsuite-vm
    "$BIN/memsuite-facts" --json --only host,memory >f.json
    facts_valid f.json
    run jq -r '.facts[] | select(.key == "cpu_model" or .key == "cpu_flags") | .verdict' f.json
    assert_output $'ok\nok'
    local ps
    ps=$(getconf PAGESIZE)
    run fact f.json page_size
    assert_output "$(printf 'ok\t%s KiB\t' "$((ps / 1024))")"
    # no hpage_pmd_size in this tree: derived from the page, said so
    run fact f.json pmd_huge_page
    assert_output --regexp $'^unavailable\t[0-9]+ MiB \\(derived from the page size\\)\tcannot read .*/kernel/mm/transparent_hugepage/hpage_pmd_size: No such file or directory'
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
