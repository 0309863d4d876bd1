# shellcheck shell=bash
# sysfs: paths under the sysfs/procfs roots, the CPUs and NUMA nodes the
# orchestration acts on (enforce, binding) and the LLC through the helper.
# Machine facts (topology, DIMMs, virtualization, tunables) are the C
# collector's: helpers/memsuite-facts, read through envdoc.sh.
# MEMSUITE_SYSFS (default /sys) and MEMSUITE_PROCFS (default /proc) are
# prefixed to every path, so tests run against fixture trees.

ms_sysfs() { printf '%s%s\n' "${MEMSUITE_SYSFS:-/sys}" "$1"; }
ms_procfs() { printf '%s%s\n' "${MEMSUITE_PROCFS:-/proc}" "$1"; }

# First line of a file; status 1 when it cannot be read.
ms_read_line() {
    local line
    [ -r "$1" ] || return 1
    IFS= read -r line <"$1" || [ -n "$line" ] || return 1
    printf '%s\n' "$line"
}

# ms_read_var NAME FILE: the first line of FILE into variable NAME without
# a subshell; status 1 when it cannot be read.
ms_read_var() {
    local _l=""
    [ -r "$2" ] || return 1
    IFS= read -r _l <"$2" || [ -n "$_l" ] || return 1
    printf -v "$1" '%s' "$_l"
}

# "always [madvise] never" -> "madvise"; a plain value is returned as is.
ms_bracketed() {
    local v="$1"
    if [[ "$v" =~ \[([^]]+)\] ]]; then
        printf '%s\n' "${BASH_REMATCH[1]}"
    else
        v="${v#"${v%%[![:space:]]*}"}"
        printf '%s\n' "${v%%[[:space:]]*}"
    fi
}
# "always [madvise] never" -> "always madvise never"
ms_bracket_choices() { printf '%s\n' "$1" | tr -d '[]'; }

# CPU numbers present under <sysfs>/devices/system/cpu, ascending.
ms_cpu_list() {
    local d n
    local -a seen=()     # an indexed array lists its indices in order
    for d in "${MEMSUITE_SYSFS:-/sys}/devices/system/cpu"/cpu[0-9]*; do
        n="${d##*/cpu}"
        if [ -d "$d" ] && [[ "$n" =~ ^[0-9]+$ ]]; then seen[n]=1; fi
    done
    if [ "${#seen[@]}" -gt 0 ]; then printf '%s\n' "${!seen[@]}"; fi
}

# Online CPUs (cpuN/online absent means online, as for cpu0).
ms_cpu_online_list() {
    local c v root
    root="${MEMSUITE_SYSFS:-/sys}/devices/system/cpu"
    while IFS= read -r c; do
        if ms_read_var v "$root/cpu$c/online"; then [ "$v" = 1 ] || continue; fi
        printf '%s\n' "$c"
    done < <(ms_cpu_list)
}

# ms_cpu_ranges N... (ascending CPU numbers) -> "0-3,5,7-8" ("" for none)
ms_cpu_ranges() {
    local out="" s="" p="" n
    for n in "$@"; do
        if [ -n "$s" ] && [ "$n" -eq $((p + 1)) ]; then
            p=$n
            continue
        fi
        if [ -n "$s" ]; then
            if [ "$s" = "$p" ]; then out+="${out:+,}$s"; else out+="${out:+,}$s-$p"; fi
        fi
        s=$n p=$n
    done
    if [ -n "$s" ]; then
        if [ "$s" = "$p" ]; then out+="${out:+,}$s"; else out+="${out:+,}$s-$p"; fi
    fi
    printf '%s\n' "$out"
}

# Last-level cache, as the C tools detect it (common/sizing through the
# helper memsuite-size --llc): MEMSUITE_LLC, then the sysfs cache
# directories (distinct instances summed), then sysconf x sockets.  Sets
# MS_LLC_BYTES, MS_LLC_SOURCE (override | sysfs | sysconf | none) and
# MS_LLC_NOTE; status 1 when nothing answered.  A MEMSUITE_LLC that does
# not parse is a usage error.
ms_llc_detect() {
    MS_LLC_BYTES=0 MS_LLC_SOURCE=none MS_LLC_NOTE=""
    local key val out helper
    helper=$(ms_size_helper) || ms_die "$MS_EX_ENV" "$MS_SIZE_HELPER_MISSING"
    out=$("$helper" --llc) || true
    while IFS=' ' read -r key val; do
        case "$key" in
            error) ms_usage_error "$val" ;;
            bytes) [[ "$val" =~ ^[0-9]{1,19}$ ]] && MS_LLC_BYTES=$val ;;
            source) MS_LLC_SOURCE=$val ;;
            note) MS_LLC_NOTE=$val ;;
        esac
    done <<<"$out"
    [ "$MS_LLC_SOURCE" != none ] && [ "$MS_LLC_BYTES" -gt 0 ]
}
