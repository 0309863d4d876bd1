"""memsuite check's judging: one result against a reference (the settings
it was made with, each metric against its tolerance band), computed here
and kept as an evaluation; `memsuite-analyse verdict` (verdict.py) makes
the node's verdict from the evaluations and renders it.

memsuite-analyse check --ref REF (--result FILE | --failed WHY [--detail TEXT])
                       [--prefix P] [--force] [--eval OUT]
  --result FILE  the result to judge (bash has checked it is complete)
  --failed WHY   the benchmark failed (no result): every metric counts as
                 judged, one failure
  --prefix P     before every line ("node1: " for --per-node)
  --force        settings that differ become notes
  --eval OUT     the evaluation, for verdict (JSON, this package's own)
  --format F     render the verdict of this one evaluation (text, json or
                 prom; verdict.py) instead of the counts: for use without
                 memsuite check (which adds the idle look, retries, NUMA
                 nodes and the early exits)
  --prom FILE    also write the Prometheus text to FILE (temp file, then
                 rename), before stdout
  --build FILE, --build-before FILE, --max-ce N   the memory as built now
                 and before the run (memsuite-facts --json --only build):
                 the diagnosis against the reference (diagnosis.py)
Prints "TOTAL<TAB>FAILS" on stdout, then the notes, one a line.  Exit 0 every metric passed, 1 some
failed, 2 the reference is unusable or was made with other settings (the
reason on stdout, one line, instead), 3 the files cannot be read/written.
"""

from . import diagnosis, exitcodes, outfile, reference, results, units
from .model import one_line
from .render import printable

SUMMARY = "judge one result against a reference (memsuite check)"

NOVALUE = {"missing": "missing from the result", "na": "reported unavailable",
           "nan": "not a number in the result"}


def add_arguments(p):
    p.add_argument("--ref", required=True, metavar="REF")
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--result", metavar="FILE")
    g.add_argument("--failed", metavar="WHY")
    p.add_argument("--detail", default="", metavar="TEXT")
    p.add_argument("--prefix", default="", metavar="P")
    p.add_argument("--force", action="store_true")
    p.add_argument("--eval", metavar="OUT")
    p.add_argument("--format", choices=("text", "json", "prom"))
    p.add_argument("--prom", metavar="FILE")
    p.add_argument("--host", default="", metavar="H")
    p.add_argument("--build", metavar="FILE")
    p.add_argument("--build-before", metavar="FILE")
    p.add_argument("--max-ce", type=int, default=diagnosis.MAX_CE_DEFAULT, metavar="N")


class Row:
    """One judged metric: the reference's metric, the value (None when
    there is none), pass, why (None when it passed), the text line."""

    __slots__ = ("m", "value", "ok", "why", "line", "failed")

    def __init__(self, m, value, ok, why, line, failed):
        self.m, self.value, self.ok, self.why, self.line, self.failed = m, value, ok, why, line, failed


def _lookup(result, rec, met):
    """(value or a NOVALUE key, unit as the result writes it)."""
    r = result.record(rec) if result is not None else None
    if r is None or met not in r.metrics:
        return "missing", ""
    x = r.metrics[met]
    return ("na" if x.value is None else x.value), x.unit


def _convertible(a, b):
    """Both units are in the table and measure the same quantity."""
    return a in units.UNITS and b in units.UNITS and units.base(a)[0] == units.base(b)[0]


def judge(m, result, prefix):
    """The Row of reference metric m against result."""
    value, runit = _lookup(result, m.record, m.metric)
    name = m.name
    shown = " " + m.unit if m.unit else (" " + runit if runit else "")
    if isinstance(value, str):
        why = NOVALUE[value]
        line = "%sFAIL  %-28s %s (expected %.1f%s)" % (prefix, name, why, m.expected, shown)
        return Row(m, None, False, why, line, "%s%s %s" % (prefix, name, why))
    # A value in another unit of the same quantity is converted into the
    # reference's (MB/s -> GB/s, through the one unit table); one that
    # cannot be converted (another quantity, a unit the table does not
    # know) is a FAIL, never a comparison of raw numbers.
    if m.unit and runit and m.unit != runit and not isinstance(value, str) and _convertible(runit, m.unit):
        value = units.convert(float(value), runit, m.unit)
        runit = m.unit
    if m.unit and runit and m.unit != runit:
        line = "%sFAIL  %-28s unit %s in the result, %s in the reference (expected %.1f%s)" % (
            prefix, name, runit, m.unit, m.expected, shown)
        return Row(m, None, False, "unit %s in the result, %s in the reference" % (runit, m.unit), line,
                   "%s%s unit %s vs reference %s" % (prefix, name, runit, m.unit))
    if m.high is None:
        band = "-%g%%/+inf: >= %.1f" % (m.lower_pct, m.low)
    else:
        band = "-%g%%/+%g%%: %.1f..%.1f" % (m.lower_pct, m.upper_pct, m.low, m.high)
    v = float(value)
    ok = v >= m.low and (m.high is None or v <= m.high)
    line = "%s%s  %-28s %.1f%s  expected %.1f (%s)" % (prefix, "PASS" if ok else "FAIL", name, v, shown,
                                                       m.expected, band)
    if ok:
        return Row(m, value, True, None, line, "")
    below = v < m.low
    why = "%.1f %s %.1f" % (v, "<" if below else ">", m.low if below else m.high)
    return Row(m, value, False, why, line, "%s%s %s" % (prefix, name, why))


class Evaluation:
    """One attempt judged: prefix, total (metrics judged), fails, failed
    (what failed, "; "-joined), lines (text), rows (Row), notes."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.total, self.fails, self.failed = 0, 0, ""
        self.lines, self.rows, self.notes = [], [], []
        self.diagnosis = []
        self.memory = None      # diagnosis.gauges of the node's memory now, or None

    def to_doc(self):
        return {"prefix": self.prefix, "total": self.total, "fails": self.fails, "failed": self.failed,
                "lines": self.lines, "notes": self.notes, "diagnosis": self.diagnosis, "memory": self.memory,
                "rows": [_row_doc(self.prefix, r) for r in self.rows]}


def _numa_node(prefix):
    """The NUMA node of a --per-node prefix ("node1: " -> 1), else None."""
    if not prefix:
        return None
    p = prefix
    if p.startswith("node"):
        p = p[4:]
    if p.endswith(": "):
        p = p[:-2]
    return int(p) if p.isdigit() else p


def _row_doc(prefix, r):
    m = r.m
    return {"numa_node": _numa_node(prefix), "record": m.record, "metric": m.metric, "unit": m.unit,
            "expected": m.expected, "lower_pct": m.lower_pct, "upper_pct": m.upper_pct,
            "low": round(m.low, 3), "high": None if m.high is None else round(m.high, 3),
            "value": r.value, "pass": r.ok, "why": r.why}


def evaluate(ref, result, prefix=""):
    """The Evaluation of a (complete) result against ref, metric by
    metric, in the reference's order."""
    ev = Evaluation(prefix)
    failed = []
    for m in ref.metrics:
        row = judge(m, result, prefix)
        ev.rows.append(row)
        ev.lines.append(row.line)
        if not row.ok:
            failed.append(row.failed)
    ev.total, ev.fails, ev.failed = len(ref.metrics), len(failed), "; ".join(failed)
    return ev


def failed_run(ref, why, detail, prefix=""):
    """The Evaluation of a benchmark run that failed (no result)."""
    ev = Evaluation(prefix)
    ev.lines.append("%sFAIL  %s%s" % (prefix, why, ": " + detail if detail else ""))
    ev.total, ev.fails, ev.failed = len(ref.metrics), 1, prefix + why
    return ev


def run(args):
    import json
    try:
        ref = reference.Reference(args.ref, validate=True)
    except reference.RefError as e:
        print(printable(str(e)))
        return exitcodes.USAGE
    if args.failed is not None:
        ev = failed_run(ref, args.failed, args.detail, args.prefix)
    else:
        res = results.read_result(args.result)
        if res.state == "unreadable":
            print(printable("--result: %s" % res.why))
            return exitcodes.USAGE
        if res.problem() and (args.format or args.prom):
            # standalone: a result that cannot stand for a measurement FAILs
            return _render(args, failed_run(ref, res.problem(), "", args.prefix))
        refuse = []
        ev = Evaluation(args.prefix)
        for kind, what in reference.settings(ref, res):
            if kind == "refuse" and not args.force:
                refuse.append(what)
            else:
                ev.notes.append("%sthe reference was made with other settings: %s%s" % (
                    args.prefix, what, " (--force)" if kind == "refuse" else ""))
        if refuse:
            print(printable("%sreference %s was made with other settings: %s; record a reference on this "
                            "kind of node, or pass --force" % (args.prefix, one_line(args.ref), "; ".join(refuse))))
            return exitcodes.USAGE
        notes = ev.notes
        ev = evaluate(ref, res, args.prefix)
        ev.notes = notes
    if args.build or args.build_before:
        diagnosis.apply(ev, ref, args.build, args.build_before, args.max_ce)
    if args.eval:
        try:
            outfile.write(args.eval, json.dumps(ev.to_doc(), ensure_ascii=False), inputs=_inputs(args))
        except outfile.OutError as e:
            print("cannot write %s" % e.strerror)
            return e.code
    if args.format or args.prom:
        return _render(args, ev)
    print("%d\t%d" % (ev.total, ev.fails))
    for n in ev.notes:
        print(printable(n.replace("\n", " ")))
    return exitcodes.OK if ev.fails == 0 else exitcodes.FAIL


def _inputs(args):
    """The files check reads: no output may be one of them."""
    return [p for p in (args.ref, args.result) if isinstance(p, str)]


def _render(args, ev):
    """The verdict of one evaluation, rendered (verdict.py, prom.py)."""
    import argparse
    import socket
    import sys
    import time
    from . import verdict
    va = argparse.Namespace(**{a.dest: a.default for a in _verdict_parser()._actions if a.dest != "help"})
    va.host = args.host or socket.gethostname()
    va.ref, va.notes = args.ref, "\n".join(ev.notes)
    va.label = "result %s" % (args.result if args.result is not None else args.failed)
    v = verdict.decide(va, [ev.to_doc()])
    now = time.time()
    if args.prom:
        va.format = "prom"
        try:
            outfile.write(args.prom, verdict.render(va, v, now), inputs=_inputs(args))
        except outfile.OutError as e:
            sys.stderr.write("memsuite-analyse: check: cannot write the Prometheus file %s\n" % e.strerror)
            return e.code
    va.format = args.format or "text"
    sys.stdout.write(verdict.render(va, v, now))
    return v.exit


def _verdict_parser():
    import argparse
    from . import verdict
    p = argparse.ArgumentParser(add_help=False)
    verdict.add_arguments(p)
    return p
