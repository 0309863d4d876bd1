#!/usr/bin/env bats
# memsuite env: facts with verdicts and fixes, on fake sysfs/procfs trees
# and stubbed numactl / perf / dmidecode.

load test_helper
load ../fixtures/memsuite-bats/helpers

@test "host tree: governor per CPU, SMT on, NUMA balancing are warnings with fixes" {
    run "$MS" env
    assert_success
    local c
    for c in 0 1 2 3; do
        assert_line --regexp "^warn +governor\.cpu$c +powersave"
    done
    assert_line --regexp "^ +fix: .*performance"
    assert_line --regexp '^warn +smt +on: '
    assert_line --regexp "^ +fix: echo off > $MEMSUITE_SYSFS/devices/system/cpu/smt/control"
    assert_line --regexp '^ok +thp_enabled +madvise$'
    assert_line --regexp '^ok +numa +2 node\(s\): node0 cpus 0,2 32000 MB; node1 cpus 1,3 32000 MB$'
    assert_line --regexp '^warn +numa_balancing +1: '
    assert_line --regexp '^ +fix: sysctl -w kernel.numa_balancing=0$'
    assert_line --regexp '^warn +swappiness +60: '
    # sysinfo's llc fact: total, instances, source, then the detector's note
    assert_line --regexp '^ok +llc +32\.0 MiB total: 2 x 16\.0 MiB L3 \(sysfs\); sysfs: [0-9]+ distinct L3 instance'
    refute_output --partial "sysfs: sysfs:"
    # the keys of the tools' sysinfo (one key per fact; was one "cpus" line)
    assert_line --regexp '^ok +cpus_online +4$'
    assert_line --regexp '^ok +cores +2$'
    assert_line --regexp '^ok +sockets +2$'
    assert_line --regexp '^ok +virtualization +none '
}

@test "performance governor and SMT off are ok" {
    local c
    for c in 0 1 2 3; do echo performance >"$MEMSUITE_SYSFS/devices/system/cpu/cpu$c/cpufreq/scaling_governor"; done
    echo off >"$MEMSUITE_SYSFS/devices/system/cpu/smt/control"
    run "$MS" env
    assert_success
    assert_line --regexp '^ok +governor\.cpu3 +performance$'
    assert_line --regexp '^ok +smt +off$'
}

@test "VM tree: no cpufreq is unavailable with the reason; SMT notsupported is ok" {
    use_tree memsuite-vm
    run "$MS" env
    assert_success
    assert_line --regexp '^unavailable +governor +no cpufreq under .*cpufreq \(VM, or no cpufreq driver loaded\)$'
    assert_line --regexp '^ok +smt +notsupported \(no SMT siblings\)$'
    assert_line --regexp '^unavailable +numa_balancing +'
    refute_line --regexp 'governor\.cpu'
}

@test "DIMMs as root: type, speed, population per socket and the theoretical peak" {
    MEMSUITE_ASSUME_ROOT=1 run "$MS" env
    assert_success
    assert_line --regexp '^ok +dimms +8/16 slots populated, DDR4, 16 GB each, 3200 MT/s \(socket 0 4/8, socket 1 4/8\)$'
    assert_line --regexp '^ok +peak +204800 MB/s \(8 channel\(s\) x 3200 MT/s x 8 bytes\)$'
}

@test "unbalanced DIMM population is flagged" {
    FAKE_DMI=unbalanced MEMSUITE_ASSUME_ROOT=1 run "$MS" env
    assert_success
    assert_line --regexp '^warn +dimms +8/16 slots populated, .*\(socket 0 6/8, socket 1 2/8\): unbalanced: populated DIMMs differ between sockets$'
    assert_line --regexp '^ok +peak +153600 MB/s \(6 channel'
}

@test "DIMMs without root are unavailable, and so is the peak" {
    MEMSUITE_ASSUME_ROOT=0 run "$MS" env
    assert_success
    assert_line --regexp '^unavailable +dimms +dmidecode needs root'
    assert_line --regexp '^unavailable +peak +no DIMM data \(needs root\)$'
}

@test "a VM's DIMM without a speed gives no peak" {
    FAKE_DMI=vm MEMSUITE_ASSUME_ROOT=1 run "$MS" env
    assert_success
    assert_line --regexp '^ok +dimms +1/1 slots populated, RAM, 4 GB each'
    assert_line --regexp '^unavailable +peak +DIMM speed unknown in dmidecode$'
}

@test "hardware counters: perf counting, not supported, paranoid, papi fallback" {
    stub perf 'echo "123456,,instructions,800000,100.00,," >&2'
    run "$MS" env
    assert_line --regexp '^ok +counters +perf: instructions counted \(123456'
    stub perf 'echo "<not supported>,,instructions,0,100.00,," >&2'
    run "$MS" env
    assert_line --regexp '^unavailable +counters +perf: instructions <not supported> \(no hardware PMU exposed; VM\?\)$'
    stub perf 'echo "Error: Access to performance monitoring and observability operations is limited. Consider adjusting /proc/sys/kernel/perf_event_paranoid" >&2; exit 255'
    run "$MS" env
    assert_line --regexp '^unavailable +counters +perf: access denied by kernel.perf_event_paranoid$'
    assert_line --regexp '^ +fix: sysctl -w kernel.perf_event_paranoid=1$'
    stub perf 'exit 127'
    stub papi_avail 'echo "Number Hardware Counters : 6"'
    run "$MS" env
    assert_line --regexp '^ok +counters +papi: 6 hardware counters$'
}

@test "--json: a memsuite/env/1 document with a verdict per fact" {
    MEMSUITE_ASSUME_ROOT=1 run "$MS" env --json
    assert_success
    echo "$output" >env.json
    run jq -r '.schema' env.json
    assert_output "memsuite/env/1"
    run jq -r '[.facts[].verdict] | unique | map(select(. != "ok" and . != "warn" and . != "unavailable")) | length' env.json
    assert_output 0
    run jq -r '.peak_mbps, .llc_bytes, .cores, .sockets, (.numa_nodes | join(","))' env.json
    assert_output $'204800\n33554432\n2\n2\n0,1'
    run jq -r '.facts[] | select(.key == "smt") | "\(.verdict) \(.value) \(.fix)"' env.json
    assert_output --regexp '^warn on echo off > '
}

@test "an applied profile shows up in env" {
    mkdir -p "$MEMSUITE_STATE_DIR"
    printf '#memsuite-state 1\nprofile\ttuned\nenv\tGLIBC_TUNABLES\tglibc.malloc.tcache_count=1024\n' >"$MEMSUITE_STATE_DIR/profile.state"
    run "$MS" env
    assert_line --regexp '^ok +profile +tuned \(applied\)$'
    assert_line --regexp '^ok +glibc_tunables +glibc.malloc.tcache_count=1024$'
}

@test "--json: numa_nodes counts a memory-only node (no CPUs) too" {
    # Found by make check-topology: a CXL/HBM node (empty cpulist) was left
    # out of numa_nodes, so a 4-node machine reported 3.
    MEMSUITE_SYSFS="$ROOT/tests/fixtures/numa-cpuless/sys" run "$MS" env --json
    assert_success
    run jq -r '.numa_nodes | join(",")' <<<"$output"
    assert_output "0,1,2"
}

@test "virtualization from DMI and the CPU's hypervisor flag; dirty ratios recorded" {
    run "$MS" env
    assert_success
    assert_line --regexp "^ok +virtualization +none \(DMI sys_vendor 'Dell Inc\.', product 'PowerEdge R650': no hypervisor vendor; cpuinfo without the hypervisor flag\)$"
    assert_line --regexp '^ok +dirty_ratio +20$'
    assert_line --regexp '^ok +dirty_background_ratio +10$'
    use_tree memsuite-vm
    run "$MS" env --json
    assert_success
    run jq -r '.virtualization.hypervisor, .virtualization.evidence' <<<"$output"
    assert_output $'qemu\nqemu (DMI sys_vendor \'QEMU\'; cpuinfo flag hypervisor)'
    # no DMI, flag only: a VM of an unnamed hypervisor
    rm -rf "$MEMSUITE_SYSFS/class/dmi"
    run "$MS" env
    assert_line --regexp '^ok +virtualization +vm \(no DMI strings under .*; cpuinfo flag hypervisor\)$'
    # neither witness: unavailable with both reasons
    rm -f "$MEMSUITE_PROCFS/cpuinfo"
    run "$MS" env
    assert_line --regexp '^unavailable +virtualization +no DMI strings under .*; cannot read .*/cpuinfo: No such file or directory$'
}

@test "Grace Hopper tree: memsuite env and mencal env name NVIDIA Grace, its Neoverse V2 part, 64 KiB pages and the CPU-less HBM node" {
    use_tree arm-grace
    # a 64 KiB-page kernel; aarch64 glibc answers 0 for sysconf's L3
    export MEMSUITE_TEST_PAGE_SIZE=65536 MEMSUITE_SYSCONF_L3=0
    run "$MS" env
    assert_success
    assert_line --regexp '^ok +cpu_model +NVIDIA Grace \(ARM Neoverse V2 r0p0; SoC ID jep106:036b:0241\)$'
    assert_line --regexp '^ok +page_size +64 KiB$'
    assert_line --regexp '^ok +pmd_huge_page +512 MiB \(hpage_pmd_size\)$'
    assert_line --regexp '^ok +llc +114\.0 MiB total: 1 x 114\.0 MiB L3 \(sysfs\)'
    assert_line --regexp '^ok +governor\.cpu0 +performance$'
    "$MS" env --json >env.json
    # node1, the HBM, has memory and no CPUs: not a bind target
    run jq -r '(.numa_nodes | join(",")), (.numa_cpu_nodes | join(","))' env.json
    assert_output $'0,1\n0'
    run "$MEMSUITE_REAL_BIN/mencal" env
    assert_success
    assert_line --regexp '^cpu_model +NVIDIA Grace \(ARM Neoverse V2 r0p0; SoC ID jep106:036b:0241\)$'
    assert_line --regexp '^page_size_bytes +65536$'
    assert_line --regexp '^pmd_size_bytes +536870912$'
    assert_line --regexp '^memory_nodes +node0 local DRAM [0-9.]+ GiB; node1 CPU-less memory [0-9.]+ GiB$'
}

@test "Graviton3 and A64FX trees: memsuite env names each CPU and its page size" {
    export MEMSUITE_SYSCONF_L3=0
    use_tree arm-graviton3
    run "$MS" env
    assert_success
    assert_line --regexp '^ok +cpu_model +AWS Graviton3 \(ARM Neoverse V1 r1p1; SMBIOS processor version\)$'
    assert_line --regexp '^ok +virtualization +amazon '
    assert_line --regexp '^unavailable +governor .*'
    assert_line --regexp '^ +fix: .*cppc_cpufreq'
    use_tree arm-a64fx
    MEMSUITE_TEST_PAGE_SIZE=65536 run "$MS" env
    assert_success
    assert_line --regexp '^ok +cpu_model +Fujitsu A64FX r1p0$'
    assert_line --regexp '^ok +page_size +64 KiB$'
    assert_line --regexp '^ok +llc +16\.0 MiB total: 2 x 8\.0 MiB L2 \(sysfs\)'
}
