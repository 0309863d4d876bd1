"""Health checks of a run: the rules used to read its figures, one row of
CHECKS each (name, what it applies to, the check function).  A check
returns Findings; each says what was expected and what was found, and the
verdict pass, warn or skip.  Computes; the renderers format.

  kernel-order  stream: Triad ~ Add >= Copy, and Copy ~ Scale within the
                tolerance; when Copy ran with streaming (non-temporal)
                stores or as memcpy (the result's record "nontemporal",
                config.nt_stores.enabled, a label naming memcpy), Copy is
                expected to reach Scale or beat it (no write-allocate
                traffic), not to equal it
  method-order  mbw: MEMCPY >= DUMB and MCBLOCK ~ MEMCPY within it
  scaling       thread-scaling efficiency per step >= a minimum (rates)
  in-cache      sizes below 4 x LLC measure the cache, not memory
  peak          best bandwidth as % of the theoretical peak
  noise         run-to-run CV (over repetitions) above a limit
  throttle      per cell (run.json cell_env): frequency drop or throttle
                events seen by memsuite run's watcher

Input: a report context (report.Context): groups (each with bench, name,
entries: one per valid cell x record with size, threads, record, value,
rate_mbps, cv, in_cache, cell, result), llc_bytes, peak_mbps, peak_note,
the thresholds (percent), the run (for cell_env) and bw_unit, the unit
the messages show bandwidths in ("MB/s" in the text report, "GB/s" in
the HTML one).  Sizes in bytes, rates in MB/s (1e6 B/s), thresholds in
percent.
"""

from .units import fmt_number, human_bytes

# The headline record of each bench for scaling and peak (bench.sh's
# table, column 5): "*" means every record.
HEADLINE_RECORD = {"stream": "Triad", "mbw": "MEMCPY", "mencal": "*"}


class Finding:
    """One verdict: verdict (pass|warn|skip), check (its name), subject
    (what it is about), expected and found (words with their numbers);
    detail, the one line the text report shows."""

    __slots__ = ("verdict", "check", "subject", "expected", "found", "detail")

    def __init__(self, verdict, check, detail, subject="", expected="", found=""):
        self.verdict, self.check, self.detail = verdict, check, detail
        self.subject, self.expected, self.found = subject, expected, found

    def __repr__(self):
        return "Finding(%r, %r, %r)" % (self.verdict, self.check, self.detail)


def pct(x):
    return "%.1f%%" % x


def bw(ctx, mbps):
    """A bandwidth (MB/s) in the report's unit, ctx.bw_unit: "MB/s" as
    the text report has always printed it (no decimals), or "GB/s" (four
    significant digits), the HTML report's one bandwidth unit."""
    return "%.0f" % mbps if ctx.bw_unit == "MB/s" else fmt_number(mbps / 1000)


def tool_bw(ctx, e):
    """An entry's bandwidth: in the tool's own unit, unit-less, for the
    text report (mbw's MiB/s as the mbw table shows it); else in GB/s."""
    return "%.0f" % e.value if ctx.bw_unit == "MB/s" else fmt_number(e.rate_mbps / 1000) + " GB/s"


def is_headline(bench, rec):
    h = HEADLINE_RECORD.get(bench, "")
    return h in ("", "*") or h == rec


def _sizes(g):
    return sorted({e.size for e in g.entries})


def _threads(g):
    return sorted({e.threads for e in g.entries})


def _values(g):
    """{(size, threads, record): entry}"""
    return {(e.size, e.threads, e.record): e for e in g.entries}


def _skip_size(g, ctx, s):
    """A cached size is left out of a check when the group has memory sizes."""
    return ctx.in_cache(s) and any(not ctx.in_cache(x) for x in _sizes(g))


def _cells(g, ctx, records, skip_cached):
    """(size, threads, [entry or None per record]) for each cell of the
    group; skip_cached leaves out the cached sizes _skip_size names."""
    v = _values(g)
    for s in _sizes(g):
        if skip_cached and _skip_size(g, ctx, s):
            continue
        for t in _threads(g):
            yield s, t, [v.get((s, t, r)) for r in records]


# ---- the checks ----------------------------------------------------------------

def copy_streaming(entry):
    """How a stream Copy ran: a phrase when with streaming stores or as
    memcpy (so it is expected to reach or beat Scale), else None."""
    res = entry.result
    raw = entry.raw or {}
    label = res.label if res is not None else ""
    if raw.get("nontemporal") is True:
        isa = raw.get("isa")
        return "Copy ran with non-temporal (streaming) stores%s" % (
            " (%s)" % isa if isinstance(isa, str) and isa else "")
    nt = res.get("config", "nt_stores", "enabled") if res is not None else None
    if nt is True:
        return "Copy ran with non-temporal (streaming) stores (config.nt_stores)"
    if "memcpy" in (label or "").lower() or "memcpy" in str(raw.get("kernel", "")).lower():
        return "Copy ran as memcpy"
    return None


def kernel_order(g, ctx):
    out = []
    tol = ctx.tolerance
    for s, t, es in _cells(g, ctx, ("Copy", "Scale", "Add", "Triad"), skip_cached=True):
        if any(e is None or e.rate_mbps is None for e in es):
            continue
        c, sc, a, tr = (e.rate_mbps for e in es)
        if c <= 0 or a <= 0 or sc <= 0:
            continue
        subject = "%s %s x%d" % (g.name, human_bytes(s, True), t)
        how = copy_streaming(es[0])
        d_ta = (tr - a) / a * 100
        d_cs = (c - sc) / sc * 100
        ok_ta = abs(d_ta) <= tol
        ok_ac = a >= c * (1 - tol / 100)
        if how:
            ok_cs = d_cs >= -tol
            exp_cs = "Copy at or above Scale (%s: no write-allocate traffic)" % how
        else:
            ok_cs = abs(d_cs) <= tol
            exp_cs = "Copy within %s of Scale (regular stores: the same traffic per byte counted)" % pct(tol)
        if how:
            ok_ac = True      # a streaming Copy may beat Add as well
            exp_ac = ""
        else:
            exp_ac = "Add at least Copy (less %s), " % pct(tol)
        expected = "Triad within %s of Add, %s%s" % (pct(tol), exp_ac, exp_cs)
        u = ctx.bw_unit
        found = "Triad %s vs Add %s %s (%+.1f%%), Copy %s vs Scale %s %s (%+.1f%%)%s" % (
            bw(ctx, tr), bw(ctx, a), u, d_ta, bw(ctx, c), bw(ctx, sc), u, d_cs,
            "" if how else ", Add %s Copy" % (">=" if ok_ac else "<"))
        ok = ok_ta and ok_ac and ok_cs
        out.append(Finding("pass" if ok else "warn", "kernel-order",
                           "%s: expected %s; found %s" % (subject, expected, found),
                           subject, expected, found))
    return out


def method_order(g, ctx):
    out = []
    tol = ctx.tolerance
    for s, t, (em, ed, eb) in _cells(g, ctx, ("MEMCPY", "DUMB", "MCBLOCK"), skip_cached=False):
        if em is None or ed is None or em.value is None or ed.value is None or em.value <= 0:
            continue
        if eb is not None and eb.value is None:
            eb = None
        m, dm = em.value, ed.value
        mb = eb.value if eb is not None else None
        subject = "%s %s" % (g.name, human_bytes(s, True))
        expected = "MEMCPY >= DUMB and MCBLOCK within %s of MEMCPY" % pct(tol)
        odd = []
        if dm > m * (1 + tol / 100):
            odd.append("DUMB %s is %s above MEMCPY %s (a vectorised copy loop, or a memcpy without a fast path?)"
                       % (tool_bw(ctx, ed), pct((dm - m) / m * 100), tool_bw(ctx, em)))
        if mb is not None and mb < m * (1 - tol / 100):
            odd.append("MCBLOCK %s is %s below MEMCPY %s (block size against the prefetcher?)"
                       % (tool_bw(ctx, eb), pct((m - mb) / m * 100), tool_bw(ctx, em)))
        if odd:
            found = "; ".join(odd)
            out.append(Finding("warn", "method-order", "%s: unusual method order: %s; tolerance %s"
                               % (subject, found, pct(tol)), subject, expected, found))
        else:
            found = "MEMCPY %s >= DUMB %s%s" % (tool_bw(ctx, em), tool_bw(ctx, ed),
                                                ", MCBLOCK %s" % tool_bw(ctx, eb) if eb is not None else "")
            out.append(Finding("pass", "method-order", "%s: %s; tolerance %s" % (subject, found, pct(tol)),
                               subject, expected, found))
    return out


def scaling(g, ctx):
    out = []
    ts = _threads(g)
    if len(ts) < 2:
        return out
    v = _values(g)
    recs = []
    for e in g.entries:
        if e.record not in recs:
            recs.append(e.record)
    for s in _sizes(g):
        if _skip_size(g, ctx, s):
            continue
        for r in recs:
            if not is_headline(g.bench, r):
                continue
            for t1, t2 in zip(ts, ts[1:]):
                e1, e2 = v.get((s, t1, r)), v.get((s, t2, r))
                # bandwidths only (a latency does not scale with threads)
                if e1 is None or e2 is None or e1.rate_mbps is None or e2.rate_mbps is None or e1.rate_mbps <= 0:
                    continue
                a, b = e1.rate_mbps, e2.rate_mbps
                eff = (b / a) / (t2 / t1) * 100
                ok = eff >= ctx.efficiency
                subject = "%s %s %s %d->%d threads" % (g.name, human_bytes(s, True), r, t1, t2)
                # text: the figures the tool's table shows, with its unit
                # (mbw's MiB/s); HTML: GB/s, the report's one unit
                if ctx.bw_unit == "MB/s":
                    found = "%.0f -> %.0f %s, efficiency %s" % (e1.value, e2.value, e1.unit, pct(eff))
                else:
                    found = "%s -> %s GB/s, efficiency %s" % (bw(ctx, a), bw(ctx, b), pct(eff))
                expected = ">= %s" % pct(ctx.efficiency)
                out.append(Finding("pass" if ok else "warn", "scaling", "%s: %s (%s %s)" % (
                    subject, found, ">=" if ok else "<", pct(ctx.efficiency)), subject, expected, found))
    return out


def in_cache(g, ctx):
    out = []
    if ctx.llc_bytes <= 0:
        return out
    four = human_bytes(4 * ctx.llc_bytes, True)
    cached = [s for s in _sizes(g) if ctx.in_cache(s)]
    for s in cached:
        out.append(Finding("warn", "in-cache", "%s %s per array < 4 x LLC (%s): rows marked in-cache measure cache, not memory"
                           % (g.name, human_bytes(s, True), four), "%s %s" % (g.name, human_bytes(s, True)),
                           "every array >= 4 x LLC (%s)" % four, "%s per array" % human_bytes(s, True)))
    if not cached:
        out.append(Finding("pass", "in-cache", "%s: every size >= 4 x LLC (%s)" % (g.name, four),
                           g.name, "every array >= 4 x LLC (%s)" % four, "every size at or above it"))
    return out


def peak(g, ctx):
    rated = [e for e in g.entries if e.rate_mbps is not None and is_headline(g.bench, e.record)]
    if not rated:
        return []
    expected = ">= %s of the theoretical peak" % pct(ctx.peak_min)
    if not ctx.peak_mbps:
        return [Finding("skip", "peak", "%s: theoretical peak unavailable (%s)" % (g.name, ctx.peak_note),
                        g.name, expected, "unavailable: %s" % ctx.peak_note)]
    mem = [e for e in rated if not ctx.in_cache(e.size)]
    if not mem:
        return [Finding("skip", "peak", "%s: every size is in cache; no memory figure to compare" % g.name,
                        g.name, expected, "no memory figure")]
    best = max(mem, key=lambda e: e.rate_mbps)   # the first of equals, in plan order
    p = best.rate_mbps / ctx.peak_mbps * 100
    ok = p >= ctx.peak_min
    found = "best %s %s %s (%s x%d) = %s of the theoretical peak %s %s" % (
        best.record, bw(ctx, best.rate_mbps), ctx.bw_unit, human_bytes(best.size, True), best.threads, pct(p),
        bw(ctx, ctx.peak_mbps), ctx.bw_unit)
    return [Finding("pass" if ok else "warn", "peak", "%s: %s (%s %s)" % (
        g.name, found, ">=" if ok else "<", pct(ctx.peak_min)), g.name, expected, found)]


# The per-group checks, in the order the report lists them.
CHECKS = (
    # name           applies to     check
    ("kernel-order", ("stream",),   kernel_order),
    ("method-order", ("mbw",),      method_order),
    ("scaling",      None,          scaling),
    ("in-cache",     None,          in_cache),
    ("peak",         None,          peak),
)


def noise(ctx):
    out, n, maxcv = [], 0, 0.0
    for g in ctx.groups:
        for e in g.entries:
            if e.cv is None:
                continue
            n += 1
            c = e.cv * 100
            maxcv = max(maxcv, c)
            if c > ctx.cv_max:
                subject = "%s %s x%d %s" % (g.name, human_bytes(e.size, True), e.threads, e.record)
                out.append(Finding("warn", "noise", "%s: CV %s > %s" % (subject, pct(c), pct(ctx.cv_max)),
                                   subject, "CV <= %s" % pct(ctx.cv_max), "CV %s" % pct(c)))
    if n == 0:
        return [Finding("skip", "noise", "no repetition statistics (single repetition?)",
                        "", "CV <= %s" % pct(ctx.cv_max), "no repetition statistics")]
    if not out:
        found = "all %d headline metrics have CV <= %s (max %s)" % (n, pct(ctx.cv_max), pct(maxcv))
        return [Finding("pass", "noise", found, "", "CV <= %s" % pct(ctx.cv_max), "max CV %s" % pct(maxcv))]
    return out


def _clean(x):
    s = x if isinstance(x, str) else ("" if x is None else str(x))
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def throttle(ctx):
    env = ctx.run.run.get("cell_env")
    expected = "no frequency drop or throttle event beyond the threshold"
    if not isinstance(env, dict) or not env:
        return [Finding("skip", "throttle", "no cell was watched (a run of an older memsuite)", "", expected,
                        "no cell watched")]
    warn, ok, na = [], 0, []
    for cid, ce in env.items():
        th = ce.get("throttle") if isinstance(ce, dict) else None
        st = th.get("status") if isinstance(th, dict) else None
        if st == "warn":
            det = _clean(th.get("detail"))
            warn.append(Finding("warn", "throttle", "cell %s: %s" % (_clean(cid), det), "cell " + _clean(cid),
                                expected, det))
        elif st == "ok":
            ok += 1
        elif st == "unavailable":
            na.append(th)
    if warn:
        return warn
    if ok:
        return [Finding("pass", "throttle", "%d cell(s) watched: %s" % (ok, expected), "", expected,
                        "%d cell(s) watched" % ok)]
    why = _clean(na[0].get("detail") or "no sample") if na else "no sample"
    return [Finding("skip", "throttle", "unavailable: %s" % why, "", expected, "unavailable: %s" % why)]


def run_checks(ctx):
    """Every Finding of a report context, in the report's order."""
    out = []
    for g in ctx.groups:
        for name, applies, fn in CHECKS:
            if applies is None or g.bench in applies:
                out.extend(fn(g, ctx))
    if ctx.llc_bytes <= 0:
        out.append(Finding("skip", "in-cache", "the LLC size is unknown", "", "every array >= 4 x LLC",
                           "LLC unknown"))
    out.extend(noise(ctx))
    out.extend(throttle(ctx))
    return out


def counts(findings):
    n = {"pass": 0, "warn": 0, "skip": 0}
    for f in findings:
        n[f.verdict] = n.get(f.verdict, 0) + 1
    return n
