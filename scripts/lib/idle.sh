# shellcheck shell=bash
# idle: is this node quiet enough to measure?  A bandwidth figure taken
# while other work runs measures the other work too: `memsuite check`
# calls this before it measures, and a busy node is an ERROR ("node busy:
# ..."), never a FAIL.  Three looks, all through <procfs> (MEMSUITE_PROCFS
# for fixture trees):
#
#   load      the 1-minute load average (loadavg) above MAX_LOAD
#   cpu       the share of all CPUs' time spent outside idle and iowait
#             (user, nice, system, irq, softirq, steal) over a short
#             sample of <procfs>/stat, above MAX_BUSY %: other processes
#             running now (the load average lags by a minute)
#   memory    MemAvailable below twice the memory the benchmark needs:
#             others hold the memory, the run would reclaim or swap
#
# A look that cannot be taken (no such file, a sample that did not
# advance, as in a fixture tree) is skipped and said so, never guessed.

ms_use sysfs

MS_IDLE_SAMPLE_S=0.25       # the /proc/stat sample, seconds

# ms_idle_cpu_ticks: "busy<TAB>total" jiffies of the aggregate cpu line
ms_idle_cpu_ticks() {
    awk '$1 == "cpu" { busy = $2 + $3 + $4 + $7 + $8 + $9; total = busy + $5 + $6; print busy "\t" total; exit }' \
        "$(ms_procfs /stat)" 2>/dev/null
}

# ms_idle_check MAX_LOAD MAX_BUSY_PCT NEED_BYTES: 0 when idle; 1 when
# busy, with MS_IDLE_WHY ("load average 3.10 > 1.00 (2 CPUs)" ...).
# Either way MS_IDLE_FACTS holds "key<TAB>value" lines of what was seen
# (load1, max_load, cpu_busy_pct, max_busy_pct, mem_available_bytes,
# need_bytes; "-" for a look not taken; skipped: the looks not taken and
# why), MS_IDLE_NOTES the same text.
ms_idle_check() {
    local max_load="$1" max_busy="$2" need="$3" load="-" busy="-" avail="-" a b why=""
    MS_IDLE_NOTES="" MS_IDLE_WHY=""
    local f
    f=$(ms_procfs /loadavg)
    if [ -r "$f" ] && read -r load _ <"$f" && [[ "$load" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
        if [ "$(awk -v l="$load" -v m="$max_load" 'BEGIN { print (l > m) }')" = 1 ]; then
            why+="${why:+; }load average $load > $max_load"
        fi
    else
        load="-"
        MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }no load average in $f"
    fi
    if a=$(ms_idle_cpu_ticks) && [ -n "$a" ]; then
        sleep "$MS_IDLE_SAMPLE_S"
        b=$(ms_idle_cpu_ticks) || b=""
        busy=$(awk -F '\t' -v a="$a" -v b="$b" 'BEGIN {
            split(a, x, "\t"); split(b, y, "\t")
            if (b == "" || y[2] <= x[2]) { print "-"; exit }
            printf "%.1f\n", (y[1] - x[1]) / (y[2] - x[2]) * 100 }')
        if [ "$busy" = "-" ]; then
            MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }$(ms_procfs /stat) did not advance over ${MS_IDLE_SAMPLE_S} s: CPU time not judged"
        elif [ "$(awk -v v="$busy" -v m="$max_busy" 'BEGIN { print (v > m) }')" = 1 ]; then
            why+="${why:+; }other processes use ${busy}% of the CPU time (> ${max_busy}%)"
        fi
    else
        MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }no cpu line in $(ms_procfs /stat)"
    fi
    if avail=$(ms_mem_available_bytes); then
        if [ "$need" -gt 0 ] && [ "$avail" -lt $((2 * need)) ]; then
            why+="${why:+; }MemAvailable $(ms_human_bytes "$avail") < 2 x the $(ms_human_bytes "$need") the benchmark needs"
        fi
    else
        avail="-"
        MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }no MemAvailable in $(ms_procfs /meminfo)"
    fi
    MS_IDLE_FACTS=$(printf 'load1\t%s\nmax_load\t%s\ncpu_busy_pct\t%s\nmax_busy_pct\t%s\nmem_available_bytes\t%s\nneed_bytes\t%s\nskipped\t%s\n' \
        "$load" "$max_load" "$busy" "$max_busy" "$avail" "$need" "${MS_IDLE_NOTES:--}")
    MS_IDLE_WHY="$why"
    [ -z "$why" ]
}

# ms_idle_default_load: the default MAX_LOAD: a quarter of the online
# CPUs, at least 1 (a node that just finished a job decays below it
# within a minute or two).
ms_idle_default_load() {
    local n
    n=$(ms_cpu_online_list | wc -l)
    awk -v n="$n" 'BEGIN { m = n / 4; if (m < 1) m = 1; printf "%g\n", m }'
}
