# shellcheck shell=bash
# health: the rules used to read a result, each giving pass,
# warn or skip with its numbers:
#   kernel-order  Triad ~ Add >= Copy ~ Scale within a tolerance (stream)
#   method-order  MEMCPY >= DUMB and MCBLOCK ~ MEMCPY within it (mbw)
#   scaling       thread-scaling efficiency per step >= a minimum (rates)
#   peak          best bandwidth as % of the theoretical peak
#   in-cache      sizes below 4 x LLC measure the cache, not memory
#   noise         run-to-run CV (over repetitions) above a limit
# Input is a results directory's summary.csv (headline metrics only).

ms_use bench

# ms_health SUMMARY LLC_BYTES PEAK_MBPS PEAK_NOTE TOL_PCT EFF_PCT CV_PCT PEAKMIN_PCT
# -> "verdict<TAB>check<TAB>detail" lines
ms_health() {
    local heads="" b
    while IFS= read -r b; do heads+="$b=$(ms_bench_field "$b" 5),"; done < <(ms_bench_names)
    # PEAK_NOTE is text from env.json: through ENVIRON, which awk takes as
    # it is (-v would turn "\n" or "\t" in it into a forged verdict line).
    MS_PEAK_NOTE="$4" awk -F, -v llc="$2" -v peak="$3" -v tol="$5" -v effmin="$6" \
        -v cvmax="$7" -v peakmin="$8" -v heads="$heads" '
    function human(b,   u, i) {
        split("B KiB MiB GiB TiB", u, " "); i = 1
        while (b >= 1024 && i < 5) { b /= 1024; i++ }
        return (i == 1 ? sprintf("%d B", b) : sprintf("%.1f %s", b, u[i]))
    }
    function out(v, c, d) { print v "\t" c "\t" d }
    function pct(x) { return sprintf("%.1f%%", x) }
    function headline(bench, rec,   h) {
        h = head[bench]; return (h == "" || h == "*" || h == rec)
    }
    BEGIN {
        peaknote = ENVIRON["MS_PEAK_NOTE"]; gsub(/[\t\n\r]/, " ", peaknote)
        n = split(heads, hs, ",")
        for (i = 1; i <= n; i++) if (hs[i] != "") { split(hs[i], kv, "="); head[kv[1]] = kv[2] }
    }
    NR == 1 { next }
    $14 != 1 { next }
    {
        g = $2 (($3 == "-") ? "" : ":" $3)
        size = $4 + 0; t = $5 + 0; rec = $7
        incache = (llc > 0 && size < 4 * llc)
        if (!(g in seen_g)) { seen_g[g] = 1; groups[++ng] = g; bench_of[g] = $2 }
        v[g, size, t, rec] = $10
        rate[g, size, t, rec] = $15
        if (!((g, size) in seen_s)) { seen_s[g, size] = 1; sizes[g, ++ns[g]] = size; ic[g, size] = incache }
        if (!((g, t) in seen_t)) { seen_t[g, t] = 1; threads[g, ++nt[g]] = t }
        if (!((g, rec) in seen_r)) { seen_r[g, rec] = 1; recs[g, ++nr[g]] = rec }
        if ($12 != "") {
            cvn++
            if ($12 * 100 > maxcv) maxcv = $12 * 100
            if ($12 * 100 > cvmax) { noisy++; noiseline[noisy] = sprintf("%s %s x%d %s: CV %s > %s", g, human(size), t, rec, pct($12 * 100), pct(cvmax)) }
        }
        if ($15 != "" && headline($2, rec)) {
            if (!incache && $15 > best[g]) { best[g] = $15; bestrec[g] = rec; bestcell[g] = human(size) " x" t }
            if ($15 > bestall[g]) bestall[g] = $15
        }
        if (incache) anyin[g] = 1; else anyout[g] = 1
    }
    END {
        for (gi = 1; gi <= ng; gi++) {
            g = groups[gi]
            # sort sizes and threads ascending (small n: insertion sort)
            for (i = 2; i <= ns[g]; i++) for (j = i; j > 1 && sizes[g, j] < sizes[g, j - 1]; j--) { x = sizes[g, j]; sizes[g, j] = sizes[g, j - 1]; sizes[g, j - 1] = x }
            for (i = 2; i <= nt[g]; i++) for (j = i; j > 1 && threads[g, j] < threads[g, j - 1]; j--) { x = threads[g, j]; threads[g, j] = threads[g, j - 1]; threads[g, j - 1] = x }
            # kernel order (stream)
            if (bench_of[g] == "stream") {
                for (si = 1; si <= ns[g]; si++) {
                    s = sizes[g, si]
                    if (ic[g, s] && anyout[g]) continue
                    for (ti = 1; ti <= nt[g]; ti++) {
                        t = threads[g, ti]
                        if (!((g, s, t, "Copy") in v) || !((g, s, t, "Scale") in v) || !((g, s, t, "Add") in v) || !((g, s, t, "Triad") in v)) continue
                        c = v[g, s, t, "Copy"]; sc = v[g, s, t, "Scale"]; a = v[g, s, t, "Add"]; tr = v[g, s, t, "Triad"]
                        if (c == "NA" || sc == "NA" || a == "NA" || tr == "NA" || c <= 0 || a <= 0) continue
                        d1 = (tr > a ? tr - a : a - tr) / a * 100
                        d2 = (c > sc ? c - sc : sc - c) / c * 100
                        ok = (d1 <= tol && d2 <= tol && a >= c * (1 - tol / 100))
                        out(ok ? "pass" : "warn", "kernel-order", sprintf("%s %s x%d: Triad %.0f ~ Add %.0f (%s), Add %s Copy %.0f, Copy ~ Scale %.0f (%s); tolerance %s", \
                            g, human(s), t, tr, a, pct(d1), (a >= c * (1 - tol / 100) ? ">=" : "<"), c, sc, pct(d2), pct(tol)))
                        korder++
                    }
                }
            }
            # method order (mbw): MEMCPY and MCBLOCK (libc memcpy) usually
            # lead; a DUMB loop faster than memcpy, or MCBLOCK far below
            # MEMCPY, is unusual (a vectorised loop, a slow memcpy path,
            # a block size that fights the prefetcher)
            if (bench_of[g] == "mbw") {
                for (si = 1; si <= ns[g]; si++) {
                    s = sizes[g, si]
                    for (ti = 1; ti <= nt[g]; ti++) {
                        t = threads[g, ti]
                        if (!((g, s, t, "MEMCPY") in v) || !((g, s, t, "DUMB") in v)) continue
                        m = v[g, s, t, "MEMCPY"]; dm = v[g, s, t, "DUMB"]
                        mb = ((g, s, t, "MCBLOCK") in v) ? v[g, s, t, "MCBLOCK"] : ""
                        if (m == "NA" || dm == "NA" || m <= 0) continue
                        odd = ""
                        if (dm > m * (1 + tol / 100)) odd = sprintf("DUMB %.0f is %s above MEMCPY %.0f (a vectorised copy loop, or a memcpy without a fast path?)", dm, pct((dm - m) / m * 100), m)
                        if (mb != "" && mb != "NA" && mb < m * (1 - tol / 100)) odd = odd (odd == "" ? "" : "; ") sprintf("MCBLOCK %.0f is %s below MEMCPY %.0f (block size against the prefetcher?)", mb, pct((m - mb) / m * 100), m)
                        if (odd != "") out("warn", "method-order", sprintf("%s %s: unusual method order: %s; tolerance %s", g, human(s), odd, pct(tol)))
                        else out("pass", "method-order", sprintf("%s %s: MEMCPY %.0f >= DUMB %.0f%s; tolerance %s", g, human(s), m, dm, (mb != "" && mb != "NA") ? sprintf(", MCBLOCK %.0f", mb) : "", pct(tol)))
                    }
                }
            }
            # scaling efficiency per step
            if (nt[g] > 1) {
                for (si = 1; si <= ns[g]; si++) {
                    s = sizes[g, si]
                    if (ic[g, s] && anyout[g]) continue
                    for (ri = 1; ri <= nr[g]; ri++) {
                        r = recs[g, ri]
                        if (!headline(bench_of[g], r)) continue
                        for (ti = 2; ti <= nt[g]; ti++) {
                            t1 = threads[g, ti - 1]; t2 = threads[g, ti]
                            # bandwidths only (a latency does not scale with threads)
                            if (!((g, s, t1, r) in rate) || !((g, s, t2, r) in rate)) continue
                            a = rate[g, s, t1, r]; b = rate[g, s, t2, r]
                            if (a == "" || b == "" || a <= 0) continue
                            eff = (b / a) / (t2 / t1) * 100
                            out(eff >= effmin ? "pass" : "warn", "scaling", sprintf("%s %s %s %d->%d threads: %.0f -> %.0f, efficiency %s (%s %s)", \
                                g, human(s), r, t1, t2, a, b, pct(eff), (eff >= effmin ? ">=" : "<"), pct(effmin)))
                        }
                    }
                }
            }
            # in-cache sizes
            if (llc > 0) {
                for (si = 1; si <= ns[g]; si++) {
                    s = sizes[g, si]
                    if (ic[g, s]) out("warn", "in-cache", sprintf("%s %s per array < 4 x LLC (%s): rows marked in-cache measure cache, not memory", g, human(s), human(4 * llc)))
                }
                if (!anyin[g]) out("pass", "in-cache", sprintf("%s: every size >= 4 x LLC (%s)", g, human(4 * llc)))
            }
            # peak
            if (bestall[g] != "") {
                if (peak == "" || peak <= 0) {
                    out("skip", "peak", sprintf("%s: theoretical peak unavailable (%s)", g, peaknote))
                } else if (best[g] == "") {
                    out("skip", "peak", sprintf("%s: every size is in cache; no memory figure to compare", g))
                } else {
                    p = best[g] / peak * 100
                    out(p >= peakmin ? "pass" : "warn", "peak", sprintf("%s: best %s %.0f MB/s (%s) = %s of the theoretical peak %.0f MB/s (%s %s)", \
                        g, bestrec[g], best[g], bestcell[g], pct(p), peak, (p >= peakmin ? ">=" : "<"), pct(peakmin)))
                }
            }
        }
        if (llc <= 0) out("skip", "in-cache", "the LLC size is unknown")
        if (cvn == 0) out("skip", "noise", "no repetition statistics (single repetition?)")
        for (i = 1; i <= noisy; i++) out("warn", "noise", noiseline[i])
        if (cvn > 0 && !noisy) out("pass", "noise", sprintf("all %d headline metrics have CV <= %s (max %s)", cvn, pct(cvmax), pct(maxcv)))
    }' "$1"
}
