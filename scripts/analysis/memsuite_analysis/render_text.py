"""The report as plain text (memsuite report): the run, the stated
requirements, a table per bench[:scenario], the health checks, the plots.
Formats a report.Context; computes nothing.  Sizes as 32.0 MiB, values
in the unit the tool wrote with one decimal (the tables of the bash
report, which scripts read)."""

from .model import one_line
from .render import printable_lines
from .summary import num
from .units import fmt_number, human_bytes


def run_line(ctx):
    """'host H, created C, 4/4 cells valid, complete, bind spread[, ...]'"""
    r = ctx.run.run
    cfg = ctx.run.config

    def w(x, default="?"):
        return default if x is None else (x if isinstance(x, str) else one_line(x))
    t = "host %s, created %s, %s, " % (w(r.get("host")), w(r.get("created")), ctx.counts_text)
    t += "complete" if ctx.run.complete else "INCOMPLETE (%s)" % w(r.get("status"))
    t += ", bind %s" % w(cfg.get("bind"))
    if cfg.get("profile"):
        t += ", profile %s" % w(cfg.get("profile"))
    if cfg.get("enforce"):
        t += ", enforced: %s" % w(cfg.get("enforce"))
    return t.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def header_items(ctx):
    """The lines under the title, without their bullet."""
    out = [run_line(ctx)]
    out.extend(ctx.problems)
    if ctx.llc_bytes > 0:
        out.append("LLC %s; in-cache below %s per array" % (human_bytes(ctx.llc_bytes, True),
                                                          human_bytes(4 * ctx.llc_bytes, True)))
    if ctx.peak_mbps:
        out.append("theoretical peak %s MB/s (%s)" % (num(ctx.peak_mbps), ctx.peak_note))
    else:
        out.append("theoretical peak unavailable: %s" % ctx.peak_note)
    if ctx.env_warnings:
        out.append("environment warnings: %s" % ctx.env_warnings)
    if ctx.tool_args:
        out.append("tool arguments: %s" % ctx.tool_args)
    return out


def flags(ctx, g, size, threads):
    """in-cache, noisy, tuned: a row's flags (words)."""
    f = []
    if ctx.in_cache(size):
        f.append("in-cache")
    es = [g.at.get((size, threads, r)) for r in g.records]
    es = [e for e in es if e is not None]
    if any(e.cv is not None and e.cv * 100 > ctx.cv_max for e in es):
        f.append("noisy")
    if any(e.label == "tuned" for e in es):
        f.append("tuned")
    return f


def cell_value(e):
    if e is None:
        return "-"
    return "NA" if e.value is None else "%.1f" % e.value


def judgement_lines(ctx):
    """'PASS  stream_triad >= 300 GB/s: found 310.2 GB/s (cell ...)' per
    stated requirement."""
    out = []
    for j in ctx.judgements:
        r = j.req
        want = "%s %s %g %s" % (r.metric, r.op, r.limit, r.unit)
        if j.value is None:
            found = "unavailable: %s" % j.why
        elif r.key == "min_pct_of_peak":
            found = "%s GB/s = %.1f%% of %s GB/s (%s)" % (fmt_number(j.figure.value), j.value,
                                                       fmt_number(ctx.peak.gbps), ctx.peak.source)
        else:
            found = "%s %s" % (fmt_number(j.value), r.unit)
        cell = " (cell %s)" % j.figure.cell if j.figure is not None and j.figure.cell else ""
        out.append((j.verdict, want, found + cell, r.source))
    return out


def render(ctx, plots=(), plots_note="", plots_asked=False, version=""):
    o = ["memsuite report: %s" % ctx.dir]
    o.extend("  " + x for x in header_items(ctx))
    o.append("")
    if ctx.stated:
        o.append("Requirements: verdict %s" % ctx.verdict)
        for v, want, found, src in judgement_lines(ctx):
            o.append("  %-11s %s: found %s; stated by %s" % (v, want, found, src))
        o.append("")
    for g in ctx.groups:
        o.append("%s: %s" % (g.name, ", ".join(g.metrics)))
        o.append("%12s %8s" % ("size", "threads") + "".join(" %12s" % r for r in g.records) + "  flags")
        for s, t in g.rows:
            o.append("%12s %8s" % (human_bytes(s, True), t)
                     + "".join(" %12s" % cell_value(g.at.get((s, t, r))) for r in g.records)
                     + "  " + ",".join(flags(ctx, g, s, t)))
        o.append("")
    if not ctx.groups:
        o.append("(no finished cells)")
        o.append("")
    o.append("Health checks:")
    for f in ctx.findings:
        o.append("  %-5s %-13s %s" % (f.verdict, f.check, f.detail))
    o.append("")
    n = _counts(ctx)
    o.append("health: %d pass, %d warn, %d skip" % (n["pass"], n["warn"], n["skip"]))
    if ctx.next_steps:
        o.append("")
        o.extend("Next: " + x for x in ctx.next_steps)
    if plots_asked:
        o.append("")
        o.append("Plots:")
        for path, title, caption in plots:
            o.append("  %s" % path)
        if not plots:
            o.append("  (%s)" % (plots_note or "no data to plot: a plot needs 2+ thread counts or sizes"))
    return printable_lines(o)


def _counts(ctx):
    from .health import counts
    return counts(ctx.findings)
