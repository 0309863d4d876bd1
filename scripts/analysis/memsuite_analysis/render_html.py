"""The report as one self-contained HTML file (memsuite report --html).
Formats a report.Context; computes nothing.

Sections, in order (ids for links and tests):
  #summary      a page a centre can attach to an acceptance document: the
                machine, the sustained figures (STREAM Triad, seqread,
                idle latency) each with its unit, the range of its
                repetitions and its cell, the peak they are held against
                and its source, a PASS/FAIL per stated requirement and the
                overall verdict
  #run          host, dates, cell counts, completeness; damaged cells
  #environment  every knob that shapes the figures: the run's settings,
                how each tool was built, every fact of env.json
  #health       the health checks: verdict, check, expected, found
  #results      a table per bench[:scenario] (table.bench), every
                bandwidth in GB/s, each value with the min..max of its
                repetitions
  #plots        the plots (plots.draw_run), embedded as data: URIs
No script, no external resource: a Content-Security-Policy forbids any
load but data: images and the inline style.  Every text from the
results directory is HTML-escaped here; control characters are put in
caret notation by the caller (render.printable).
"""

import base64
import html
import os

from . import units
from .health import counts
from .units import fmt_number, human_bytes

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1000px; color: #111; padding: 0 1em; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { border-bottom: 1px solid #ccc; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0 1em; }
th, td { border: 1px solid #ccc; padding: .2em .6em; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.env { width: 100%; } table.env td:nth-child(2) { width: 38%; }
tr.in-cache td { color: #666; background: #f4f4f4; }
.pass, .PASS { color: #060; } .warn { color: #a40; font-weight: bold; } .skip, .unavailable, .UNAVAILABLE { color: #777; }
.FAIL { color: #b00; font-weight: bold; }
.ok { color: #060; } .invalid { color: #b00; font-weight: bold; }
.range { color: #555; font-size: .85em; display: block; }
p.verdict { font-size: 1.3em; font-weight: bold; }
section#summary { border: 2px solid #444; padding: 0 1em 1em; }
table.signoff { width: 100%; } table.signoff th { width: 9em; } td.blank { border-bottom: 1px solid #111; width: 55%; }
td.sign { height: 3em; }
figure { margin: 1em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption, .note { color: #555; font-size: .9em; }
code { font-size: .95em; }
"""


def esc(x):
    if x is None:
        return ""
    return html.escape(x if isinstance(x, str) else str(x), quote=True)


def _word(x):
    """A JSON value as text (jq's tostring)."""
    if isinstance(x, str):
        return x
    import json
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def _cls(v):
    return "".join(ch for ch in str(v) if ch.isalpha())


def gbps(v, unit):
    """(value in the display unit, display unit) of a table value."""
    if v is None:
        return None, unit
    shown = units.display_unit(unit)
    try:
        return units.convert(v, unit, shown), shown
    except ValueError:
        return v, unit


# ---- the summary page ----------------------------------------------------------------

def _nice_step(raw):
    """1, 2 or 5 x a power of ten, at least raw (> 0)."""
    p = 1.0
    while p * 10 <= raw:
        p *= 10
    while p > raw:
        p /= 10
    return next(m * p for m in (1, 2, 5, 10) if m * p >= raw)


def chart(figs, peak):
    """An inline SVG of the bandwidth figures: a bar per figure in GB/s,
    its min..max whisker, the peak as a line; axis titles in words."""
    bw = [f for f in figs if f.value is not None and f.unit == "GB/s"]
    if not bw:
        return ""
    top = max([f.high or f.value for f in bw] + ([peak.gbps] if peak else []))
    top = top * 1.1 if top > 0 else 1
    w, left, bar, gap = 640, 230, 26, 14
    h = 40 + len(bw) * (bar + gap) + 40
    x = lambda v: left + (w - left - 20) * v / top      # noqa: E731
    o = ['<svg class="figures" xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" '
         'aria-label="sustained bandwidth, GB/s">' % (w, h)]
    y = 30
    for f in bw:
        o.append('<rect class="bar" data-figure="%s" data-value="%s" x="%d" y="%d" width="%.1f" height="%d" fill="#5b8bd0"/>'
                 % (esc(f.key), fmt_number(f.value), left, y, x(f.value) - left, bar))
        o.append('<text x="%d" y="%d" text-anchor="end" font-size="12">%s</text>' % (left - 6, y + bar * 0.65, esc(f.key)))
        if f.low is not None and f.high is not None:
            cy = y + bar / 2
            o.append('<path class="errorbar" data-low="%s" data-high="%s" d="M%.1f %.1f H%.1f M%.1f %.1f V%.1f M%.1f %.1f V%.1f" '
                     'stroke="#111" stroke-width="1.5" fill="none"/>'
                     % (fmt_number(f.low), fmt_number(f.high), x(f.low), cy, x(f.high),
                        x(f.low), cy - 6, cy + 6, x(f.high), cy - 6, cy + 6))
        y += bar + gap
    if peak:
        o.append('<line class="peak" data-gbps="%s" x1="%.1f" y1="20" x2="%.1f" y2="%d" stroke="#b00" stroke-dasharray="4 3"/>'
                 % (fmt_number(peak.gbps), x(peak.gbps), x(peak.gbps), y))
        o.append('<text x="%.1f" y="14" text-anchor="middle" font-size="11" fill="#b00">peak %s GB/s</text>'
                 % (x(peak.gbps), fmt_number(peak.gbps)))
    o.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#111"/>' % (left, y, w - 20, y))
    step = _nice_step(top / 5)
    v = 0.0
    while v <= top:
        o.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#111"/>'
                 '<text class="tick" x="%.1f" y="%d" text-anchor="middle" font-size="11">%s</text>'
                 % (x(v), y, x(v), y + 4, x(v), y + 15, "%g" % v))
        v += step
    o.append('<text x="%d" y="%d" text-anchor="middle" font-size="12">sustained bandwidth (GB/s); whiskers: '
             'min..max of the repetitions</text>' % ((left + w - 20) / 2, y + 32))
    o.append("</svg>")
    return "\n".join(o)


def summary_page(ctx):
    o = ['<section id="summary">', "<h2>Summary for acceptance</h2>"]
    if ctx.verdict:
        o.append('<p class="verdict %s">Overall verdict: %s</p>' % (ctx.verdict, ctx.verdict))
    else:
        o.append('<p class="verdict none">No requirement stated: no verdict '
                 '(state one with --peak-gbps N or --requirements FILE).</p>')
    word, reasons, how = ctx.quality
    o.append('<p class="quality %s">Measurement quality: %s%s. <span class="note">%s.</span></p>'
             % ("warn" if reasons else "pass", word,
                " (%s)" % esc("; ".join(reasons)) if reasons else ": no health warning, every sustained "
                "figure's repetitions within the CV limit", esc(how)))
    if ctx.caveats:
        o.append('<ul class="caveats warn">')
        o.extend("<li>%s</li>" % esc(c) for c in ctx.caveats)
        o.append("</ul>")
    # one source for every fact: said once under the table, not on each row
    srcs = {src for _, value, _, src in ctx.machine if value is not None}
    one = srcs.pop() if len(srcs) == 1 else None
    o.append('<h3>The machine</h3>\n<table class="machine">\n<tr><th>item</th><th>value</th>%s</tr>'
             % ("" if one else "<th>source</th>"))
    for label, value, why, src in ctx.machine:
        tail = "" if one else ('<td class="note">%s</td>' % esc(src) if value is not None else "<td></td>")
        if value is None:
            o.append('<tr><td>%s</td><td class="unavailable">unavailable: %s</td>%s</tr>' % (esc(label), esc(why), tail))
        else:
            o.append("<tr><td>%s</td><td>%s</td>%s</tr>" % (esc(label), esc(value), tail))
    o.append("</table>")
    if one:
        o.append('<p class="note">Every fact above from %s.</p>' % esc(one))
    o.append('<h3>Sustained figures</h3>\n<table class="figures">\n<tr><th>figure</th><th class="num">value</th>'
             '<th>range of the repetitions</th><th class="num">% of peak</th><th>from cell</th><th>note</th></tr>')
    for f in ctx.figures.values():
        if f.value is None:
            o.append('<tr data-figure="%s"><td>%s</td><td class="unavailable" colspan="5">unavailable: %s</td></tr>'
                     % (esc(f.key), esc(f.words), esc(f.why)))
            continue
        rng = ("%s..%s %s (%s)" % (fmt_number(f.low), fmt_number(f.high), f.unit, f.spread)
               if f.low is not None and f.high is not None else f.spread)
        pk = "%.1f%%" % f.pct_of_peak if f.pct_of_peak is not None else ""
        where = "%s (%s per array, %d thread%s)" % (f.cell, human_bytes(f.size, True), f.threads,
                                                    "" if f.threads == 1 else "s")
        o.append('<tr data-figure="%s"><td>%s</td><td class="num">%s %s</td><td>%s</td><td class="num">%s</td>'
                 '<td><code>%s</code></td><td>%s</td></tr>'
                 % (esc(f.key), esc(f.words), fmt_number(f.value), esc(f.unit), esc(rng), pk, esc(where), esc(f.note)))
    o.append("</table>")
    if ctx.peak:
        o.append('<p class="peak">Peak: %s GB/s, %s.</p>' % (fmt_number(ctx.peak.gbps), esc(ctx.peak.source)))
    else:
        o.append('<p class="peak unavailable">Peak: unavailable: no --peak-gbps, no peak_gbps in a requirements file, '
                 'and none from the DIMMs (%s).</p>' % esc(ctx.peak_note))
    o.append(chart(list(ctx.figures.values()), ctx.peak))
    if ctx.judgements:
        o.append('<h3>Requirements</h3>\n<table class="requirements">\n<tr><th>verdict</th><th>requirement</th>'
                 '<th>found</th><th>stated by</th></tr>')
        from .render_text import judgement_lines
        for v, want, found, src in judgement_lines(ctx):
            o.append('<tr><td class="%s">%s</td><td>%s</td><td>%s</td><td>%s</td></tr>'
                     % (_cls(v), esc(v), esc(want), esc(found), esc(src)))
        o.append("</table>")
    o.append(signoff_block(ctx))
    o.append("</section>")
    return "\n".join(o)


def signoff_block(ctx):
    """The lines a centre fills and signs: site, system, serial number and
    operator from the requirements file's signoff (blank lines to write
    on where it has none), the run and the memsuite that made it, then a
    date and a signature to write by hand."""
    from .requirements import SIGNOFF
    r = ctx.run.run
    o = ['<h3>Sign-off</h3>\n<table class="signoff">']
    for key, words in SIGNOFF:
        v = ctx.signoff.get(key)
        if key == "system" and v is None:
            o.append('<tr><th>%s</th><td class="blank"></td><td class="note">host %s</td></tr>'
                     % (words, esc(_word(r.get("host", "?")))))
        elif v is None:
            o.append('<tr><th>%s</th><td class="blank"></td><td></td></tr>' % words)
        else:
            o.append('<tr><th>%s</th><td>%s</td><td class="note">requirements file</td></tr>' % (words, esc(v)))
    fin = ", finished %s" % _word(r.get("finished")) if r.get("finished") else ""
    o.append('<tr><th>run</th><td>host %s, started %s%s</td><td class="note">results directory %s</td></tr>'
             % (esc(_word(r.get("host", "?"))), esc(_word(r.get("created", "?"))), esc(fin), esc(ctx.dir)))
    o.append('<tr><th>measured with</th><td>memsuite %s</td><td></td></tr>' % esc(_word(r.get("memsuite_version", "?"))))
    o.append('<tr><th>date</th><td class="blank"></td><td></td></tr>')
    o.append('<tr><th>signature</th><td class="blank sign"></td><td></td></tr>')
    o.append("</table>")
    return "\n".join(o)


# ---- the other sections ------------------------------------------------------------------

def run_section(ctx, version):
    r = ctx.run.run
    o = ["<h1>memsuite report</h1>"]
    o.append(summary_page(ctx))
    o.append('<section id="run">')
    fin = ", finished %s" % esc(_word(r.get("finished"))) if r.get("finished") else ""
    state = "complete" if ctx.run.complete else '<span class="warn">INCOMPLETE (%s)</span>' % esc(_word(r.get("status", "?")))
    o.append('<p><b>%s</b>, run started %s%s: %s, %s.<br><span class="note">results directory <code>%s</code>, '
             'memsuite %s</span></p>' % (esc(_word(r.get("host", "?"))), esc(_word(r.get("created", "?"))), fin,
                                        esc(ctx.counts_text), state, esc(ctx.dir),
                                        esc(_word(r.get("memsuite_version", "?")))))
    if ctx.problems:
        o.append('<ul class="invalid">')
        o.extend("<li>%s</li>" % esc(p) for p in ctx.problems)
        o.append("</ul>")
    o.append("</section>")
    return "\n".join(o)


def env_section(ctx):
    cfg = ctx.run.config
    o = ['<h2 id="environment">Environment</h2>', '<table class="env">',
         "<tr><th>setting</th><th>value</th><th>state</th><th>why / note</th></tr>"]

    def row(k, v):
        o.append('<tr><td>%s</td><td>%s</td><td class="note">run setting</td><td></td></tr>' % (esc(k), esc(v)))

    def lst(x):
        return x if isinstance(x, list) else []
    row("benchmarks", ", ".join(_word(b) for b in lst(cfg.get("benches"))))
    row("sizes per array", ", ".join(human_bytes(s) if isinstance(s, (int, float)) else _word(s)
                                     for s in lst(cfg.get("sizes_bytes"))))
    row("threads", ", ".join(_word(t) for t in lst(cfg.get("threads"))))
    row("repetitions", _word(cfg["reps"]) if cfg.get("reps") else "tool default")
    row("binding", _word(cfg.get("bind", "?")))
    row("cooldown", "%s s" % _word(cfg.get("cooldown_s", "?")))
    row("quick (smoke) run", "yes: short, not for acceptance" if cfg.get("quick") else "no")
    row("LLC (4x rule)", human_bytes(ctx.llc_bytes) if ctx.llc_bytes > 0 else "unknown")
    row("tool arguments", ctx.tool_args or "none (standard)")
    row("GLIBC_TUNABLES", _word(cfg.get("glibc_tunables") or "none"))
    row("OS profile", _word(cfg.get("profile") or "none"))
    row("enforced knobs", _word(cfg.get("enforce") or "none (the machine as it was)"))
    ce = ctx.run.run.get("cell_env")
    if isinstance(ce, dict):
        thp = sorted({_word(v.get("thp_policy")) for v in ce.values()
                      if isinstance(v, dict) and v.get("thp_policy") is not None})
        if thp:
            row("THP policy during the cells", ", ".join(thp))
    builds = set()
    for c in ctx.run.cells:
        if c.result is not None and c.result.ok:
            b = c.result.get("build")
            builds.add((c.result.tool or "?", _word(b) if b is not None else "unknown"))
    for tool, b in sorted(builds):
        o.append('<tr><td>build: %s</td><td>%s</td><td class="note">cell results</td><td></td></tr>' % (esc(tool), esc(b)))
    env = ctx.env
    if env is not None:
        if ctx.peak_mbps:
            o.append('<tr><td>theoretical peak</td><td>%s GB/s</td><td class="ok">ok</td><td>%s</td></tr>'
                     % (fmt_number(ctx.peak_mbps / 1000), esc(ctx.peak_note)))
        else:
            o.append('<tr><td>theoretical peak</td><td></td><td class="unavailable">unavailable</td><td>%s</td></tr>'
                     % esc(ctx.peak_note))
        for f in env.get("facts") or []:
            if not isinstance(f, dict):
                continue
            why = _word(f.get("why") or "")
            if f.get("fix"):
                why += "; fix: %s" % _word(f["fix"])
            o.append('<tr><td>%s</td><td>%s</td><td class="%s">%s</td><td>%s</td></tr>'
                     % (esc(_word(f.get("key", "?"))), esc(_word(f.get("value") if f.get("value") is not None else "")),
                        _cls(_word(f.get("verdict") or "")), esc(_word(f.get("verdict") or "")), esc(why)))
    else:
        o.append('<tr><td>environment</td><td></td><td class="unavailable">unavailable</td>'
                 "<td>no env.json in the results directory</td></tr>")
    o.append("</table>")
    return "\n".join(o)


def health_section(ctx):
    o = ['<h2 id="health">Health checks</h2>', '<table class="health">',
         "<tr><th>verdict</th><th>check</th><th>about</th><th>expected</th><th>found</th></tr>"]
    for f in ctx.findings:
        o.append('<tr><td class="%s">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>'
                 % (_cls(f.verdict), esc(f.verdict), esc(f.check), esc(f.subject), esc(f.expected), esc(f.found)))
    o.append("</table>")
    n = counts(ctx.findings)
    o.append("<p>health: %d pass, %d warn, %d skip</p>" % (n["pass"], n["warn"], n["skip"]))
    if ctx.next_steps:
        o.append('<h3 id="next">Next steps</h3>\n<ul class="next">')
        o.extend("<li>%s</li>" % esc(x) for x in ctx.next_steps)
        o.append("</ul>")
    return "\n".join(o)


def unit_note(unit):
    """Why a tool's unit is shown as another."""
    shown = units.display_unit(unit)
    if shown == unit:
        return "%s" % (unit or "no unit")
    if unit == "MiB/s":
        return "GB/s (10^9 B/s; the tool writes MiB/s, 2^20 B/s, as mbw always has)"
    return "%s (10^9 B/s; the tool writes %s)" % (shown, unit)


def results_section(ctx):
    from .render_text import flags
    o = ['<h2 id="results">Results</h2>',
         '<p class="note">The headline metric of each cell; every bandwidth in GB/s (10^9 bytes per second). '
         'Under each value, the min..max of the repetitions it came from (or why there is none). Grey rows are '
         'in cache (array &lt; 4 x LLC), &quot;noisy&quot; rows have a CV over the repetitions above %s%%, '
         '&quot;tuned&quot; rows a result the tool labelled tuned (tool arguments).</p>' % ("%g" % ctx.cv_max)]
    for g in ctx.groups:
        metrics = []
        for e in g.entries:
            m = "%s in %s" % (e.metric, unit_note(e.unit))
            if m not in metrics:
                metrics.append(m)
        o.append('<h3>%s</h3>\n<table class="bench" data-bench="%s">\n<caption>values: %s</caption>'
                 % (esc(g.name), esc(g.name), esc(", ".join(metrics))))
        o.append('<tr><th class="num">size</th><th class="num">threads</th>'
                 + "".join('<th class="num">%s</th>' % esc(r) for r in g.records) + "<th>flags</th></tr>")
        for s, t in g.rows:
            fl = flags(ctx, g, s, t)
            cells = []
            for r in g.records:
                e = g.at.get((s, t, r))
                if e is None:
                    cells.append('<td class="num">-</td>')
                    continue
                v, shown = gbps(e.value, e.unit)
                if v is None:
                    cells.append('<td class="num unavailable">unavailable</td>')
                    continue
                lo, _ = gbps(e.low, e.unit)
                hi, _ = gbps(e.high, e.unit)
                if lo is not None and hi is not None:
                    rng = '<span class="range" title="%s">%s..%s</span>' % (esc(e.spread), fmt_number(lo), fmt_number(hi))
                    data = ' data-low="%s" data-high="%s"' % (fmt_number(lo), fmt_number(hi))
                else:
                    rng = '<span class="range">%s</span>' % esc(e.spread)
                    data = ""
                cells.append('<td class="num" data-unit="%s" data-value="%s"%s>%s %s%s</td>'
                             % (esc(shown), fmt_number(v), data, fmt_number(v), esc(shown), rng))
            o.append('<tr%s><td class="num">%s</td><td class="num">%s</td>%s<td>%s</td></tr>'
                     % (' class="in-cache"' if "in-cache" in fl else "", human_bytes(s, True), t,
                        "".join(cells), ",".join(fl)))
        o.append("</table>")
    if not ctx.groups:
        o.append("<p>(no finished cells)</p>")
    return "\n".join(o)


def plots_section(plots, note):
    o = ['<h2 id="plots">Plots</h2>']
    if note and not plots:
        o.append('<p class="warn">%s.</p>' % esc(note))
    for path, title, caption in plots:
        try:
            with open(path, "rb") as f:
                data = base64.b64encode(f.read()).decode("ascii")
        except OSError as e:
            o.append('<p class="warn">plot %s unavailable: %s.</p>' % (esc(os.path.basename(path)), esc(e.strerror)))
            continue
        o.append('<figure><img class="plot" alt="%s" src="data:image/png;base64,%s"><figcaption>%s%s</figcaption></figure>'
                 % (esc(title or os.path.basename(path)), data, esc(title or os.path.basename(path)),
                    (": " + esc(caption)) if caption else ""))
    return "\n".join(o)


def render(ctx, plots=(), plots_note="", plots_asked=False, version=""):
    r = ctx.run.run
    title = "memsuite report: %s %s" % (_word(r.get("host", "?")), _word(r.get("created", "")))
    o = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
         '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; style-src \'unsafe-inline\'">',
         '<meta name="viewport" content="width=device-width, initial-scale=1">',
         "<title>%s</title>" % esc(title), "<style>%s</style>" % CSS, "</head>", "<body>"]
    o.append(run_section(ctx, version))
    o.append(env_section(ctx))
    o.append(health_section(ctx))
    o.append(results_section(ctx))
    o.append(plots_section(plots, plots_note if plots_asked else "plots unavailable: not asked for"))
    o.append('<p class="note">Written by memsuite %s report --html.</p>' % esc(version or "?"))
    o += ["</body>", "</html>"]
    return "\n".join(o) + "\n"
