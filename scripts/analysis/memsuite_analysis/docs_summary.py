"""memsuite-analyse docs-summary DIR: one human summary of a directory of
result documents (scripts/summary.sh, after `make run`).

The environment block comes from the first document's sysinfo (a fact
the tool could not read is "unavailable: why", never dropped); then one
line per record and headline-style metric (FIGURES) with its value
(rounded to two decimals, "unavailable" when null) and unit; then per
document its label, its validation and every warning the tool raised.  A
document that is no result, or one whose figures cannot be trusted, is
named with why, and none of its figures is shown.

Exit: 0 printed; 1 no document in DIR, or one of them unreadable or
invalid (named); 2 DIR is not a directory.
"""

import math
import os
import sys

from . import exitcodes
from .model import one_line
from .results import read_result
from .summary import num

SUMMARY = "a human summary of a directory of result documents"

# The metrics a summary line shows (the headline kinds of each tool).
FIGURES = ("best_rate_mbps", "avg_rate_mibps", "bandwidth", "latency", "read_bandwidth",
           "write_bandwidth", "total_bandwidth", "total")


def fact(si, k):
    v = si.get(k)
    if v is None:
        why = si.get(k + "_unavailable")
        return "unavailable: %s" % (why if isinstance(why, str) else "not recorded")
    return v if isinstance(v, str) else one_line(v)


def raw(x):
    """A value as jq prints it in a string (null as null)."""
    if x is None:
        return "null"
    return x if isinstance(x, str) else one_line(x)


def environment(res):
    si = res.get("sysinfo") or {}
    if not isinstance(si, dict):
        si = {}
    gib = si.get("mem_total_bytes") or 0
    gib = math.floor(gib / 1073741824 * 10) / 10 if isinstance(gib, (int, float)) else 0
    return [
        "Environment (%s, %s)" % (raw(si.get("hostname")), raw(si.get("utc_time"))),
        "  CPU        %s; %s socket(s), %s cores, %s CPUs online" % (
            fact(si, "cpu_model"), raw(si.get("sockets")), raw(si.get("cores")), raw(si.get("cpus_online"))),
        "  SMT        %s" % fact(si, "smt"),
        "  governor   %s" % fact(si, "governor"),
        "  THP        enabled=%s defrag=%s" % (fact(si, "thp_enabled"), fact(si, "thp_defrag")),
        "  DAMON      %s" % fact(si, "damon"),
        "  NUMA       %s node(s), numa_balancing=%s" % (fact(si, "numa_nodes"), fact(si, "numa_balancing")),
        "  memory     %s GiB, swappiness=%s, DIMMs: %s" % (num(gib), fact(si, "swappiness"), fact(si, "dimms")),
        "  LLC        %s" % fact(si, "llc"),
        "  allocator  %s; GLIBC_TUNABLES=%s" % (fact(si, "allocator"), fact(si, "glibc_tunables")),
        "  build      %s" % raw(res.get("build")),
    ]


def render(docs):
    """The summary's lines for [(name, Result)] (sorted by name)."""
    first = next((r for _, r in docs if r.doc is not None and isinstance(r.doc, dict)), None)
    out = environment(first) if first is not None else ["Environment: unavailable: no readable document"]
    out.append("")
    out.append("%-14s %-10s %-32s %14s  %s" % ("tool", "record", "metric", "value", "unit"))
    for name, r in docs:
        if not r.ok:
            continue
        for rec in r.records:
            for k, m in rec.metrics.items():
                if k not in FIGURES:
                    continue
                v = "unavailable" if m.value is None else num(math.floor(m.value * 100 + 0.5) / 100)
                out.append("%-14s %-10s %-32s %14s  %s" % (name, rec.name, k, v, m.unit))
    out.append("")
    for name, r in docs:
        if not r.ok:
            out.append("%s: %s" % (name, r.problem()))
            continue
        reasons = r.get("label_reasons")
        line = "%s: %s" % (name, r.label)
        if isinstance(reasons, list) and reasons:
            line += " (%s)" % "; ".join(raw(x) for x in reasons)
        v = r.get("validation")
        if isinstance(v, dict):
            line += ", validated" if v.get("passed") is True else ", VALIDATION FAILED"
        out.append(line)
        for w in r.get("warnings") or []:
            out.append("  warning: %s" % raw(w))
    return out


def add_arguments(p):
    p.add_argument("--prefix", default="summary", help="the prefix of messages")
    p.add_argument("dir")


def run(args):
    from .render import printable, printable_lines
    if not os.path.isdir(args.dir):
        sys.stderr.write("%s: %s is not a directory\n" % (args.prefix, one_line(args.dir)))
        return exitcodes.USAGE
    names = sorted(n for n in os.listdir(args.dir) if n.endswith(".json") and not n.startswith("."))
    if not names:
        sys.stderr.write("%s: no result documents in %s\n" % (args.prefix, one_line(args.dir)))
        return exitcodes.FAIL
    docs = [(n[:-5], read_result(os.path.join(args.dir, n))) for n in names]
    sys.stdout.write(printable_lines(render(docs)))
    bad = [n for n, r in docs if not r.ok]
    if bad:
        sys.stderr.write("%s: %d document(s) not summarised (named above): %s\n"
                         % (args.prefix, len(bad), printable(", ".join(bad))))
        return exitcodes.FAIL
    return exitcodes.OK
