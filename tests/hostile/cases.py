"""The hostile sweep's cases: families x values, generated, never random.

Each case is a dict:
  id       FAMILY-NNN (NNN counts within the family, in generation order)
  family   the family name (the --family filter)
  desc     one line: what is hostile
  cmd      argv; tokens are replaced by the runner (see TOKENS)
  env      extra environment (same tokens)
  prep     steps that build the case's files in its own directory W before
           the command runs (see sweep.py, PREP)
  expect   the oracle: a list of checks (see sweep.py, CHECKS); every case
           also gets the universal ones (no canary, no crash, no hang, an
           exit status of the documented set)
  ctl      True when the input holds control characters: no raw control
           character may reach the output
  reader   a FIFO (under W) that the runner starts reading after a second
  signal   [SIGNAME, delay_s]: sent to the command's process group

The lists below are the whole definition: the same checkout generates the
same cases in the same order, so an id names one case until the lists
change.  TOKENS: {M} scripts/memsuite, {BIN} the built tools, {FX} the
fixtures built at the start (sweep.py, build_fixtures), {W} the case's
directory (the command's working directory), {CANARY} a file that exists
only if injected code ran ({CANARY_REL}: a name without '/', which
injected code would create in W, the command's directory), {REPO} the checkout.
"""

# ---- values ------------------------------------------------------------------

# (value, class): BAD must be refused (usage: exit 2, mbw's compatible mode 1),
# HUGE must be refused as usage or resource (2 or 3), ANY may be accepted
# (any documented exit; only crash, hang and code execution are wrong).
BAD, HUGE, ANY = "bad", "huge", "any"

INJECT = [
    "$(touch {CANARY})",
    "`touch {CANARY}`",
    "x;touch {CANARY}",
    "1\";system(\"touch {CANARY}\");\"",
    "x' ; system('touch {CANARY}') ; '",
    "x|touch {CANARY}",
]
CONTROL = ["1\x1b[31m", "\x01\x02", "a\nb", "\x1b]0;pwned\x07\x1b[2J", "\x7f\x08\r"]

NUMBERS = [
    ("-1", BAD), ("-9223372036854775808", BAD), ("18446744073709551616", HUGE),
    ("18446744073709551615", HUGE), ("9223372036854775808", HUGE), ("9" * 400, HUGE),
    ("1e308", HUGE), ("1e999", HUGE), ("NaN", BAD), ("nan", BAD), ("inf", BAD), ("-inf", BAD),
    ("", BAD), (" ", BAD), ("5abc", BAD), ("1 2", BAD), ("\uff11\uff12", BAD), ("\u0663", BAD),
    ("--", BAD), ("-", BAD), ("0", ANY), ("1.5", ANY), ("0x10", ANY), ("+5", ANY), ("1K", ANY),
    ("1e-400", ANY), ("010", ANY),
] + [(v, BAD) for v in INJECT[:3] + CONTROL[:3]]

# a shorter list for options of a scenario or a secondary knob
NUMBERS_SHORT = [NUMBERS[i] for i in (0, 2, 5, 6, 8, 10, 12, 14, 16, 20, 21, 25)] + \
    [(INJECT[0], BAD), (CONTROL[0], BAD)]

NODES = [
    ("", BAD), ("-1", BAD), ("1-0", ANY), ("0-", BAD), (",", BAD), ("0,,0", ANY), ("99999", ANY),
    ("18446744073709551616", BAD), ("a", BAD), ("0 1", BAD), ("\uff10", BAD), ("0", ANY), ("all", ANY),
    (INJECT[0], BAD), (CONTROL[0], BAD), ("x" * 5000, BAD),
]

def choices_values(valid):
    """Values for a CHOICE option whose accepted values are VALID."""
    v = [("", BAD), (valid[0].upper(), ANY), (valid[0] + "\n", BAD), (" " + valid[0], BAD),
         ("bogus", BAD), ("\u00e9", BAD), ("x" * 5000, BAD), (INJECT[0], BAD), (CONTROL[0], BAD)]
    return v + [(x, ANY) for x in valid[:1]]

COUNTERS = [
    ("", BAD), (",", BAD), ("a,,b", BAD), (",a", BAD), ("a,", BAD), (",,,,", BAD),
    ("cycles," * 300, ANY), ("NaN", ANY), ("PAPI_TOT_CYC", ANY), ("\u00e9v\u00e9nement", ANY),
    (INJECT[0], ANY), (INJECT[2], ANY), (CONTROL[0], ANY), (CONTROL[3], ANY), ("x" * 5000, ANY),
]

KERNELS = [("", BAD), (",", BAD), ("copy,", ANY), ("copy,,triad", ANY), ("COPY", ANY),
           ("copy,copy", ANY), ("nope", BAD), (INJECT[0], BAD), (CONTROL[0], BAD), ("copy " * 100, BAD)]

PAYLOADS = INJECT + CONTROL[1:4] + [
    "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "%s%n%x%p", "x" * 9000, "a\tb,c\"d'e", "\u202etxt.exe", "",
]

# ---- helpers -----------------------------------------------------------------

def _strings(x):
    """Every string inside X (lists and dicts walked)."""
    if isinstance(x, str):
        yield x
    elif isinstance(x, (list, tuple)):
        for i in x:
            yield from _strings(i)
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _strings(k)
            yield from _strings(v)


def _has_ctl(*texts):
    return any(ch in t for t in _strings(texts) for ch in "\x01\x02\x07\x08\x0b\x0c\x0d\x1b\x7f")


def _short(v, n=24):
    """The value as the description shows it: escaped, at most N characters."""
    r = v.encode("unicode_escape").decode("ascii")
    return "'%s'" % (r if len(r) <= n else r[:n] + "...(%d chars)" % len(v))


class Gen:
    def __init__(self):
        self.cases = []
        self.count = {}

    def add(self, family, desc, cmd, expect=(), env=None, prep=(), ctl=None, **kw):
        n = self.count.get(family, 0) + 1
        self.count[family] = n
        if ctl is None:
            ctl = _has_ctl(cmd, env or {}, prep)
        c = dict(id="%s-%03d" % (family, n), family=family, desc=desc, cmd=list(cmd),
                 env=dict(env or {}), prep=[list(p) for p in prep], expect=list(expect), ctl=ctl)
        c.update(kw)
        self.cases.append(c)


def refused(cls, usage=(2,)):
    """The oracle of an option value of class CLS."""
    if cls == BAD:
        return [["exit_in", list(usage)]]
    if cls == HUGE:
        return [["exit_in", sorted(set(usage) | {3})]]
    return []

# ---- families: the C tools' options ------------------------------------------

STREAM = ["{BIN}/stream", "-s", "2000", "-n", "2", "-q"]
STREAM_OPTS = [   # option, values, how the value is given
    ("--array-size", NUMBERS, "sep"), ("--ntimes", NUMBERS, "sep"), ("--offset", NUMBERS_SHORT, "sep"),
    ("--threads", NUMBERS_SHORT, "sep"), ("--type", choices_values(["double", "float"]), "sep"),
    ("--cpunodebind", NODES, "sep"), ("--membind", NODES, "sep"), ("--interleave", NODES, "sep"),
    ("--format", choices_values(["json", "csv", "text"]), "sep"), ("--counters", COUNTERS, "eq"),
    ("--llc", NUMBERS_SHORT, "sep"), ("--kernels", KERNELS, "sep"),
    ("--nt-isa", choices_values(["portable"]), "sep"), ("--hugepages", choices_values(["thp"]), "sep"),
    ("--inject-error", choices_values(["b"]), "eq"),
]

MBW_OPTS = [
    ("-n", NUMBERS, "sep"), ("-b", NUMBERS_SHORT, "sep"), ("-t", NUMBERS_SHORT, "sep"),
    ("--threads", NUMBERS_SHORT, "sep"), ("--numa-node", NUMBERS_SHORT, "sep"),
    ("--hugepages", choices_values(["thp"]), "sep"), ("--format", choices_values(["json"]), "sep"),
    ("--counters", COUNTERS, "eq"),
]

# option, scenario that owns it, values
MENCAL_OPTS = [
    ("--size", "seqread", NUMBERS), ("--threads", "seqread", NUMBERS), ("--reps", "seqread", NUMBERS),
    ("--hugepages", "seqread", choices_values(["thp"])), ("--buffer", "seqread", choices_values(["mmap"])),
    ("--cpunodebind", "seqread", NODES), ("--membind", "seqread", NODES),
    ("--interleave", "seqread", NODES), ("--interleave-weights", "seqread", NODES),
    ("--counters", "seqread", COUNTERS), ("--format", "seqread", choices_values(["json"])),
    ("--random-state", "randread", NUMBERS_SHORT), ("--llc", "seqread", NUMBERS_SHORT),
    ("--kernel-variant", "seqread", choices_values(["v16x4"])),
    ("--kernel-calibration", "seqread", NUMBERS_SHORT), ("--chains", "randread", NUMBERS_SHORT),
    ("--tlb-locality", "randread", NUMBERS_SHORT), ("--stride", "randread", NUMBERS_SHORT),
    ("--read-pct", "mixed", NUMBERS_SHORT), ("--pattern", "mixed", choices_values(["random"])),
    ("--procs", "concurrent", NUMBERS_SHORT), ("--duration", "concurrent", NUMBERS_SHORT),
    ("--iterations", "stability", NUMBERS_SHORT), ("--interval", "stability", NUMBERS_SHORT),
    ("--traffic", "loaded", choices_values(["read"])), ("--delays", "loaded", NUMBERS_SHORT),
    ("--windows", "loaded", NUMBERS_SHORT), ("--kernels", "sweep", KERNELS),
    ("--ratios", "weights", NUMBERS_SHORT), ("--c2c-samples", "c2c", NUMBERS_SHORT),
]


def _optargs(opt, val, how):
    return [opt + "=" + val] if how == "eq" else [opt, val]


def tool_options(g):
    for opt, values, how in STREAM_OPTS:
        for val, cls in values:
            base = [a for a in STREAM if not (opt == "--array-size" and a in ("-s", "2000"))
                    and not (opt == "--ntimes" and a in ("-n", "2"))]
            g.add("opt-stream", "stream %s %s" % (opt, _short(val)), base + _optargs(opt, val, how),
                  refused(cls), name_option=opt if cls == BAD else None)
    for strict in (False, True):
        for opt, values, how in MBW_OPTS:
            for val, cls in values:
                cmd = ["{BIN}/mbw", "-q"] + (["--strict"] if strict else [])
                cmd += (["-n", "1"] if opt != "-n" else []) + _optargs(opt, val, how) + ["1"]
                usage = (2,) if strict else (1,)
                g.add("opt-mbw", "mbw%s %s %s" % (" --strict" if strict else "", opt, _short(val)),
                      cmd, refused(cls, usage))
    # mbw's array size (the argument), both modes
    for strict in (False, True):
        for val, cls in NUMBERS_SHORT:
            cmd = ["{BIN}/mbw", "-q", "-n", "1"] + (["--strict"] if strict else []) + ["--", val]
            if cls == ANY and val not in ("0", "1.5", "+5"):
                continue        # a size that runs: 1K MiB arrays are a measurement, not a parse
            g.add("opt-mbw", "mbw%s array size %s" % (" --strict" if strict else "", _short(val)),
                  cmd, refused(cls, (2,) if strict else (1,)))
    for opt, scen, values in MENCAL_OPTS:
        for val, cls in values:
            base = ["{BIN}/mencal", "run", scen, "--dry-run", "-q"]
            if opt != "--size":
                base += ["--size", "4M"]
            g.add("opt-mencal", "mencal run %s %s %s" % (scen, opt, _short(val)),
                  base + _optargs(opt, val, "eq" if opt == "--counters" else "sep"), refused(cls),
                  name_option=opt if cls == BAD else None)
    # an option of a scenario that is not selected, and unknown options
    for junk in ["--bogus", "-\u00e9", "--size=", "--=", "-", "--" + "x" * 3000, "--size\x1b[31m"]:
        for tool in (["{BIN}/stream"], ["{BIN}/mencal", "run", "seqread", "--dry-run"], ["{BIN}/mbw", "--strict"]):
            g.add("opt-unknown", "%s %s" % (tool[0].split("/")[-1], _short(junk)),
                  tool + [junk] + (["1"] if "mbw" in tool[0] else []), [["exit_in", [2]]])


OMP_VALUES = [
    ("", ANY), ("0", ANY), ("-1", BAD), ("a", BAD), ("1,,2", BAD), ("18446744073709551616", BAD),
    ("99999", BAD), ("1e3", BAD), ("2,1", ANY), (INJECT[0], BAD), (CONTROL[0], BAD), (" 1 ", ANY),
]
OMP_BIND = [("", ANY), ("true", ANY), ("spread", ANY), ("bogus", BAD), ("spread,,close", BAD),
            (INJECT[0], BAD), (CONTROL[0], BAD)]
OMP_PLACES = [("", ANY), ("cores", ANY), ("{0}:99999", ANY), ("{", BAD), ("bogus", BAD),
              ("{0,1}:-1", ANY), (INJECT[0], BAD), (CONTROL[0], BAD)]


def omp_env(g):
    tools = [("stream", ["{BIN}/stream", "-s", "2000", "-n", "2", "-q"]),
             ("mbw", ["{BIN}/mbw", "-q", "--strict", "-n", "1", "1"]),
             ("mencal", ["{BIN}/mencal", "run", "seqread", "--size", "4M", "--dry-run", "-q"])]
    for var, values in [("OMP_NUM_THREADS", OMP_VALUES), ("OMP_THREAD_LIMIT", OMP_VALUES),
                        ("OMP_PROC_BIND", OMP_BIND), ("OMP_PLACES", OMP_PLACES)]:
        for val, cls in values:
            for name, cmd in tools:
                # a limit or a binding libgomp ignores may also be refused
                exp = [] if cls == ANY else [["exit_in", [2]]]
                if var in ("OMP_THREAD_LIMIT", "OMP_PLACES") and cls == BAD:
                    exp = [["exit_in", [0, 2]]]
                g.add("omp-env", "%s %s=%s" % (name, var, _short(val)), cmd, exp, env={var: val})


# ---- memsuite's options --------------------------------------------------------

# memsuite's own numbers: the shapes that differ for a bash/jq/Python reader
MS_NUMBERS = [NUMBERS[i] for i in (0, 2, 6, 8, 12, 14, 16, 20, 21)] + [(INJECT[0], BAD), (CONTROL[0], BAD)]
MS_RUN_OPTS = [("--sizes", MS_NUMBERS + [("1x,,2x", BAD), ("0x", BAD), ("1M,-1M", BAD)]),
               ("--threads", MS_NUMBERS + [("1,,2", BAD), ("cores,x", BAD)]),
               ("--reps", MS_NUMBERS), ("--cooldown", MS_NUMBERS),
               ("--bench", choices_values(["stream"]) + [("mencal:bogus", BAD), ("mencal:" + INJECT[0], BAD),
                                                          ("stream,,mbw", BAD)]),
               ("--bind", choices_values(["spread"]) + [("node:-1", BAD), ("node:", BAD), ("node:1e3", BAD)]),
               ("--profile", [("../../etc/passwd", BAD), ("/etc/passwd", BAD), (INJECT[0], BAD), ("", BAD)])]
MS_CHECK_OPTS = [("--retries", MS_NUMBERS), ("--format", choices_values(["text"])),
                 ("--max-busy", MS_NUMBERS), ("--max-pressure", MS_NUMBERS)]
MS_RECORD_OPTS = [("--runs", MS_NUMBERS), ("--floor", MS_NUMBERS), ("--cap", MS_NUMBERS),
                  ("--upper-pct", MS_NUMBERS)]
MS_CLUSTER_OPTS = [("--k", MS_NUMBERS), ("--mad-floor", MS_NUMBERS), ("--top", MS_NUMBERS),
                   ("--format", choices_values(["json"])), ("--run-id", [(INJECT[0], ANY), (CONTROL[0], ANY), ("", BAD)]),
                   ("--nodes", [("", BAD), ("n[1-", BAD), ("n[2-1]", BAD), ("n[0-99999999]", BAD), ("a b", BAD),
                                ("a\nb", BAD), ("a;b", BAD), (INJECT[0], BAD), ("@/dev/null/x", BAD),
                                ("@/etc/passwd", BAD), ("n[01-03]", ANY), ("x" * 300, BAD)])]
MS_REPORT_OPTS = [("--tolerance", MS_NUMBERS[:7]), ("--efficiency", MS_NUMBERS[:6]),
                  ("--cv-max", MS_NUMBERS[:6]), ("--peak-min", MS_NUMBERS[:6])]


def memsuite_options(g):
    for opt, values in MS_RUN_OPTS:
        for val, cls in values:
            g.add("opt-memsuite", "run --dry-run %s %s" % (opt, _short(val)),
                  ["{M}", "run", "--dry-run", "--cooldown", "0", "--out", "{W}/out"] +
                  (["--sizes", "1M"] if opt != "--sizes" else []) + [opt, val], refused(cls))
    for opt, values in MS_CHECK_OPTS:
        for val, cls in values:
            g.add("opt-memsuite", "check %s %s" % (opt, _short(val)),
                  ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{FX}/result.json", opt, val],
                  refused(cls))
    for opt, values in MS_RECORD_OPTS:
        for val, cls in values:
            g.add("opt-memsuite", "check --record %s %s" % (opt, _short(val)),
                  ["{M}", "check", "--record", "--ref", "{W}/new.json", "--result", "{FX}/result.json", opt, val],
                  refused(cls) + ([["no_file", "{W}/new.json"]] if cls != ANY else []))
    for opt, values in MS_CLUSTER_OPTS:
        for val, cls in values:
            g.add("opt-memsuite", "cluster --aggregate %s %s" % (opt, _short(val)),
                  ["{M}", "cluster", "--aggregate", "{FX}/nodes", "--ref", "{FX}/nodes.ref", opt, val],
                  refused(cls))
    for opt, values in MS_REPORT_OPTS:
        for val, cls in values:
            g.add("opt-memsuite", "report %s %s" % (opt, _short(val)),
                  ["{M}", "report", opt, val, "{FX}/run-stream"], refused(cls))
    for val, cls in MS_NUMBERS[:6]:
        g.add("opt-memsuite", "compare --min-noise %s" % _short(val),
              ["{M}", "compare", "--min-noise", val, "{FX}/run-stream", "{FX}/run-stream"], refused(cls))
    for sub in ["report", "compare", "check", "cluster", "run", "profile show", "env"]:
        for junk in ["--" + INJECT[0], CONTROL[0]]:
            g.add("opt-memsuite", "%s unknown option %s" % (sub, _short(junk)),
                  ["{M}"] + sub.split() + [junk], [["exit_in", [2]]])


# ---- result documents ------------------------------------------------------------

# A path in a result, and what it is; the oracle of a mutation depends on
# whether the readers use the field ("read": the cell must be named
# invalid or the command must not exit 0) or merely carry it ("carried":
# any documented outcome, but no crash, hang or code execution).
STREAM_NUMERIC = [
    ("records.0.metrics.best_rate_mbps.value", "read"), ("records.3.metrics.best_rate_mbps.value", "read"),
    ("records.1.metrics.min_time_s.value", "read"), ("records.2.metrics.min_time_s.stats.cv", "read"),
    ("records.0.metrics.min_time_s.stats.n", "carried"), ("records.0.metrics.avg_time_s.value", "read"),
    ("config.array_bytes", "read"), ("config.threads", "carried"), ("config.ntimes", "carried"),
    ("llc.total_bytes", "read"), ("sysinfo.cores", "carried"), ("sysinfo.mem_total_bytes", "carried"),
]
MBW_NUMERIC = [("records.0.metrics.best_rate_mibps.value", "read"), ("records.1.metrics.avg_rate_mibps.value", "read"),
               ("records.2.metrics.time_s.value", "read"), ("records.0.runs", "carried")]
# (label, JSON value or a raw text, "raw" when the value is written as text)
NUM_MUTATIONS = [("string", "5"), ("negative", -5), ("zero", 0), ("huge", 1e308), ("NaN string", "NaN"),
                 ("array", [1]), ("object", {"a": 1}), ("null", None), ("bare NaN", "NaN", "raw"),
                 ("bare Infinity", "-Infinity", "raw"), ("true", True)]
STREAM_STRINGS = ["tool", "sysinfo.cpu_model", "records.0.name", "records.1.metrics.best_rate_mbps.unit",
                  "label", "sysinfo.allocator", "config.type", "records.2.name", "version", "sysinfo.hostname"]


def _rotate(items, start, n):
    """N items of ITEMS from START on, wrapping: successive fields get
    successive mutations, so every mutation meets several fields without
    every field meeting every mutation (which would cost minutes)."""
    return [items[(start + i) % len(items)] for i in range(n)]


def result_docs(g):
    cell_s = "{W}/r/cells/stream-s262144-t1.json"
    cell_m = "{W}/r/cells/mbw-s262144-t1.json"
    for cell, fields, run in [(cell_s, STREAM_NUMERIC, "run-stream"), (cell_m, MBW_NUMERIC, "run-mbw")]:
        for fi, (field, use) in enumerate(fields):
            for mut in _rotate(NUM_MUTATIONS, fi * 4, 4):
                label, val = mut[0], mut[1]
                raw = len(mut) > 2
                exp = []
                invalid_val = label not in ("null",) and not (label in ("zero", "negative") and use == "carried") \
                    and not (label == "zero" and field.endswith(".cv"))     # a CV of 0 is a CV
                if use == "read" and invalid_val:
                    exp = [["fails_or_named", "cells/" + cell.split("/")[-1]]]
                if raw:          # not JSON at all: named whatever the field
                    exp = [["exit_in", [1]], ["named", "invalid: "]]
                g.add("result", "report: %s %s = %s" % (cell.split("/")[-1].split("-")[0], field, label),
                      ["{M}", "report", "{W}/r"], exp,
                      prep=[["copytree", "{FX}/" + run, "{W}/r"], ["json_edit", cell, field, val, raw]])
    # check --result reads the same metrics: a mutated headline never passes
    for rec in (0, 3):
        for mut in NUM_MUTATIONS:
            label, val = mut[0], mut[1]
            raw = len(mut) > 2
            g.add("result", "check --result: records.%d best_rate_mbps = %s" % (rec, label),
                  ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{W}/res.json"],
                  [["exit_in", [1, 2]]],
                  prep=[["copy", "{FX}/result.json", "{W}/res.json"],
                        ["json_edit", "{W}/res.json", "records.%d.metrics.best_rate_mbps.value" % rec, val, raw]])
    # payloads in every string field: report, check and (gnuplot) report --plots
    for fi, field in enumerate(STREAM_STRINGS):
        for p in _rotate(PAYLOADS, fi * 4, 4):
            g.add("inject", "report: %s = %s" % (field, _short(p)), ["{M}", "report", "{W}/r"],
                  [],
                  prep=[["copytree", "{FX}/run-stream", "{W}/r"], ["json_edit", cell_s, field, p, False]])
        for p in _rotate(INJECT + CONTROL[3:4], fi * 2, 2):
            g.add("inject", "check --result: %s = %s" % (field, _short(p)),
                  ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{W}/res.json", "--format", "prom"], [],
                  prep=[["copy", "{FX}/result.json", "{W}/res.json"], ["json_edit", "{W}/res.json", field, p, False]])
    for field in ["records.0.name", "records.1.metrics.best_rate_mbps.unit", "tool", "sysinfo.cpu_model"]:
        for p in INJECT[3:5] + ["<script>alert(1)</script>"]:
            g.add("inject", "report --plots: %s = %s" % (field, _short(p)), ["{M}", "report", "--plots", "{W}/r"], [],
                  prep=[["copytree", "{FX}/run-stream", "{W}/r"], ["json_edit", cell_s, field, p, False]])
            g.add("inject", "report --html: %s = %s" % (field, _short(p)),
                  ["{M}", "report", "--html", "--output", "{W}/r.html", "{W}/r"], [["html_clean", "{W}/r.html"]],
                  prep=[["copytree", "{FX}/run-stream", "{W}/r"], ["json_edit", cell_s, field, p, False]])
    # the mencal sweep cell: cache sizes and curve points reach gnuplot
    for field in ["config.caches.l1d_bytes", "llc.total_bytes", "records.0.tables.mountain.0.bandwidth",
                  "records.0.tables.mountain.0.size_bytes"]:
        for p in [INJECT[3], "5 with x"]:
            g.add("inject", "report --plots (sweep cell): %s = %s" % (field, _short(p)),
                  ["{M}", "report", "--plots", "{W}/r"], [["fails_or_named", "cells/"]],
                  prep=[["copytree", "{FX}/run-sweep", "{W}/r"], ["json_edit_glob", "{W}/r/cells", field, p]])
    # whole-document damage
    whole = [("schema other/1", ["json_edit", cell_s, "schema", "other/1", False]),
             ("schema memsuite/result/99", ["json_edit", cell_s, "schema", "memsuite/result/99", False]),
             ("no schema", ["json_del", cell_s, "schema"]),
             ("truncated to 200 bytes", ["truncate", cell_s, 200]),
             ("truncated to 1 byte", ["truncate", cell_s, 1]),
             ("empty", ["write", cell_s, ""]),
             ("two documents", ["double", cell_s]),
             ("deep nesting 5000", ["write", cell_s, "[" * 5000 + "]" * 5000]),
             ("deep nesting 100000", ["write", cell_s, "[" * 100000 + "]" * 100000]),
             ("a number", ["write", cell_s, "5"]), ("an array", ["write", cell_s, "[]"]),
             ("binary bytes", ["write_bytes", cell_s, "00ff1b5b33316d"]),
             ("records not an array", ["json_edit", cell_s, "records", {"a": 1}, False]),
             ("records empty", ["json_edit", cell_s, "records", [], False]),
             ("metrics a number", ["json_edit", cell_s, "records.0.metrics", 7, False]),
             ("complete false", ["json_edit", cell_s, "complete", False, False]),
             ("validation failed", ["json_edit", cell_s, "validation", {"passed": False}, False]),
             ("a metric of 8 KB name", ["json_edit", cell_s, "records.0.metrics." + "m" * 8192, {"value": 1, "unit": "B/s"}, False]),
             ("mbw result at the stream cell", ["copy", "{FX}/run-mbw/cells/mbw-s262144-t1.json", cell_s]),
             ("v2: headline names no metric", ["json_edit", cell_s, "records.0.headline", "nope", False]),
             ("v2: base_unit bogus", ["json_edit", cell_s, "records.0.metrics.best_rate_mbps.base_unit", "furlongs", False]),
             ("v2: scale string", ["json_edit", cell_s, "records.0.metrics.best_rate_mbps.scale", "1e6", False]),
             ("v2: better sideways", ["json_edit", cell_s, "records.0.metrics.best_rate_mbps.better", "sideways", False])]
    for wi, (label, step) in enumerate(whole):
        exp = [["fails_or_named", "cells/stream-s262144-t1.json"]]
        if label.startswith("v2:") or label == "a metric of 8 KB name":
            exp = []
        if label.startswith("v2:"):
            step2 = [["json_edit", cell_s, "schema", "memsuite/result/2", False], step]
        else:
            step2 = [step]
        g.add("result", "report: the stream cell is %s" % label, ["{M}", "report", "{W}/r"], exp,
              prep=[["copytree", "{FX}/run-stream", "{W}/r"]] + step2)
        if wi % 3:
            continue        # compare reads cells as report does: a third of them
        g.add("result", "compare: B's stream cell is %s" % label, ["{M}", "compare", "{FX}/run-stream", "{W}/r"],
              exp, prep=[["copytree", "{FX}/run-stream", "{W}/r"]] + step2)
    g.add("result", "report: a mencal result of another scenario at a cell's path", ["{M}", "report", "{W}/r"],
          [["exit_in", [1]], ["named", "but the planned cell runs mencal"]],
          prep=[["copytree", "{FX}/run-sweep", "{W}/r"], ["copy_glob", "{FX}/randread.json", "{W}/r/cells"]])
    for label, step in whole[:12]:
        g.add("result", "check --result: the result is %s" % label,
              ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{W}/res.json"], [["exit_in", [1, 2]]],
              prep=[["copy", "{FX}/result.json", "{W}/res.json"], [step[0], "{W}/res.json"] + step[2:]])
    g.add("result", "check --result: a summary string over 8 KB in the result",
          ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{W}/res.json"], [["exit_in", [0]]],
          prep=[["copy", "{FX}/result.json", "{W}/res.json"], ["json_edit", "{W}/res.json", "summary", "s" * 9000, False]])


# ---- run directories -------------------------------------------------------------

def run_dirs(g):
    cell = "{W}/r/cells/mbw-s262144-t1.json"
    damage = [
        ("cell deleted", [["rm", cell]], "missing: "),
        ("cell a FIFO", [["rm", cell], ["mkfifo", cell]], "FIFO"),
        ("cell a symlink to /dev/zero", [["rm", cell], ["symlink", "/dev/zero", cell]], "cells/mbw-s262144-t1.json"),
        ("cell a symlink to a good cell", [["rm", cell], ["symlink", "stream-s262144-t1.json", cell]], "cells/mbw-s262144-t1.json"),
        ("cell a dangling symlink", [["rm", cell], ["symlink", "/nonexistent", cell]], "cells/mbw-s262144-t1.json"),
        ("cell a directory", [["rm", cell], ["mkdir", cell]], "cells/mbw-s262144-t1.json"),
        ("cell unreadable (mode 000; root reads it anyway)", [["chmod", cell, 0]], None),
        ("cells/ removed", [["rmtree", "{W}/r/cells"]], None),
        ("cells/ a FIFO", [["rmtree", "{W}/r/cells"], ["mkfifo", "{W}/r/cells"]], None),
        ("plan.tsv empty", [["write", "{W}/r/plan.tsv", ""]], None),
        ("plan.tsv deleted", [["rm", "{W}/r/plan.tsv"]], None),
        ("plan.tsv a FIFO", [["rm", "{W}/r/plan.tsv"], ["mkfifo", "{W}/r/plan.tsv"]], None),
        ("plan.tsv line without tabs", [["append", "{W}/r/plan.tsv", "garbage line\n"]], None),
        ("plan.tsv id with ../", [["append", "{W}/r/plan.tsv", "../../x\tstream\t-\t262144\t1\t2\n"]], None),
        ("plan.tsv id with $(...)", [["append", "{W}/r/plan.tsv", "$(touch {CANARY})\tstream\t-\t262144\t1\t2\n"]], None),
        ("plan.tsv size not a number", [["sub", "{W}/r/plan.tsv", "\t262144\t", "\t2;touch {CANARY}\t"]], None),
        ("plan.tsv threads 1e308", [["sub", "{W}/r/plan.tsv", "\t1\t2", "\t1e308\t2"]], None),
        ("plan.tsv bench bogus", [["sub", "{W}/r/plan.tsv", "\tmbw\t", "\tbogus\t"]], None),
        ("plan.tsv bench with a gnuplot payload", [["sub", "{W}/r/plan.tsv", "\tmbw\t", "\tmbw\");system(\"touch {CANARY}\");(\"\t"]], None),
        ("plan.tsv CRLF lines", [["sub", "{W}/r/plan.tsv", "\n", "\r\n"]], None),
        ("plan.tsv 9000-character line", [["append", "{W}/r/plan.tsv", "x" * 9000 + "\n"]], None),
        ("run.json empty", [["write", "{W}/r/run.json", ""]], None),
        ("run.json deleted", [["rm", "{W}/r/run.json"]], None),
        ("run.json a FIFO", [["rm", "{W}/r/run.json"], ["mkfifo", "{W}/r/run.json"]], None),
        ("run.json complete = \"yes\"", [["json_edit", "{W}/r/run.json", "complete", "yes", False]], None),
        ("run.json schema other", [["json_edit", "{W}/r/run.json", "schema", "other/1", False]], None),
        ("run.json config.bind payload", [["json_edit", "{W}/r/run.json", "config.bind", "spread;touch {CANARY}", False]], None),
        ("run.json config.llc_bytes string", [["json_edit", "{W}/r/run.json", "config.llc_bytes", "a[$(touch {CANARY})]", False]], None),
        ("run.json config a number", [["json_edit", "{W}/r/run.json", "config", 5, False]], None),
        ("run.json two documents", [["double", "{W}/r/run.json"]], None),
        ("run.json truncated", [["truncate", "{W}/r/run.json", 50]], None),
        ("env.json empty", [["write", "{W}/r/env.json", ""]], None),
        ("env.json a FIFO", [["rm", "{W}/r/env.json"], ["mkfifo", "{W}/r/env.json"]], None),
        ("env.json [1,2]", [["write", "{W}/r/env.json", "[1,2]"]], None),
        ("env.json llc_bytes payload", [["json_edit", "{W}/r/env.json", "llc_bytes", "a[$(touch {CANARY})]", False]], None),
        ("env.json peak_mbps string", [["json_edit", "{W}/r/env.json", "peak_mbps", "fast", False]], None),
        ("env.json facts a number", [["json_edit", "{W}/r/env.json", "facts", 5, False]], None),
        ("env.json fact value an object", [["json_edit", "{W}/r/env.json", "facts.0.value", {"a": 1}, False]], None),
        ("env.json peak_note with a newline", [["json_edit", "{W}/r/env.json", "peak_note", "none\npass\tkernel-order\tforged", False]], None),
        ("results directory is a file", [["rmtree", "{W}/r"], ["write", "{W}/r", "x"]], None),
    ]
    for di, (label, steps, name) in enumerate(damage):
        base = [["copytree", "{FX}/run2", "{W}/r"]]
        exp = [["exit_in", [1, 2, 3]]] + ([["named", name]] if name else [])
        if label.startswith("plan.tsv CRLF") or "root reads it" in label or label.startswith("env.json peak_note") or \
                label.startswith("env.json fact value"):
            exp = []        # damage the readers may tolerate; only a crash, hang or code is wrong
        if "forged" in label:
            exp = [["no_line_re", r"^\s*pass\s+kernel-order\s+forged"]]
        cmds = [["{M}", "report", "{W}/r"]]
        if di % 3 == 0:     # compare and --html read the directory as report does: a third
            cmds += [["{M}", "compare", "{FX}/run2", "{W}/r"]]
        if di % 3 == 1:
            cmds += [["{M}", "report", "--html", "--output", "{W}/o.html", "{W}/r"]]
        for cmd in cmds:
            kind = " ".join(cmd[1:3]) if "--html" in cmd else cmd[1]
            g.add("rundir", "%s: %s" % (kind, label), cmd, exp, prep=base + steps)


# ---- references ------------------------------------------------------------------

def references(g):
    ref = "{W}/ref.json"
    chk = ["{M}", "check", "--ref", ref, "--result", "{FX}/result.json"]
    base = [["copy", "{FX}/ref.json", ref]]
    pass_or_usage = [["exit_in", [0, 2]]]     # a healthy node: PASS, or the reference refused
    cases = [
        ("a FIFO", [["rm", ref], ["mkfifo", ref]], [["exit_in", [2]]]),
        ("/dev/zero", [["rm", ref], ["symlink", "/dev/zero", ref]], [["exit_in", [2]]]),
        ("a directory", [["rm", ref], ["mkdir", ref]], [["exit_in", [2, 3]]]),
        ("missing", [["rm", ref]], [["exit_in", [2, 3]]]),
        ("no unit", [["json_each", ref, "metrics", "unit", None, "del"]], [["exit_in", [0]]]),
        ("empty unit", [["json_each", ref, "metrics", "unit", "", "set"]], pass_or_usage),
        ("unit GB/s, values in GB/s", [["json_each", ref, "metrics", "unit", "GB/s", "set"],
                                       ["json_each", ref, "metrics", "expected", 0.001, "mul"]], pass_or_usage),
        ("unit MiB/s, values in MiB/s", [["json_each", ref, "metrics", "unit", "MiB/s", "set"],
                                         ["json_each", ref, "metrics", "expected", 1 / 1.048576, "mul"]], pass_or_usage),
        ("unit GB/s, values left in MB/s", [["json_each", ref, "metrics", "unit", "GB/s", "set"]], [["exit_in", [1, 2]]]),
        ("unit kB/s, values left in MB/s", [["json_each", ref, "metrics", "unit", "kB/s", "set"]], [["exit_in", [1, 2]]]),
        ("mixed units (Copy GB/s, scaled)", [["json_edit", ref, "metrics.0.unit", "GB/s", False],
                                            ["json_edit", ref, "metrics.0.expected", 18.5, False]], pass_or_usage),
        ("unit furlongs", [["json_each", ref, "metrics", "unit", "furlongs/s", "set"]], [["exit_in", [1, 2]]]),
        ("unit a number", [["json_edit", ref, "metrics.0.unit", 5, False]], [["exit_in", [2]]]),
        ("unit with a payload", [["json_edit", ref, "metrics.0.unit", INJECT[0], False]], [["exit_in", [1, 2]]]),
        ("500 metrics", [["json_many", ref, 500]], [["exit_in", [1, 2]]]),
        ("no metrics", [["json_edit", ref, "metrics", [], False]], [["exit_in", [2]]]),
        ("metrics an object", [["json_edit", ref, "metrics", {"a": 1}, False]], [["exit_in", [2]]]),
        ("wrong bench mbw", [["json_edit", ref, "run.bench", "mbw", False]], [["exit_in", [2]]]),
        ("bogus bench", [["json_edit", ref, "run.bench", "bogus", False]], [["exit_in", [2]]]),
        ("bench mencal:bogus", [["json_edit", ref, "run.bench", "mencal:bogus", False]], [["exit_in", [2]]]),
        ("bench with a payload", [["json_edit", ref, "run.bench", "stream;touch {CANARY}", False]], [["exit_in", [2]]]),
        ("made_with another tool", [["json_edit", ref, "made_with", {"tool": "mbw", "version": "1"}, False]], [["exit_in", [2]]]),
        ("made_with a string", [["json_edit", ref, "made_with", "x", False]], [["exit_in", [2]]]),
        ("schema other", [["json_edit", ref, "schema", "memsuite/ref/9", False]], [["exit_in", [2]]]),
        ("empty", [["write", ref, ""]], [["exit_in", [2]]]),
        ("blank", [["write", ref, " \n\t\n"]], [["exit_in", [2]]]),
        ("two documents", [["double", ref]], [["exit_in", [2]]]),
        ("truncated", [["truncate", ref, 100]], [["exit_in", [2]]]),
        ("deep nesting", [["write", ref, "[" * 100000 + "]" * 100000]], [["exit_in", [2]]]),
        ("bare NaN expected", [["json_edit", ref, "metrics.0.expected", "NaN", True]], [["exit_in", [2]]]),
        ("record name payload", [["json_edit", ref, "metrics.0.record", INJECT[0], False]], [["exit_in", [1, 2]]]),
        ("record name control characters", [["json_edit", ref, "metrics.0.record", CONTROL[3], False]], [["exit_in", [1, 2]]]),
        ("metric name gnuplot payload", [["json_edit", ref, "metrics.0.metric", INJECT[3], False]], [["exit_in", [1, 2]]]),
        ("description payloads", [["json_edit", ref, "description", INJECT[0] + CONTROL[3], False]], [["exit_in", [0, 2]]]),
        ("host 9000 characters", [["json_edit", ref, "host", "h" * 9000, False]], [["exit_in", [0, 2]]]),
    ]
    for field in ["expected", "lower_pct", "upper_pct"]:
        for mut in NUM_MUTATIONS:
            label, val = mut[0], mut[1]
            raw = len(mut) > 2
            if field == "upper_pct" and label == "null":
                continue            # null is "no upper bound", documented
            exp = [["exit_in", [2]]]
            if field != "expected" and label in ("zero", "huge"):
                exp = [["exit_in", [0, 1, 2]]]   # a band of 0 % or of 1e308 % is a band
            cases.append(("metrics.1.%s = %s" % (field, label), [["json_edit", ref, "metrics.1." + field, val, raw]], exp))
    for rfield in ["size_bytes", "threads", "reps"]:
        for mut in NUM_MUTATIONS[:8]:
            cases.append(("run.%s = %s" % (rfield, mut[0]), [["json_edit", ref, "run." + rfield, mut[1], False]],
                          [["exit_in", [1, 2]]]))
    for label, steps, exp in cases:
        g.add("ref", "check --ref: %s" % label, chk, exp, prep=base + steps)
    # --record onto hostile targets, and from a FIFO
    g.add("ref", "check --record --result FIFO", ["{M}", "check", "--record", "--ref", "{W}/o.json", "--result", "{W}/f"],
          [["exit_in", [2]], ["no_file", "{W}/o.json"]], prep=[["mkfifo", "{W}/f"]])


# ---- cluster node reports -----------------------------------------------------------

def cluster(g):
    agg = ["{M}", "cluster", "--aggregate", "{W}/g", "--ref", "{FX}/nodes.ref", "--nodes", "node[00001-00004]"]
    rep = "{W}/g/node00002.json"
    base = [["copytree", "{FX}/nodes", "{W}/g"]]
    err = [["exit_in", [1]], ["named", "node00002"]]
    cases = [
        ("a report is a symlink", [["rm", rep], ["symlink", "node00001.json", rep]], err),
        ("a report is a FIFO", [["rm", rep], ["mkfifo", rep]], err),
        ("a report is a directory", [["rm", rep], ["mkdir", rep]], err),
        ("a report is hidden", [["rename", rep, "{W}/g/.node00002.json"]], err),
        ("a report is empty", [["write", rep, ""]], err),
        ("a report is truncated", [["truncate", rep, 40]], err),
        ("a report is two documents", [["double", rep]], err),
        ("a report is deep nesting", [["write", rep, "[" * 100000 + "]" * 100000]], err),
        ("a report is mode 000", [["chmod", rep, 0]], []),
        ("a planted report claims node00002 with a future finished",
         [["copy", "{W}/g/node00001.json", "{W}/g/x.json"], ["json_edit", "{W}/g/x.json", "node", "node00002", False],
          ["json_edit", "{W}/g/x.json", "finished", "2099-01-01T00:00:00Z", False],
          ["json_edit", rep, "verdict", "FAIL", False], ["json_edit", rep, "exit", 1, False]],
         [["exit_in", [1]], ["json_status", "node00002", "FAIL"]]),
        ("node00002's file claims node00001", [["json_edit", rep, "node", "node00001", False]],
         [["exit_in", [1]], ["json_status", "node00002", "ERROR"]]),
        ("a report named with spaces", [["copy", "{W}/g/node00001.json", "{W}/g/a b.json"]], []),
        ("a report named with a newline", [["copy", "{W}/g/node00001.json", "{W}/g/a\nb.json"]], []),
        ("a report named with a payload", [["copy", "{W}/g/node00001.json", "{W}/g/$(touch {CANARY_REL}).json"]], []),
        ("a report named with ESC", [["copy", "{W}/g/node00001.json", "{W}/g/\x1b[2Jx.json"]], []),
        ("a one-line 9 KB summary", [["json_edit", rep, "summary", "memsuite: FAIL " + "x" * 9000, False],
                                     ["json_edit", rep, "verdict", "FAIL", False]],
         [["exit_in", [1]], ["json_status", "node00002", "FAIL"]]),
        ("a 200 KB summary", [["json_edit", rep, "summary", "y" * 200000, False]], []),
        ("verdict PASS but exit 1", [["json_edit", rep, "exit", 1, False]], [["exit_in", [1]]]),   # inconsistent: not a PASS
        ("verdict bogus", [["json_edit", rep, "verdict", "MAYBE", False]], [["exit_in", [1]]]),
        ("verdict missing", [["json_del", rep, "verdict"]], [["exit_in", [1]]]),
        ("another reference id", [["json_edit", rep, "ref.id", "sha256:" + "0" * 64, False]], [["exit_in", [1, 2]]]),
        ("schema other", [["json_edit", rep, "schema", "memsuite/cluster-node/9", False]], [["exit_in", [1]]]),
        ("finished a payload", [["json_edit", rep, "finished", INJECT[0], False]], []),
        ("node name with control characters", [["json_edit", rep, "node", CONTROL[3], False]], [["exit_in", [1]]]),
        ("summary with control characters", [["json_edit", rep, "summary", CONTROL[3] + CONTROL[2], False]], []),
    ]
    for j, (mlabel, val) in enumerate([("string", "5"), ("negative", -5), ("zero", 0), ("huge", 1e308),
                                        ("NaN string", "NaN"), ("array", [1]), ("object", {"a": 1}), ("null", None)]):
        cases.append(("metric value = %s" % mlabel, [["json_edit", rep, "metrics.0.value", val, False]], []))
        cases.append(("exit = %s" % mlabel, [["json_edit", rep, "exit", val, False]], []))
    for li, (label, steps, exp) in enumerate(cases):
        # JSON always (the oracles read it); text for every other case (the same reading)
        for fmt in ("text", "json") if li % 2 == 0 else ("json",):
            e = exp if fmt == "json" else [x for x in exp if x[0] != "json_status"]
            g.add("cluster", "aggregate --format %s: %s" % (fmt, label), agg + ["--format", fmt], e, prep=base + steps)
    g.add("cluster", "aggregate --drain-suggest with payload node names",
          agg + ["--drain-suggest"], [],
          prep=base + [["json_edit", rep, "summary", "x\"; touch {CANARY}; \"", False],
                       ["json_edit", rep, "verdict", "FAIL", False]])
    g.add("cluster", "--nodes @FIFO", ["{M}", "cluster", "--aggregate", "{W}/g", "--ref", "{FX}/nodes.ref",
                                       "--nodes", "@{W}/list"], [["exit_in", [2]]], prep=base + [["mkfifo", "{W}/list"]])
    g.add("cluster", "--aggregate DIR is a FIFO", ["{M}", "cluster", "--aggregate", "{W}/f", "--ref", "{FX}/nodes.ref"],
          [["exit_in", [2, 3]]], prep=[["mkfifo", "{W}/f"]])
    g.add("cluster", "--ref is a FIFO", ["{M}", "cluster", "--aggregate", "{FX}/nodes", "--ref", "{W}/f"],
          [["exit_in", [2]]], prep=[["mkfifo", "{W}/f"]])


# ---- output targets --------------------------------------------------------------

def outputs(g):
    targets = [("a FIFO with no reader", "{W}/fifo", [["mkfifo", "{W}/fifo"]], True),
               ("/dev/full", "/dev/full", [], False),
               ("a directory", "{W}/d", [["mkdir", "{W}/d"]], False),
               ("nowhere/x", "{W}/nowhere/x", [], False),
               ("a path through a file", "{W}/file/x", [["write", "{W}/file", "x"]], False)]
    cmds = [
        ("stream -O", lambda t: ["{BIN}/stream", "-s", "2000", "-n", "2", "-q", "--format", "json", "-O", t]),
        ("mbw --output", lambda t: ["{BIN}/mbw", "-q", "--strict", "-n", "1", "--format", "json", "--output", t, "1"]),
        ("mencal -O", lambda t: ["{BIN}/mencal", "run", "seqread", "--size", "1M", "--reps", "1", "-q",
                                 "--kernel-calibration", "0", "--format", "json", "-O", t]),
        ("mencal env -O", lambda t: ["{BIN}/mencal", "env", "--format", "json", "-O", t]),
        ("mencal sweep --plot", lambda t: ["{BIN}/mencal", "run", "sweep", "--size", "64K", "--threads", "1",
                                           "--kernels", "read", "--reps", "1", "-q", "--plot", t,
                                           "--format", "json", "-O", "{W}/s.json"]),
        ("check --prom", lambda t: ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{FX}/result.json", "--prom", t]),
        ("check --record --ref", lambda t: ["{M}", "check", "--record", "--ref", t, "--result", "{FX}/result.json"]),
        ("report --html --output", lambda t: ["{M}", "report", "--html", "--output", t, "{FX}/run-stream"]),
        ("env --json >", lambda t: ["bash", "-c", "exec \"$0\" env --json > \"$1\"", "{M}", t]),
        ("env >", lambda t: ["bash", "-c", "exec \"$0\" env > \"$1\"", "{M}", t]),
    ]
    for cname, mk in cmds:
        for tlabel, t, prep, fifo in targets:
            exp = [] if fifo else [["exit_in", [1, 2, 3]]]
            if cname.startswith("env "):
                if t != "/dev/full" and not fifo:
                    continue    # the shell, not memsuite, would fail the redirection
                exp = [["exit_in", [3]]] if not fifo else []
            g.add("output", "%s to %s" % (cname, tlabel), mk(t), exp, prep=prep,
                  reader="{W}/fifo" if fifo else None)
    # stdout itself on a full device
    for name, cmd in [("stream", "\"$0\"/stream -s 2000 -n 2"), ("mbw", "\"$0\"/mbw -n 1 1"),
                      ("mencal", "\"$0\"/mencal run seqread --size 1M --reps 1 --kernel-calibration 0 -q"),
                      ("stream --format json", "\"$0\"/stream -s 2000 -n 2 --format json")]:
        g.add("output", "%s with stdout on /dev/full" % name, ["bash", "-c", "exec " + cmd + " >/dev/full", "{BIN}"],
              [["exit_in", [1, 3]]])


# ---- interrupts ------------------------------------------------------------------

def interrupts(g):
    for sig in ("SIGINT", "SIGTERM"):
        g.add("signal", "stream -O x.json stopped by %s mid-run" % sig,
              ["{BIN}/stream", "-s", "8000000", "-n", "250", "-q", "--format", "json", "-O", "{W}/x.json"],
              [["exit_in", [130, 143]], ["no_file", "{W}/x.json"], ["no_temp", "{W}"]], signal=[sig, 1.0])
        g.add("signal", "mencal seqread -O x.json stopped by %s mid-run" % sig,
              ["{BIN}/mencal", "run", "seqread", "--size", "256M", "--reps", "1000", "-q",
               "--kernel-calibration", "0", "--format", "json", "-O", "{W}/x.json"],
              [["exit_in", [1, 130, 143]], ["no_temp", "{W}"]], signal=[sig, 1.5])
    g.add("signal", "mbw --output x.json stopped by SIGINT mid-run",
          ["{BIN}/mbw", "-q", "-n", "100000", "--format", "json", "--output", "{W}/x.json", "64"],
          [["exit_in", [130]], ["json_field", "{W}/x.json", "complete", False], ["no_temp", "{W}"]],
          signal=["SIGINT", 1.0])      # mbw(1): the finished runs are written, marked incomplete
    g.add("signal", "memsuite run stopped by SIGTERM in a cooldown: run.json says interrupted",
          ["{M}", "run", "--bench", "stream", "--sizes", "1M,2M", "--threads", "1", "--reps", "1",
           "--cooldown", "30", "--out", "{W}/r"],
          [["exit_in", [143]], ["json_field", "{W}/r/run.json", "complete", False]],
          env={"MEMSUITE_LLC": "256K"}, signal=["SIGTERM", 3.0])


def self_test():
    """Planted cases, one per outcome, with the outcome the runner must give
    them (--self-test): the classifier is tested before it is trusted."""
    g = Gen()
    sh = lambda script: ["bash", "-c", script, "sweep-self-test"]
    g.add("self", "a command that succeeds", sh("echo fine"), [["exit_in", [0]]], want="OK")
    g.add("self", "a payload that runs", sh("touch {CANARY}"), want="CODE-EXEC")
    g.add("self", "a payload that runs in the case's directory", sh("touch {CANARY_REL}"), want="CODE-EXEC")
    g.add("self", "a command that never ends", sh("sleep 300"), want="HANG")
    g.add("self", "death by SIGSEGV", sh("kill -SEGV $$"), want="CRASH")
    g.add("self", "an undocumented exit status", sh("exit 7"), want="CRASH")
    g.add("self", "a sanitizer report", sh("echo '==1==ERROR: AddressSanitizer: heap-use-after-free' >&2; exit 1"),
          want="CRASH")
    g.add("self", "a raw bash error", sh("echo '/x/lib/report.sh: line 12: [: x: integer expression expected' >&2"),
          want="CRASH")
    g.add("self", "a Python traceback", sh("echo 'Traceback (most recent call last):' >&2; exit 3"), want="CRASH")
    g.add("self", "a wrong exit status", sh("exit 0"), [["exit_in", [2]]], want="WRONG")
    g.add("self", "a damaged cell neither failed nor named", sh("echo all good"),
          [["fails_or_named", "cells/x.json"]], want="WRONG")
    g.add("self", "a damaged cell named", sh("echo 'invalid: cells/x.json: bad'"),
          [["fails_or_named", "cells/x.json"]], want="OK")
    g.add("self", "a raw control character in the output", sh("printf 'a\\033[2Jb\\n'"), ctl=True, want="WRONG")
    g.add("self", "a file that must not be written", sh("echo x >{W}/o.json"), [["no_file", "{W}/o.json"]], want="WRONG")
    g.add("self", "a temporary file left", sh("echo x >{W}/o.json.tmp.1.abc"), [["no_temp", "{W}"]], want="WRONG")
    g.add("self", "raw HTML from the input", sh("echo '<script>alert(1)</script>' >{W}/r.html"),
          [["html_clean", "{W}/r.html"]], want="WRONG")
    g.add("self", "a forged line", sh("echo '  pass  kernel-order  forged'"),
          [["no_line_re", r"^\s*pass\s+kernel-order\s+forged"]], want="WRONG")
    g.add("self", "a node of the wrong status", sh('echo \'{"nodes": [{"node": "n1", "status": "PASS"}]}\''),
          [["json_status", "n1", "FAIL"]], want="WRONG")
    g.add("self", "a stopped command", sh("sleep 5; exit 0"), [["exit_in", [130, 143]]], signal=["SIGTERM", 0.5],
          want="OK")
    g.add("self", "a FIFO read while written", sh("mkfifo {W}/f2 2>/dev/null; echo data >{W}/fifo"),
          [["exit_in", [0]]], prep=[["mkfifo", "{W}/fifo"]], reader="{W}/fifo", want="OK")
    g.add("self", "an analyser exception", sh("echo 'memsuite: report: internal error: ZeroDivisionError' >&2; exit 3"),
          want="INTERNAL")
    g.add("self", "an output written over an input", sh("echo x >{W}/in.json"), prep=[["write", "{W}/in.json", "{}"]],
          inputs=["{W}/in.json"], want="OVERWRITE")
    g.add("self", "an input left as it was", sh("cat {W}/in.json"), prep=[["write", "{W}/in.json", "{}"]],
          inputs=["{W}/in.json"], want="OK")
    g.add("self", "a process left holding stdout after the command ends", sh("sleep 30 & exit 0"),
          eof=True, limit=2, want="HANG")
    g.add("self", "killed by SIGKILL, nothing left on stdout", sh("sleep 30"), eof=True, limit=5,
          signal=["SIGKILL", 0.3], signal_pid=True, want="CRASH")
    g.add("self", "a huge value echoed uncut", sh("printf 'bad value %0200000d\\n' 1 >&2; exit 2"), max_line=4096,
          want="WRONG")
    g.add("self", "a value not named as a message shows it", sh("echo 'bad value' >&2; exit 2"),
          [["named_shown", "\x1b[2J"]], want="WRONG")
    g.add("self", "a value named in caret notation", sh("echo \"bad value '^[[2J'\" >&2; exit 2"),
          [["named_shown", "\x1b[2J"]], want="OK")
    return g.cases


FAMILIES = [tool_options, omp_env, memsuite_options, result_docs, run_dirs, references, cluster, outputs, interrupts]


def generate():
    g = Gen()
    for fam in FAMILIES:
        fam(g)
    return g.cases


if __name__ == "__main__":
    import collections
    cs = generate()
    for fam, n in collections.Counter(c["family"] for c in cs).items():
        print(fam, n)
    print(len(cs))
