# shellcheck shell=bash
# envdoc: the environment document, read from the C collector
# (helpers/memsuite-facts: common/facts over sysinfo, dimms, virt, sizing).
# The bash side collects no fact: it hands the helper the GLIBC_TUNABLES a
# profile applied and the name of the applied profile (what only
# memsuite's state knows), and reads single values with jq one-liners.

ms_use profiles

# The GLIBC_TUNABLES in effect: the environment's, else an applied profile's.
ms_env_tunables() {
    if [ -n "${GLIBC_TUNABLES:-}" ]; then printf '%s\n' "$GLIBC_TUNABLES"; else ms_profile_active_tunables; fi
}

# ms_facts [--json] [--only GROUP,...]: the helper's output (memsuite-facts(1)).
ms_facts() {
    local helper
    helper=$(ms_helper memsuite-facts) || ms_die "$MS_EX_ENV" "$(ms_helper_missing memsuite-facts)"
    GLIBC_TUNABLES="$(ms_env_tunables)" "$helper" "$@"
}

# The env document (schema memsuite/env/1) on stdout: the facts document
# plus memsuite's version and the applied profile (a fact too), all made
# by the helper; memsuite's state names the profile.
ms_env_json() { ms_env_facts --json; }

# The env text: the helper's lines, the applied profile last.
ms_env_text() { ms_env_facts; }

# ms_env_facts [ARG...]: the helper's env document, --profile NAME when one
# is applied.
ms_env_facts() {
    local profile
    profile=$(ms_profile_active) || profile=""
    ms_facts --env ${profile:+--profile "$profile"} "$@"
}

# Physical cores (distinct package/die/core), else the online CPUs, else 1.
ms_physical_cores() {
    ms_facts --json --only host | jq -r '.cores // ([.facts[] | select(.key == "cpus_online") | .value | tonumber][0]) // 1'
}

# ms_tunables_warn CONTEXT VALUE: one warning when glibc does not know a
# name in VALUE (it ignores such names without a word).
ms_tunables_warn() {
    [ -n "$2" ] || return 0
    local why
    why=$(GLIBC_TUNABLES="$2" ms_facts --json --only tunables |
        jq -r '.facts[] | select(.key == "glibc_tunables" and .verdict == "warn") | .why')
    [ -z "$why" ] || ms_warn "$1: GLIBC_TUNABLES names $why"
    return 0
}

# MemAvailable in bytes (the C collector's memory group); status 1 when unknown.
ms_mem_available_bytes() {
    local v
    v=$(ms_facts --json --only memory | jq -r '.facts[] | select(.key == "mem_available_bytes" and .verdict == "ok") | .value')
    [ -n "$v" ] && printf '%s\n' "$v"
}

# NUMA node numbers with CPUs, one a line (memory-only nodes are not bind targets).
ms_numa_nodes() {
    ms_facts --json --only numa | jq -r '.numa_cpu_nodes[]'
}
