"""Requirements a centre states for a machine (memsuite report
--requirements FILE, --peak-gbps N), read and validated strictly, and
judged against the report's sustained figures.

A requirements file (docs/results-format.md):
  { "schema": "memsuite/requirements/1",
    "peak_gbps": 409.6,                       (optional: the stated peak)
    "requirements": [
      { "metric": "stream_triad", "min_gbps": 300 },
      { "metric": "stream_triad", "min_pct_of_peak": 70 },
      { "metric": "seqread", "min_gbps": 250 },
      { "metric": "idle_latency", "max_ns": 120 } ],
    "signoff": { "site": "...", "system": "...", "serial": "...",
                 "operator": "..." } }          (optional: the summary page's sign-off block)
Each requirement names one metric and exactly one threshold that metric
takes (THRESHOLDS); "note" (a string) may say where it came from.  Any
other member, a value that is not a positive number, an unknown metric:
Invalid, whose text names the field (the caller exits 2).
"""

import json

from .model import loads, read_regular, one_line

SCHEMA = "memsuite/requirements/1"

# the sign-off block's lines a requirements file may fill (words shown)
SIGNOFF = (("site", "site"), ("system", "system"), ("serial", "serial number"), ("operator", "operator"))
SIGNOFF_MAX = 200       # characters of one sign-off value

# metric: its words and the thresholds it takes ({key: (comparison, unit)})
METRICS = {
    "stream_triad": ("STREAM Triad", {"min_gbps": (">=", "GB/s"), "min_pct_of_peak": (">=", "% of peak")}),
    "seqread": ("sequential read (mencal seqread)", {"min_gbps": (">=", "GB/s"), "min_pct_of_peak": (">=", "% of peak")}),
    "idle_latency": ("idle latency (mencal randread)", {"max_ns": ("<=", "ns")}),
}


class Invalid(Exception):
    """A requirements file or value that cannot be used; str() names the field."""


class Requirement:
    """metric, key (the threshold's name), limit (a number), op ('>=' or
    '<='), unit (of the limit), note, source (where it was stated)."""

    __slots__ = ("metric", "key", "limit", "op", "unit", "note", "source")

    def __init__(self, metric, key, limit, source, note=""):
        self.metric, self.key, self.limit, self.source, self.note = metric, key, limit, source, note
        self.op, self.unit = METRICS[metric][1][key]

    @property
    def words(self):
        return METRICS[self.metric][0]


def _positive(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == x and 0 < x < 1e15


def parse(doc, source):
    """(peak_gbps or None, [Requirement], {signoff key: text}) from a
    parsed document."""
    where = one_line(source)
    if not isinstance(doc, dict):
        raise Invalid("%s: not a JSON object; expected {\"schema\": \"%s\", \"requirements\": [...]}" % (where, SCHEMA))
    if doc.get("schema") != SCHEMA:
        raise Invalid("%s: schema is %s; expected \"%s\"" % (where, one_line(json.dumps(doc.get("schema"))[:40]), SCHEMA))
    for k in doc:
        if k not in ("schema", "peak_gbps", "requirements", "note", "signoff"):
            raise Invalid("%s: unknown member %s; the members are schema, peak_gbps, requirements, note, signoff"
                          % (where, one_line(json.dumps(k)[:40])))
    signoff = _signoff(doc.get("signoff", {}), where)
    peak = doc.get("peak_gbps")
    if peak is not None and not _positive(peak):
        raise Invalid("%s: peak_gbps is %s, not a positive number of GB/s" % (where, one_line(json.dumps(peak)[:40])))
    reqs = doc.get("requirements")
    if not isinstance(reqs, list) or not reqs:
        raise Invalid("%s: requirements is %s; expected a non-empty array of {\"metric\": ..., THRESHOLD: N}"
                      % (where, "absent" if reqs is None else one_line(json.dumps(reqs)[:40])))
    out = []
    for i, r in enumerate(reqs):
        at = "%s: requirements[%d]" % (where, i)
        if not isinstance(r, dict):
            raise Invalid("%s is not an object" % at)
        m = r.get("metric")
        if m not in METRICS:
            raise Invalid("%s.metric is %s; expected one of: %s" % (
                at, one_line(json.dumps(m)[:40]), ", ".join(METRICS)))
        allowed = METRICS[m][1]
        keys = [k for k in r if k not in ("metric", "note")]
        bad = [k for k in keys if k not in allowed]
        if bad:
            raise Invalid("%s.%s is not a threshold of %s; use one of: %s" % (
                at, one_line(bad[0][:40]), m, ", ".join(allowed)))
        if len(keys) != 1:
            raise Invalid("%s has %d thresholds; give exactly one of: %s" % (at, len(keys), ", ".join(allowed)))
        k = keys[0]
        if not _positive(r[k]):
            raise Invalid("%s.%s is %s, not a positive number" % (at, k, one_line(json.dumps(r[k])[:40])))
        note = r.get("note", "")
        if not isinstance(note, str):
            raise Invalid("%s.note is not a string" % at)
        if k == "min_pct_of_peak" and r[k] > 100:
            raise Invalid("%s.min_pct_of_peak is %s, above 100" % (at, r[k]))
        out.append(Requirement(m, k, float(r[k]), "requirements file %s" % where, note))
    return (float(peak) if peak is not None else None), out, signoff


def _signoff(so, where):
    """{key: text} of the optional signoff object: strings of 1 to
    SIGNOFF_MAX characters, only the SIGNOFF keys."""
    if not isinstance(so, dict):
        raise Invalid("%s: signoff is not an object; expected {\"site\": ..., \"system\": ..., \"serial\": ..., "
                      "\"operator\": ...}" % where)
    keys = [k for k, _ in SIGNOFF]
    out = {}
    for k, v in so.items():
        if k not in keys:
            raise Invalid("%s: signoff.%s is not a sign-off line; use: %s" % (where, one_line(str(k)[:40]), ", ".join(keys)))
        if not isinstance(v, str) or not v.strip() or len(v) > SIGNOFF_MAX:
            raise Invalid("%s: signoff.%s is %s, not a text of 1 to %d characters"
                          % (where, k, one_line(json.dumps(v)[:40]), SIGNOFF_MAX))
        out[k] = v
    return out


def load(path):
    data, why = read_regular(path)
    if why:
        raise Invalid("requirements file %s %s" % (one_line(path), why))
    try:
        doc = loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise Invalid("requirements file %s is not valid JSON (%s)" % (one_line(path), one_line(str(e))[:80]))
    return parse(doc, path)


class Judgement:
    """One requirement judged: requirement, figure (report.Figure or None),
    value (in the limit's unit, or None), verdict PASS | FAIL | UNAVAILABLE,
    why (when unavailable)."""

    __slots__ = ("req", "figure", "value", "verdict", "why")

    def __init__(self, req, figure, value, verdict, why=""):
        self.req, self.figure, self.value, self.verdict, self.why = req, figure, value, verdict, why


def judge(reqs, figures, peak):
    """Judgements of reqs against figures ({metric: Figure}) and peak (a
    report.Peak or None).  A figure that was not measured FAILs: a
    requirement cannot pass without its measurement (UNAVAILABLE states
    why, and counts as FAIL in the overall verdict)."""
    out = []
    for r in reqs:
        f = figures.get(r.metric)
        if f is None or f.value is None:
            out.append(Judgement(r, f, None, "UNAVAILABLE", f.why if f is not None else "not measured in this run"))
            continue
        if r.key == "min_pct_of_peak":
            if peak is None or not peak.gbps:
                out.append(Judgement(r, f, None, "UNAVAILABLE", "no peak: state one with --peak-gbps or peak_gbps"))
                continue
            v = f.value / peak.gbps * 100
        else:
            v = f.value
        ok = v >= r.limit if r.op == ">=" else v <= r.limit
        out.append(Judgement(r, f, v, "PASS" if ok else "FAIL"))
    return out


def overall(judgements):
    """'PASS' when every requirement passed, 'FAIL' when one did not, None
    when none was stated."""
    if not judgements:
        return None
    return "PASS" if all(j.verdict == "PASS" for j in judgements) else "FAIL"
