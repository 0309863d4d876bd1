"""summary.csv: one row per finished cell x record x metric of a run
directory, the columns of HEADER (the same as MS_SUMMARY_HEADER in
scripts/lib/rundir.sh, which readers such as compare.sh take
by column number).

Columns: cell, bench, scenario, size_bytes, threads (the plan's), bind
(run.json config.bind), record, metric, unit (as the tool wrote it), value
("NA" when the tool reported it unavailable), n and cv (the repetitions
behind the record's headline: Record.repetitions(); the metric's own
stats for the others), median (the metric's stats.median), primary (1 for
the record's headline metric, else 0), value_mbps (the value in MB/s,
1e6 B/s, when it is a rate; empty otherwise).  Text fields have tab,
newline and comma replaced by a space, so no field can shift the others.

`memsuite-analyse summary DIR [--output FILE]` writes it atomically
(default DIR/summary.csv; - for standard output)."""

import os
import sys

from . import exitcodes, outfile
from .results import RunDir, RunError
from .model import one_line

HEADER = "cell,bench,scenario,size_bytes,threads,bind,record,metric,unit,value,n,cv,median,primary,value_mbps"

SUMMARY = "write summary.csv of a results directory"

_CLEAN = str.maketrans({"\t": " ", "\n": " ", ",": " ", "\r": " "})


def _text(s):
    return s.translate(_CLEAN)


def num(x):
    """A number as jq prints it: integral values without a fraction, others
    with the shortest repr that reads back ("" for None)."""
    if x is None:
        return ""
    if isinstance(x, bool):
        return str(int(x))
    if isinstance(x, int):
        return str(x)
    if x == int(x) and abs(x) < 1e17:
        return str(int(x))
    return repr(float(x))


def metric_rows(cell, bind):
    """The rows (lists of strings) of one cell whose result is complete."""
    out = []
    pre = [cell.id, cell.bench, cell.scenario, str(cell.size_bytes), str(cell.threads), _text(bind)]
    for rec in cell.result.records:
        rn, rcv = rec.repetitions()
        for name, m in rec.metrics.items():
            primary = name == rec.headline
            n = rn if primary else m.stats.get("n")
            cv = rcv if primary else m.stats.get("cv")
            mbps = ""
            if m.value is not None and m.base_unit == "B/s":
                # value x (scale / 1e6), in that order, as jq's mbps_factor did
                mbps = num(m.value * (m.scale / 1e6))
            out.append(pre + [_text(rec.name), _text(name), _text(m.unit),
                              "NA" if m.value is None else num(m.value),
                              num(n), num(cv), num(m.stats.get("median")),
                              "1" if primary else "0", mbps])
    return out


def lines(run):
    """summary.csv's text for a RunDir (header included)."""
    bind = run.config.get("bind", "none")
    bind = bind if isinstance(bind, str) else one_line(bind)
    rows = [HEADER]
    for c in run.cells:
        if c.result is not None and c.result.ok:
            rows.extend(",".join(r) for r in metric_rows(c, bind))
    return "\n".join(rows) + "\n"


def add_arguments(p):
    p.add_argument("--output", default=None, help="where (default DIR/summary.csv; - for stdout)")
    p.add_argument("--prefix", default="memsuite-analyse: summary", help="the prefix of messages")
    p.add_argument("dir", help="a results directory (memsuite run --out)")


def run(args):
    try:
        rd = RunDir(args.dir)
    except RunError as e:
        sys.stderr.write("%s: %s\n" % (args.prefix, e))
        return e.code
    text = lines(rd)
    if args.output == "-":
        sys.stdout.write(text)
        return exitcodes.OK
    dest = args.output or os.path.join(args.dir, "summary.csv")
    try:
        outfile.write(dest, text, inputs=[os.path.join(args.dir, "run.json")])
    except outfile.OutError as e:
        sys.stderr.write("%s: cannot write %s\n" % (args.prefix, e.strerror))
        return e.code
    return exitcodes.OK
