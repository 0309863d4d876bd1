"""memsuite check's verdict: made from the evaluations of the attempts
that count (check.py) or given by the bash side (an ERROR: the node is
busy, the benchmark could not run, check exited early; a FAIL of a result
that cannot validate the node), then rendered as text, JSON (schema
memsuite/check/1, docs/result.schema.json definitions.check_verdict) or
Prometheus (prom.py).  Computing (decide) and rendering are apart.

memsuite-analyse verdict --format text|json|prom --host H [--eval FILE...]
    [--verdict V --exit N --summary S --reason R --lines TEXT]
    [--label L] [--after N] [--ref PATH --ref-id ID] [--run JSON]
    [--attempts N] [--started T] [--seconds N] [--busy 0|1]
    [--notes TEXT] [--idle TSV] [--version V] [--decided FILE]
Without --verdict the verdict is PASS when no evaluation failed, else
FAIL: "memsuite: PASS n/n metrics within tolerance on H (L)", "memsuite:
FAIL f/n metrics out of tolerance on H (L[, after N attempt(s)]): what".
A diagnosis that fails (the memory population, node memory, EDAC errors:
diagnosis.py) makes the verdict FAIL whatever the metrics say, its first
line leading the summary: "memsuite: FAIL memory population: P1-DIMMB1:
reference 16 GB DDR4 3200 MT/s rank 2, found empty on H (L); 4/4 metrics
within tolerance".
--decided FILE receives "VERDICT<TAB>EXIT".  The rendering goes to
stdout; exit 0, 2 for bad arguments, 3 when a file cannot be read.
"""

import json
import sys
import time

from . import exitcodes, outfile, prom
from .render import number, printable, printable_lines, printable_text

SUMMARY = "make and render memsuite check's verdict (text, JSON, Prometheus)"
SCHEMA = "memsuite/check/1"
IDLE_STRINGS = ("cpu_list", "others_top", "skipped")


def add_arguments(p):
    p.add_argument("--format", choices=("text", "json", "prom"), default="text")
    p.add_argument("--host", default="")
    p.add_argument("--eval", action="append", default=[], metavar="FILE")
    p.add_argument("--verdict", choices=("PASS", "FAIL", "ERROR"))
    p.add_argument("--exit", type=int, default=0)
    p.add_argument("--summary", default="")
    p.add_argument("--reason", default="")
    p.add_argument("--lines", default="")
    p.add_argument("--label", default="")
    p.add_argument("--after", type=int, default=0)
    p.add_argument("--ref", default="")
    p.add_argument("--ref-id", default="")
    p.add_argument("--run", default="")
    p.add_argument("--attempts", type=int, default=0)
    p.add_argument("--started", default="")
    p.add_argument("--seconds", type=int, default=0)
    p.add_argument("--busy", type=int, default=0)
    p.add_argument("--notes", default="")
    p.add_argument("--idle", default="")
    p.add_argument("--version", default="")
    p.add_argument("--decided", metavar="FILE")


class Verdict:
    """The decided verdict: verdict, exit, summary, reason (None), lines
    (text), rows (row documents), notes."""

    def __init__(self, verdict, code, summary, reason, lines, rows, notes, diagnosis=None):
        self.verdict, self.exit, self.summary, self.reason = verdict, code, summary, reason or None
        self.lines, self.rows, self.notes = lines, rows, notes
        self.diagnosis = diagnosis or []
        self.memory = None


def _split(text):
    return [x for x in text.split("\n") if x]


def decide(args, evals):
    """The Verdict from the arguments and the evaluation documents."""
    v = _decide(args, evals)
    v.diagnosis = diagnoses(evals)
    # the node's memory now (the per-node evaluations share it): the first said
    v.memory = next((e["memory"] for e in evals if isinstance(e.get("memory"), dict)), None)
    return v


def _decide(args, evals):
    lines = [x for e in evals for x in e["lines"]]
    rows = [r for e in evals for r in e["rows"]]
    notes = _split(args.notes)
    if args.verdict:
        given = args.lines.split("\n") if args.lines else lines
        return Verdict(args.verdict, args.exit, args.summary, args.reason, given, rows, notes)
    total = sum(e["total"] for e in evals)
    fails = sum(e["fails"] for e in evals)
    what = "; ".join(e["failed"] for e in evals if e["fails"] > 0)
    bad = [d for d in diagnoses(evals) if d["severity"] == "fail"]
    if bad:
        label = args.label + (", after %d attempt(s)" % args.after if args.after else "")
        metrics = ("%d/%d metrics out of tolerance: %s" % (fails, total, what) if fails
                   else "%d/%d metrics within tolerance" % (total, total))
        s = "memsuite: FAIL %s on %s (%s); %s" % (bad[0]["text"], args.host, label, metrics)
        return Verdict("FAIL", exitcodes.FAIL, s, bad[0]["text"], lines, rows, notes)
    if fails == 0:
        s = "memsuite: PASS %d/%d metrics within tolerance on %s (%s)" % (total, total, args.host, args.label)
        return Verdict("PASS", exitcodes.OK, s, None, lines, rows, notes)
    label = args.label + (", after %d attempt(s)" % args.after if args.after else "")
    s = "memsuite: FAIL %d/%d metrics out of tolerance on %s (%s): %s" % (fails, total, args.host, label, what)
    return Verdict("FAIL", exitcodes.FAIL, s, what, lines, rows, notes)


def diagnoses(evals):
    """The evaluations' diagnoses, each (kind, subject, text) once (the
    per-node evaluations share the node's memory), failures first."""
    seen, out = set(), []
    for e in evals:
        for d in e.get("diagnosis") or []:
            k = (d.get("kind"), d.get("subject"), d.get("text"))
            if k not in seen:
                seen.add(k)
                out.append(d)
    return [d for d in out if d.get("severity") == "fail"] + [d for d in out if d.get("severity") != "fail"]


def _utc(t):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(t))


def _idle(text):
    """The idle facts (TSV key, value; "-" for none) as an object."""
    if not text:
        return None
    out = {}
    for line in _split(text):
        k, _, v = line.partition("\t")
        if v == "-":
            out[k] = None
        elif k in IDLE_STRINGS:
            out[k] = v
        else:
            out[k] = _number_or_text(v)
    return out


def _number_or_text(v):
    import re
    if re.fullmatch(r"[0-9]+([.][0-9]+)?", v):
        return number(float(v)) if "." in v else int(v)
    return v


def json_doc(args, v, now):
    def row(r):
        r = dict(r)
        for k in ("expected", "lower_pct", "upper_pct", "low", "high", "value"):
            if r.get(k) is not None:
                r[k] = number(float(r[k])) if not isinstance(r[k], int) else r[k]
        return r
    return {"schema": SCHEMA, "version": args.version, "host": args.host, "verdict": v.verdict,
            "exit": v.exit, "summary": v.summary, "reason": v.reason,
            "ref": {"path": args.ref, "id": args.ref_id or None},
            "run": json.loads(args.run) if args.run else None,
            "attempts": args.attempts, "started": args.started, "finished": _utc(now),
            "seconds": args.seconds, "idle": _idle(args.idle), "notes": v.notes,
            "metrics": [row(r) for r in v.rows],
            "diagnosis": [{k: d.get(k) for k in ("kind", "subject", "reference", "found", "severity", "text")}
                          for d in v.diagnosis]}


def render(args, v, now):
    """The verdict in args.format, as text."""
    if args.format == "text":
        return printable_lines([x for x in v.lines if x] + [v.summary])
    if args.format == "json":
        return json.dumps(json_doc(args, v, now), ensure_ascii=False, indent=2) + "\n"
    facts = dict(line.partition("\t")[::2] for line in _split(args.idle))
    return printable_text(prom.check(args.host, v, args.busy, args.seconds, int(now)) + prom.idle(args.host, facts)
                          + prom.diagnosis(args.host, v.diagnosis) + prom.memory(args.host, v.memory))


def run(args):
    evals = []
    for path in args.eval:
        try:
            with open(path, encoding="utf-8", errors="surrogateescape") as f:
                evals.append(json.load(f))
        except (OSError, ValueError) as e:
            sys.stderr.write("memsuite-analyse: verdict: cannot read the evaluation %s: %s\n" % (path, e))
            return exitcodes.RESOURCE
    v = decide(args, evals)
    if args.decided:
        try:
            outfile.write(args.decided, "%s\t%d\n" % (v.verdict, v.exit))
        except outfile.OutError as e:
            sys.stderr.write("memsuite-analyse: verdict: cannot write %s\n" % e.strerror)
            return e.code
    sys.stdout.write(render(args, v, time.time()))
    sys.stdout.flush()
    return exitcodes.OK
