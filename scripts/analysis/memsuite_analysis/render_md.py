"""The report as Markdown (memsuite report --markdown): the text report's
parts as headings, lists and tables.  Formats; computes nothing.  Text
from the results directory has "|" escaped inside table cells."""

import os

from .health import counts
from .render import printable_lines
from .render_text import cell_value, flags, header_items, judgement_lines
from .units import human_bytes


def cell(s):
    return str(s).replace("|", "\\|")


def render(ctx, plots=(), plots_note="", plots_asked=False, version=""):
    o = ["# memsuite report: `%s`" % ctx.dir, ""]
    o.extend("- " + x for x in header_items(ctx))
    o.append("")
    if ctx.stated:
        o += ["## Requirements: verdict %s" % ctx.verdict, "", "| verdict | requirement | found | stated by |",
              "|---|---|---|---|"]
        o.extend("| %s | %s | %s | %s |" % tuple(cell(x) for x in j) for j in judgement_lines(ctx))
        o.append("")
    for g in ctx.groups:
        o += ["## %s" % g.name, "", "values: %s" % ", ".join(g.metrics), ""]
        o.append("| size | threads |" + "".join(" %s |" % cell(r) for r in g.records) + " flags |")
        o.append("|---:|---:|" + "---:|" * len(g.records) + "---|")
        for s, t in g.rows:
            o.append("| %s | %s |" % (human_bytes(s, True), t)
                     + "".join(" %s |" % cell_value(g.at.get((s, t, r))) for r in g.records)
                     + " %s |" % ",".join(flags(ctx, g, s, t)))
        o.append("")
    if not ctx.groups:
        o += ["(no finished cells)", ""]
    o += ["## Health checks", "", "| verdict | check | detail |", "|---|---|---|"]
    o.extend("| %s | %s | %s |" % (f.verdict, f.check, cell(f.detail)) for f in ctx.findings)
    o.append("")
    n = counts(ctx.findings)
    o.append("health: %d pass, %d warn, %d skip" % (n["pass"], n["warn"], n["skip"]))
    if ctx.next_steps:
        o += ["", "## Next steps", ""] + ["- " + x for x in ctx.next_steps]
    if plots_asked:
        o += ["", "## Plots", ""]
        for path, title, caption in plots:
            o.append("![%s](plots/%s)" % (cell(title or os.path.basename(path)), os.path.basename(path)))
        if not plots:
            o.append("  (%s)" % (plots_note or "no data to plot: a plot needs 2+ thread counts or sizes"))
    return printable_lines(o)
