"""memsuite check --record's computation: a reference (memsuite/ref/1)
from the median of each headline metric over results of one run.

memsuite-analyse record --out DOC --summary TEXT --floor PCT --cap PCT
                        [--upper PCT] --run JSON --memsuite VERSION
                        --host H --created T RESULT...
The spread of a metric is its observed range (max - min) in % of the
median; its tolerance on the slow side is max(--floor, 1.5 x spread):
lower_pct for rates (higher is better), upper_pct for times (lower is
better; their lower_pct is 100, no bound), the direction being the
result's own (schema 2 "better") or its unit's.  The fast side is
unbounded (null) unless --upper.  DOC receives the reference, TEXT one
line per metric.  Exit 0 written; 1 the runs vary beyond --cap (a busy
or unstable node), or the reference would be refused by check; 2 the
results are unfit to record (not complete, of different runs, a record
without a headline metric, a headline metric missing, unavailable or in
two units); 3 DOC cannot be written.  The reason is on stdout, one line.
"""

import json
import math

from . import exitcodes, outfile, reference, results
from .render import number, number_text

SUMMARY = "make a reference from results (memsuite check --record)"


def add_arguments(p):
    p.add_argument("--out", required=True, metavar="DOC")
    p.add_argument("--summary", metavar="TEXT")
    p.add_argument("--floor", type=float, required=True)
    p.add_argument("--cap", type=float, required=True)
    p.add_argument("--upper", type=float)
    p.add_argument("--run", default="{}", metavar="JSON")
    p.add_argument("--memsuite", default="", metavar="VERSION")
    p.add_argument("--host", default="")
    p.add_argument("--created", default="")
    p.add_argument("--build", metavar="FILE")     # memsuite-facts --only build: the "memory" block
    p.add_argument("results", nargs="+", metavar="RESULT")


class Unfit(Exception):
    """Results that cannot make a reference: str() says why; .code is the
    exit status."""

    def __init__(self, why, code=exitcodes.USAGE):
        super().__init__(why)
        self.code = code


def _runkey(res):
    run = reference.run_block(res)
    run["tool"] = res.tool or "unknown"
    return json.dumps(run, ensure_ascii=False, separators=(",", ":"))


def read_inputs(paths):
    """The Results, each complete and of the same run (tool, bench, size,
    threads, reps: a median over 8 MiB and 16 MiB arrays would be no
    reference); Unfit otherwise."""
    out, first = [], None
    for p in paths:
        res = results.read_result(p)
        why = res.problem()
        if why:
            raise Unfit("cannot record from %s: %s; nothing recorded" % (p, why))
        key = _runkey(res)
        if first is None:
            first = (p, key)
        elif key != first[1]:
            raise Unfit("the results were not made by the same run: %s has %s, %s has %s; "
                        "record each kind of run separately; nothing recorded" % (first[0], first[1], p, key))
        out.append(res)
    return out


class Group:
    """One headline metric (record.metric) over the results: unit, the
    better direction, values in result order."""

    def __init__(self, rec, met, unit, better, path):
        self.record, self.metric, self.unit, self.better, self.path = rec, met, unit, better, path
        self.values = []

    @property
    def name(self):
        return "%s.%s" % (self.record, self.metric)


def headlines(paths, res_list):
    """The Groups, in first-seen order, after the checks that make the
    results one reference's (see the module docstring); Unfit with the
    first problem found."""
    groups, why = {}, []
    heads = []      # per result: {record: headline}
    n = len(res_list)
    for p, res in zip(paths, res_list):
        h = {}
        for r in res.records:
            if not r.metrics:
                continue        # a record without metrics says nothing
            h.setdefault(r.name, None)
            m = r.head
            if m is None or h[r.name] is not None:
                continue
            h[r.name] = r.headline
            g = groups.get((r.name, r.headline))
            if g is None:
                g = groups[(r.name, r.headline)] = Group(r.name, r.headline, m.unit, m.better, p)
            if m.unit != g.unit:
                why.append("%s is in %s in %s but in %s in %s; record results in one unit"
                           % (g.name, g.unit or "no unit", g.path, m.unit or "no unit", p))
            if m.value is None:
                why.append("%s is reported unavailable in %s" % (g.name, p))
            g.values.append(m.value)
        heads.append(h)
    for p, h in zip(paths, heads):
        if not any(v is not None for v in h.values()):
            why.append("%s holds no record with a headline metric" % p)
            continue
        for rec, k in h.items():
            if k is None:
                why.append("record %s of %s has no headline metric (no rate or latency metric)" % (rec, p))
    for g in groups.values():
        if len(g.values) == n:
            continue
        for p, h in zip(paths, heads):
            k = h.get(g.record)
            if k == g.metric:
                continue
            if k is not None:
                why.append("the results disagree on the headline metric of %s: %s in %s, %s.%s in %s"
                           % (g.record, g.name, g.path, g.record, k, p))
            else:
                why.append("%s is in %d of the %d results: %s lacks it" % (g.name, len(g.values), n, p))
            break
    if why:
        raise Unfit(why[0])
    return list(groups.values())


def _median(v):
    s = sorted(v)
    k = len(s)
    return s[k // 2] if k % 2 else (s[k // 2 - 1] + s[k // 2]) / 2


def _round1(x):
    """To one decimal, halves away from zero."""
    return math.floor(abs(x) * 10 + 0.5) / 10 * (1 if x >= 0 else -1)


def metric_doc(g, floor, upper):
    v = g.values
    med = _median(v)
    spread = (max(v) - min(v)) / med * 100
    tol = math.ceil(max(floor, 1.5 * spread) * 10) / 10
    lower_better = g.better == "lower"
    d = {"record": g.record, "metric": g.metric}
    if g.unit:
        d["unit"] = g.unit          # none: no key
    d["expected"] = number(_round1(med))
    if lower_better:
        d["lower_pct"] = number(min(100.0 if upper is None else upper, 100.0))
        d["upper_pct"] = number(tol)
    else:
        d["lower_pct"] = number(tol)
        d["upper_pct"] = number(upper)
    d.update(runs=len(v), observed_min=number(min(v)), observed_max=number(max(v)),
             spread_pct=number(_round1(spread)))
    return d


def make(paths, floor, cap, upper, run, made_with, host, created):
    """The reference document; Unfit when the results cannot make one."""
    res_list = read_inputs(paths)
    groups = headlines(paths, res_list)
    for g in groups:
        for x in g.values:
            if not (0 < x < reference.VALUE_MAX):
                raise Unfit("%s has the value %s; a reference needs a number above 0 and below %s"
                            % (g.name, number_text(x), number_text(reference.VALUE_MAX)))
    groups.sort(key=lambda g: (g.record, g.metric))
    fast = "unbounded" if upper is None else "+%s%%" % number_text(upper)
    doc = {"schema": reference.SCHEMA,
           "description": "recorded by memsuite check --record from %d run(s): expected = median; "
                          "slow-side tolerance = max(%s%%, 1.5 x the observed range), at most %s%%; fast side %s"
                          % (len(paths), number_text(floor), number_text(cap), fast),
           "host": host, "created": created, "run": run,
           "made_with": made_with(res_list[0]),
           "metrics": [metric_doc(g, floor, upper) for g in groups]}
    wide = ["%s.%s ranged %s..%s %s over %d runs (spread %s%% of the median)"
            % (m["record"], m["metric"], number_text(_round1(m["observed_min"])),
               number_text(_round1(m["observed_max"])), m.get("unit", ""), m["runs"], number_text(m["spread_pct"]))
            for m in doc["metrics"] if m["spread_pct"] * 1.5 > cap]
    if wide:
        raise Unfit("the runs vary too much to make a useful reference: %s; a tolerance of 1.5 x the spread "
                    "would exceed the cap of %s%% (--cap). Is the node busy or unstable? Record again on a "
                    "quiet node (more --runs cannot help: the spread only widens with more runs), or raise "
                    "--cap if this spread is the node's normal; nothing recorded" % ("; ".join(wide), number_text(cap)),
                    exitcodes.FAIL)
    why = reference.problem(doc)
    if why:     # never write a reference that check would refuse
        raise Unfit("check would refuse the reference these results make (%s); nothing recorded" % why,
                    exitcodes.FAIL)
    return doc


def summary_lines(doc):
    """One line per metric of a written reference."""
    out = []
    for m in doc["metrics"]:
        unit = " " + m["unit"] if m.get("unit") else ""
        up = "+inf" if m["upper_pct"] is None else "+%s%%" % number_text(m["upper_pct"])
        out.append("  %s.%s expected %s%s -%s%%/%s (spread %s%% over %d runs)" % (
            m["record"], m["metric"], number_text(m["expected"]), unit, number_text(m["lower_pct"]), up,
            number_text(m["spread_pct"]), m["runs"]))
    return out


def run(args):
    from .render import printable, printable_lines
    try:
        run_block = json.loads(args.run)
        doc = make(args.results, args.floor, args.cap, args.upper, run_block,
                   lambda r: reference.made_with(r, args.memsuite), args.host, args.created)
    except Unfit as e:
        print(printable(str(e)))
        return e.code
    if args.build:
        from . import diagnosis
        doc["memory"] = diagnosis.record_block(args.build)
    try:
        outfile.write(args.out, json.dumps(doc, ensure_ascii=False, indent=2) + "\n", inputs=args.results)
        if args.summary:
            outfile.write(args.summary, printable_lines(summary_lines(doc)), inputs=args.results)
    except outfile.OutError as e:
        print("cannot write the reference %s" % e.strerror)
        return e.code
    return exitcodes.OK
