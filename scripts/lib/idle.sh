# shellcheck shell=bash
# idle: is this node quiet enough to measure, now?  A bandwidth figure
# taken while other work runs measures the other work too: `memsuite
# check` calls this just before it measures, and a busy node is an ERROR
# ("node busy: ..."), never a FAIL.
#
# The rule looks at a short window (MEMSUITE_BUSY_WINDOW seconds, default
# 1) and at what is happening in it, never at a decaying average (the load
# average of a node whose job ended a second ago still says "busy" for a
# minute; it is reported, never the verdict).  Two snapshots of
# <procfs> (MEMSUITE_PROCFS for fixture trees), a window apart:
#
#   demand    every process outside memsuite's own process tree (the
#             check and everything it started): the CPU time it used
#             (utime + stime, <procfs>/<pid>/stat) and the time its
#             threads waited for a CPU (run-queue wait,
#             <procfs>/<pid>/task/*/schedstat).  Their sum over the
#             window is the CPUs' worth of work others want now.  (The
#             time of children a process reaps, cutime, is left out: a
#             child's whole life lands in the window it is reaped in.  A
#             process that starts and ends inside the window is not seen;
#             the CPU pressure below is.)  Busy when it exceeds the limit:
#             --max-busy PCT of the CPUs in the check's affinity mask
#             (Cpus_allowed_list of <procfs>/self/status), by default a
#             quarter of them but at most one CPU (one spinning thread
#             slows a team that uses every core).
#   pressure  where <procfs>/pressure/{cpu,memory} exist: the share of
#             the window some task stalled for a CPU or for memory (the
#             growth of "some total="), above --max-pressure PCT (default
#             20).  This sees what the process scan cannot (processes in
#             another PID namespace, the kernel).
#   memory    MemAvailable below twice the memory the benchmark needs:
#             others hold the memory, the run would reclaim or swap.
#
# Evidence, recorded whatever the verdict: the window, the mask, the
# demand split into running and waiting, the process wanting most, the
# mask CPUs' busy and steal share from <procfs>/stat, the pressure
# shares, MemAvailable, the load average.  A look that cannot be taken (no
# such file, as in a fixture tree) is skipped and said so, never guessed.

ms_use sysfs envdoc

MS_IDLE_WINDOW_DEFAULT=1        # seconds
MS_IDLE_PRESSURE_DEFAULT=20     # % of the window

# ms_idle_window: the window in seconds (MEMSUITE_BUSY_WINDOW: a decimal
# from 0.05 to 10); a bad value is a usage error naming it.
ms_idle_window() {
    local w="${MEMSUITE_BUSY_WINDOW:-$MS_IDLE_WINDOW_DEFAULT}"
    if ! [[ "$w" =~ ^[0-9]+(\.[0-9]+)?$ ]] || [ "$(awk -v w="$w" 'BEGIN { print (w >= 0.05 && w <= 10) }')" != 1 ]; then
        ms_usage_error "MEMSUITE_BUSY_WINDOW: invalid value $(ms_shown "$w"); use seconds from 0.05 to 10"
    fi
    printf '%s\n' "$w"
}

# ms_idle_mask: the check's affinity mask as a CPU list ("0-3,8"): the
# Cpus_allowed_list of <procfs>/self/status, else this process's own
# (/proc/self/status: a fixture tree without one), else the online CPUs.
ms_idle_mask() {
    local f l
    for f in "$(ms_procfs /self/status)" /proc/self/status; do
        l=$(ms_fact_cat "$f" | awk -F '\t' '$1 == "Cpus_allowed_list:" { print $2; exit }') || l=""
        if [[ "$l" =~ ^[0-9,-]+$ ]]; then printf '%s\n' "$l"; return 0; fi
    done
    ms_cpu_online_list | paste -sd, -
}

# ms_idle_snapshot: one look at <procfs>, on stdout, one fact a line:
#   T <microseconds since the epoch>
#   P <pid> <ppid> <cpu ticks: utime+stime> <comm>
#   W <pid> <run-queue wait of all its threads, ns>
#   C <cpu number> <busy ticks> <total ticks> <steal ticks>
#   Q cpu|memory <"some" stall total, us>
# Every file is read by the one fact reader (ms_fact_cat: regular files
# only, without blocking, capped), all in one pass; a process that ends
# between the glob and the read is gone, not an error.
ms_idle_snapshot() {
    local p
    p=$(ms_procfs "")
    printf 'T %s\n' "${EPOCHREALTIME/[.,]/}"
    ms_fact_cat -H "$p"/[0-9]*/stat "$p"/[0-9]*/task/[0-9]*/schedstat "$p/stat" \
        "$p/pressure/cpu" "$p/pressure/memory" | awk -v root="$p/" '
        # "ROOT/REL:LINE": REL (no colon in it) names the file
        substr($0, 1, length(root)) != root { next }
        {
            rel = substr($0, length(root) + 1); i = index(rel, ":")
            path = substr(rel, 1, i - 1); line = substr(rel, i + 1)
            n = split(path, pp, "/")
        }
        path == "stat" {
            split(line, f, " ")
            if (f[1] ~ /^cpu[0-9]+$/) {
                busy = f[2] + f[3] + f[4] + f[7] + f[8] + f[9]
                print "C", substr(f[1], 4), busy, busy + f[5] + f[6], f[9] + 0
            }
            next
        }
        n == 2 && pp[1] == "pressure" && (pp[2] == "cpu" || pp[2] == "memory") {
            split(line, f, " ")
            if (f[1] == "some" && !(pp[2] in q))
                for (k = 2; k in f; k++) if (f[k] ~ /^total=/) { print "Q", pp[2], substr(f[k], 7); q[pp[2]] = 1; break }
            next
        }
        n == 4 && pp[4] == "schedstat" && pp[2] == "task" {
            split(line, s, " "); wait[pp[1]] += s[2]
            next
        }
        n == 2 && pp[2] == "stat" {
            # stat: "pid (comm) state ppid ...": comm may hold spaces and
            # parentheses, so the fields start after the last ")".
            lp = index(line, "("); rest = line; off = 0
            while ((k = index(rest, ")")) > 0) { off += k; rest = substr(rest, k + 1) }
            if (lp == 0 || off == 0) next
            comm = substr(line, lp + 1, off - lp - 1)
            gsub(/[^A-Za-z0-9._:\/+-]/, "?", comm)
            split(rest, f, " ")
            print "P", pp[1], f[2], f[12] + f[13], comm
        }
        END { for (pid in wait) printf "W %s %.0f\n", pid, wait[pid] }'
}

# ms_idle_judge BEFORE AFTER ROOT_PID MASK LIMIT_CPUS MAX_PRESSURE:
# compares two snapshots; prints "key<TAB>value" facts ("-": not taken)
# and, for each look over its limit, a "busy<TAB>why" line.  ROOT_PID's
# tree (it and its descendants in either snapshot) is memsuite's own.
ms_idle_judge() {
    awk -v root="$3" -v mask="$4" -v limit="$5" -v maxp="$6" -v hz="$(getconf CLK_TCK 2>/dev/null || echo 100)" '
        function fmt(v) { return sprintf("%.2f", v) }
        function mine(pid,    d) {
            for (d = 0; d < 256 && pid != "" && pid > 0; d++) {
                if (pid == root) return 1
                pid = parent[pid]
            }
            return 0
        }
        BEGIN {
            nm = split(mask, parts, ",")
            for (i = 1; i <= nm; i++) {
                if (split(parts[i], lh, "-") == 2) { for (c = lh[1]; c <= lh[2]; c++) inmask[c] = 1 }
                else if (parts[i] != "") inmask[parts[i] + 0] = 1
            }
            for (c in inmask) ncpu++
        }
        FNR == 1 { snap++ }
        $1 == "T" { t[snap] = $2 }
        $1 == "P" { parent[$2] = $3; ticks[snap, $2] = $4; comm[$2] = $5; seen[snap, $2] = 1; npid[snap]++ }
        $1 == "W" { wt[snap, $2] = $3; haswait[snap] = 1 }
        $1 == "C" && ($2 in inmask) { cb[snap] += $3; ct[snap] += $4; cs[snap] += $5; hascpu[snap] = 1 }
        $1 == "Q" { q[snap, $2] = $3; hasq[snap, $2] = 1 }
        END {
            dt = (t[2] - t[1]) / 1e6
            printf "window_s\t%.3f\ncpus\t%d\ncpu_list\t%s\nmax_busy_cpus\t%s\n", dt, ncpu, mask, fmt(limit)
            if (npid[1] == 0 || npid[2] == 0 || dt <= 0) {
                printf "others_cpus\t-\nothers_run_cpus\t-\nothers_wait_cpus\t-\nothers_top\t-\n"
                print "skip\tno process directories readable: other processes not judged"
            } else {
                run = 0; wait = 0; top = ""; topv = -1
                for (k in seen) {
                    split(k, kk, SUBSEP); if (kk[1] != 2) continue
                    pid = kk[2]
                    if (mine(pid)) continue
                    d = ticks[2, pid] - (((1, pid) in seen) ? ticks[1, pid] : 0)
                    if (d < 0) d = 0        # a pid reused within the window
                    w = wt[2, pid] - (((1, pid) in wt) ? wt[1, pid] : 0)
                    if (w < 0) w = 0
                    r1 = d / hz / dt; w1 = w / 1e9 / dt
                    run += r1; wait += w1
                    if (r1 + w1 > topv) { topv = r1 + w1; top = "pid " pid " " comm[pid] " " fmt(r1 + w1) }
                }
                if (!(haswait[1] && haswait[2])) { wait = 0; print "skip\tno schedstat: run-queue waits not counted" }
                printf "others_cpus\t%s\nothers_run_cpus\t%s\nothers_wait_cpus\t%s\nothers_top\t%s\n", fmt(run + wait), fmt(run), \
                    (haswait[1] && haswait[2]) ? fmt(wait) : "-", (topv >= 0.005) ? top : "-"
                if (run + wait > limit)
                    printf "busy\tother processes want %s CPUs (running %s, waiting for a CPU %s) of the %d in this check'"'"'s affinity mask (%s) over %.1f s, more than %s (most: %s)\n", \
                        fmt(run + wait), fmt(run), fmt(wait), ncpu, mask, dt, fmt(limit), top
            }
            if (hascpu[1] && hascpu[2] && ct[2] > ct[1]) {
                printf "cpus_busy_pct\t%.1f\nsteal_pct\t%.1f\n", (cb[2] - cb[1]) / (ct[2] - ct[1]) * 100, (cs[2] - cs[1]) / (ct[2] - ct[1]) * 100
            } else {
                printf "cpus_busy_pct\t-\nsteal_pct\t-\n"
                print "skip\tno advancing cpu lines for the mask in stat: CPU busy share not reported"
            }
            printf "max_pressure_pct\t%s\n", maxp
            split("cpu memory", rs, " ")
            for (i = 1; i <= 2; i++) {
                r = rs[i]
                if (hasq[1, r] && hasq[2, r] && dt > 0) {
                    v = (q[2, r] - q[1, r]) / 1e6 / dt * 100
                    if (v < 0) v = 0
                    printf "%s_pressure_pct\t%.1f\n", r, v
                    if (v > maxp)
                        printf "busy\ttasks stalled for %s %.1f%% of the last %.1f s (pressure/%s, more than %s%%)\n", (r == "cpu") ? "a CPU" : "memory", v, dt, r, maxp
                } else {
                    printf "%s_pressure_pct\t-\n", r
                    print "skip\tno pressure/" r ": " r " pressure not judged"
                }
            }
        }' "$1" "$2"
}

# ms_idle_check MAX_BUSY_PCT MAX_PRESSURE_PCT NEED_BYTES: 0 when idle; 1
# when busy, with MS_IDLE_WHY ("other processes want 1.98 CPUs ...").
# MAX_BUSY_PCT "" is the default limit (a quarter of the mask, at most one
# CPU).  Either way MS_IDLE_FACTS holds "key<TAB>value" lines of what was
# seen (see the header; "-" for a look not taken; skipped: the looks not
# taken and why), MS_IDLE_NOTES the same text.
ms_idle_check() {
    local max_busy="$1" max_press="$2" need="$3" load="-" avail="-" why="" window mask ncpu limit
    local a b facts line
    MS_IDLE_NOTES="" MS_IDLE_WHY=""
    window=$(ms_idle_window)
    mask=$(ms_idle_mask)
    ncpu=$(awk -v m="$mask" 'BEGIN { n = split(m, p, ","); for (i = 1; i <= n; i++) { k = split(p[i], lh, "-"); c += (k == 2) ? lh[2] - lh[1] + 1 : 1 }; print c + 0 }')
    if [ -n "$max_busy" ]; then
        limit=$(awk -v n="$ncpu" -v p="$max_busy" 'BEGIN { print n * p / 100 }')
    else
        limit=$(awk -v n="$ncpu" 'BEGIN { l = n / 4; if (l > 1) l = 1; print l }')
    fi
    local f
    f=$(ms_procfs /loadavg)
    load=$(ms_read_line "$f") || load=""
    load="${load%% *}"
    if ! [[ "$load" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
        local why
        why=$(ms_fact_why "$f") || why="no number in it"
        load="-"
        MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }no load average in $f (unavailable: $why)"
    fi
    a=$(ms_mktemp) b=$(ms_mktemp)
    ms_idle_snapshot >"$a"
    sleep "$window"
    ms_idle_snapshot >"$b"
    facts=$(ms_idle_judge "$a" "$b" "$$" "$mask" "$limit" "$max_press")
    while IFS=$'\t' read -r f line; do
        case "$f" in
            busy) why+="${why:+; }$line" ;;
            skip) MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }$line" ;;
        esac
    done <<<"$facts"
    if avail=$(ms_mem_available_bytes); then
        if [ "$need" -gt 0 ] && [ "$avail" -lt $((2 * need)) ]; then
            why+="${why:+; }MemAvailable $(ms_human_bytes "$avail") < 2 x the $(ms_human_bytes "$need") the benchmark needs"
        fi
    else
        avail="-"
        MS_IDLE_NOTES+="${MS_IDLE_NOTES:+; }no MemAvailable in $(ms_procfs /meminfo)"
    fi
    MS_IDLE_FACTS=$(grep -v -E '^(busy|skip)'$'\t' <<<"$facts"
        printf 'load1\t%s\nmem_available_bytes\t%s\nneed_bytes\t%s\nskipped\t%s\n' \
            "$load" "$avail" "$need" "${MS_IDLE_NOTES:--}")
    MS_IDLE_WHY="$why"
    [ -z "$why" ]
}

