# shellcheck shell=bash
# throttle: watch the CPU frequency and the thermal-throttle counters while
# a benchmark runs (the KeyarchOS mencal study lost a run to a CPU that hit
# its thermal limit and slowed down half way).
#
# A sample is "t_s<TAB>freq_khz<TAB>throttle_count":
#   freq_khz        mean of <sysfs>/devices/system/cpu/cpu*/cpufreq/
#                   scaling_cur_freq, else of the "cpu MHz" lines of
#                   <procfs>/cpuinfo (x 1000); empty when neither exists
#   throttle_count  sum of <sysfs>/devices/system/cpu/cpu*/thermal_throttle/
#                   *_throttle_count; empty when there are none
# ms_throttle_start FILE samples every MEMSUITE_THROTTLE_INTERVAL seconds
# (default 1) in the background until ms_throttle_stop; ms_throttle_verdict
# FILE reads them (common/cpufreq's rule): a frequency drop of more than
# MEMSUITE_THROTTLE_PCT percent (default 10) below the first sample, or a
# throttle count that rose, is a warning naming the sample.

ms_use envdoc

MS_THR_PID=""

# ms_throttle_sample T0 -> "seconds<TAB>kHz<TAB>throttle count" (empty
# fields when unknown), the sample from the C collector (common/cpufreq).
ms_throttle_sample() {
    printf '%s\t%s\n' "$((EPOCHSECONDS - $1))" "$(ms_facts --json --only frequency |
        jq -r '[.facts[] | select(.key == "cpu_freq_khz" or .key == "throttle_count") | .value] | @tsv')"
}

# ms_throttle_start FILE: one sample now, then one per interval until stop.
ms_throttle_start() {
    local file="$1" iv="${MEMSUITE_THROTTLE_INTERVAL:-1}" t0=$EPOCHSECONDS
    [[ "$iv" =~ ^[0-9]+(\.[0-9]+)?$ ]] || iv=1
    ms_throttle_sample "$t0" >"$file"
    # The sampler waits with the read builtin on a FIFO nobody writes (a
    # timeout with no child process), so it needs no TERM trap: the
    # default action ends it at once.  A trap it once had misfired under
    # bash 5.2 when TERM arrived while the loop parsed a command
    # substitution ("trap: line 2: unexpected EOF while looking for
    # matching `)'"), failing the run.
    local fifo parent=$BASHPID
    fifo=$(ms_mktemp -d)/tick
    mkfifo -m 600 -- "$fifo" || fifo=""
    (
        # A background helper (cleanup.sh): none of memsuite's descriptors
        # nor its lock, and it ends when memsuite dies, SIGKILL included.
        exec </dev/null >/dev/null 2>&1
        ms_drop_fds
        local tick
        if [ -n "$fifo" ] && exec {tick}<>"$fifo"; then :; else tick=""; fi
        while ms_parent_is "$parent"; do
            if [ -n "$tick" ]; then read -r -t "$iv" -u "$tick" _ || true; else sleep "$iv"; fi
            ms_throttle_sample "$t0" >>"$file"
        done
    ) &
    MS_THR_PID=$!
    ms_at_exit ms_throttle_stop
}

# ms_throttle_running PID: the sampler has not exited yet (an exited one
# stays a zombie until waited for, which kill -0 still sees).
ms_throttle_running() {
    local st
    read -r st 2>/dev/null <"/proc/$1/stat" || return 1
    st=${st##*) }
    [ "${st%% *}" != Z ]
}

# ms_throttle_stop: end the sampler (one last sample is taken by the caller).
ms_throttle_stop() {
    [ -n "$MS_THR_PID" ] || return 0
    # TERM, then at most 2 s for it to go, then KILL: a sampler whose TERM
    # was lost (it arrived while a signal handler of ours ran) must not
    # leave memsuite waiting for ever.
    local tries=20
    kill -TERM "$MS_THR_PID" 2>/dev/null || true   # already gone is fine
    while [ "$tries" -gt 0 ] && ms_throttle_running "$MS_THR_PID"; do
        sleep 0.1
        tries=$((tries - 1))
    done
    kill -KILL "$MS_THR_PID" 2>/dev/null || true
    wait "$MS_THR_PID" 2>/dev/null || true   # 143: ended by our TERM
    MS_THR_PID=""
    return 0
}

# ms_throttle_verdict FILE -> "ok|warn|unavailable<TAB>detail": the one
# rule, common/cpufreq's (mencal's stability scenario applies it too),
# through memsuite-facts --throttle-verdict.
ms_throttle_verdict() {
    local pct="${MEMSUITE_THROTTLE_PCT:-10}" helper
    [[ "$pct" =~ ^[0-9]+(\.[0-9]+)?$ ]] && [ "${pct%%.*}" -le 100 ] 2>/dev/null || pct=10
    helper=$(ms_helper memsuite-facts) || { printf 'unavailable\t%s\n' "$(ms_helper_missing memsuite-facts)"; return 0; }
    "$helper" --throttle-verdict "$1" --threshold "$pct" 2>/dev/null ||
        printf 'unavailable\tthe samples in %s could not be read\n' "$1"
}
