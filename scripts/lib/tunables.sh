# shellcheck shell=bash
# tunables: GLIBC_TUNABLES names checked against what this glibc knows.
# glibc silently ignores a name it does not know (glibc 2.36 has no
# glibc.malloc.max_total_thread_cache), so a before/after run would
# measure nothing; the list comes from `ld.so --list-tunables` (glibc
# 2.33+), the version from `ld.so --version`.
#
# ms_tunables_unknown VALUE: status 0 when the check could be made, with
# MS_TUN_UNKNOWN (the unknown names, space separated; empty when all are
# known) and MS_TUN_WHY (a sentence naming them and the glibc version);
# status 1 when it could not (MS_TUN_WHY says why).

MS_TUN_UNKNOWN="" MS_TUN_WHY=""

# The dynamic loader: ld.so on PATH, else the usual loader paths.
ms_tunables_ldso() {
    local p
    if p=$(command -v ld.so 2>/dev/null); then printf '%s\n' "$p"; return 0; fi
    for p in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1 /lib64/ld64.so.2 \
        /lib/ld-linux-riscv64-lp64d.so.1 /lib/ld-linux.so.2; do
        [ -x "$p" ] && { printf '%s\n' "$p"; return 0; }
    done
    return 1
}

ms_tunables_unknown() {
    local value="$1" ldso list ver item name
    MS_TUN_UNKNOWN="" MS_TUN_WHY=""
    if ! ldso=$(ms_tunables_ldso); then
        MS_TUN_WHY="the GLIBC_TUNABLES names were not checked: no ld.so found"
        return 1
    fi
    ver=$("$ldso" --version 2>/dev/null | sed -n '1s/.*version \([0-9][0-9.]*[0-9]\).*/\1/p')
    ver="glibc ${ver:-(version unknown)}"
    if ! list=$("$ldso" --list-tunables 2>/dev/null) || [ -z "$list" ]; then
        MS_TUN_WHY="the GLIBC_TUNABLES names were not checked: $ldso --list-tunables gave no list ($ver; it needs glibc 2.33 or later)"
        return 1
    fi
    local IFS=':'
    for item in $value; do
        name="${item%%=*}"
        [ -n "$name" ] || continue
        grep -q "^${name//./\\.}:" <<<"$list" || MS_TUN_UNKNOWN="${MS_TUN_UNKNOWN:+$MS_TUN_UNKNOWN }$name"
    done
    if [ -n "$MS_TUN_UNKNOWN" ]; then
        MS_TUN_WHY="unknown to $ver (not in ld.so --list-tunables), which ignores them: $MS_TUN_UNKNOWN"
    fi
    return 0
}

# ms_tunables_warn CONTEXT VALUE: one warning when a name is unknown.
ms_tunables_warn() {
    [ -n "$2" ] || return 0
    if ms_tunables_unknown "$2" && [ -n "$MS_TUN_UNKNOWN" ]; then
        ms_warn "$1: GLIBC_TUNABLES names $MS_TUN_WHY"
    fi
    return 0
}
