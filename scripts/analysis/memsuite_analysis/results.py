"""The results model: a tool's result document (memsuite/result/1 or /2)
and a matrix run directory (memsuite/run/1), read into objects that every
command of the analyser shares.  No command reads a result's JSON itself.

A result document (design.md, docs/result.schema.json):
  { "schema": "memsuite/result/2", "tool": "stream", "complete": true,
    "label": "standard", "config": {...}, "sysinfo": {...},
    "records": [ { "name": "Copy", "headline": "best_rate_mbps",
                   "metrics": { "best_rate_mbps": { "value": 1.0, "unit": "MB/s",
                       "base_unit": "B/s", "scale": 1e6, "better": "higher",
                       "stats": { "n", "min", "max", "mean", "median",
                                  "stddev", "cv", "mad" } } } } ] }
Schema 2 states each record's headline metric and each metric's base
unit, scale and better direction.  A schema 1 document does not: the
headline is then the first of HEADLINE_PREFERENCE the record has, else its
first rate metric, else its first metric in ns; base unit and scale come
from units.UNITS and the direction from the unit's quantity.
"metrics" may be an object or an array of {"name": ..., ...} objects.

State of a document (Result.state):
  complete    it may stand for a measurement;
  incomplete  a run that did not finish;
  invalid     its figures cannot be trusted (Result.why says why);
  unreadable  it is not a result document at all (Result.why).
"""

import math
import os

from . import units
from .model import read_regular, loads, one_line

SCHEMAS = ("memsuite/result/1", "memsuite/result/2")
RUN_SCHEMA = "memsuite/run/1"
# The largest result document read (far above any real one: a sweep's is
# a few hundred KiB); a larger file is refused unread, named.
RESULT_MAX_BYTES = 16 << 20
# A matrix scenario whose result names another mencal scenario
# (scripts/lib/bench.sh: mencal:randread-sweep is mencal's randread --sweep).
RESULT_SCENARIO = {"randread-sweep": "randread"}

# Headline metrics of schema 1 records, in order of preference.
HEADLINE_PREFERENCE = (
    "best_rate_mbps",       # stream: Best Rate MB/s
    "avg_rate_mibps",       # mbw: the AVG line, MiB/s
    "mean_rate_mibps",
    "latency",              # mencal randread: ns per dependent load
    "latency_ns",
    "total_bandwidth",      # mencal mixed, concurrent
    "bandwidth",            # mencal seqread
    "bandwidth_gbps",
)

# A headline value at or above this is no measurement (1e15 MB/s is an
# exabyte per second, 1e15 ns eleven days); one at or below 0 neither.
VALUE_MAX = 1e15

# run.json, env.json, plan.tsv: a few KiB each.
RUNDIR_FILE_MAX_BYTES = 16 << 20

STAT_KEYS = ("n", "min", "max", "mean", "median", "stddev", "cv", "mad")

# The base units of measured quantities: a value in one is >= 0.
MEASURED_BASES = ("B/s", "s")

# The largest byte count a size fact may hold (1 EiB): more is no machine.
BYTES_MAX = 1 << 60

# Facts that reach plots and tables as numbers: (where, getter).
_NUMERIC_FACTS = (
    ("config.caches.l1d_bytes", lambda d: _dig(d, "config", "caches", "l1d_bytes")),
    ("config.caches.l2_bytes", lambda d: _dig(d, "config", "caches", "l2_bytes")),
    ("llc.total_bytes", lambda d: _dig(d, "llc", "total_bytes")),
    ("config.llc_bytes", lambda d: _dig(d, "config", "llc_bytes")),
)
# The working-set sizes a tool reports: a positive byte count.
_SIZE_FACTS = (
    ("config.array_bytes", lambda d: _dig(d, "config", "array_bytes")),
    ("config.size_bytes", lambda d: _dig(d, "config", "size_bytes")),
)
_TABLE_NUMBERS = ("size", "size_bytes", "threads", "bandwidth", "latency", "latency_p99")


class Invalid(Exception):
    """A document that cannot be trusted; str() says why."""


def is_number(x):
    """A JSON number (bool is not), finite."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _close(a, b):
    """Equal but for rounding in the last printed digits."""
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def _dig(d, *keys):
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def _short(x, n=40):
    """A value as JSON text cut to n characters, for a message."""
    import json
    try:
        s = json.dumps(x, ensure_ascii=False, separators=(",", ":"))   # as jq's tojson
    except (TypeError, ValueError):
        s = str(x)
    return one_line(s[:n])


SHOWN_MAX = 120     # the characters of a document's string a message shows


def shown(x, n=SHOWN_MAX):
    """A value from a document inside a message: a string as it is,
    anything else as JSON text; cut to n characters, marked "...(cut)"."""
    s = x if isinstance(x, str) else _short(x, n + 1)
    return s if len(s) <= n else s[:n] + "...(cut)"


class Metric:
    """One metric of a record: name, value (None: unavailable, with
    `unavailable` saying why when the tool said), unit as written, base
    unit and scale, better ('higher', 'lower' or None), stats (dict of
    numbers, maybe empty)."""

    __slots__ = ("name", "value", "unit", "base_unit", "scale", "better", "stats", "unavailable", "bad_value")

    def __init__(self, name, m, where):
        if not isinstance(m, dict):
            m = {"value": m}
        self.name = name
        unit = m.get("unit", "")
        if unit is None:
            unit = ""
        if not isinstance(unit, str):
            raise Invalid("%s.unit is %s, not a string" % (where, _short(unit)))
        self.unit = unit
        v = m.get("value")
        # A value that is no number: the Record says so (as the headline's
        # "not a measured value" first, ms_res_state's order).
        self.bad_value = None
        if v is not None and not is_number(v):
            self.bad_value, v = _short(v), None
        self.value = v
        b, s = units.base(unit)
        bu, sc = m.get("base_unit"), m.get("scale")
        if bu is not None or sc is not None:
            if not isinstance(bu, str) or not is_number(sc) or sc <= 0:
                raise Invalid("%s: base_unit %s with scale %s is not a unit and a positive number"
                              % (where, _short(bu), _short(sc)))
            why = units.conflict(unit, bu, float(sc))
            if why:
                raise Invalid("%s: %s; the figure cannot be read in either" % (where, one_line(why)))
            b, s = bu, float(sc)
        self.base_unit, self.scale = b, s
        better = m.get("better", units.default_better(unit) if bu is None else None)
        if better not in (None, "higher", "lower"):
            raise Invalid("%s.better is %s, not \"higher\" or \"lower\"" % (where, _short(better)))
        self.better = better
        st = m.get("stats") or {}
        if not isinstance(st, dict):
            raise Invalid("%s.stats is not an object" % where)
        for k in STAT_KEYS:
            if k in st and st[k] is not None and not is_number(st[k]):
                raise Invalid("%s.stats.%s is %s, not a number" % (where, k, _short(st[k])))
        self.stats = {k: st[k] for k in STAT_KEYS if is_number(st.get(k))}
        self._check_stats(where)
        # A bandwidth or a time is never below 0 nor beyond VALUE_MAX; a
        # spread (cv, stddev, mad) and a count neither.
        measured = self.base_unit in MEASURED_BASES
        for k, x in [("", v)] + [(".stats." + k, x) for k, x in self.stats.items()]:
            spread = k in (".stats.n", ".stats.cv", ".stats.stddev", ".stats.mad")
            if x is not None and (measured or spread) and not (0 <= x < VALUE_MAX):
                raise Invalid("%s%s is %s, not a measured value (a number from 0 to below %g)"
                              % (where, k, _short(x), VALUE_MAX))
        why = m.get("value_unavailable") or m.get("unavailable")
        self.unavailable = one_line(why) if isinstance(why, str) else None

    def _check_stats(self, where):
        """The repetitions' statistics hang together: min <= mean, median
        <= max (but for rounding).  A time of 0 is a figure: a CPU time
        (user_time, sys_time) of a short repetition is 0 when no clock tick
        fell in it; what divides by a time checks it is above 0 where it
        divides (report.repetition_range)."""
        st = self.stats
        lo, hi = st.get("min"), st.get("max")
        if lo is not None and hi is not None and lo > hi and not _close(lo, hi):
            raise Invalid("%s.stats.min %s is above stats.max %s" % (where, _short(lo), _short(hi)))
        for k in ("mean", "median"):
            x = st.get(k)
            if x is None:
                continue
            if lo is not None and x < lo and not _close(x, lo) or hi is not None and x > hi and not _close(x, hi):
                raise Invalid("%s.stats.%s %s is outside stats.min..max (%s..%s)"
                              % (where, k, _short(x), _short(lo), _short(hi)))

    @property
    def base_value(self):
        """The value in the base unit (B/s, s, ...), or None."""
        return None if self.value is None else self.value * self.scale

    def in_unit(self, unit):
        """The value in another unit of the same base."""
        return None if self.value is None else self.base_value / units.base(unit)[1]


class Record:
    """One record: name, metrics (dict in document order), headline (the
    name of its headline metric, or None), tables (dict of lists), the raw
    record (for tool-specific details a renderer shows)."""

    __slots__ = ("name", "metrics", "headline", "tables", "raw")

    def __init__(self, r, v2):
        if not isinstance(r, dict):
            raise Invalid("a record is not an object")
        self.raw = r
        name = r.get("name", "?")
        self.name = name if isinstance(name, str) else _short(name)
        where = one_line(self.name[:40])
        v = r.get("validation")
        if isinstance(v, dict) and v.get("passed") is not True:
            raise Invalid("record %s failed its own validation (validation.passed is %s)"
                          % (where, _short(v.get("passed"))))
        ms = r.get("metrics", {})
        if isinstance(ms, list):
            pairs = []
            for m in ms:
                if not isinstance(m, dict):
                    raise Invalid("%s.metrics is neither an object nor an array of metrics" % where)
                nm = m.get("name", "?")
                pairs.append((nm if isinstance(nm, str) else _short(nm), m))
        elif isinstance(ms, dict):
            pairs = list(ms.items())
        else:
            raise Invalid("%s.metrics is neither an object nor an array of metrics" % where)
        self.metrics = {}
        for k, m in pairs:
            self.metrics[k] = Metric(k, m, "%s.%s" % (where, one_line(k[:40])))
        self.headline = self._headline(r, v2, where)
        self._best_not_below_average(where)
        for k, m in self.metrics.items():
            if m.bad_value is not None:
                raise Invalid("%s.%s.value is %s, not a number" % (where, one_line(k[:40]), m.bad_value))
        t = r.get("tables")
        self.tables = t if isinstance(t, dict) else {}
        for tname, rows in self.tables.items():
            if not isinstance(rows, list):
                continue
            for row in rows:
                if not isinstance(row, dict):
                    continue
                for k in _TABLE_NUMBERS:
                    if k in row and row[k] is not None and not is_number(row[k]):
                        raise Invalid("%s.tables.%s[].%s is %s, not a number"
                                      % (where, one_line(str(tname)[:40]), k, _short(row[k])))

    def _best_not_below_average(self, where):
        """best_X can never be worse than avg_X or mean_X of the same
        repetitions (mbw's best_rate_mibps against avg_rate_mibps)."""
        for k, m in self.metrics.items():
            if not k.startswith("best_") or m.value is None or m.better is None:
                continue
            for pre in ("avg_", "mean_"):
                a = self.metrics.get(pre + k[5:])
                if a is None or a.value is None or a.base_unit != m.base_unit:
                    continue
                worse = m.base_value < a.base_value if m.better == "higher" else m.base_value > a.base_value
                if worse and not _close(m.base_value, a.base_value):
                    raise Invalid("%s.%s is %s, worse than %s %s of the same repetitions"
                                  % (where, k, _short(m.value), pre + k[5:], _short(a.value)))

    def _headline(self, r, v2, where):
        h = r.get("headline") if v2 else None
        if h is not None:
            if h not in self.metrics:
                raise Invalid("%s.headline names %s, which the record does not have" % (where, _short(h)))
        else:
            h = next((p for p in HEADLINE_PREFERENCE if p in self.metrics), None)
            if h is None:
                h = next((k for k, m in self.metrics.items() if units.is_rate(m.unit)), None)
            if h is None:
                h = next((k for k, m in self.metrics.items() if m.unit == "ns"), None)
        if h is not None:
            if self.metrics[h].bad_value is not None:
                raise Invalid("%s.%s is %s, not a measured value (a number above 0 and below %g)"
                              % (where, h, self.metrics[h].bad_value, VALUE_MAX))
            v = self.metrics[h].value
            if v is not None and not (0 < v < VALUE_MAX):
                raise Invalid("%s.%s is %s, not a measured value (a number above 0 and below %g)"
                              % (where, h, _short(v), VALUE_MAX))
        return h

    @property
    def head(self):
        """The headline Metric, or None."""
        return self.metrics.get(self.headline) if self.headline else None

    def repetitions(self):
        """(n, cv) of the repetitions behind the headline: its stats, else
        the first stats in the record (stream keeps them on its times, whose
        CV is the rate's); cv None below 2 repetitions or when not given."""
        h = self.head
        st = h.stats if h is not None and h.stats else next(
            (m.stats for m in self.metrics.values() if m.stats), {})
        n = st.get("n")
        cv = st.get("cv")
        if cv is None:
            cv = next((m.value for k, m in self.metrics.items()
                       if k.startswith("cv") and m.unit == "fraction"), None)
        if n is not None and n < 2:
            cv = None
        return n, cv


class Result:
    """A result document, read.  path; state and why (see the module
    docstring); doc (the parsed object, None when unreadable); tool,
    label, complete, records, schema_version (1 or 2)."""

    def __init__(self, path, state, why="", doc=None, records=()):
        self.path, self.state, self.why, self.doc = path, state, why, doc
        self.records = list(records)
        d = doc if isinstance(doc, dict) else {}
        tool = d.get("tool")
        self.tool = tool if isinstance(tool, str) else ""
        label = d.get("label")
        self.label = label if isinstance(label, str) else ""
        self.complete = d.get("complete") is True
        self.schema_version = 2 if d.get("schema") == SCHEMAS[1] else 1

    @property
    def ok(self):
        return self.state == "complete"

    def record(self, name):
        return next((r for r in self.records if r.name == name), None)

    def problem(self):
        """Why the result may not stand for a measurement, one line (the
        words of ms_res_problem), or None when it may."""
        if self.state == "complete":
            return None
        if self.state == "incomplete":
            return "the result is incomplete (an interrupted or failed run)"
        if self.state == "invalid":
            return "the result is not to be trusted: " + self.why
        return self.why

    def get(self, *keys):
        """A member of the document by path (None when absent)."""
        return _dig(self.doc, *keys)

    @property
    def scenarios(self):
        s = self.get("config", "scenarios")
        return s if isinstance(s, list) else []

    @property
    def bench(self):
        """The bench as the matrix names it: stream, mbw, mencal:SCENARIO."""
        if self.tool == "mencal" and self.scenarios:
            return "mencal:%s" % self.scenarios[0]
        return self.tool


def read_result(path, tool=None, scenario=None):
    """Reads path into a Result; never raises for what the file holds.
    tool: the tool the caller expects (a result of another tool is
    invalid); scenario: the mencal scenario expected (config.scenarios
    must be [scenario]).  A FIFO, device or link is never opened for
    reading in a way that could block."""
    shown = one_line(path)
    if os.path.isdir(path):
        return Result(path, "unreadable", "cannot read %s" % shown)
    data, why = read_regular(path, "a result document", RESULT_MAX_BYTES)
    if why:
        if why.startswith("is empty"):      # ms_res_state's words (jq -s of nothing)
            return Result(path, "unreadable", "%s holds 0 JSON documents, expected one" % shown)
        # bash's words (ms_res_state): "it is a FIFO, not a regular file"
        if why.endswith(" (not read)"):
            why = why[:-len(" (not read)")] + ", not a regular file"
        return Result(path, "unreadable", "cannot read %s: it %s" % (shown, why))
    try:
        doc = loads(data)
    except (ValueError, RecursionError) as e:
        if getattr(e, "msg", "") == "Extra data":
            return Result(path, "unreadable", "%s holds more than one JSON document, expected one" % shown)
        return Result(path, "unreadable", "%s is not valid JSON (empty, truncated, or nested too deeply)" % shown)
    return judge(path, doc, tool, scenario)


def judge(path, doc, tool=None, scenario=None):
    """The Result of an already parsed document (see read_result)."""
    shown = one_line(path)
    if not isinstance(doc, dict):
        return Result(path, "unreadable", "%s is not a JSON object" % shown)
    schema = doc.get("schema")
    if schema not in SCHEMAS:
        return Result(path, "unreadable", "%s has schema %s, expected %s" % (
            shown, "none" if schema is None else one_line(str(schema)), " or ".join(SCHEMAS)))
    recs = doc.get("records")
    if not isinstance(recs, list):
        return Result(path, "unreadable", "%s has no records array" % shown, doc)
    if tool and doc.get("tool") != tool:
        t = doc.get("tool")
        return Result(path, "invalid", "it is a result of %s, but the planned cell runs %s"
                      % (_short("no tool" if t is None else t), tool), doc)
    if scenario and _dig(doc, "config", "scenarios") != [scenario]:
        return Result(path, "invalid", "it is a result of mencal scenarios %s, but the planned cell runs mencal %s"
                      % (_short(_dig(doc, "config", "scenarios") or "none", 60), scenario), doc)
    if doc.get("complete") is not True:
        return Result(path, "incomplete", "", doc)
    v = doc.get("validation")
    if v is not None and (not isinstance(v, dict) or v.get("passed") is not True):
        return Result(path, "invalid", "it failed its own validation (validation.passed is %s)"
                      % _short(v.get("passed") if isinstance(v, dict) else None), doc)
    for where, get in _NUMERIC_FACTS:
        x = get(doc)
        if x is not None and not is_number(x):
            return Result(path, "invalid", "%s is %s, not a number" % (where, _short(x)), doc)
    for where, get in _NUMERIC_FACTS + _SIZE_FACTS:
        x = get(doc)
        positive = (where, get) in _SIZE_FACTS
        if x is not None and not (is_number(x) and (x > 0 if positive else x >= 0) and x <= BYTES_MAX):
            return Result(path, "invalid", "%s is %s, not a byte count (%s to %d)"
                          % (where, _short(x), "1" if positive else "0", BYTES_MAX), doc)
    if not recs:
        return Result(path, "invalid", "it has no records (a complete result measured nothing)", doc)
    v2 = schema == SCHEMAS[1]
    try:
        records = [Record(r, v2) for r in recs]
    except Invalid as e:
        return Result(path, "invalid", str(e), doc)
    return Result(path, "complete", "", doc, records)


# A run directory --------------------------------------------------------

class Cell:
    """One planned cell of a matrix run: id, bench, scenario ('-' for
    none), size_bytes, threads, reps, and result (a Result, or None when
    no cells/ID.json exists: not run, or missing in a complete run)."""

    __slots__ = ("id", "bench", "scenario", "size_bytes", "threads", "reps", "result", "log")

    def __init__(self, fields):
        self.id, self.bench, self.scenario = fields[0], fields[1], fields[2]
        self.size_bytes, self.threads, self.reps = int(fields[3]), int(fields[4]), int(fields[5])
        self.result = None
        self.log = None

    @property
    def tool(self):
        return self.bench.split(":", 1)[0]

    @property
    def group(self):
        """bench[:scenario], as the report's tables name it."""
        return self.bench if self.scenario == "-" else "%s:%s" % (self.bench, self.scenario)

    @property
    def result_scenario(self):
        """The mencal scenario the cell's result names (config.scenarios),
        as ms_bench_result_id: memsuite's randread-sweep is mencal's
        randread --sweep; None for the other tools."""
        if self.tool != "mencal" or self.scenario == "-":
            return None
        return RESULT_SCENARIO.get(self.scenario, self.scenario)


class RunError(Exception):
    """A run directory that cannot be read: str() says why; .code is the
    exit code (2: damaged or not one, 3: cannot be read)."""

    def __init__(self, why, code=2):
        super().__init__(why)
        self.code = code


def _read_json_file(path, what):
    data, why = read_regular(path, "a run directory's " + what, RUNDIR_FILE_MAX_BYTES)
    if why:
        raise RunError("%s %s; the directory is damaged" % (one_line(path), why))
    try:
        return loads(data)
    except (ValueError, RecursionError):
        raise RunError("%s is not valid JSON (empty, truncated or not one object); the directory is damaged"
                       % one_line(path))


class RunDir:
    """A matrix run directory: path, run (run.json), env (env.json or
    None), cells (in plan order).  Reading it never blocks and never
    fails on a damaged cell: each cell's Result says what it is."""

    def __init__(self, path, known_benches=None):
        self.path = path
        if not os.path.isdir(path):
            raise RunError("no such results directory: %s" % one_line(path))
        run = _read_json_file(os.path.join(path, "run.json"), "run.json") \
            if os.path.lexists(os.path.join(path, "run.json")) else None
        if run is None:
            raise RunError("%s is not a memsuite results directory (no run.json)" % one_line(path))
        if not isinstance(run, dict):
            raise RunError("%s/run.json is not valid JSON (empty, truncated or not one object); the directory is damaged"
                           % one_line(path))
        if run.get("schema") != RUN_SCHEMA:
            raise RunError("%s was written by another memsuite version (schema %s, this one reads '%s'); use that version or rerun"
                           % (one_line(path), _short(run.get("schema")), RUN_SCHEMA))
        self.run = run
        envp = os.path.join(path, "env.json")
        self.env = _read_json_file(envp, "env.json") if os.path.lexists(envp) else None
        self.cells = list(self._plan(os.path.join(path, "plan.tsv"), known_benches))
        for c in self.cells:
            cp = os.path.join(path, "cells", c.id + ".json")
            if os.path.lexists(cp):
                tool = c.tool
                scen = c.result_scenario
                c.result = read_result(cp, tool, scen)

    @property
    def complete(self):
        return self.run.get("complete") is True

    @property
    def config(self):
        c = self.run.get("config")
        return c if isinstance(c, dict) else {}

    def _plan(self, path, known):
        if not os.path.lexists(path):
            raise RunError("%s has no plan.tsv; it cannot be resumed or reported" % one_line(self.path))
        data, why = read_regular(path, "a plan", RUNDIR_FILE_MAX_BYTES)
        if why and not why.startswith("is empty"):
            raise RunError("%s %s; the directory is damaged" % (one_line(path), why))
        text = (data or b"").decode("utf-8", "surrogateescape")
        import re
        idre = re.compile(r"^[A-Za-z0-9._:-]+$")
        for n, line in enumerate(text.splitlines(), 1):
            if not line or line.startswith("#"):
                continue
            f = line.split("\t")
            if (len(f) != 6 or not idre.match(f[0]) or not all(x.isdigit() and x.isascii() for x in f[3:6])):
                raise RunError('%s/plan.tsv: line %d is not "id bench scenario size_bytes threads reps"; the directory is damaged'
                               % (one_line(self.path), n))
            if known is not None and f[1] not in known:
                raise RunError("%s/plan.tsv: line %d: bench is not one of: %s; the directory is damaged"
                               % (one_line(self.path), n, " ".join(known)))
            yield Cell(f)
