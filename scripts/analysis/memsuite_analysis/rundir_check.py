"""memsuite-analyse rundir-check DIR --benches "stream mbw mencal": whether
DIR is a results directory this memsuite can report, compare or resume.
Prints nothing and exits 0 when it is; else prints why (one line, the
words memsuite's commands show) and exits 2 (damaged, not one, another
version) or 3 (cannot be read: permission).

The checks (the fields the report and resume compute or look up with):
  run.json   one object, schema memsuite/run/1, config an object,
             complete a boolean, config.llc_bytes a byte count,
             config.bind none|close|spread|node:N, config.tool_args
             (when present) an object {known bench: [strings]};
  plan.tsv   a header line and at least one cell; six tab-separated
             fields a line (id bench scenario size_bytes threads reps),
             known benches, scenario names, size_bytes >= 1, threads
             1..MAX_THREADS (the tools' limit), reps >= 1;
  env.json   (when present) one object whose facts are objects with a
             string key, llc_bytes a byte count, peak_mbps a rate.
A FIFO, socket, device or link is never opened for reading in a way that
could block (model.read_regular)."""

import os
import re

from . import exitcodes
from .model import loads, read_regular
from .render import printable
from .results import RUN_SCHEMA, RUNDIR_FILE_MAX_BYTES, _short, is_number

SUMMARY = "check a results directory (run.json, plan.tsv, env.json)"

_ID = re.compile(r"^[A-Za-z0-9._:-]+$")
_SCEN = re.compile(r"^(-|[a-z][a-z0-9_-]*)$")
_BIND = re.compile(r"^(none|close|spread|node:[0-9]{1,9})$")
_UINT = re.compile(r"^[0-9]+$")

# The most threads a tool runs: MB_MAX_THREADS of common/affinity.h (and
# MS_MAX_THREADS of scripts/lib/lists.sh); a test holds the three equal.
MAX_THREADS = 1024


class Bad(Exception):
    def __init__(self, why, code=exitcodes.USAGE):
        super().__init__(why)
        self.code = code


def add_arguments(p):
    p.add_argument("--benches", default="stream mbw mencal", help="the bench names plan.tsv may use")
    p.add_argument("dir", metavar="DIR")


def _byte_count(x):
    return is_number(x) and x >= 0 and x == int(x) and x < 1e18


def _read(d, name):
    """The bytes of d/name (None when it does not exist), or Bad: not a
    regular file (a link is never followed: model.read_regular, as the
    report's reader opens them), too large, or unreadable."""
    path = os.path.join(d, name)
    if not os.path.lexists(path):
        return None
    data, why = read_regular(path, "a run directory's " + name, RUNDIR_FILE_MAX_BYTES)
    if why is None:
        return data
    if why.startswith("is empty"):
        return b""
    if why.startswith("cannot be read: "):
        raise Bad("cannot read %s/%s (%s); run as its owner or make it readable"
                  % (d, name, why[len("cannot be read: "):].lower()), exitcodes.RESOURCE)
    if why.startswith("is ") and " bytes, " in why:
        raise Bad("%s/%s %s; the directory is damaged" % (d, name, why))
    kind = why.replace("is ", "", 1).split(" (")[0]
    raise Bad("%s/%s is not a regular file (%s); the directory is damaged" % (d, name, kind))


def _doc(data):
    try:
        doc = loads(data)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def check(d, benches):
    if not os.path.isdir(d):
        raise Bad("no such results directory: %s" % d)
    run_data = _read(d, "run.json")
    plan_data = _read(d, "plan.tsv")
    env_data = _read(d, "env.json")
    if run_data is None:
        raise Bad("%s is not a memsuite results directory (no run.json)" % d)
    run = _doc(run_data)
    if run is None:
        raise Bad("%s/run.json is not valid JSON (empty, truncated or not one object); the directory is damaged" % d)
    schema = run.get("schema", "none")
    if schema != RUN_SCHEMA:
        shown = schema if isinstance(schema, str) else _short(schema)
        raise Bad("%s was written by another memsuite version (schema %s, this one reads '%s'); use that version or rerun"
                  % (d, _quoted(shown), RUN_SCHEMA))
    cfg = run.get("config", {})
    why = None
    if cfg is None:
        cfg = {}
    if not isinstance(cfg, dict):
        why = '"config" is not an object'
    elif not isinstance(run.get("complete"), bool):
        why = "complete is %s, not true or false" % _short(run.get("complete"))
    elif not _byte_count(cfg.get("llc_bytes", 0) if cfg.get("llc_bytes") is not None else 0):
        why = "config.llc_bytes is not a byte count"
    elif not (isinstance(cfg.get("bind") or "none", str) and _BIND.match(cfg.get("bind") or "none")):
        why = "config.bind is %s, not none, close, spread or node:N" % _short(cfg.get("bind"))
    else:
        why = _tool_args_why(cfg.get("tool_args"), benches.split())
    if why:
        raise Bad("%s/run.json: %s; the directory is damaged" % (d, why))
    if plan_data is None:
        raise Bad("%s has no plan.tsv; it cannot be resumed or reported" % d)
    known = benches.split()
    cells = 0
    for n, line in enumerate(plan_data.decode("utf-8", "surrogateescape").split("\n"), 1):
        if line.startswith("#") or line == "":
            continue
        f = line.split("\t")
        if len(f) != 6 or not _ID.match(f[0]) or not all(_UINT.match(x) for x in f[3:6]):
            why = 'line %d is not "id bench scenario size_bytes threads reps"' % n
        elif f[1] not in known:
            why = "line %d: bench is not one of: %s" % (n, " ".join(known))
        elif not _SCEN.match(f[2]) or len(f[2]) > 32:
            why = "line %d: scenario is not - or a scenario name" % n
        else:
            why = _cell_why(n, int(f[3]), int(f[4]), int(f[5]))
        if why:
            raise Bad("%s/plan.tsv: %s; the directory is damaged" % (d, why))
        cells += 1
    if cells == 0:
        raise Bad("%s/plan.tsv: %s; the directory is damaged"
                  % (d, "it is empty (no header)" if plan_data.strip() == b"" else "it lists no cells"))
    if env_data is not None:
        env = _doc(env_data)
        facts = env.get("facts", []) if env is not None else None
        if env is None or not isinstance(facts if facts is not None else [], list) or \
                not all(isinstance(x, dict) and isinstance(x.get("key"), str) for x in (facts or [])):
            raise Bad("%s/env.json is not a valid env.json (empty, truncated or not a memsuite/env/1 object); "
                      "restore it or rerun 'memsuite env --json > %s/env.json'" % (d, d))
        llc, peak = env.get("llc_bytes"), env.get("peak_mbps")
        if not _byte_count(llc if llc is not None else 0):
            why = "llc_bytes is not a byte count"
        elif peak is not None and not (is_number(peak) and 0 < peak < 1e15):
            why = "peak_mbps is not a rate in MB/s"
        if why:
            raise Bad("%s/env.json: %s; restore it or rerun 'memsuite env --json > %s/env.json'" % (d, why, d))


def _tool_args_why(ta, known):
    """Why config.tool_args (None: absent) is not {known bench: [strings]},
    or None."""
    if ta is None:
        return None
    if not isinstance(ta, dict):
        return "config.tool_args is %s, not an object" % _cut(ta)
    for tool, words in ta.items():
        if tool not in known:
            return "config.tool_args names an unknown tool %s (known: %s)" % (_cut(tool), " ".join(known))
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            return "config.tool_args.%s is %s, not an array of strings" % (printable(tool[:40]), _cut(words))
    return None


def _cell_why(n, size, threads, reps):
    """Why a plan line's numbers cannot be run, or None."""
    if size < 1:
        return "line %d: size_bytes is %d, not 1 or more" % (n, size)
    if not 1 <= threads <= MAX_THREADS:
        return "line %d: threads is %d, not 1..%d" % (n, threads, MAX_THREADS)
    if reps < 1:
        return "line %d: reps is %d, not 1 or more" % (n, reps)
    return None


def _cut(x, n=60):
    """A value as JSON text for a message, cut to n characters and marked
    so when longer."""
    import json
    try:
        s = json.dumps(x, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        s = str(x)
    return printable(s[:n]) + ("... (cut, %d characters)" % len(s) if len(s) > n else "")


def _quoted(s):
    """As bash's ms_shown shows a value: 'x' when it is plain, else $'...'."""
    t = s[:40] + ("..." if len(s) > 40 else "")
    if re.match(r"^[A-Za-z0-9._,:=/@%+ -]*$", s[:40]):
        return "'%s'%s" % (s[:40], "..." if len(s) > 40 else "")
    return printable(repr(t))


def run(args):
    try:
        check(args.dir, args.benches)
    except Bad as e:
        print(printable(str(e)))
        return e.code
    return exitcodes.OK
