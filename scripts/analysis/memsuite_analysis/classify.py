"""Cluster classification: from the node reports read (model) and the
population statistics (stats) to one verdict row per node.  Computes; never
prints.

  status   PASS / FAIL against the reference's tolerance band; ERROR when
           the check could not run or the node's report file cannot be
           trusted (unreadable, not a regular file, naming another node,
           or invalid: no reference to judge it by); MISSING when an
           expected node has no report.
  outlier  SLOW / HIGH: more than k x MAD' from the median (stats.Spread)
           on the worse / better side, even when the node passes.
  order    MISSING, ERROR, FAIL (worst first), then every other node by its
           worst metric relative to the median, lowest first.
"""

import os

from . import model, stats

# Units whose smaller values are better; every other unit: larger is better.
TIME_UNITS = frozenset(("s", "ms", "us", "ns"))

# A check that found the node busy measured nothing: no fault of the node,
# rerun it, never drain it.  (exit status, text its summary holds or None)
BUSY_SIGNS = (
    (5, None),                                      # check: node busy
    (3, "another memsuite run holds the lock"),     # check: lock held
)

SORT_MISSING, SORT_ERROR = -4, -3


def lower_is_better(unit):
    return unit in TIME_UNITS


def is_busy(report):
    for code, text in BUSY_SIGNS:
        if report.exit == code and (text is None or text in report.summary):
            return True
    return False


class Population:
    """What a directory holds, sorted out.  Entries are consumed one at a
    time; only report summaries are kept."""

    def __init__(self, entries):
        self.reports = {}       # stem -> Report naming that stem's node
        self.claims = {}        # stem -> (path, Report naming another node)
        self.unreadable = {}    # stem -> (path, why)
        self.invalid = {}       # stem -> (path, why): read, cannot be judged
        self.others = []        # (path, why): valid JSON, not a node report
        self.ignored = []       # (path, why): not a report by name, or hidden
        self.stale = 0
        seen, hidden = set(), []
        for e in entries:
            if e.kind == "hidden":
                hidden.append(e)
                continue
            if e.stem is not None:
                seen.add(e.stem)
            if e.kind == "report":
                if e.report.node == e.stem:
                    self.reports[e.stem] = e.report
                else:
                    self.claims[e.stem] = (e.path, e.report)
            elif e.kind == "unreadable":
                self.unreadable[e.stem] = (e.path, e.why)
            elif e.kind == "invalid":
                self.invalid[e.stem] = (e.path, e.why)
            elif e.kind == "other":
                self.others.append((e.path, e.why))
            elif e.kind == "stale":
                self.stale += 1
            else:
                self.ignored.append((e.path, e.why))
        # A hidden copy is never read; it stands for its node only when the
        # node has no visible file at all (else it would vanish unseen).
        hidden.sort(key=lambda e: model.name_key(e.name))
        for e in hidden:
            if e.stem in seen:
                self.ignored.append((e.path, e.why + "; %s has a visible report" % e.stem))
            else:
                seen.add(e.stem)
                self.unreadable[e.stem] = (e.path, e.why)
        self.others.sort(key=lambda pw: model.name_key(pw[0]))
        self.ignored.sort(key=lambda pw: model.name_key(pw[0]))

    def reported(self):
        """Nodes with a file of their own that is judged."""
        return len(self.reports) + len(self.claims) + len(self.unreadable) + len(self.invalid)

    def has_file(self, node):
        """Whether node has a file of its own (judged, or ERROR)."""
        return node in self.reports or node in self.claims or node in self.unreadable or node in self.invalid


def refs_problem(pop, want):
    """None when every counted report was made against the reference id
    want; else the words for the mismatch (references, node counts, up to
    three nodes each)."""
    count, examples, order = {}, {}, []
    for stem in sorted(pop.reports, key=model.name_key):
        rid = pop.reports[stem].ref_id
        if rid not in count:
            count[rid], examples[rid] = 0, []
            order.append(rid)
        count[rid] += 1
        if len(examples[rid]) < 3:
            examples[rid].append(stem)
    if not order or (len(order) == 1 and want in count):
        return None
    total = len(order) + (0 if want in count else 1)
    parts = []
    for rid in order:
        n = count[rid]
        parts.append("%s%s: %d node%s (%s%s)" % (
            "no reference id" if rid == "" else rid[:19] + "...",
            " (this --ref)" if rid == want else "", n, "" if n == 1 else "s",
            ",".join(examples[rid]), ",..." if n > len(examples[rid]) else ""))
    text = "%d different reference%s: %s" % (total, "s" if total > 1 else "", "; ".join(parts))
    if want not in count:
        text += "; none against this --ref (%s...)" % want[:19]
    return text


def spreads(pop, ref, k, floor_pct):
    """{metric: (Spread, unit, lower_is_better)} over the counted reports'
    values, metrics in name order (every metric a report holds, in the
    reference or not)."""
    values = {}
    for rep in pop.reports.values():
        for name, v in zip(rep.names, rep.vals):
            if v is not None:
                values.setdefault(name, []).append(v)
    out = {}
    for name in sorted(values):
        unit = ref.units.get(name, "")
        out[name] = (stats.Spread(values[name], k, floor_pct), unit, lower_is_better(unit))
    return out


class Row:
    """One node's line of the report."""

    __slots__ = ("key", "status", "outlier", "node", "worst_metric", "worst_value",
                 "vs_median", "detail", "reason")

    def __init__(self, key, status, node, detail, reason, outlier="-",
                 worst_metric="-", worst_value="-", vs_median="-"):
        self.key, self.status, self.outlier, self.node = key, status, outlier, node
        self.worst_metric, self.worst_value, self.vs_median = worst_metric, worst_value, vs_median
        self.detail, self.reason = detail, reason


def _f1(x):
    return "%.1f" % x


def _join(*parts):
    return "; ".join(p for p in parts if p)



def _untrusted(rep):
    """Why a report's verdict cannot be taken as it stands, or "": a verdict
    check never writes (it writes PASS, FAIL or ERROR), or a PASS whose
    exit status is not 0 (check exits 0 exactly when it passes).  Before,
    both were counted as PASS."""
    if rep.verdict not in ("PASS", "FAIL", "ERROR"):
        return "the report's verdict %s is not PASS, FAIL or ERROR" % rep.verdict
    if rep.verdict == "PASS" and rep.exit is not None and rep.exit != 0:
        return "the report says PASS but check exited %g" % rep.exit
    return ""

class Judgement:
    """Every node's row, in report order, and per reference metric the
    number of slow and high outliers."""

    def __init__(self, pop, ref, spread, expected, k, results_dir):
        self.k = k
        self.expected = expected
        self.outliers = {m.name: [0, 0] for m in ref.metrics}
        rows = []
        for stem, (path, why) in pop.unreadable.items():
            rows.append(Row(SORT_ERROR, "ERROR", stem,
                            _join("report unreadable: %s %s" % (os.path.basename(path), why), self._stray(stem)),
                            "memsuite: report unreadable"))
        for stem, (path, why) in pop.invalid.items():
            rows.append(Row(SORT_ERROR, "ERROR", stem,
                            _join("report invalid, not judged: %s %s" % (os.path.basename(path), why), self._stray(stem)),
                            "memsuite: report invalid: " + why[:120]))
        for stem, (path, rep) in pop.claims.items():
            rows.append(Row(SORT_ERROR, "ERROR", stem,
                            _join("report %s names node %s, not %s (counted for neither)"
                                  % (os.path.basename(path), rep.node, stem), self._stray(stem)),
                            "memsuite: report names another node"))
        for stem, rep in pop.reports.items():
            rows.append(self._judge(rep, ref, spread))
        for node in expected:
            if not pop.has_file(node):
                rows.append(Row(SORT_MISSING, "MISSING", node, "no report in " + results_dir,
                                "memsuite: no report"))
        # The key as printed to 9 decimals, then the name: ties stay stable.
        rows.sort(key=lambda r: (float("%.9f" % r.key), model.name_key(r.node)))
        self.rows = rows

    def _stray(self, node):
        if self.expected and node not in self.expected:
            return "not in the expected node list"
        return ""

    def _judge(self, rep, ref, spread):
        node = rep.stem
        untrusted = _untrusted(rep)
        if untrusted:
            return Row(SORT_ERROR, "ERROR", node, _join(untrusted, self._stray(node)),
                       "memsuite: report not trusted: " + untrusted[:120])
        if rep.verdict == "ERROR":
            if is_busy(rep):
                return Row(SORT_ERROR, "ERROR", node,
                           _join("busy, not judged (rerun when idle): " + rep.summary, self._stray(node)), "")
            return Row(SORT_ERROR, "ERROR", node, _join(rep.summary, self._stray(node)),
                       "memsuite: check could not run: " + rep.summary[:120])
        fails, slow, high = [], [], []
        worst = wm = wv = None
        values = rep.values
        for m in ref.metrics:
            v = values.get(m.name)
            if v is None:
                fails.append(m.name + " missing")
                continue
            if v < m.low:
                fails.append("%s %s < %s" % (m.name, _f1(v), _f1(m.low)))
            elif m.high is not None and v > m.high:
                fails.append("%s %s > %s" % (m.name, _f1(v), _f1(m.high)))
            if m.name not in spread:
                continue
            sp, _, lb = spread[m.name]
            ratio = stats.ratio_to_median(v, sp.median, lb)
            if worst is None or ratio < worst:
                worst, wm, wv = ratio, m.name, v
            side = sp.side(v, lb)
            z = abs(sp.deviation(v, lb))
            if side == "slow":
                self.outliers[m.name][0] += 1
                slow.append("%s %s is %.1f MAD %s the median %s"
                            % (m.name, _f1(v), z, "above" if lb else "below", _f1(sp.median)))
            elif side == "high":
                self.outliers[m.name][1] += 1
                high.append("%s %s is %.1f MAD %s the median %s"
                            % (m.name, _f1(v), z, "below" if lb else "above", _f1(sp.median)))
        # the node's own diagnosis (the DIMM to reseat) leads, then the metrics
        why = "; ".join(list(getattr(rep, "diagnosis", ())) + fails)
        status = "FAIL" if fails or rep.verdict == "FAIL" else "PASS"
        if status == "FAIL" and not why:
            why = rep.summary
        outlier = "SLOW" if slow else "HIGH" if high else "-"
        detail = _join(why if status == "FAIL" else "",
                       "outlier: " + "; ".join(slow) if slow else "outlier: " + "; ".join(high) if high else "",
                       self._stray(node))
        if status == "FAIL":
            reason = "memsuite: FAIL " + why
        elif slow:
            reason = "memsuite: outlier " + "; ".join(slow)
        else:
            reason = ""
        if worst is None:
            worst, wm, shown, dev = 1.0, "-", "-", "-"
        else:
            d = (worst - 1) * 100
            shown, dev = _f1(wv), "%+.1f%%" % (0.0 if -0.05 < d < 0.05 else d)
        w = max(worst, 0.0)       # a negative rate (a hostile report) sorts as 0
        key = -2 + w / (1 + w) if status == "FAIL" else worst
        return Row(key, status, node, detail, reason, outlier, wm, shown, dev)

    def counts(self):
        c = {"PASS": 0, "FAIL": 0, "ERROR": 0, "MISSING": 0, "SLOW": 0, "HIGH": 0}
        for r in self.rows:
            c[r.status] += 1
            if r.outlier != "-":
                c[r.outlier] += 1
        return c

    def ok(self):
        """True when every node PASSes and none is slow."""
        return all(r.status == "PASS" and r.outlier != "SLOW" for r in self.rows)
