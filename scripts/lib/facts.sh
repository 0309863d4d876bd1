# shellcheck shell=bash
# facts: the environment facts that change a memory figure, each with a
# verdict (ok | warn | unavailable), the reason and the command that fixes
# it.  Used by `memsuite env` and stored as env.json in every results dir.

ms_use sysfs knobs dimms profiles virt tunables

MS_F_KEY=() MS_F_VAL=() MS_F_VERDICT=() MS_F_WHY=() MS_F_FIX=()
MS_PEAK_MBPS="" MS_PEAK_TEXT=""
MS_CORES="" MS_SOCKETS=""

# ms_fact KEY VERDICT VALUE [WHY] [FIX]
ms_fact() {
    local clean=()
    local a
    for a in "$1" "$2" "$3" "${4:-}" "${5:-}"; do
        a="${a//$'\t'/ }"
        clean+=("${a//$'\n'/ }")
    done
    MS_F_KEY+=("${clean[0]}")
    MS_F_VERDICT+=("${clean[1]}")
    MS_F_VAL+=("${clean[2]}")
    MS_F_WHY+=("${clean[3]}")
    MS_F_FIX+=("${clean[4]}")
}

ms_facts_host() {
    ms_fact host ok "$(ms_hostname)"
    ms_fact kernel ok "$(uname -sr)"
    ms_topology
    MS_CORES="$MS_TOPO_CORES"
    MS_SOCKETS="$MS_TOPO_SOCKETS"
    ms_fact cpus ok "$(ms_cpu_online_list | wc -l) online, $MS_CORES physical core(s), $MS_SOCKETS socket(s)"
    if ms_llc_detect; then
        # the detector's note may open with its source already ("sysfs: ...")
        local v note=${MS_LLC_NOTE#"$MS_LLC_SOURCE: "}
        v="$(ms_human_bytes "$MS_LLC_BYTES") ($MS_LLC_SOURCE: $note)"
        if [ "$MS_LLC_SOURCE" = sysconf ]; then
            ms_fact llc warn "$v" "sysconf may report the host's cache in a VM" "MEMSUITE_LLC=<size> memsuite run ... (if the value is wrong)"
        else
            ms_fact llc ok "$v"
        fi
    else
        ms_fact llc unavailable "" "$MS_LLC_NOTE" "MEMSUITE_LLC=<size> memsuite run ... or --sizes with absolute sizes"
    fi
}

ms_facts_governor() {
    local c v any=0 fix
    if command -v cpupower >/dev/null 2>&1; then
        ms_fact cpupower ok "$(command -v cpupower)"
        fix="cpupower frequency-set -g performance (or memsuite run --enforce)"
    else
        ms_fact cpupower warn "not installed" "cpupower sets the governor on every CPU at once" "apt-get install linux-cpupower (dnf install kernel-tools)"
        fix="echo performance | tee $(ms_sysfs /devices/system/cpu)/cpu*/cpufreq/scaling_governor (or memsuite run --enforce)"
    fi
    while IFS= read -r c; do
        if v=$(ms_knob_get "governor.cpu$c"); then
            any=1
            if [ "$v" = performance ]; then
                ms_fact "governor.cpu$c" ok "$v"
            else
                ms_fact "governor.cpu$c" warn "$v" "frequency scaling adds noise; STREAM practice is 'performance'" "$fix"
            fi
        fi
    done < <(ms_cpu_online_list)
    if [ "$any" = 0 ]; then
        ms_fact governor unavailable "" "no cpufreq under $(ms_sysfs /devices/system/cpu)/cpu*/cpufreq (VM, or no cpufreq driver loaded)" \
            "nothing to do in a VM; on bare metal load a cpufreq driver (intel_pstate, amd-pstate, acpi-cpufreq)"
    fi
}

ms_facts_smt() {
    local v p
    p=$(ms_knob_path smt)
    if ! v=$(ms_knob_get smt); then
        ms_fact smt unavailable "" "$v" "a kernel with CONFIG_HOTPLUG_SMT exposes $p"
        return
    fi
    case "$v" in
        on) ms_fact smt warn on "SMT siblings share a core's caches and add noise" "echo off > $p (or memsuite run --enforce)" ;;
        off|forceoff) ms_fact smt ok "$v" ;;
        notsupported) ms_fact smt ok "notsupported (no SMT siblings)" ;;
        *) ms_fact smt unavailable "$v" "the kernel cannot switch SMT here ($v)" "disable SMT in the firmware setup" ;;
    esac
}

ms_facts_thp() {
    local v p
    p=$(ms_knob_path thp)
    if v=$(ms_knob_get thp); then
        case "$v" in
            always) ms_fact thp warn always "huge pages on for every mapping; the methodology default is off (madvise/never) with an explicit on/off comparison" \
                        "echo madvise > $p; compare with: memsuite run --profile tuned --baseline" ;;
            *) ms_fact thp ok "$v" ;;
        esac
    else
        ms_fact thp unavailable "" "$v" "a kernel with CONFIG_TRANSPARENT_HUGEPAGE"
    fi
    if v=$(ms_knob_get thp.defrag); then
        ms_fact thp.defrag ok "$v"
    fi
}

ms_facts_numa() {
    local out nodes v
    nodes=$(ms_numa_all_nodes | wc -l)
    if ! command -v numactl >/dev/null 2>&1; then
        ms_fact numa unavailable "$nodes node(s) in sysfs" "numactl is not installed; --bind node:N and check --per-node need it" "apt-get install numactl (dnf install numactl)"
    elif ! out=$(numactl --hardware 2>&1); then
        ms_fact numa unavailable "$nodes node(s) in sysfs" "numactl --hardware failed: $(head -n 1 <<<"$out")" "check that the kernel has NUMA support"
    else
        v=$(awk '
            function ranges(list,   n, a, i, out, s, p) {
                n = split(list, a, " "); out = ""
                for (i = 1; i <= n; i++) {
                    if (i == 1 || a[i] != p + 1) { if (i > 1) out = out (s == p ? s : s "-" p) ","; s = a[i] }
                    p = a[i]
                }
                if (n > 0) out = out (s == p ? s : s "-" p)
                return out
            }
            /^available:/ { head = $2 " node(s)" }
            /^node [0-9]+ cpus:/ { l = $0; sub(/^node [0-9]+ cpus: */, "", l); cpus[$2] = ranges(l); order[++n] = $2 }
            /^node [0-9]+ size:/ { size[$2] = $4 " " $5 }
            END {
                out = head
                for (i = 1; i <= n; i++) { k = order[i]; out = out (i == 1 ? ": " : "; ") "node" k " cpus " (cpus[k] == "" ? "none" : cpus[k]) " " size[k] }
                print out
            }' <<<"$out")
        ms_fact numa ok "$v"
    fi
    if v=$(ms_knob_get kernel.numa_balancing); then
        if [ "$v" != 0 ] && [ "$nodes" -gt 1 ]; then
            ms_fact kernel.numa_balancing warn "$v" "automatic page migration moves pages during the run" "sysctl -w kernel.numa_balancing=0"
        elif [ "$v" != 0 ]; then
            ms_fact kernel.numa_balancing ok "$v (single node: no effect)"
        else
            ms_fact kernel.numa_balancing ok "$v"
        fi
    else
        ms_fact kernel.numa_balancing unavailable "" "$v" "none needed: the kernel has no automatic NUMA balancing"
    fi
    if ! v=$(ms_knob_get vm.swappiness); then
        ms_fact vm.swappiness unavailable "" "$v"
    elif ! [[ "$v" =~ ^[0-9]{1,9}$ ]]; then
        ms_fact vm.swappiness unavailable "" "$(ms_knob_path vm.swappiness) holds $(printf '%q' "${v:0:40}"), not a number"
    elif [ "$v" -gt 10 ]; then
        ms_fact vm.swappiness warn "$v" "anonymous memory may be swapped under pressure; the tuned profile uses 10" "sysctl -w vm.swappiness=10 (or memsuite profile apply tuned)"
    else
        ms_fact vm.swappiness ok "$v"
    fi
    local k
    for k in vm.dirty_ratio vm.dirty_background_ratio; do
        if v=$(ms_knob_get "$k"); then
            ms_fact "$k" ok "$v"
        else
            ms_fact "$k" unavailable "" "$v"
        fi
    done
}

ms_facts_virt() {
    if ms_virt_detect; then
        ms_fact virtualization ok "$MS_VIRT_TEXT"
    else
        ms_fact virtualization unavailable "" "$MS_VIRT_TEXT" "mount sysfs and procfs (or point MEMSUITE_SYSFS/MEMSUITE_PROCFS at them)"
    fi
}

ms_facts_dimms() {
    local out rc=0 tbl
    MS_PEAK_MBPS="" MS_PEAK_TEXT=""
    if ! command -v dmidecode >/dev/null 2>&1; then
        ms_fact dimms unavailable "" "dmidecode is not installed" "apt-get install dmidecode (dnf install dmidecode)"
        MS_PEAK_TEXT="no DIMM data (dmidecode not installed)"
    elif ! ms_is_root; then
        ms_fact dimms unavailable "" "dmidecode needs root to read the SMBIOS tables" "sudo memsuite env"
        MS_PEAK_TEXT="no DIMM data (needs root)"
    else
        out=$(dmidecode -t memory 2>&1) || rc=$?
        if [ "$rc" -ne 0 ] || ! grep -q '^Memory Device' <<<"$out"; then
            ms_fact dimms unavailable "" "dmidecode -t memory gave no memory devices: $(grep -v '^#' <<<"$out" | tail -n 1)" "none in a VM; on bare metal check /sys/firmware/dmi"
            MS_PEAK_TEXT="no DIMM data"
        else
            tbl=$(ms_mktemp)
            ms_dimm_table <<<"$out" >"$tbl"
            ms_dimm_summary "$tbl"
            case "$MS_DIMM_VERDICT" in
                ok) ms_fact dimms ok "$MS_DIMM_TEXT" ;;
                warn) ms_fact dimms warn "$MS_DIMM_TEXT" "$MS_DIMM_WHY" "populate every socket's channels alike (see the board manual)" ;;
                *) ms_fact dimms unavailable "" "$MS_DIMM_WHY" ;;
            esac
        fi
    fi
    if [ -n "$MS_PEAK_MBPS" ]; then
        ms_fact peak ok "$MS_PEAK_MBPS MB/s ($MS_PEAK_TEXT)"
    else
        ms_fact peak unavailable "" "$MS_PEAK_TEXT" "run memsuite env as root on bare metal with dmidecode installed"
    fi
}

ms_facts_counters() {
    local out rc=0 line n
    if command -v perf >/dev/null 2>&1; then
        out=$(perf stat -x, -e instructions true 2>&1 >/dev/null) || rc=$?
        line=$(grep -m 1 ',instructions' <<<"$out" || true)
        n="${line%%,*}"
        if [ "$rc" -eq 0 ] && [[ "$n" =~ ^[0-9]+$ ]]; then
            ms_fact counters ok "perf: instructions counted ($n for 'true')"
            return
        fi
        if grep -q 'perf_event_paranoid' <<<"$out"; then
            ms_fact counters unavailable "" "perf: access denied by kernel.perf_event_paranoid" "sysctl -w kernel.perf_event_paranoid=1"
            return
        fi
        if [ -n "$line" ]; then
            ms_fact counters unavailable "" "perf: instructions ${n:-not counted} (no hardware PMU exposed; VM?)" "enable the virtual PMU in the hypervisor, or run on bare metal"
            return
        fi
    fi
    if command -v papi_avail >/dev/null 2>&1; then
        out=$(papi_avail 2>&1 || true)
        n=$(awk -F: '/Number Hardware Counters/ { gsub(/ /, "", $2); print $2; exit }' <<<"$out")
        if [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -gt 0 ]; then
            ms_fact counters ok "papi: $n hardware counters"
        else
            ms_fact counters unavailable "" "papi_avail reports ${n:-no} hardware counters (VM?)" "enable the virtual PMU in the hypervisor, or run on bare metal"
        fi
        return
    fi
    ms_fact counters unavailable "" "neither perf nor papi_avail could count instructions" "apt-get install linux-perf papi-tools"
}

ms_facts_profile() {
    local p t
    if p=$(ms_profile_active); then
        ms_fact profile ok "$p (applied)" "" "memsuite profile restore $p"
    else
        ms_fact profile ok "none"
    fi
    t="${GLIBC_TUNABLES:-}"
    [ -z "$t" ] && t=$(ms_profile_active_tunables)
    if [ -n "$t" ] && ms_tunables_unknown "$t" && [ -n "$MS_TUN_UNKNOWN" ]; then
        ms_fact glibc_tunables warn "$t" "$MS_TUN_WHY" "drop the unknown names (ld.so --list-tunables lists what this glibc accepts)"
    else
        ms_fact glibc_tunables ok "${t:-none}"
    fi
    # a preloaded allocator (jemalloc, tcmalloc, mimalloc) replaces glibc's
    # malloc in the benchmarks (mencal --buffer malloc, alloc); the tools
    # themselves name the allocator in effect (sysinfo.allocator)
    ms_fact ld_preload ok "${LD_PRELOAD:-none}"
}

ms_facts_collect() {
    MS_F_KEY=() MS_F_VAL=() MS_F_VERDICT=() MS_F_WHY=() MS_F_FIX=()
    ms_facts_host
    ms_facts_virt
    ms_facts_governor
    ms_facts_smt
    ms_facts_thp
    ms_facts_numa
    ms_facts_dimms
    ms_facts_counters
    ms_facts_profile
}

ms_facts_text() {
    local i v
    for i in "${!MS_F_KEY[@]}"; do
        v="${MS_F_VAL[$i]}"
        if [ "${MS_F_VERDICT[$i]}" = unavailable ]; then
            v="${MS_F_WHY[$i]}${v:+ [$v]}"
        elif [ -n "${MS_F_WHY[$i]}" ]; then
            v="$v: ${MS_F_WHY[$i]}"
        fi
        printf '%-11s %-22s %s\n' "${MS_F_VERDICT[$i]}" "${MS_F_KEY[$i]}" "$v"
        [ -n "${MS_F_FIX[$i]}" ] && printf '%-11s %-22s fix: %s\n' "" "" "${MS_F_FIX[$i]}"
    done
    return 0
}

# The env document (schema memsuite/env/1) on stdout.
ms_facts_json() {
    local i
    for i in "${!MS_F_KEY[@]}"; do
        printf '%s\t%s\t%s\t%s\t%s\n' "${MS_F_KEY[$i]}" "${MS_F_VERDICT[$i]}" "${MS_F_VAL[$i]}" "${MS_F_WHY[$i]}" "${MS_F_FIX[$i]}"
    done | jq -R -s \
        --arg schema "$MS_ENV_SCHEMA" --arg version "$MS_VERSION" --arg time "$(ms_now_utc)" \
        --arg host "$(ms_hostname)" --arg llc "${MS_LLC_BYTES:-0}" --arg llcsrc "${MS_LLC_SOURCE:-none}" \
        --arg cores "${MS_CORES:-0}" --arg sockets "${MS_SOCKETS:-0}" \
        --arg nodes "$(ms_numa_all_nodes | paste -sd, -)" \
        --arg peak "$MS_PEAK_MBPS" --arg peakwhy "$MS_PEAK_TEXT" \
        --arg profile "$(ms_profile_active || true)" \
        --arg tunables "${GLIBC_TUNABLES:-$(ms_profile_active_tunables)}" \
        --arg virt "$MS_VIRT" --arg virttext "$MS_VIRT_TEXT" '
        { schema: $schema, memsuite_version: $version, time: $time, host: $host,
          facts: [ split("\n")[] | select(length > 0) | split("\t")
                   | { key: .[0], verdict: .[1], value: .[2], why: .[3], fix: .[4] } ],
          llc_bytes: (if $llc == "0" then null else ($llc | tonumber) end),
          llc_source: $llcsrc,
          cores: ($cores | tonumber), sockets: ($sockets | tonumber),
          numa_nodes: (if $nodes == "" then [] else ($nodes | split(",") | map(tonumber)) end),
          peak_mbps: (if $peak == "" then null else ($peak | tonumber) end),
          peak_note: $peakwhy,
          profile: (if $profile == "" then null else $profile end),
          glibc_tunables: (if $tunables == "" then null else $tunables end),
          virtualization: { hypervisor: (if $virt == "" then null else $virt end), evidence: $virttext } }'
}
