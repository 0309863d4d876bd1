"""memsuite cluster's node report (schema memsuite/cluster-node/1): what
one node's `memsuite check --ref REF` said, as one JSON document on one
line, which the bash side writes atomically into the shared directory and
`memsuite cluster --aggregate` (aggregate.py) reads back.

memsuite-analyse node-report --ref REF --ref-id ID --node N --host H
    --run-id R --exit RC --started T --finished T --seconds S
    --stdout FILE --stderr FILE

The verdict is check's exit status (0 PASS, 1 FAIL, anything else
ERROR).  Each reference metric gets its value from check's text line
"PASS|FAIL  <record>.<metric> <value> <unit> ..." (the figure as check
printed it; null when the line is missing or holds no number) and passes
when a PASS line names it and the verdict is no ERROR.  The diagnosis
is check's FAIL lines that name no metric (a slot emptied, EDAC errors:
diagnosis.py), which the drain reason leads with.  The summary is
check's last "memsuite: PASS|FAIL|ERROR ..." line, else "memsuite check
exited RC" with the last line check wrote on stderr.  Exit 0 with the
document on stdout; 3 when the reference or an output file cannot be
read (check has validated the reference on this node already)."""

import json
import re
import sys

from . import exitcodes, reference
from .model import loads

SUMMARY = "a cluster node's report from its memsuite check (memsuite cluster)"
SCHEMA = "memsuite/cluster-node/1"
STDERR_TAIL = 5
_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SUMMARY = re.compile(r"memsuite: (PASS|FAIL|ERROR) ")
_RUNNING = "memsuite: check: running:"
_FAIL = re.compile(r"(?:\S+: )?FAIL  (\S.*)")


def add_arguments(p):
    p.add_argument("--ref", required=True)
    p.add_argument("--ref-id", required=True)
    p.add_argument("--node", required=True)
    p.add_argument("--host", required=True)
    p.add_argument("--run-id", default="")
    p.add_argument("--exit", type=int, required=True, metavar="RC", help="memsuite check's exit status")
    p.add_argument("--started", required=True)
    p.add_argument("--finished", required=True)
    p.add_argument("--seconds", type=int, required=True)
    p.add_argument("--stdout", required=True, metavar="FILE", help="what check printed on stdout")
    p.add_argument("--stderr", required=True, metavar="FILE", help="what check printed on stderr")


def _lines(path):
    """The non-empty lines of a text file (undecodable bytes replaced)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        return [x for x in f.read().split("\n") if x]


def _number(s):
    return int(s) if re.fullmatch(r"-?[0-9]+", s) else float(s)


def values(lines):
    """{record.metric: value or None} from check's PASS/FAIL lines."""
    out = {}
    for line in lines:
        w = line.split()
        if len(w) >= 2 and w[0] in ("PASS", "FAIL") and "." in w[1]:
            out[w[1]] = _number(w[2]) if len(w) >= 3 and _NUMBER.fullmatch(w[2]) else None
    return out


def diagnosis_of(lines):
    """check's diagnosis FAILs ("FAIL  memory population: CPU1_DIMM_D1: ...",
    "FAIL  EDAC: ..."): its FAIL lines that name no record.metric, in
    check's order (the diagnosis comes first there)."""
    out = []
    for line in lines:
        m = _FAIL.match(line)
        if m and "." not in m.group(1).split(" ", 1)[0]:
            out.append(m.group(1))
    return out


def verdict_of(code):
    return {0: "PASS", 1: "FAIL"}.get(code, "ERROR")


def summary_of(code, out, err):
    said = [x for x in out if _SUMMARY.match(x)]
    if said:
        return said[-1]
    last = [x for x in err if not x.startswith(_RUNNING)]
    return "memsuite check exited %d%s" % (code, ": " + last[-1] if last else "")


def metric_rows(doc, verdict, out):
    """One row per well-formed reference metric, in the reference's order."""
    vals = values(out)
    rows = []
    for m in doc.get("metrics") or []:
        if not isinstance(m, dict) or not isinstance(m.get("expected"), (int, float)):
            continue
        name = "%s.%s" % (m.get("record"), m.get("metric"))
        value = vals.get(name)
        passed = (value is not None and verdict != "ERROR"
                  and any(x.startswith("PASS  %s " % name) for x in out))
        rows.append({"record": m.get("record"), "metric": m.get("metric"), "unit": m.get("unit") or "",
                     "expected": m["expected"], "value": value, "pass": passed})
    return rows


def build(args, doc, out, err):
    verdict = verdict_of(args.exit)
    created = doc.get("created")
    return {"schema": SCHEMA, "node": args.node, "host": args.host, "run_id": args.run_id,
            "ref": {"id": args.ref_id, "path": args.ref,
                    "created": "" if created is None else (created if isinstance(created, str)
                                                           else json.dumps(created))},
            "verdict": verdict, "exit": args.exit, "started": args.started, "finished": args.finished,
            "seconds": args.seconds, "summary": summary_of(args.exit, out, err),
            "diagnosis": diagnosis_of(out),
            "metrics": metric_rows(doc, verdict, out), "lines": out, "stderr_tail": err[-STDERR_TAIL:]}


def run(args):
    try:
        doc = loads(reference.read_bytes(args.ref))
        out, err = _lines(args.stdout), _lines(args.stderr)
    except (reference.RefError, ValueError, RecursionError, OSError) as e:
        sys.stderr.write("memsuite-analyse: node-report: %s\n" % (getattr(e, "strerror", None) or e))
        return exitcodes.RESOURCE
    if not isinstance(doc, dict):
        sys.stderr.write("memsuite-analyse: node-report: reference %s is not a JSON object\n" % args.ref)
        return exitcodes.RESOURCE
    sys.stdout.write(json.dumps(build(args, doc, out, err), ensure_ascii=False, separators=(",", ":")) + "\n")
    return exitcodes.OK
