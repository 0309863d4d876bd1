"""Rendering: the cluster report as text or JSON, the drain lines, and the
one way text from other people's files reaches a terminal (caret
notation).  Formats; never computes a verdict."""

import json
import math
import re

# ---- text that came from files ---------------------------------------------

_CARET = {}
for _c in range(32):
    _CARET[_c] = "^" + chr(64 + _c)
    _CARET[0x80 + _c] = "M-^" + chr(64 + _c)
_CARET[0x7F] = "^?"


_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def printable(text):
    """One line of text as it may reach a terminal: every control
    character, newline included (C0, DEL, C1), in caret notation (newline
    as ^J, ESC as ^[, DEL as ^?, C1 as M-^X), and every surrogate (a byte
    that was not UTF-8, read with surrogateescape, or a lone \\ud800
    escape of a JSON string) as U+FFFD: what a file says can neither drive
    the terminal nor start a line of its own.  The one function every
    string from a file passes on its way out (the text and Markdown
    renderers apply it to each line they emit: printable_lines; HTML
    escapes its own way).  A line over LINE_MAX characters is cut
    (cut_line): printable and printable_lines are for what a person
    reads; printable_text, for documents (HTML, JSON, Prometheus), cuts
    nothing."""
    text = printable_whole(text)
    return cut_line(text) if len(text) > LINE_MAX else text


def printable_whole(text):
    """printable without the cut, for a value another program reads back,
    one a line (ref-check --run's fields for bash, which cuts what it
    shows itself): control characters and surrogates only."""
    if _UNSAFE.search(text):
        return _SURROGATE.sub("\ufffd", text).translate(_CARET)
    return text


# The longest line a report, comparison or aggregate prints: past it, a
# value a file planted (a megabyte of one string) is cut, and the line
# says so and how long it was.
LINE_MAX = 2000


def cut_line(text):
    """text cut to LINE_MAX characters, saying it was and its length."""
    tail = " ... (cut: a line of %d characters)" % len(text)
    return text[:LINE_MAX - len(tail)] + tail


def printable_lines(lines):
    """Lines, each through printable, each ended by a newline: a newline
    inside a line (from a document's string) is shown as ^J."""
    return "".join(printable(line) + "\n" for line in lines)


def printable_text(text):
    """A text whose newlines are its own (a rendered document whose
    strings were made single lines already): printable line by line."""
    return "\n".join(printable_whole(line) for line in text.split("\n"))


_SAFE_WORD = re.compile(r"[A-Za-z0-9._,:=/@%+-]+")
PLAIN_HOST = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def shell_word(s):
    """s as one word a POSIX shell reads back as s."""
    if _SAFE_WORD.fullmatch(s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def _dq(s):
    """s inside "...": \\ $ ` are the characters a shell still reads there
    (a double quote has been replaced by then)."""
    return s.replace("\\", "\\\\").replace("$", "\\$").replace("`", "\\`")


# ---- numbers -----------------------------------------------------------------

STAT_DIGITS = 10    # significant digits of the statistics in JSON

def number(x, digits=None):
    """A float for JSON: integral values as integers (12000, not 12000.0),
    non-finite ones as null; digits: rounded to that many significant
    digits first (a median of one-decimal values is 21.1, not
    21.099999999998545)."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return None
    if digits is not None:
        x = float("%.*g" % (digits, x))
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e17:
        return int(x)
    return x


def number_text(x):
    """A number as the JSON text of a document shows it: integral values
    without a fraction (20600, not 20600.0), others as short as they read
    back (18660.7)."""
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e17:
        return str(int(x))
    return repr(x) if isinstance(x, float) else str(x)


# ---- the report --------------------------------------------------------------

class View:
    """What the renderers show, gathered: the judgement, the spreads, and
    the facts of the run (reference, directory, expected list...)."""

    def __init__(self, judgement, spread, ref, results_dir, expected_from, reported,
                 k_text, floor_text, run_id, ignored, drain=None):
        self.j, self.spread, self.ref = judgement, spread, ref
        self.dir, self.expected_from, self.reported = results_dir, expected_from, reported
        self.k_text, self.floor_text, self.run_id = k_text, floor_text, run_id
        self.ignored = ignored
        self.drain = drain          # drain_entries, when asked for; else None


def text(v, top, show_all):
    """The text report, as a list of lines."""
    c = v.j.counts()
    nexp = len(v.j.expected)
    out = []
    if nexp:
        out.append("memsuite cluster: %d nodes expected (%s), %d reported" % (nexp, v.expected_from, v.reported))
    else:
        out.append("memsuite cluster: %d nodes reported (no expected node list: give --nodes to see MISSING nodes)"
                   % v.reported)
    out.append("  %d PASS, %d FAIL, %d ERROR, %d MISSING; outliers beyond %s x MAD (MAD at least %s%% of the median): "
               "%d slow, %d high" % (c["PASS"], c["FAIL"], c["ERROR"], c["MISSING"], v.k_text, v.floor_text,
                                     c["SLOW"], c["HIGH"]))
    out.append("  reference %s (%s...%s)" % (v.ref.path, v.ref.id[:19],
                                              ", created " + v.ref.created if v.ref.created else ""))
    out.append("  results   %s" % v.dir)
    out.append("")
    out.append("%-32s %-6s %6s %12s %9s %9s %12s %12s %5s %5s" % (
        "Metric", "Unit", "Nodes", "Median", "MAD", "MAD used", "Slow fence", "High fence", "Slow", "High"))
    for name, (sp, unit, lb) in v.spread.items():
        slow_f, high_f = (sp.high_fence, sp.low_fence) if lb else (sp.low_fence, sp.high_fence)
        ns, nh = v.j.outliers.get(name, (0, 0))
        out.append("%-32s %-6s %6d %12.1f %9.1f %9.1f %12.1f %12.1f %5d %5d" % (
            name, unit, sp.n, sp.median, sp.mad, sp.mad_used, slow_f, high_f, ns, nh))
    out.append("")
    out.append("%-20s %-8s %-7s %-32s %12s %9s  %s" % ("Node", "Status", "Outlier", "Worst metric", "Value",
                                                       "vs median", "Detail"))
    # By default only the nodes that need a look (not PASS, or an outlier).
    rows = v.j.rows if show_all else [r for r in v.j.rows if r.status != "PASS" or r.outlier != "-"]
    shown = rows[:top] if top > 0 else rows
    for r in shown:
        out.append("%-20s %-8s %-7s %-32s %12s %9s  %s" % (r.node, r.status, r.outlier, r.worst_metric,
                                                           r.worst_value, r.vs_median, r.detail or "-"))
    if top > 0 and len(rows) > top:
        out.append("... %d more nodes to look at (all of them: --top 0)" % (len(rows) - top))
    if not show_all and len(v.j.rows) > len(rows):
        out.append("... and %d node(s) PASS, no outlier (every node: --all)" % (len(v.j.rows) - len(rows)))
    return out


def _dash(s):
    return None if s in ("-", "") else s


def node_doc(r):
    """One node of the JSON report."""
    return {"node": r.node, "status": r.status, "outlier": _dash(r.outlier),
            "worst_metric": _dash(r.worst_metric),
            "worst_value": None if r.worst_value == "-" else number(float(r.worst_value)),
            "vs_median_pct": None if r.vs_median == "-" else number(float(r.vs_median.rstrip("%"))),
            "detail": _dash(r.detail), "drain_reason": _dash(r.reason)}


def json_doc(v, k, floor):
    """The memsuite/cluster/1 document, its "nodes" (last) left empty:
    json_chunks writes them one by one."""
    c = v.j.counts()
    metrics = []
    for name, (sp, unit, lb) in v.spread.items():
        ns, nh = v.j.outliers.get(name, (0, 0))
        metrics.append({"metric": name, "unit": unit, "lower_is_better": lb, "nodes": sp.n,
                        "median": number(sp.median, STAT_DIGITS), "mad": number(sp.mad, STAT_DIGITS),
                        "mad_used": number(sp.mad_used, STAT_DIGITS),
                        "slow_fence": number(sp.high_fence if lb else sp.low_fence, STAT_DIGITS),
                        "high_fence": number(sp.low_fence if lb else sp.high_fence, STAT_DIGITS),
                        "outliers": {"slow": ns, "high": nh}})
    return {"schema": "memsuite/cluster/1",
            "reference": {"path": v.ref.path, "id": v.ref.id},
            "results": v.dir,
            "run_id": v.run_id or None,
            "expected_from": v.expected_from or None,
            "expected": len(v.j.expected), "reported": v.reported,
            "counts": {"pass": c["PASS"], "fail": c["FAIL"], "error": c["ERROR"], "missing": c["MISSING"],
                       "slow": c["SLOW"], "high": c["HIGH"]},
            "outlier_rule": {"k": number(k), "mad_floor_pct": number(floor),
                             "rule": "outside median +- k x max(MAD, mad_floor_pct% x |median|)"},
            "metrics": metrics,
            "ignored": [{"file": p, "why": w} for p, w in v.ignored],
            "drain_suggestions": v.drain,
            "nodes": []}


def _dumps(x):
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def json_chunks(v, k, floor):
    """The JSON report, one line, as pieces of text (a document of 100,000
    nodes is never held twice)."""
    head = _dumps(json_doc(v, k, floor))
    assert head.endswith('"nodes":[]}')
    yield head[:-2]
    for i, r in enumerate(v.j.rows):
        yield ("," if i else "") + _dumps(node_doc(r))
    yield "]}"


NOT_PLAIN = "the node name is not a plain host name (letters, digits, ._-)"


def drain_entries(rows):
    """One suggestion per row with a drain reason: {node, reason, command,
    not_drained}.  Names and reasons come from reports anyone who can
    write the results directory controls: a command runs only scontrol in
    a shell, and a name that is not a plain host name (a Slurm hostlist
    "n[1-2000]" would drain the whole cluster) gets no command, and
    not_drained says why."""
    out = []
    for r in rows:
        if not r.reason:
            continue
        reason = printable(r.reason.replace('"', "'")[:200])
        if PLAIN_HOST.fullmatch(r.node):
            out.append({"node": r.node, "reason": reason, "not_drained": None,
                        "command": 'scontrol update nodename=%s state=drain reason="%s"' % (r.node, _dq(reason))})
        else:
            out.append({"node": r.node, "reason": reason, "command": None, "not_drained": NOT_PLAIN})
    return out


def drain(entries):
    """(lines, plain, refused) of drain_entries: the text lines (the
    command, or a comment naming a refused name), the (node, reason) pairs
    to run, and the names refused."""
    lines = [e["command"] or "# not drained: node name %s is not a plain host name (letters, digits, ._-)"
             % shell_word(e["node"]) for e in entries]
    plain = [(e["node"], e["reason"]) for e in entries if e["command"]]
    refused = [e["node"] for e in entries if not e["command"]]
    return lines, plain, refused
