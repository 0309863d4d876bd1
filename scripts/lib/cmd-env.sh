# Summary: check the environment that changes memory figures, with fixes
# Usage: memsuite env [--json]
#
# Prints every fact with a verdict (ok, warn, unavailable) and, where it
# helps, the command that fixes it: the CPU governor of each CPU and
# whether cpupower is installed; SMT; transparent huge pages; the NUMA
# layout (numactl --hardware), numa_balancing and swappiness; the DIMMs
# (dmidecode -t memory, as root: type, speed, populated slots per socket,
# unbalanced population flagged); the theoretical peak bandwidth
# (channels x MT/s x 8 bytes) when the DIMM data allows; whether hardware
# counters are usable (perf stat, else papi_avail); the applied profile.
#
#   --json    the same facts as a JSON document (schema memsuite/env/1)
#
# The facts come from the C collector, the helper memsuite-facts (keys and
# values as in the tools' sysinfo; docs/results-format.md).
# MEMSUITE_SYSFS and MEMSUITE_PROCFS point at other sysfs/procfs roots.
# Always exits 0 once the facts are printed; a "warn" is advice.

ms_use envdoc

cmd_env() {
    local json=0
    while [ $# -gt 0 ]; do
        case "$1" in
            --json) json=1 ;;
            -h|--help) ms_cmd_help ;;
            *) ms_unknown_option "$1" ;;
        esac
        shift
    done
    # made first, then written by ms_stdout: a failed write (stdout on a
    # full disk, /dev/full) is exit 3 with a message, not jq's exit 2 or
    # a raw printf error with 1 (hostile sweep output-042)
    local out
    if [ "$json" = 1 ]; then
        out=$(ms_env_json) || ms_die "$MS_EX_ENV" "cannot make the JSON document of the facts"
    else
        out=$(ms_env_text)
    fi
    ms_stdout "$out"
}
