"""memsuite-analyse plot: PNG charts of one result document or of a run
directory (the series from plots.py, drawn by draw.py).

  plot --result FILE --out PNG [--kind KIND]   one document ("-": stdin);
                                               PNG "-" is stdout
  plot --run DIR --outdir D                    every chart of a run; prints
                                               each PNG's path, one a line
  --series                                     prints the computed series as
                                               JSON instead of drawing (no
                                               matplotlib needed)

Exit: 0 drawn; 1 nothing to draw (no measured point); 2 usage or a
document that cannot be read or trusted; 3 the PNG could not be written;
4 matplotlib is not installed (plots.UNAVAILABLE).
"""

import json
import sys

from . import exitcodes, outfile, plots, results
from .model import loads, one_line

SUMMARY = "PNG charts of a result document or a run directory (matplotlib)"


def add_arguments(p):
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--result", metavar="FILE", help="a result document (- for stdin)")
    src.add_argument("--run", metavar="DIR", help="a memsuite results directory")
    p.add_argument("--out", metavar="PNG", help="with --result: the PNG (- for stdout)")
    p.add_argument("--outdir", metavar="D", help="with --run: the directory of the PNGs")
    p.add_argument("--kind", choices=plots.KINDS,
                   help="with --result: the chart (default: the one the document holds)")
    p.add_argument("--series", action="store_true",
                   help="print the computed series as JSON instead of drawing")


def _err(msg, code):
    sys.stderr.write("memsuite-analyse plot: %s\n" % msg)
    return code


def _read(path):
    """A Result for path; '-' reads stdin.  An incomplete document (an
    interrupted run keeps the points it measured) is read for its records
    and its figure says so."""
    if path == "-":
        data = sys.stdin.buffer.read(results.RESULT_MAX_BYTES + 1)
        try:
            res = results.judge("(stdin)", loads(data))
        except (ValueError, RecursionError):
            res = results.Result("(stdin)", "unreadable", "(stdin) is not valid JSON")
    else:
        res = results.read_result(path)
    if res.state == "incomplete" and isinstance(res.doc, dict):
        whole = results.judge(res.path, dict(res.doc, complete=True))
        if whole.ok:
            whole.state = "incomplete"
            return whole
    return res


def figure_json(fig):
    def panel(p):
        if isinstance(p, plots.Heatmap):
            return {"type": "heatmap", "title": p.title, "rows": p.rows, "cols": p.cols,
                    "values": p.values, "unit": p.unit, "xlabel": p.xlabel,
                    "ylabel": p.ylabel, "bounds": p.bounds}
        return {"type": "xy", "title": p.title, "xlabel": p.xlabel, "ylabel": p.ylabel,
                "logx": p.logx, "logy": p.logy, "xticks": p.xticks,
                "marks": [{"x": m.x, "label": m.label} for m in p.marks],
                "series": [{"label": s.label, "style": s.style, "x": s.x, "y": s.y,
                            "lo": s.lo, "hi": s.hi} for s in p.series]}
    return {"name": fig.name, "title": fig.title, "caption": fig.caption,
            "panels": [panel(p) for p in fig.panels]}


def _draw(fig, path):
    """0, or an exit code with the message written."""
    try:
        from . import draw
    except ImportError:
        return _err(plots.UNAVAILABLE, exitcodes.UNBUILT)
    try:
        draw.write_png(fig, path)
    except OSError as e:
        return _err("cannot write %s" % (e.strerror or e), exitcodes.RESOURCE)
    return 0


def run(args):
    if args.result is not None:
        if args.outdir or (args.out is None and not args.series):
            return _err("--result needs --out PNG (- for stdout) or --series, not --outdir",
                        exitcodes.USAGE)
        res = _read(args.result)
        if res.state not in ("complete", "incomplete"):
            return _err(res.problem(), exitcodes.USAGE)
        fig = plots.result_figure(res, args.kind)
        if res.state == "incomplete":
            fig.title += " (incomplete run: the points measured so far)"
        if args.series:
            json.dump(figure_json(fig), sys.stdout, indent=1)
            sys.stdout.write("\n")
            return 0
        if not fig.points():
            return _err("no measured point to plot in %s" % one_line(res.path), exitcodes.FAIL)
        return _draw(fig, args.out)
    if args.out or (args.outdir is None and not args.series) or args.kind:
        return _err("--run needs --outdir D or --series, not --out or --kind", exitcodes.USAGE)
    try:
        rd = results.RunDir(args.run)
    except results.RunError as e:
        return _err(str(e), e.code)
    figs = plots.run_figures(rd)
    if args.series:
        json.dump([figure_json(f) for f in figs], sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    try:
        outfile.make_dir(args.outdir)
    except outfile.OutError as e:
        return _err("cannot draw the charts into %s" % e.strerror, e.code)
    notes = []
    try:
        drawn = plots.draw_run(rd, args.outdir, notes.append)
    except OSError as e:
        return _err("cannot write a chart into %s: %s" % (one_line(args.outdir), e.strerror or e),
                    exitcodes.RESOURCE)
    if notes:
        return _err(notes[0], exitcodes.UNBUILT)
    for path, _title, _cap in drawn:
        sys.stdout.write(path + "\n")
    return 0
