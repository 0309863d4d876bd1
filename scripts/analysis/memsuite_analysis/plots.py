"""plots: the series of every chart memsuite draws, computed from the
results model (results.Result, results.RunDir).  Computes, never draws:
draw.py turns a Figure into a PNG with matplotlib.

Contract of a chart (issue #22, "charts that tell the truth"):
  - axis titles are words with their unit, and tick labels are numbers in
    that same unit ("Array size per array (MiB)" ticks 0.5, 1, 2 ...);
  - one bandwidth unit, GB/s (10^9 B/s), except mbw, whose MiB/s is kept
    and said;
  - error bars are min..max of the repetitions (the metric's stats min and
    max, or stream's times turned into rates), never +-CV; the caption
    says so; a point without a spread has no bar;
  - the mountain (mencal sweep) is log-x and log-y, with the cache sizes of
    the result (config.caches l1d/l2, llc.total_bytes) as marked
    vertical lines;
  - a loaded curve's idle point (no injected traffic) is its own marker,
    never joined to the loaded points; the caption says why;
  - heatmaps (c2c, matrix) carry the unit of their colour bar.
Only numbers reach a series: a value that is not a finite number is left
out (results.read_result already calls a document with non-numeric cache
sizes or table numbers invalid, and such a document is never plotted).

Objects (plain data, tested without matplotlib):
  Series(label, x, y, lo, hi, style)   style: "line", "points", "marker"
  Mark(x, label)                        a vertical line at x
  Panel(title, xlabel, ylabel, series, logx, logy, marks, xticks, ymin0)
  Heatmap(title, rows, cols, values, unit, xlabel, ylabel, bounds)
  Figure(name, title, caption, panels, ncols)
"""

import math
import os

from . import results, units
from .model import one_line

GB = 1e9               # the bandwidth unit of every chart: GB/s
MIB = 1048576.0
KIB = 1024.0
LOG_SPAN = 10.0       # values spanning more than this factor get a log axis
MINMAX_CAPTION = "Error bars: minimum to maximum of the repetitions."


def _num(x):
    return results.is_number(x)


class Series:
    __slots__ = ("label", "x", "y", "lo", "hi", "style")

    def __init__(self, label, style="line"):
        self.label, self.style = label, style
        self.x, self.y, self.lo, self.hi = [], [], [], []

    def add(self, x, y, lo=None, hi=None):
        """Adds a point when x and y are finite numbers (and positive on a
        log axis, checked by the panel); lo/hi None: no error bar."""
        if not (_num(x) and _num(y)):
            return False
        self.x.append(float(x))
        self.y.append(float(y))
        ok = _num(lo) and _num(hi) and lo <= y <= hi
        self.lo.append(float(lo) if ok else None)
        self.hi.append(float(hi) if ok else None)
        return True

    def sort(self):
        order = sorted(range(len(self.x)), key=lambda i: self.x[i])
        for k in ("x", "y", "lo", "hi"):
            v = getattr(self, k)
            setattr(self, k, [v[i] for i in order])

    @property
    def has_bars(self):
        return any(v is not None for v in self.lo)

    def __len__(self):
        return len(self.x)


class Mark:
    __slots__ = ("x", "label")

    def __init__(self, x, label):
        self.x, self.label = x, label


class Panel:
    __slots__ = ("title", "xlabel", "ylabel", "series", "logx", "logy", "marks", "xticks",
                 "ymin0")

    def __init__(self, title, xlabel, ylabel, logx=False, logy=False):
        self.title, self.xlabel, self.ylabel = title, xlabel, ylabel
        self.series, self.marks, self.xticks = [], [], None
        self.logx, self.logy, self.ymin0 = logx, logy, not logy

    def points(self):
        return sum(len(s) for s in self.series)

    def drop_nonpositive(self):
        """On a log axis a value <= 0 cannot be drawn: it is left out."""
        for s in self.series:
            keep = [i for i in range(len(s))
                    if (not self.logx or s.x[i] > 0) and (not self.logy or s.y[i] > 0)]
            for k in ("x", "y", "lo", "hi"):
                v = getattr(s, k)
                setattr(s, k, [v[i] for i in keep])
            if self.logy:
                s.lo = [v if v is None or v > 0 else None for v in s.lo]
        self.series = [s for s in self.series if len(s)]


class Heatmap:
    __slots__ = ("title", "rows", "cols", "values", "unit", "xlabel", "ylabel", "bounds")

    def __init__(self, title, rows, cols, values, unit, xlabel, ylabel, bounds=()):
        self.title, self.rows, self.cols, self.values = title, rows, cols, values
        self.unit, self.xlabel, self.ylabel, self.bounds = unit, xlabel, ylabel, list(bounds)

    def points(self):
        return sum(1 for r in self.values for v in r if v is not None)


class Figure:
    __slots__ = ("name", "title", "caption", "panels", "ncols")

    def __init__(self, name, title, caption="", panels=(), ncols=1):
        self.name, self.title, self.caption = name, title, caption
        self.panels, self.ncols = list(panels), ncols

    def points(self):
        return sum(p.points() for p in self.panels)


# Sizes on an axis ---------------------------------------------------------

def size_unit(lo_bytes):
    """(divisor, unit name) for a size axis starting at lo_bytes: KiB below
    1 MiB, else MiB (ticks and title in the same unit)."""
    return (KIB, "KiB") if lo_bytes < MIB else (MIB, "MiB")


def pow2_ticks(lo, hi):
    """Powers of two from lo to hi (values in the axis unit), every other
    one when there are more than 12."""
    if not (lo > 0 and hi >= lo):
        return []
    e0, e1 = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    t = [2.0 ** e for e in range(e0, e1 + 1) if lo / 1.001 <= 2.0 ** e <= hi * 1.001]
    while len(t) > 12:
        t = t[::2]
    return [(v, tick_text(v)) for v in t]


def tick_text(v):
    """A tick label: the number itself, without a needless exponent."""
    if v >= 1 and v == int(v):
        return "%d" % v
    return "%g" % v


# Values and their spread ---------------------------------------------------

def bandwidth_unit(tool):
    """The unit a bandwidth is shown in: GB/s, mbw's own MiB/s."""
    return "MiB/s" if tool == "mbw" else "GB/s"


def display_of(metric, tool):
    """(unit shown, divisor from the base unit) for a metric."""
    if metric.base_unit == "B/s":
        u = bandwidth_unit(tool)
        return u, units.base(u)[1]
    if metric.base_unit == "s":
        u = metric.unit if metric.unit in ("ns", "us", "ms", "s") else "s"
        return u, units.base(u)[1]
    return metric.unit, metric.scale


def spread(record, metric):
    """(lo, hi) of the repetitions in the metric's base unit, or None.
    The metric's stats min/max when it has them; for stream's rates, which
    carry no stats, bytes / max time .. bytes / min time of the record's
    time metric (the rate of the slowest and of the fastest repetition)."""
    st = metric.stats
    if "min" in st and "max" in st and st.get("n", 2) >= 2:
        return st["min"] * metric.scale, st["max"] * metric.scale
    if metric.base_unit != "B/s":
        return None
    b = record.metrics.get("bytes")
    t = next((m for m in record.metrics.values()
              if m.base_unit == "s" and "min" in m.stats and "max" in m.stats
              and m.stats.get("n", 2) >= 2), None)
    if b is None or t is None or not _num(b.base_value) or not (t.stats["min"] > 0):
        return None
    return b.base_value / (t.stats["max"] * t.scale), b.base_value / (t.stats["min"] * t.scale)


def headline_point(record, tool):
    """(value, lo, hi, unit shown, metric name) of a record's headline in
    the unit charts use, or None when it has no value."""
    m = record.head
    if m is None or m.value is None:
        return None
    u, div = display_of(m, tool)
    sp = spread(record, m)
    lo, hi = (sp[0] / div, sp[1] / div) if sp else (None, None)
    return m.base_value / div, lo, hi, u, m.name


def quantity(unit, name=""):
    """The word for a unit's quantity (a metric's name may say better:
    latency), for an axis title."""
    b = units.base(unit)[0]
    if b == "s" and "latency" in name:
        return "Latency"
    return {"B/s": "Bandwidth", "s": "Time", "B": "Size", "fraction": "Fraction"}.get(b, "Value")


def _rows(result, table):
    """The rows of the first record holding table (a list of dicts)."""
    for r in result.records:
        rows = r.tables.get(table)
        if isinstance(rows, list):
            return r, [x for x in rows if isinstance(x, dict)]
    return None, []


def _plural(n, word):
    return "%s %s%s" % (n, word, "" if n == 1 else ("es" if word.endswith("s") else "s"))


def _cpu(result):
    m = result.get("sysinfo", "cpu_model")
    return (", " + one_line(m)[:60]) if isinstance(m, str) and m else ""


# One result document -------------------------------------------------------

def kind_of(result):
    """The chart a result document holds: loaded, sweep, c2c, matrix,
    alloc, latency (randread-sweep) or records (a bar per record)."""
    for r in result.records:
        t = r.tables
        if "curve" in t:
            return "loaded"
        if "mountain" in t:
            return "sweep"
        if "pairs" in t and "matrix" in t:
            return "c2c"
        if "cells" in t and "latency" in t:
            return "matrix"
    if result.tool == "mencal" and result.scenarios[:1] == ["alloc"] or \
            any("allocator" in r.raw and "block_bytes" in r.raw for r in result.records):
        return "alloc"
    if latency_points(result):
        return "latency"
    return "records"


def is_idle_row(row):
    """A loaded curve's idle point: load "idle", or (results written before
    the load column) no delay, with delay_unavailable saying idle."""
    why = row.get("delay_unavailable")
    return row.get("load") == "idle" or (
        row.get("delay") is None and isinstance(why, str) and why.startswith("idle"))


def loaded_figure(result):
    """Latency against the traffic bandwidth measured: the loaded points
    joined (median over the windows), their p99 as points, the idle point
    (load "idle", no traffic injected) a separate marker."""
    _, rows = _rows(result, "curve")
    med = Series("median latency, traffic on")
    p99 = Series("p99 over the windows", "points")
    idle = Series("idle: no traffic injected", "marker")
    for row in rows:
        bw, lat = row.get("bandwidth"), row.get("latency")
        x = bw * 1e6 / GB if _num(bw) else None
        if is_idle_row(row):
            idle.add(0.0 if x is None else x, lat)
            continue
        med.add(x, lat)
        p99.add(x, row.get("latency_p99"))
    for s in (med, p99):
        s.sort()
    conf = result.get("config", "loaded") or {}
    traffic = conf.get("traffic") if isinstance(conf.get("traffic"), str) else "?"
    threads = result.get("config", "threads")
    nt = threads - 1 if _num(threads) and threads > 1 else None
    p = Panel("", "Traffic bandwidth, measured (GB/s)", "Latency per dependent load (ns)")
    p.series = [s for s in (med, p99, idle) if len(s)]
    ys = [y for s in p.series for y in s.y if y > 0]
    if ys and max(ys) > LOG_SPAN * min(ys):   # p99 far above the medians: log y keeps both legible
        p.logy, p.ymin0 = True, False
        p.ylabel = "Latency per dependent load (ns, log scale)"
    title = "mencal loaded: latency under %s traffic%s%s" % (
        one_line(traffic)[:20], " of %s" % _plural(int(nt), "thread") if nt else "", _cpu(result))
    cap = ("Each loaded point is one injection delay: its latency (median over the windows) "
           "against the traffic bandwidth measured in the same windows; p99 as open circles. "
           "The idle point (the traffic threads asleep, nothing injected) is drawn apart and "
           "not joined: at the longest delay the traffic threads are still awake and polling, "
           "so the step from it to idle is the cost of their being active, not a point on the "
           "bandwidth curve.")
    return Figure("loaded", title, cap, [p])


def cache_marks(result):
    """Vertical marks at the result's cache sizes (bytes): L1d and L2 per
    core from config.caches, the LLC from llc.total_bytes."""
    out = []
    for key, name, per in (("l1d_bytes", "L1d", " per core"), ("l2_bytes", "L2", " per core")):
        v = result.get("config", "caches", key)
        if _num(v) and v > 0:
            out.append(Mark(float(v), "%s %s%s" % (name, units.human_bytes(v), per)))
    v = result.get("llc", "total_bytes")
    if not (_num(v) and v > 0):
        v = result.get("config", "llc_bytes")
    if _num(v) and v > 0:
        out.append(Mark(float(v), "LLC %s" % units.human_bytes(v)))
    return out


def sweep_figure(result):
    """The memory mountain: bandwidth (GB/s, log) against the working set
    (log), a line per kernel and thread count, bars min..max of the
    samples, the cache sizes marked."""
    _, rows = _rows(result, "mountain")
    series = {}
    for row in rows:
        k, t = row.get("kernel"), row.get("threads")
        if not isinstance(k, str) or not _num(t):
            continue
        key = (k, int(t))
        if key not in series:
            series[key] = Series("%s, %s" % (one_line(k)[:20], _plural(int(t), "thread")))
        series[key].add(row.get("size"), row.get("bandwidth"), row.get("min"), row.get("max"))
    ss = [series[k] for k in sorted(series)]
    sizes = [x for s in ss for x in s.x if x > 0]
    div, uname = size_unit(min(sizes) if sizes else MIB)
    for s in ss:
        s.sort()
        s.x = [x / div for x in s.x]
    p = Panel("", "Working set, all arrays of all threads (%s, log scale)" % uname,
              "Bandwidth (GB/s, log scale)", logx=True, logy=True)
    p.series = ss
    p.marks = [Mark(m.x / div, m.label) for m in cache_marks(result)]
    p.drop_nonpositive()
    xs = [x for s in p.series for x in s.x] + [m.x for m in p.marks]
    if xs:
        p.xticks = pow2_ticks(min(x for s in p.series for x in s.x) if p.points() else min(xs), max(xs))
    title = "mencal sweep: bandwidth against working set%s" % _cpu(result)
    cap = ("Bandwidth (STREAM counting, 1 GB = 10^9 bytes) of each kernel at each working set, "
           "both axes logarithmic so each cache level's plateau and the DRAM plateau beyond "
           "the LLC line show. Dashed lines: the cache sizes this result detected. "
           + MINMAX_CAPTION.replace("repetitions", "samples at that size"))
    return Figure("sweep", title, cap, [p])


def _heat_row(row, keys):
    return [float(row[k]) if _num(row.get(k)) else None for k in keys]


def c2c_figure(result):
    """One-way cache-line latency between CPUs, in CPU order, lines where
    the L3 domain or the package changes."""
    rec, _ = _rows(result, "pairs")
    t = rec.tables if rec else {}
    cpus = [c for c in t.get("cpus", []) if isinstance(c, dict) and _num(c.get("cpu"))]
    ids = [int(c["cpu"]) for c in cpus]
    byrow = {int(r["cpu"]): r for r in t.get("matrix", []) if isinstance(r, dict) and _num(r.get("cpu"))}
    keys = ["cpu%d" % i for i in ids]
    values = [_heat_row(byrow.get(i, {}), keys) for i in ids]
    bounds = [i for i in range(1, len(cpus))
              if cpus[i].get("l3_domain") != cpus[i - 1].get("l3_domain")
              or cpus[i].get("package") != cpus[i - 1].get("package")]
    h = Heatmap("", [str(i) for i in ids], [str(i) for i in ids], values,
                "One-way latency (ns)", "CPU", "CPU", bounds)
    cap = ("Each cell: the one-way latency of a cache line handed from the row's CPU to the "
           "column's (ns); blank cells were not measured (the diagonal). Black lines: "
           "where the L3 domain or the package changes. The colour scale starts at zero.")
    return Figure("c2c", "mencal c2c: one-way latency between CPUs%s" % _cpu(result), cap, [h])


def matrix_figure(result):
    """Initiator node x memory node: idle latency (ns) and read bandwidth
    (GB/s), two heatmaps."""
    rec, _ = _rows(result, "cells")
    t = rec.tables if rec else {}
    panels = []
    for table, title, unit in (("latency", "Idle latency", "Latency (ns)"),
                               ("bandwidth", "Read bandwidth", "Bandwidth (GB/s)")):
        rows = [r for r in t.get(table, []) if isinstance(r, dict) and _num(r.get("initiator"))]
        nodes = sorted({int(k[4:]) for r in rows for k in r
                        if k.startswith("node") and k[4:].isdigit()})
        keys = ["node%d" % n for n in nodes]
        panels.append(Heatmap(title, [str(int(r["initiator"])) for r in rows],
                              [str(n) for n in nodes], [_heat_row(r, keys) for r in rows],
                              unit, "Memory node", "Initiator node"))
    cap = ("Rows: the node whose CPUs run the test; columns: the node holding the memory. "
           "Left: idle latency of dependent loads (ns); right: read bandwidth (GB/s). "
           "The colour scales start at zero.")
    return Figure("matrix", "mencal matrix: initiator node x memory node%s" % _cpu(result), cap,
                  panels, ncols=2)


def alloc_figure(result):
    """Allocator comparison: wall time and minor page faults against block
    size, a line per allocator and thread count, bars min..max."""
    series = {}
    for r in result.records:
        raw = r.raw
        a, t, b = raw.get("allocator"), raw.get("threads"), raw.get("block_bytes")
        if not isinstance(a, str) or not _num(t) or not _num(b) or raw.get("status", "ok") != "ok":
            continue
        key = (one_line(a)[:24], int(t))
        if key not in series:
            series[key] = (Series("%s, %s" % (key[0], _plural(key[1], "thread"))),
                           Series("%s, %s" % (key[0], _plural(key[1], "thread"))))
        for s, name in zip(series[key], ("wall_time", "minflt")):
            m = r.metrics.get(name)
            if m is None or m.value is None:
                continue
            st = m.stats
            s.add(b, m.value, st.get("min") if st.get("n", 0) >= 2 else None,
                  st.get("max") if st.get("n", 0) >= 2 else None)
    sizes = [x for k in series for x in series[k][0].x]
    div, uname = size_unit(min(sizes) if sizes else KIB)
    panels = []
    for i, (yl, logy) in enumerate((("Wall time (s, log scale)", True),
                                     ("Minor page faults (count, log scale)", True))):
        p = Panel("", "Block size (%s, log scale)" % uname, yl, logx=True, logy=logy)
        for k in sorted(series):
            s = series[k][i]
            s.sort()
            s.x = [x / div for x in s.x]
            p.series.append(s)
        p.drop_nonpositive()
        if p.points():
            xs = [x for s in p.series for x in s.x]
            p.xticks = pow2_ticks(min(xs), max(xs))
        panels.append(p)
    nofree = result.get("config", "nofree") is True
    bpt = result.get("config", "blocks_per_thread")
    title = "mencal alloc (%s%s)" % ("--nofree" if nofree else "free",
                                     ", %d blocks per thread" % bpt if _num(bpt) else "")
    cap = "Median over the repetitions; " + MINMAX_CAPTION.lower()
    return Figure("alloc", title, cap, panels, ncols=2)


def latency_points(result):
    """(working set bytes, latency ns, None, None) of a latency sweep
    (mencal randread --sweep: records[].tables.sweep[] rows with size_bytes
    and latency in ns), sorted by size."""
    out = []
    for r in result.records:
        rows = r.tables.get("sweep")
        if not isinstance(rows, list):
            continue
        for row in rows:
            if not isinstance(row, dict):
                continue
            ws, lat = row.get("size_bytes"), row.get("latency", row.get("latency_ns"))
            if _num(ws) and _num(lat):
                out.append((float(ws), float(lat), None, None))
    return sorted(out)


def latency_figure(points, name="latency", title="random-read latency against working set"):
    s = Series("randread")
    div, uname = size_unit(min(p[0] for p in points) if points else MIB)
    for ws, lat, lo, hi in points:
        s.add(ws / div, lat, lo, hi)
    p = Panel("", "Working set (%s, log scale)" % uname, "Latency per access (ns)", logx=True)
    p.series = [s]
    p.drop_nonpositive()
    if p.points():
        p.xticks = pow2_ticks(min(s.x), max(s.x))
    return Figure(name, title, "Dependent random reads, one point per working set (no repetition spread is recorded).", [p])


def records_figure(result):
    """A bar per record: its headline value, bars min..max."""
    p = Panel("", "Record", "")
    s = Series("headline", "bar")
    labels, ylabel = [], None
    for r in result.records:
        hp = headline_point(r, result.tool)
        if hp is None:
            continue
        v, lo, hi, u, name = hp
        if ylabel is None:
            ylabel = "%s (%s)" % (quantity(u), u)
        elif ylabel != "%s (%s)" % (quantity(u), u):
            continue   # one unit on the axis: records in another are left out
        s.add(len(labels), v, lo, hi)
        labels.append(one_line(r.name)[:24])
    p.ylabel = ylabel or ""
    p.series = [s] if len(s) else []
    p.xticks = list(zip(range(len(labels)), labels))
    tool = result.tool or "result"
    title = "%s%s: headline metric per record" % (one_line(tool)[:20], _cpu(result))
    cap = MINMAX_CAPTION + (" mbw's bandwidth is in MiB/s (2^20 bytes per second), as mbw "
                            "prints it." if result.tool == "mbw" else "")
    return Figure("records", title, cap, [p])


FIGURES = {
    "loaded": loaded_figure,
    "sweep": sweep_figure,
    "c2c": c2c_figure,
    "matrix": matrix_figure,
    "alloc": alloc_figure,
    "latency": lambda r: latency_figure(latency_points(r)),
    "records": records_figure,
}
KINDS = tuple(FIGURES)


def result_figure(result, kind=None):
    """The Figure of one result document (kind: one of KINDS, else the
    one the document holds)."""
    return FIGURES[kind or kind_of(result)](result)


# A run directory -----------------------------------------------------------

class Point:
    __slots__ = ("size", "threads", "value", "lo", "hi", "in_cache")

    def __init__(self, size, threads, value, lo, hi, in_cache):
        self.size, self.threads, self.value = size, threads, value
        self.lo, self.hi, self.in_cache = lo, hi, in_cache


def run_points(run):
    """{(bench, scenario): {record: (unit, metric, [Point])}} over the
    run's complete cells, in plan order."""
    llc = run.config.get("llc_bytes")
    llc = llc if _num(llc) and llc > 0 else None
    out = {}
    for c in run.cells:
        res = c.result
        if res is None or not res.ok:
            continue
        for r in res.records:
            hp = headline_point(r, c.tool)
            if hp is None:
                continue
            v, lo, hi, u, name = hp
            recs = out.setdefault((c.bench, c.scenario), {})
            unit, mname, pts = recs.setdefault(r.name, (u, name, []))
            if unit != u:
                continue
            pts.append(Point(c.size_bytes, c.threads, v, lo, hi,
                             llc is not None and c.size_bytes < 4 * llc))
    return out


def matrix_figures(run):
    """Headline metric against threads (a line per array size) and against
    array size (a line per thread count), a panel per record, for each
    bench of the run; only charts with a line of two points or more."""
    figs = []
    for (bench, scen), recs in run_points(run).items():
        label = bench if scen in ("-", "") else "%s:%s" % (bench.split(":")[0], scen)
        fname = label.replace(":", "-")
        xname = "processes" if scen == "concurrent" else "threads"
        for axis in ("threads", "size"):
            panels, lines = [], 0
            for rname, (unit, mname, pts) in recs.items():
                p = _matrix_panel(rname, unit, mname, pts, axis, xname)
                lines += sum(1 for s in p.series if len(s) >= 2 and s.style == "line")
                panels.append(p)
            if not lines:
                continue
            what = ("%s, a line per array size" % xname if axis == "threads"
                    else "array size, a line per %s count" % xname.rstrip("es").rstrip("s")
                    if xname == "threads" else "array size, a line per process count")
            cap = (MINMAX_CAPTION + " Rings: arrays smaller than 4x the LLC (in cache)."
                   + (" mbw's bandwidth is in MiB/s (2^20 bytes per second), as mbw prints it."
                      if bench == "mbw" else ""))
            figs.append(Figure("%s-%s" % (fname, axis), "%s: headline metric against %s"
                               % (one_line(label)[:40], what), cap, panels,
                               ncols=2 if len(panels) > 1 else 1))
    return figs


def _matrix_panel(rname, unit, mname, pts, axis, xname):
    ylabel = "%s (%s)" % (quantity(unit, mname), unit)
    if axis == "threads":
        p = Panel(one_line(rname)[:40], "%s%s" % (xname.capitalize(), ""), ylabel)
        groups = sorted({q.size for q in pts})
        key, xof, lab = (lambda q: q.size), (lambda q: q.threads), \
            (lambda g: "%s per array" % units.human_bytes(g))
        xs = sorted({q.threads for q in pts})
        if xs and xs[0] > 0 and xs[-1] >= 8 * xs[0]:   # never divides by a 0 thread count
            p.logx = True
        p.xticks = [(x, "%d" % x) for x in xs]
    else:
        sizes = sorted({q.size for q in pts})
        div, uname = size_unit(sizes[0] if sizes else MIB)
        p = Panel(one_line(rname)[:40], "Array size per array (%s, log scale)" % uname, ylabel,
                  logx=True)
        groups = sorted({q.threads for q in pts})
        key, xof = (lambda q: q.threads), (lambda q: q.size / div)
        lab = (lambda g: _plural(g, "process" if xname == "processes" else "thread"))
        p.xticks = [(s / div, tick_text(round(s / div, 6))) for s in sizes]
    ring = Series("in cache (< 4x LLC)", "ring")
    for g in groups:
        s = Series(lab(g))
        for q in pts:
            if key(q) == g:
                s.add(xof(q), q.value, q.lo, q.hi)
                if q.in_cache:
                    ring.add(xof(q), q.value)
        s.sort()
        p.series.append(s)
    if len(ring):
        p.series.append(ring)
    p.drop_nonpositive()
    return p


def cell_figures(run):
    """The chart of each complete cell holding a curve or a heatmap
    (loaded, sweep, c2c, matrix: named KIND-ID), and one latency chart
    over the randread-sweep cells."""
    figs, lat = [], []
    for c in run.cells:
        res = c.result
        if res is None or not res.ok:
            continue
        k = kind_of(res)
        if k in ("loaded", "sweep", "c2c", "matrix"):
            f = FIGURES[k](res)
            f.name = "%s-%s" % (k, c.id)
            if k == "loaded" and not any(s.style == "line" and len(s) for p in f.panels for s in p.series):
                continue    # one thread: the idle point alone is no curve (the cell says why)
            figs.append(f)
        elif c.scenario in ("randread-sweep", "sweep"):
            lat.extend(latency_points(res))
    if lat:
        figs.append(latency_figure(sorted(lat), "latency",
                                   "random-read latency against working set (mencal randread-sweep)"))
    return figs


def run_figures(run):
    """Every chart a run directory allows, in the order a report shows them."""
    return [f for f in matrix_figures(run) + cell_figures(run) if f.points()]


# Drawing entry points (draw.py does the drawing) ---------------------------

UNAVAILABLE = "plots unavailable: matplotlib is not installed (Debian: python3-matplotlib)"


def draw_run(run, outdir, note=None):
    """Draws every chart of run (a results.RunDir) into outdir as PNGs.
    Returns a list of (path, title, caption).  matplotlib missing: an empty
    list, and note(UNAVAILABLE) when note is given (else it is written to
    stderr).  A PNG that cannot be written raises OSError (nothing partial
    is left: draw.write_png writes a temporary and renames it)."""
    try:
        from . import draw
    except ImportError:
        if note:
            note(UNAVAILABLE)
        else:
            import sys
            sys.stderr.write("memsuite-analyse: %s\n" % UNAVAILABLE)
        return []
    out = []
    for f in run_figures(run):
        path = os.path.join(outdir, f.name + ".png")
        draw.write_png(f, path)
        out.append((path, f.title, f.caption))
    return out
