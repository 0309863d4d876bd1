# shellcheck shell=bash
# sysfs: paths under the sysfs/procfs roots, the CPUs and NUMA nodes the
# orchestration acts on (enforce, binding) and the LLC through the helper.
# Machine facts (topology, DIMMs, virtualization, tunables) are the C
# collector's: helpers/memsuite-facts, read through envdoc.sh.
# MEMSUITE_SYSFS (default /sys) and MEMSUITE_PROCFS (default /proc) are
# prefixed to every path, so tests run against fixture trees.

ms_sysfs() { printf '%s%s\n' "${MEMSUITE_SYSFS:-/sys}" "$1"; }
ms_procfs() { printf '%s%s\n' "${MEMSUITE_PROCFS:-/proc}" "$1"; }

# ---- the one reader of fact files -------------------------------------
# The rule of common/factfile.h: a fact file (under sysfs, procfs or a
# fixture tree standing for them) is read only when it is a regular file,
# not a symbolic link at its last component (the links of sysfs on the way,
# node/nodeN/cpuM, still work) and at most MS_FACT_FILE_MAX bytes by its
# size (procfs files say 0); it is opened without blocking (grep -D skip
# opens with O_NONBLOCK and skips a FIFO, a device or a socket), so a FIFO
# or a sparse 1 GiB file in a fixture tree never stalls a command.
MS_FACT_FILE_MAX=16777216       # bytes, as MB_FACT_FILE_MAX

# ms_fact_cat [-H] FILE...: the lines of each FILE that is a fact file by
# the rule above, "PATH:LINE" with -H; the others are left out (a look not
# taken; ms_fact_why says why).  Status 0 whatever was left out.
ms_fact_cat() {
    local h=-h f
    local -a files=()
    if [ "${1:-}" = -H ]; then h=-H; shift; fi
    for f in "$@"; do
        [[ "$f" == -* || "$f" == [\(\)\!]* ]] && f="./$f"    # never an option or operator of find
        files+=("$f")
    done
    [ "${#files[@]}" -gt 0 ] || return 0
    find "${files[@]}" -maxdepth 0 -type f -size "-$((MS_FACT_FILE_MAX + 1))c" -print0 2>/dev/null |
        xargs -0 -r grep -a -s -D skip "$h" '' 2>/dev/null || true
}

# ms_fact_why FILE: why FILE is no fact file, in words ("not a regular
# file (a FIFO)"); status 1 when it is one.
ms_fact_why() {
    local f="$1"
    if [ -L "$f" ]; then echo "a symbolic link, not a kernel fact file"
    elif [ ! -e "$f" ]; then echo "No such file or directory"
    elif [ -p "$f" ]; then echo "not a regular file (a FIFO)"
    elif [ -c "$f" ]; then echo "not a regular file (a character device)"
    elif [ -b "$f" ]; then echo "not a regular file (a block device)"
    elif [ -S "$f" ]; then echo "not a regular file (a socket)"
    elif [ -d "$f" ]; then echo "not a regular file (a directory)"
    elif [ ! -f "$f" ]; then echo "not a regular file"
    elif [ ! -r "$f" ]; then echo "Permission denied"
    elif [ -z "$(ms_fact_cat "$f" | head -c 1)" ] && [ -s "$f" ]; then
        echo "larger than $((MS_FACT_FILE_MAX >> 20)) MiB, not a kernel fact file"
    else
        return 1
    fi
}

# First line of a fact file (ms_fact_cat's rule); status 1 when it cannot
# be read or is empty.
ms_read_line() {
    local line
    line=$(ms_fact_cat "$1" | head -n 1) && [ -n "$line" ] || return 1
    printf '%s\n' "$line"
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

# Online CPUs (cpuN/online absent means online, as for cpu0; one that is
# no fact file, a FIFO, says nothing and the CPU counts as online).
ms_cpu_online_list() {
    local c root path v
    local -A online=()
    local -a cpus=() files=()
    root="${MEMSUITE_SYSFS:-/sys}/devices/system/cpu"
    mapfile -t cpus < <(ms_cpu_list)
    for c in "${cpus[@]}"; do files+=("$root/cpu$c/online"); done
    while IFS= read -r v; do
        path="${v%:*}" v="${v##*:}"
        path="${path%/online}"
        online["${path##*/cpu}"]="$v"
    done < <(ms_fact_cat -H "${files[@]}" | awk -v p="$root/cpu" 'substr($0, 1, length(p)) == p { print }')
    for c in "${cpus[@]}"; do
        [ "${online[$c]-1}" = 1 ] || continue
        printf '%s\n' "$c"
    done
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
