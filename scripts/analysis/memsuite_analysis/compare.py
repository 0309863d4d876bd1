"""memsuite compare: two results directories side by side (the
before/after table): environment and run differences first, the huge-page
and TLB figures and the counter rates of the cells where they differ,
then metric by metric with the % change and a marker where the change
exceeds the noise, and a verdict.

memsuite-analyse compare DIR_A DIR_B [--all] [--markdown] [--noise PCT]
                         [--exit-on-regression] [--prog NAME]
Noise of a row: max(2 x sqrt(cvA^2 + cvB^2), --noise), in %: both runs'
coefficients of variation over their repetitions (the noise within a
run), and at least the run-to-run floor (default 10%) that repetitions
inside one run do not sample.  "*" marks |change| above the noise.  A
row whose CV is unknown (a single repetition: --reps 1, --quick) has no
noise estimate ("?"): its change is judged against 2 x --noise (20% by
default), "*?" when beyond it.  A change
beyond the noise is a regression when it goes the bad way (the metric's
"better" direction: lower rates, longer times).  The last line is the
verdict ("none" when a side has no valid cell).
Exit: 1 invalid or missing cell files; with --exit-on-regression also a
regression or a side with no valid cell; 2 a directory that cannot be
read as a results directory (the bash side checks them first); else 0.
"""

import json
import math
import os
import sys

from . import exitcodes, results, units
from .model import one_line
from .render import printable, printable_lines

SUMMARY = "compare two results directories metric by metric (memsuite compare)"
MIN_NOISE = 10.0
# A row with a single repetition has no noise estimate (no CV): its
# change is judged against SINGLE_REP_FACTOR x the floor (20% by default).
SINGLE_REP_FACTOR = 2.0
CONFIG_KEYS = ("benches", "sizes_bytes", "threads", "bind", "reps", "quick", "glibc_tunables", "profile",
               "enforce", "llc_bytes", "tool_args")


def add_arguments(p):
    p.add_argument("a", metavar="DIR_A")
    p.add_argument("b", metavar="DIR_B")
    p.add_argument("--all", action="store_true", help="every metric, not only each record's headline")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--noise", type=float, default=MIN_NOISE, metavar="PCT")
    p.add_argument("--exit-on-regression", action="store_true")
    p.add_argument("--prog", default="memsuite-analyse: compare", metavar="NAME")


def _text(x):
    """A value as jq's tostring shows it, on one line of one field."""
    s = x if isinstance(x, str) else json.dumps(x, ensure_ascii=False, separators=(",", ":"))
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def _field(x):
    """A name as summary.csv keeps it (tabs, newlines, commas as spaces)."""
    return x.replace("\t", " ").replace("\n", " ").replace(",", " ")


def size_label(b):
    """A cell's size in the table: 128.0 MiB (one decimal), 512 B."""
    for i, name in enumerate(("B", "KiB", "MiB", "GiB", "TiB")):
        if b < 1024 or i == 4:
            return "%d B" % b if i == 0 else "%.1f %s" % (b, name)
        b /= 1024


# ---- the cells -----------------------------------------------------------------

def audit(rd):
    """(problems, valid cells): "invalid: DIR/cells/ID.json: why" or
    "missing: ...: why" for each planned cell that stands for no
    measurement though it should, and the cells with a valid result."""
    problems, valid = [], []
    for c in rd.cells:
        f = "%s/cells/%s.json" % (rd.path, c.id)
        r = c.result
        if r is None:
            if rd.complete:
                problems.append("missing: %s: the run is complete (run.json), so the file was removed after it ran"
                                % one_line(f))
            continue
        if r.ok:
            valid.append(c)
            continue
        if r.state == "incomplete":
            why = "the result says it is incomplete"
        elif r.state == "invalid":
            why = r.why
        else:
            shown = one_line(r.path)
            why = r.why
            if why.startswith("cannot read " + shown):
                why = "cannot read it" + why[len("cannot read " + shown):]
            elif why.startswith(shown + " "):
                why = why[len(shown) + 1:]
        problems.append("invalid: %s: %s" % (one_line(f), why))
    return problems, valid


class Row:
    """One table row of one side: the key (bench, scenario, size, threads,
    record, metric), value (None: unavailable), cv, unit, better."""

    __slots__ = ("key", "value", "cv", "unit", "better")

    def __init__(self, key, value, cv, unit, better):
        self.key, self.value, self.cv, self.unit, self.better = key, value, cv, unit, better


def rows(valid, all_metrics):
    """The rows of a side's valid cells, in plan and document order."""
    out = []
    for c in valid:
        for rec in c.result.records:
            n_cv = rec.repetitions()
            for name, m in rec.metrics.items():
                head = name == rec.headline
                if not all_metrics and not head:
                    continue
                cv = n_cv[1] if head else m.stats.get("cv")
                key = (c.bench, c.scenario, c.size_bytes, c.threads, _field(rec.name), _field(name))
                out.append(Row(key, m.value, cv, _field(m.unit), m.better or units.default_better(m.unit)))
    return out


# ---- environment and run differences --------------------------------------------

def _facts(env):
    out = {}
    for f in (env or {}).get("facts") or []:
        if isinstance(f, dict):
            v = "unavailable" if f.get("verdict") == "unavailable" else f.get("value")
            out[_text(f.get("key"))] = _text(v)
    return out


# Facts that change from one reading to the next on an unchanged machine
# (the free memory, an instant CPU frequency): no environment difference.
VOLATILE_FACTS = ("mem_available_bytes", "cpu_freq_khz")


def env_diffs(ra, rb):
    """(key, A, B) for every differing fact of env.json, A's order first,
    but the VOLATILE_FACTS."""
    if ra.env is None or rb.env is None:
        return [("env.json", "present" if ra.env is not None else "missing",
                 "present" if rb.env is not None else "missing")]
    fa, fb = _facts(ra.env), _facts(rb.env)
    keys = list(fa) + sorted(k for k in fb if k not in fa)
    return [(k, fa.get(k, "absent"), fb.get(k, "absent")) for k in keys
            if fa.get(k) != fb.get(k) and k not in VOLATILE_FACTS]


def _cell_files(rd):
    d = os.path.join(rd.path, "cells")
    try:
        names = sorted(n for n in os.listdir(d) if n.endswith(".json"))
    except OSError:
        return []
    return [(n[:-5], os.path.join(d, n)) for n in names if os.path.isfile(os.path.join(d, n))]


def _first_fact(rd, key):
    for _, f in _cell_files(rd):
        r = results.read_result(f)
        v = r.get("sysinfo", key)
        if v is not None and v is not False and _text(v) != "":
            return _text(v)
    return ""


def tool_diffs(ra, rb):
    """What the tools themselves saw: the allocator in effect inside them
    (sysinfo.allocator of the first cell with one)."""
    va, vb = _first_fact(ra, "allocator"), _first_fact(rb, "allocator")
    return [] if va == vb else [("allocator (in the tools)", va or "?", vb or "?")]


def config_diffs(ra, rb):
    a, b = ra.config, rb.config
    return [("run." + k, _text(a.get(k)), _text(b.get(k))) for k in CONFIG_KEYS if a.get(k) != b.get(k)]


# ---- huge pages and TLB; counter rates -----------------------------------------

def _num(x):
    return x if results.is_number(x) else None


def _alt(*xs):
    """jq's a // b."""
    return next((x for x in xs if x is not None and x is not False), None)


def paging(res):
    """(hugepages, THP share %, dTLB miss %, thp_enabled, full-random ns)
    of a result, None where it does not say (the first record's figures)."""
    hp = res.get("config", "hugepages")
    recs = res.get("records")
    r0 = recs[0] if isinstance(recs, list) and recs and isinstance(recs[0], dict) else {}
    mode = hp.get("mode") if isinstance(hp, dict) else hp
    share = _alt(results._dig(hp, "thp", "share") if isinstance(hp, dict) else None,
                 _num(r0.get("buffer", {}).get("thp_share")) if isinstance(r0.get("buffer"), dict) else None)
    dt = results._dig(r0, "counters", "hardware", "rates", "dtlb_load_miss_pct")
    dt = _num(dt.get("value") if isinstance(dt, dict) else dt)
    mets = res.record(r0.get("name")).metrics if res.ok and r0 and res.record(r0.get("name")) else {}
    if dt is None and "dtlb_miss_rate" in mets and mets["dtlb_miss_rate"].value is not None:
        dt = mets["dtlb_miss_rate"].value * 100
    walk = mets["latency_full_random"].value if "latency_full_random" in mets else None
    thp = res.get("sysinfo", "thp_enabled")
    return (_text(_alt(mode)) if _alt(mode) is not None else "",
            None if share is None or not results.is_number(share) else share * 100, dt,
            _text(thp) if _alt(thp) is not None else "", walk)


def _policy(rd, cid, pg):
    ce = results._dig(rd.run, "cell_env", cid, "thp_policy")
    if _alt(ce) is not None and _text(ce):
        return _text(ce)
    if pg[3]:
        return pg[3]
    for f in (rd.env or {}).get("facts") or []:
        if isinstance(f, dict) and f.get("key") == "thp":
            if _alt(f.get("value")) is not None:
                return _text(f["value"])
            break
    return "?"


def _pct(v, d=1):
    return "unavailable" if v is None else "%.*f%%" % (d, v)


def _pair(x, y):
    return x if x == y else "%s -> %s" % (x, y)


def paging_lines(ra, rb, md):
    """The huge-page and TLB section (empty when no cell differs)."""
    lines, anyw = [], False
    for cid, fa in _cell_files(ra):
        fb = os.path.join(rb.path, "cells", cid + ".json")
        if not os.path.isfile(fb):
            continue
        a, b = results.read_result(fa), results.read_result(fb)
        if not (a.ok and b.ok):      # an invalid cell is listed at the top; its details are no figures
            continue
        pa, pb = paging(a), paging(b)
        ta, tb = _policy(ra, cid, pa), _policy(rb, cid, pb)
        if ta == tb and pa[0] == pb[0] and _pct(pa[1]) == _pct(pb[1]) and _pct(pa[2], 2) == _pct(pb[2], 2):
            continue
        w = ""
        if pa[4] is not None or pb[4] is not None:
            anyw = True
            ns = lambda v: "-" if v is None else "%.1f ns" % v    # noqa: E731
            w = _pair(ns(pa[4]), ns(pb[4]))
            if pa[4] is not None and pb[4] is not None and pa[4] > 0:
                w += " (%+.1f%%)" % ((pb[4] - pa[4]) / pa[4] * 100)
        lines.append((cid, _pair(ta, tb), _pair(pa[0] or "?", pb[0] or "?"), _pair(_pct(pa[1]), _pct(pb[1])),
                      _pair(_pct(pa[2], 2), _pct(pb[2], 2)), w))
    if not lines:
        return []
    out = []
    if md:
        out += ["## Huge pages and TLB", "",
                "| cell | THP policy | hugepages | THP share | dTLB miss rate (%% of loads) |%s"
                % (" full-random latency |" if anyw else ""),
                "|---|---|---|---|---|%s" % ("---|" if anyw else "")]
        out += ["| %s | %s | %s | %s | %s |%s" % (l[:5] + ((" %s |" % (l[5] or "-")) if anyw else "",))
                for l in lines]
    else:
        out.append("Huge pages and TLB (A -> B), cells where they differ:")
        fmt = "  %-34s %-20s %-18s %-18s %-18s%s"
        out.append((fmt % ("cell", "THP policy", "hugepages", "THP share", "dTLB miss rate",
                           " full-random latency" if anyw else "")).rstrip(" "))
        out += [(fmt % (l[:5] + ((" " + (l[5] or "-")) if anyw else "",))).rstrip(" ") for l in lines]
    return out + [""]


def rates(res):
    """(record, key, value or None, unit, formula) per counter rate."""
    out = []
    for r in res.get("records") or []:
        if not isinstance(r, dict):
            continue
        rs = results._dig(r, "counters", "hardware", "rates")
        for k, v in (rs.items() if isinstance(rs, dict) else ()):
            if k.endswith("_unavailable"):
                continue
            v = v if isinstance(v, dict) else {"value": v}
            out.append((_text(r.get("name")), k, _num(v.get("value")), _text(v.get("unit") or ""),
                        _text(v.get("formula") or "")))
    return out


def counter_lines(ra, rb, md):
    """The counter rates section (empty when no rate has a value)."""
    order, vals, what = [], {}, {}
    for cid, fa in _cell_files(ra):
        fb = os.path.join(rb.path, "cells", cid + ".json")
        if not os.path.isfile(fb):
            continue
        pair = (("A", results.read_result(fa)), ("B", results.read_result(fb)))
        if not all(res.ok for _, res in pair):     # as paging_lines: valid cells only
            continue
        for side, res in pair:
            for rec, k, v, unit, formula in rates(res):
                key = (cid, rec, k)
                if key not in what:
                    order.append(key)
                    what[key] = ""
                if v is not None:
                    vals[key, side] = v
                if formula:
                    what[key] = formula + (" (%s)" % unit if unit else "")
    shown = [k for k in order if (k, "A") in vals or (k, "B") in vals]
    if not shown:
        return []
    val = lambda k, s: "%.4g" % vals[k, s] if (k, s) in vals else "unavailable"     # noqa: E731
    out = []
    if md:
        out += ["## Counter rates", "", "| cell | record | rate | A | B | change | formula |",
                "|---|---|---|---|---|---|---|"]
    else:
        out += ["Counter rates (A -> B), per cell and record:",
                "  %-34s %-10s %-22s %-12s %-12s %-8s %s" % ("cell", "record", "rate", "A", "B", "change", "formula")]
    for k in shown:
        a, b = vals.get((k, "A")), vals.get((k, "B"))
        ch = "%+.1f%%" % ((b - a) / a * 100) if a is not None and b is not None and a != 0 else "-"
        cells = (k[0], k[1], k[2], val(k, "A"), val(k, "B"), ch, what[k])
        if md:
            out.append("| %s | %s | %s | %s | %s | %s | %s |" % cells)
        else:
            out.append(("  %-34s %-10s %-22s %-12s %-12s %-8s %s" % cells).rstrip(" "))
    return out + [""]


# ---- the table and the verdict -------------------------------------------------

class Table:
    """The compared rows and the verdict: lines (the table), counts, the
    verdict text, regression (bool)."""

    def __init__(self, rows_a, rows_b, min_noise, empty, md):
        order, A, B, unit, better = [], {}, {}, {}, {}
        for side, rs in ((A, rows_a), (B, rows_b)):
            for r in rs:
                if r.key not in A and r.key not in B:
                    order.append(r.key)
                side[r.key] = r
                unit[r.key], better[r.key] = r.unit, r.better
        self.lines = []
        if md:
            self.lines += ["## Results", "", "| bench | size | threads | record | metric | A | B | change | noise | |",
                           "|---|---:|---:|---|---|---:|---:|---:|---:|---|"]
        else:
            self.lines.append("%-16s %10s %7s %-10s %-16s %12s %12s %8s %7s"
                              % ("bench", "size", "threads", "record", "metric", "A", "B", "change", "noise"))
        marked = unknown = onlyone = na = worsen = improved = 0
        worst, worstabs = "", 0.0
        for k in order:
            bench = k[0] + ("" if k[1] == "-" else ":" + k[1])
            ra, rb = A.get(k), B.get(k)
            ch = noise = "-"
            mark = ""
            a = None if ra is None else ra.value
            b = None if rb is None else rb.value
            if ra is not None and rb is not None and a is not None and b is not None and a != 0:
                pct = (b - a) / a * 100
                ch = "%+.1f%%" % pct
                if ra.cv is not None and rb.cv is not None:
                    nz = max(2 * math.sqrt(ra.cv * ra.cv + rb.cv * rb.cv) * 100, min_noise)
                    noise = "%.1f%%" % nz
                    if abs(pct) > nz:
                        mark = "*"
                        marked += 1
                        # worse: the metric's bad way (lower rates, longer times)
                        if (pct > 0) if better[k] == "lower" else (pct < 0):
                            worsen += 1
                            if worst == "" or abs(pct) > worstabs:
                                worstabs = abs(pct)
                                worst = "%s %s x%s %s.%s %+.1f%% (noise %.1f%%)" % (
                                    bench, size_label(k[2]), k[3], k[4], k[5], pct, nz)
                        else:
                            improved += 1
                else:
                    # a single repetition: no noise estimate; judged
                    # against the stated threshold instead, never skipped
                    nz = SINGLE_REP_FACTOR * min_noise
                    noise = "%.1f%%" % nz
                    unknown += 1
                    mark = "?"
                    if abs(pct) > nz:
                        mark = "*?"
                        marked += 1
                        if (pct > 0) if better[k] == "lower" else (pct < 0):
                            worsen += 1
                            if worst == "" or abs(pct) > worstabs:
                                worstabs = abs(pct)
                                worst = "%s %s x%s %s.%s %+.1f%% (threshold %.1f%%, no noise estimate)" % (
                                    bench, size_label(k[2]), k[3], k[4], k[5], pct, nz)
                        else:
                            improved += 1
            elif ra is None or rb is None:
                mark = "only " + ("B" if ra is None else "A")
                onlyone += 1
            elif a is None or b is None:
                mark = "NA"
                na += 1
            sa = "-" if ra is None else ("NA" if a is None else "%.1f" % a)
            sb = "-" if rb is None else ("NA" if b is None else "%.1f" % b)
            cells = (bench, size_label(k[2]), k[3], k[4], k[5], sa, sb, ch, noise, mark)
            if md:
                self.lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % cells)
            else:
                self.lines.append("%-16s %10s %7s %-10s %-16s %12s %12s %8s %7s %s" % cells)
        n = len(order)
        self.lines.append("")
        # "0 changes" must not read as "no difference" when the noise could
        # not be judged or a row has only one side.
        s = "%d row(s); %d change(s) beyond the noise (*: |change| > max(2 x sqrt(cvA^2 + cvB^2), %g%%))" % (
            n, marked, min_noise)
        if unknown:
            s += ("; %d row(s) without a noise estimate (?: a single repetition), judged against "
                  "|change| > %g%% (%g x the floor)" % (unknown, SINGLE_REP_FACTOR * min_noise, SINGLE_REP_FACTOR))
        if onlyone:
            s += "; %d row(s) in one run only" % onlyone
        if na:
            s += "; %d row(s) unavailable (NA)" % na
        self.lines.append(s)
        judged = n - onlyone - na
        if empty:
            v = "none: no valid cell in %s, nothing to compare" % empty
        elif worsen:
            v = "REGRESSION: %d row(s) worse beyond the noise; worst %s" % (worsen, worst)
        elif improved:
            v = "improvement: %d row(s) better beyond the noise, none worse" % improved
        else:
            v = "no change beyond the noise in %d judged row(s)" % judged
        if not empty and judged < n:
            v += " (%d of %d row(s) not judged)" % (n - judged, n)
        if md:
            self.lines.append("")
        self.lines.append(("**verdict: %s**" if md else "verdict: %s") % v)
        self.regression = bool(worsen or empty)


def _hostline(rd):
    r = rd.run
    s = "%s, %s%s" % (_text(_alt(r.get("host"), "?")), _text(_alt(r.get("created"), "?")),
                      "" if r.get("complete") else ", INCOMPLETE")
    return s.replace("\r", " ")


def report(ra, rb, all_metrics, md, min_noise):
    """(text lines, problems, empty, Table)."""
    pa, va = audit(ra)
    pb, vb = audit(rb)
    problems = pa + pb
    empty = ""
    if not va:
        empty = "A (%s)" % ra.path
    if not vb:
        empty = (empty + " and " if empty else "") + "B (%s)" % rb.path
    out = []
    if md:
        out += ["# memsuite compare", "", "- A: `%s` (%s)" % (ra.path, _hostline(ra)),
                "- B: `%s` (%s)" % (rb.path, _hostline(rb))]
        out += ["- " + p for p in problems]
        out += ["", "## Environment differences", ""]
    else:
        out += ["memsuite compare", "  A: %s (%s)" % (ra.path, _hostline(ra)), "  B: %s (%s)" % (rb.path, _hostline(rb))]
        out += ["  " + p for p in problems]
        out += ["", "Environment differences (A -> B):"]
    diffs = env_diffs(ra, rb) + tool_diffs(ra, rb) + config_diffs(ra, rb)
    for k, a, b in diffs:
        out.append(("- %s: `%s` -> `%s`" if md else "  %-22s %s -> %s") % (k, a, b))
    if not diffs:
        out.append("- none" if md else "  none")
    out.append("")
    out += paging_lines(ra, rb, md)
    out += counter_lines(ra, rb, md)
    t = Table(rows(va, all_metrics), rows(vb, all_metrics), min_noise, empty, md)
    return out + t.lines, problems, empty, t


def run(args):
    try:
        ra, rb = results.RunDir(args.a), results.RunDir(args.b)
    except results.RunError as e:
        sys.stderr.write("%s: %s\n" % (args.prog, printable(str(e))))
        return e.code
    lines, problems, empty, table = report(ra, rb, args.all, args.markdown, args.noise)
    sys.stdout.write(printable_lines(lines))
    sys.stdout.flush()
    say = lambda m: sys.stderr.write("%s: %s\n" % (args.prog, printable(m)))      # noqa: E731
    if empty:
        say("no valid cell in %s: nothing to compare" % empty)
    if problems:
        ni = sum(p.startswith("invalid: ") for p in problems)
        nm = sum(p.startswith("missing: ") for p in problems)
        if ni:
            say("%d invalid cell file(s) (listed at the top); their rows are left out" % ni)
        if nm:
            say("%d cell file(s) missing from a complete run (listed at the top); their rows are absent" % nm)
        return exitcodes.FAIL
    if args.exit_on_regression and table.regression:
        return exitcodes.FAIL
    return exitcodes.OK
