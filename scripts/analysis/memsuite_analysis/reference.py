"""References (schema memsuite/ref/1): the one reader, its validation,
and what a reference keeps of the result it was made from ("made_with")
and how a new result is compared with that (settings).

  { "schema": "memsuite/ref/1",
    "description": "free text", "host": "where it was recorded", "created": "UTC",
    "run": { "bench": "stream", "size_bytes": 134217728, "threads": 16,
             "reps": 10, "bind": "spread" },                       (optional)
    "made_with": { "memsuite": "0.1.0", "tool": "stream", "version": "0.1.0",
                   "env": { "cpu_model": "...", "cores": 16, ... } },  (optional)
    "metrics": [ { "record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s",
                   "expected": 12000.0, "lower_pct": 10, "upper_pct": 25 } ] }

A metric passes when expected x (1 - lower_pct/100) <= value <=
expected x (1 + upper_pct/100); "upper_pct": null means no upper bound.
An unknown key is refused: a misspelt one would loosen the check.
Whether run.bench names a scenario the tool has is the bash side's
question (it knows the tools); everything else is checked here.
"""

import json
import math
import os

from .model import loads, one_line, read_regular

SCHEMA = "memsuite/ref/1"

# No memory figure comes near this (1e15 MB/s is an exabyte per second; a
# latency of 1e15 ns is 11 days): an expected value at or above it, like
# one of 0 or below, is a broken reference, and its band would overflow.
VALUE_MAX = 1e15
REF_MAX_BYTES = 64 << 20

TOP_KEYS = ("schema", "description", "host", "created", "run", "made_with", "metrics", "memory")
MADE_KEYS = ("memsuite", "tool", "version", "env")
METRIC_KEYS = ("record", "metric", "unit", "expected", "lower_pct", "upper_pct",
               "runs", "observed_min", "observed_max", "spread_pct")
METRIC_KEYS_SHOWN = "record, metric, unit, expected, lower_pct, upper_pct"
RUN_KEYS = ("bench", "size_bytes", "threads", "reps", "bind")

# The result's sysinfo facts a reference keeps (they change a memory
# figure); differences in ENV_INFO are reported, never refused (a kernel
# update or a DIMM's worth of firmware reservation leave the node's class).
ENV_KEYS = ("cpu_model", "sockets", "cores", "cpus_online", "numa_nodes", "smt", "thp_enabled",
            "hugepages_total", "hugepage_size_kib", "compiler", "cflags", "kernel", "mem_total_bytes")
ENV_INFO = ("kernel", "mem_total_bytes")


class RefError(Exception):
    """A reference that cannot be used: str() is the whole message."""


def _num(x):
    """A finite JSON number (bool is not one; NaN and Infinity are not)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _pos(x):
    return _num(x) and 0 < x < VALUE_MAX


def _posint(x):
    return _num(x) and x >= 1 and x == int(x)


def _unknown(d, known):
    """The first key of d (document order) that is not known, or None."""
    return next((k for k in d if k not in known), None)


def _s(x):
    """A value inside a message as jq's string interpolation shows it."""
    if isinstance(x, str):
        return x
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def _metric_problem(i, m):
    if not isinstance(m, dict):
        return "metrics[%d] is not an object" % i
    rec, met = m.get("record"), m.get("metric")
    if not isinstance(rec, str) or rec == "":
        return 'metrics[%d] has no "record"' % i
    if not isinstance(met, str) or met == "":
        return 'metrics[%d] has no "metric"' % i
    at = "metrics[%d] (%s.%s)" % (i, rec, met)
    if not _pos(m.get("expected")):
        return '%s: "expected" must be a number > 0 and below %d' % (at, VALUE_MAX)
    lo = m.get("lower_pct")
    if not (_num(lo) and 0 <= lo <= 100):
        return '%s: "lower_pct" must be a number 0..100' % at
    k = _unknown(m, METRIC_KEYS)
    if k is not None:
        return '%s: unknown key "%s" (a typo? known: %s)' % (at, k, METRIC_KEYS_SHOWN)
    if m.get("unit") is not None and not isinstance(m["unit"], str):
        return '%s: "unit" must be a string (or left out)' % at
    if "upper_pct" not in m:
        return '%s: "upper_pct" is missing; give a number, or null for no upper bound' % at
    up = m["upper_pct"]
    if up is not None and not (_num(up) and up >= 0):
        return '%s: "upper_pct" must be a number >= 0 or null' % at
    return None


def _run_problem(run):
    if run is None:
        return None
    if not isinstance(run, dict):
        return '"run" is not an object'
    k = _unknown(run, RUN_KEYS)
    if k is not None:
        return 'run: unknown key "%s" (a typo? known: %s)' % (k, ", ".join(RUN_KEYS))
    for k in ("size_bytes", "threads", "reps"):
        if k in run and not _posint(run[k]):
            return "run.%s must be a whole number > 0" % k
    for k in ("bench", "bind"):
        if k in run and not isinstance(run[k], str):
            return "run.%s must be a string" % k
    return None


def _made_problem(mw):
    if not isinstance(mw, dict) or _unknown(mw, MADE_KEYS) is not None \
            or any(mw.get(k) is not None and not isinstance(mw.get(k), str) for k in MADE_KEYS[:3]):
        return True
    env = mw.get("env")
    return env is not None and (not isinstance(env, dict)
                                or any(isinstance(v, (dict, list)) for v in env.values()))


def problem(doc):
    """Why a parsed document is no usable reference (the words of the
    message after "reference FILE: "), or None."""
    if doc.get("schema") != SCHEMA:
        s = doc.get("schema")
        return "schema is %s, expected %s" % ("missing" if s is None else _s(s), SCHEMA)
    k = _unknown(doc, TOP_KEYS)
    if k is not None:
        return 'unknown key "%s" (a typo? known: %s)' % (k, ", ".join(TOP_KEYS))
    if "made_with" in doc and _made_problem(doc["made_with"]):
        return '"made_with" must be an object { memsuite, tool, version: strings; env: an object of plain values }'
    ms = doc.get("metrics")
    if not isinstance(ms, list):
        return 'no "metrics" array'
    if not ms:
        return '"metrics" is empty: nothing to check'
    for i, m in enumerate(ms):
        why = _metric_problem(i, m)
        if why:
            return why
    return _run_problem(doc.get("run"))


def read_bytes(path):
    """The bytes of a reference file (b"" when empty), following a link (a
    reference may be one) but never blocking on a FIFO or a device
    (model.read_regular); RefError when it cannot be read."""
    shown = one_line(path)
    data, why = read_regular(path, "a reference", REF_MAX_BYTES, follow=True)
    if why is None:
        return data
    if why.startswith("is empty"):
        return b""
    if why.startswith("is a directory") or why.startswith("cannot be read: ") and not os.path.isfile(path) \
            or why.startswith("is a dangling"):
        raise RefError("cannot read reference %s" % shown)
    if why.startswith("cannot be read: "):
        raise RefError("cannot read reference %s: %s" % (shown, why[len("cannot be read: "):]))
    if " bytes, " in why:
        raise RefError("reference %s %s" % (shown, why))
    raise RefError("cannot read reference %s: not a regular file (a FIFO or a device); "
                   "name the reference file itself" % shown)


def load(path):
    """The validated document of the reference at path; RefError (its
    message names the file) when it is no usable reference."""
    shown = one_line(path)
    data = read_bytes(path)
    if not data.strip():
        raise RefError("reference %s is empty: no JSON document (a truncated or unrecorded reference?)" % shown)
    try:
        # NaN and Infinity are no JSON numbers: read as non-finite
        # numbers, they are refused by the value checks, named
        doc = loads(data, constants=True)
    except (ValueError, RecursionError) as e:
        raise RefError("reference %s is not a JSON object (exactly one document is expected): %s"
                       % (shown, _json_why(e)))
    if not isinstance(doc, dict):
        raise RefError("reference %s is not a JSON object (exactly one document is expected)" % shown)
    why = problem(doc)
    if why:
        raise RefError("reference %s: %s" % (shown, why))
    return doc


def _json_why(e):
    if isinstance(e, json.JSONDecodeError):
        return "line %d column %d: %s" % (e.lineno, e.colno, e.msg)
    if isinstance(e, UnicodeDecodeError):
        return "not UTF-8 text at byte %d" % e.start
    if isinstance(e, RecursionError):
        return "nested too deeply"
    return str(e)


class RefMetric:
    """One metric of a reference: record, metric, name (record.metric),
    unit ("" when the reference gives none), expected value, lower_pct,
    upper_pct (None: unbounded) and the band [low, high] (high None)."""

    __slots__ = ("record", "metric", "name", "unit", "expected", "lower_pct", "upper_pct", "low", "high")

    def __init__(self, m):
        self.record, self.metric = m["record"], m["metric"]
        self.name = "%s.%s" % (m["record"], m["metric"])
        self.unit = m.get("unit") or ""
        self.expected = m["expected"]
        self.lower_pct = m.get("lower_pct") or 0
        self.upper_pct = m.get("upper_pct")
        self.low = float(self.expected) * (1 - float(self.lower_pct) / 100)
        up = self.upper_pct
        self.high = None if up is None else float(self.expected) * (1 + float(up) / 100)


class Reference:
    """A reference: path, id (computed by the caller, with the function the
    nodes use; None when not needed), created, run (dict), made_with (dict
    or None), metrics (RefMetric, in order), units ({name: unit}).
    validate=True refuses a document that is no usable reference
    (RefError); the aggregation reads one the bash side has validated."""

    def __init__(self, path, ref_id=None, validate=False):
        if validate:
            doc = load(path)
        else:
            doc = loads(read_bytes(path))
        self.path = path
        self.id = ref_id
        self.doc = doc
        created = doc.get("created")
        self.created = "" if created is None else one_line(created)
        run = doc.get("run")
        self.run = run if isinstance(run, dict) else {}
        mw = doc.get("made_with")
        self.made_with = mw if isinstance(mw, dict) else None
        self.metrics = [RefMetric(m) for m in doc.get("metrics") or []]
        self.units = {m.name: m.unit for m in self.metrics}


# What a result says about how it was made ------------------------------

def run_block(result):
    """How the result was run, as a reference "run" object {bench,
    size_bytes, threads, reps} (members that cannot be told are left out).
    stream: config.array_bytes, config.ntimes - 1; mbw: config.array_bytes,
    config.runs; mencal: config.size_bytes, config.reps."""
    cfg = result.get("config")
    cfg = cfg if isinstance(cfg, dict) else {}
    thr = result.get("threads")
    out = {}
    tool = result.get("tool")
    scen = cfg.get("scenarios")
    if tool == "mencal" and isinstance(scen, list):
        out["bench"] = "mencal:%s" % _s(scen[0] if scen else None)
    elif tool is not None:
        out["bench"] = tool
    size = _first(cfg.get("array_bytes"), cfg.get("size_bytes"))
    if size is not None:
        out["size_bytes"] = size
    t = _first(thr.get("counted") if isinstance(thr, dict) else None, cfg.get("threads"))
    if t is not None:
        out["threads"] = t
    nt = cfg.get("ntimes")
    reps = (nt - 1) if _num(nt) and nt else _first(cfg.get("runs"), cfg.get("reps"))
    if reps is not None:
        out["reps"] = reps
    return {k: v for k, v in out.items() if not isinstance(v, dict)}


def _first(*xs):
    """jq's a // b: the first value that is neither null nor false."""
    return next((x for x in xs if x is not None and x is not False), None)


def made_with(result, memsuite_version):
    """The "made_with" block a reference keeps from a result: memsuite's
    version, the tool and its version, and the result's sysinfo facts that
    change a memory figure (plain values only)."""
    si = result.get("sysinfo")
    si = si if isinstance(si, dict) else {}
    tool, ver = result.get("tool"), result.get("version")
    return {"memsuite": memsuite_version,
            "tool": "unknown" if tool is None else _s(tool),
            "version": "unknown" if ver is None else _s(ver),
            "env": {k: si[k] for k in ENV_KEYS
                    if isinstance(si.get(k), (str, int, float, bool))}}


def _same(a, b):
    """JSON equality as jq sees it: true is not 1, 2 is 2.0."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


SHOWN_MAX = 120     # the characters of a document's value a message shows


def _show(x, quote=True):
    """A value inside a message: a string quoted (quote), anything else as
    JSON; cut to SHOWN_MAX characters, marked "...(cut)"."""
    t = x if isinstance(x, str) else _s(x)
    t = t if len(t) <= SHOWN_MAX else t[:SHOWN_MAX] + "...(cut)"
    return '"%s"' % t if quote and isinstance(x, str) else t


def settings(ref, result):
    """Compares ref's run and made_with blocks with result (a Result).
    Yields (kind, what): kind "refuse" for a difference that makes the
    reference the wrong yardstick (another run: bench, size, threads, reps;
    another tool or version; another kind of node), "note" for one that
    does not (kernel, memory total).  Nothing for a reference without
    those blocks."""
    run = run_block(result)
    r = ref.run
    for k in ("size_bytes", "threads", "reps"):
        if k in r and k in run and not _same(r[k], run[k]):
            yield "refuse", "run.%s %s in the reference, %s in the result" % (k, _show(r[k]), _show(run[k]))
    rb, b = r.get("bench") or "", run.get("bench") or ""
    if rb and b and rb.split(":")[0] != _s(b).split(":")[0]:
        yield "refuse", "run.bench %s in the reference, %s in the result" % (_show(rb, False), _show(b, False))
    m = ref.made_with
    if m is None:
        return
    made = made_with(result, "")
    if m.get("tool") and m["tool"] != made["tool"]:
        yield "refuse", "tool %s in the reference, %s in the result" % (_show(m["tool"]), _show(made["tool"]))
    if m.get("version") and m["version"] != made["version"]:
        yield "refuse", "%s version %s in the reference, %s in the result" % (
            _show(m.get("tool") or "tool", False), _show(m["version"], False), _show(made["version"], False))
    for k, v in (m.get("env") or {}).items():
        if k in made["env"] and not _same(v, made["env"][k]):
            yield ("note" if k in ENV_INFO else "refuse"), "%s %s in the reference, %s here" % (
                k, _show(v), _show(made["env"][k]))
