"""memsuite-analyse report: the report of a matrix run directory, computed
once (a Context: the audit of every planned cell, a table per
bench[:scenario], the health checks, the machine, the sustained figures
and the requirements' verdicts) and handed to one renderer (render_text,
render_md, render_html), which formats and never computes.

Figures: a table shows each record's headline metric in the unit the
tool wrote (stream's MB/s, mbw's MiB/s: the tools' compatible units); the
HTML report shows every bandwidth in GB/s (units.display_unit).  Each
figure carries the range of the repetitions it came from (Entry.low,
Entry.high, Entry.spread: "min..max of N repetitions", or why there is
none), never a band of +-1 CV.

Exit (run): 0 the report was made; 1 a cell file is invalid or missing
from a complete run, no cell is valid, or a stated requirement (--peak-gbps,
--requirements) FAILs or cannot be judged; 2 bad input (the directory,
the requirements file); 3 it cannot be read or written.
"""

import sys

from . import exitcodes, health, outfile, requirements, units
from .model import one_line
from .results import RunDir, RunError, is_number


# ---- the parts ------------------------------------------------------------------

class Entry:
    """One valid cell x record: group (bench[:scenario]), bench, size and
    threads (the plan's), record, metric (the headline's name), unit (as
    written), value (None: unavailable), rate_mbps (the value in MB/s when
    a rate), cv (fraction, None below 2 repetitions), n, low and high (the
    repetitions' range in the value's unit, or None) and spread (words:
    what low..high is, or why there is none), cell (id), result, raw
    (the record as written), label."""

    __slots__ = ("group", "bench", "size", "threads", "record", "metric", "unit", "value",
                 "rate_mbps", "cv", "n", "low", "high", "spread", "cell", "result", "raw", "label")


def repetition_range(rec):
    """(low, high, words) of the headline's repetitions, in its unit.
    The metric's own stats.min/max when it has them; for a rate derived
    from times (stream's best rate from the best time, mbw's average from
    the mean time), the rates of the slowest and fastest repetition:
    value x t_ref / t_max .. value x t_ref / t_min."""
    h = rec.head
    if h is None or h.value is None:
        return None, None, "unavailable: no value"
    st = h.stats
    if "min" in st and "max" in st:
        return st["min"], st["max"], "min..max of %s repetitions" % _n(st.get("n"))
    if units.is_rate(h.unit):
        tm = next((m for m in rec.metrics.values() if units.base(m.unit)[0] == "s"
                   and "min" in m.stats and "max" in m.stats and m.stats["min"] > 0), None)
        if tm is not None:
            name = h.name.lower()
            ref = tm.stats["min"] if name.startswith("best") else tm.stats.get("mean") \
                if (name.startswith("avg") or name.startswith("mean")) else None
            if ref:
                return (h.value * ref / tm.stats["max"], h.value * ref / tm.stats["min"],
                        "min..max of %s repetitions (rates from %s's min and max)" % (_n(tm.stats.get("n")), tm.name))
    return None, None, "unavailable: the result has no per-repetition minimum and maximum"


def _n(n):
    return "%d" % n if is_number(n) else "the"


class Group:
    """A table: name (bench[:scenario]), bench, entries (plan order),
    records (names, first seen order), metrics ("best_rate_mbps (MB/s)"
    per distinct headline), rows [(size, threads)] sorted, at[(size,
    threads, record)] -> Entry."""

    def __init__(self, name, bench):
        self.name, self.bench = name, bench
        self.entries, self.records, self.metrics, self.at = [], [], [], {}

    def add(self, e):
        self.entries.append(e)
        if e.record not in self.records:
            self.records.append(e.record)
        m = "%s (%s)" % (e.metric, e.unit)
        if m not in self.metrics:
            self.metrics.append(m)
        self.at[(e.size, e.threads, e.record)] = e

    @property
    def rows(self):
        return sorted({(e.size, e.threads) for e in self.entries})


class Figure:
    """A sustained figure of the summary page: key (requirements' metric
    name), words, value (GB/s or ns, None when not measured), unit, low,
    high, spread, cell (where it came from), threads, size, why (when
    unavailable), note."""

    __slots__ = ("key", "words", "value", "unit", "low", "high", "spread", "cell", "threads",
                 "size", "why", "note", "pct_of_peak", "cv", "others")

    def __init__(self, key, words, unit):
        self.key, self.words, self.unit = key, words, unit
        self.value = self.low = self.high = self.cell = self.threads = self.size = self.cv = None
        self.others = []        # [(size, value)]: the other out-of-cache sizes at these threads
        self.spread = self.note = ""
        self.why = "not measured in this run"
        self.pct_of_peak = None


# The next step for each thing a report can find (Context.next_steps).
NEXT_STEPS = {
    "resume": "finish the run: memsuite run --resume %s (only the missing cells run)",
    "invalid": "rerun the damaged cells: remove the invalid cell files listed above, then memsuite run --resume",
    "fail": "before accepting the FAIL, rerun on the idle machine with more repetitions and the settings "
            "enforced (memsuite run ... --reps 10 --enforce), then memsuite check on the node",
    "noise": "noisy repetitions: rerun with nothing else running (memsuite env lists what runs), "
             "more repetitions (--reps 10) and --enforce",
    "throttle": "the CPUs slowed down during the run: look at cooling and power limits, "
                "rerun with --cooldown 30 and --enforce",
    "peak": "far below the peak: compare the DIMM population with the board's channels (memsuite env, "
            "the DIMMs line) and run memsuite check on the node",
    "scaling": "threads do not add bandwidth: check the binding (--bind spread or close) "
               "and the SMT and NUMA facts in memsuite env",
    "in-cache": "a figure is in cache: add a size at or above 4 x LLC (--sizes 4x)",
    "kernel-order": "the STREAM kernels disagree: rerun idle; if it stays, look at the build "
                    "(memsuite env, the build line) and the counters (stream --counters)",
    "method-order": "the mbw methods disagree: rerun idle; if it stays, compare with the reference mbw "
                    "(memsuite peers)",
}


class Peak:
    """The peak the figures are held against: gbps, source (words)."""

    def __init__(self, gbps, source):
        self.gbps, self.source = gbps, source


class Context:
    """Everything a renderer shows, computed.  Thresholds in percent."""

    def __init__(self, run, shown_dir, tolerance=10.0, efficiency=70.0, cv_max=5.0, peak_min=50.0,
                 peak_gbps=None, reqs_file=None, bw_unit="MB/s"):
        self.run, self.dir, self.bw_unit = run, shown_dir, bw_unit
        self.tolerance, self.efficiency, self.cv_max, self.peak_min = tolerance, efficiency, cv_max, peak_min
        cfg = run.config
        env = run.env if isinstance(run.env, dict) else None
        self.env = env
        llc = cfg.get("llc_bytes") or 0
        if not llc and env:
            llc = env.get("llc_bytes") or 0
        self.llc_bytes = int(llc) if is_number(llc) else 0
        if env is None:
            self.peak_mbps, self.peak_note = None, "no env.json"
        else:
            p = env.get("peak_mbps")
            self.peak_mbps = float(p) if is_number(p) and p > 0 else None
            note = env.get("peak_note", "unknown")
            self.peak_note = one_line(note if isinstance(note, str) else ("unknown" if note is None else note))
        self.audit = audit(run)
        self.groups = groups(run)
        self.findings = health.run_checks(self)
        self.machine = machine(run)
        self.figures = sustained(self)
        # The peak of the summary page: stated (--peak-gbps, the file's
        # peak_gbps), else the DIMM one.
        self.stated = []
        self.signoff = {}
        file_peak = None
        if reqs_file:
            file_peak, self.stated, self.signoff = requirements.load(reqs_file)
        if peak_gbps is not None:
            self.peak = Peak(peak_gbps, "stated: --peak-gbps %s" % units.fmt_number(peak_gbps))
            self.stated.insert(0, requirements.Requirement("stream_triad", "min_pct_of_peak", peak_min,
                                                           "--peak-gbps with --peak-min"))
        elif file_peak is not None:
            self.peak = Peak(file_peak, "stated: peak_gbps in the requirements file %s" % one_line(reqs_file))
        elif self.peak_mbps:
            self.peak = Peak(self.peak_mbps / 1000, "computed from the DIMMs (env.json): %s" % self.peak_note)
        else:
            self.peak = None
        for f in self.figures.values():
            if self.peak and f.value is not None and f.unit == "GB/s":
                f.pct_of_peak = f.value / self.peak.gbps * 100
        self.judgements = requirements.judge(self.stated, self.figures, self.peak)
        self.verdict = requirements.overall(self.judgements)

    @property
    def caveats(self):
        """What a reader of the summary page must know before trusting it."""
        out = []
        if self.run.config.get("quick"):
            out.append("a quick (smoke) run: short, not for acceptance")
        if not self.run.complete:
            st = self.run.run.get("status")
            out.append("the run is incomplete (%s)" % (st if isinstance(st, str) else "no status"))
        if self.problems:
            out.append("%d cell file(s) invalid or missing (listed under the run)" % len(self.problems))
        if self.tool_args:
            out.append("tuned: the tools ran with extra arguments (%s)" % self.tool_args)
        if self.llc_bytes <= 0:
            out.append("the LLC size is unknown: no figure can be told to be out of cache")
        return out

    @property
    def quality(self):
        """(word, [reasons], enforcement words): "NOISY" when a health
        check warns or a sustained figure's repetitions spread past
        --cv-max, else "clean"; and whether the governor, SMT and THP
        were set for the run (memsuite run --enforce) or as found."""
        reasons = []
        n = health.counts(self.findings)
        if n.get("warn"):
            reasons.append("%d health warning(s), listed under Health" % n["warn"])
        for f in self.figures.values():
            if f.value is not None and f.cv is not None and f.cv * 100 > self.cv_max:
                reasons.append("%s: the repetitions' CV is %.1f%% > %.1f%%" % (f.words, f.cv * 100, self.cv_max))
        enf = self.run.config.get("enforce")
        how = ("settings enforced for the run: %s" % one_line(enf) if isinstance(enf, str) and enf
               else "settings as found: the governor, SMT and THP were not enforced (memsuite run --enforce)")
        return ("NOISY" if reasons else "clean"), reasons, how

    @property
    def next_steps(self):
        """What to do next, one line each, from what the report found: a
        FAILed requirement, each kind of health warning, damaged or
        missing cells, an incomplete run.  Empty when nothing calls for
        a step (NEXT_STEPS holds the words)."""
        warned = {f.check for f in self.findings if f.verdict == "warn"}
        out = []
        if not self.run.complete or self.count("missing") or self.count("notrun"):
            out.append(NEXT_STEPS["resume"] % self.dir)
        if self.count("invalid"):
            out.append(NEXT_STEPS["invalid"])
        if self.verdict == "FAIL":
            out.append(NEXT_STEPS["fail"])
        for check in ("noise", "throttle", "peak", "scaling", "in-cache", "kernel-order", "method-order"):
            if check in warned:
                out.append(NEXT_STEPS[check])
        return out

    def in_cache(self, size):
        return self.llc_bytes > 0 and size < 4 * self.llc_bytes

    # ---- counts and words the renderers share ----
    def count(self, state):
        return sum(1 for a in self.audit if a[1] == state)

    @property
    def counts_text(self):
        t = "%d/%d cells valid" % (self.count("valid"), len(self.audit))
        for st, w in (("invalid", "invalid"), ("missing", "missing"), ("notrun", "not run")):
            if self.count(st):
                t += ", %d %s" % (self.count(st), w)
        return t

    @property
    def problems(self):
        """'invalid: DIR/cells/ID.json: why' for each damaged or missing cell."""
        return ["%s: %s/cells/%s.json: %s" % (st, self.dir, cid, why)
                for cid, st, why in self.audit if st in ("invalid", "missing")]

    @property
    def tool_args(self):
        ta = self.run.config.get("tool_args")
        if not isinstance(ta, dict):
            return ""
        return "; ".join(sorted("%s: %s" % (k, " ".join(x if isinstance(x, str) else one_line(x) for x in v))
                                for k, v in ta.items() if isinstance(v, list)))

    @property
    def env_warnings(self):
        if not self.env:
            return ""
        facts = self.env.get("facts") or []
        return ", ".join("%s=%s" % (one_line(f.get("key")), one_line(f.get("value")))
                         for f in facts if isinstance(f, dict) and f.get("verdict") == "warn")

    @property
    def status(self):
        """1 when the figures are not all there or a stated requirement
        failed; else 0."""
        bad = self.count("invalid") or self.count("missing") or not self.count("valid")
        return exitcodes.FAIL if bad or self.verdict == "FAIL" else exitcodes.OK


# ---- computing them -----------------------------------------------------------------

def audit_why(res):
    """The audit's words for a cell file that stands for no measurement."""
    if res.state == "incomplete":
        return "the result says it is incomplete"
    why = res.why
    shown = one_line(res.path)
    if why.startswith("cannot read " + shown):
        return "cannot read it" + why[len("cannot read " + shown):]
    if why.startswith(shown + " "):
        return why[len(shown) + 1:]
    return why


def audit(run):
    """(id, state, why) per planned cell: valid, invalid, missing (absent
    from a complete run), notrun (absent from an incomplete one)."""
    out = []
    for c in run.cells:
        if c.result is None:
            if run.complete:
                out.append((c.id, "missing", "the run is complete (run.json), so the file was removed after it ran"))
            else:
                out.append((c.id, "notrun", ""))
        elif c.result.ok:
            out.append((c.id, "valid", ""))
        else:
            out.append((c.id, "invalid", audit_why(c.result)))
    return out


def groups(run):
    """The tables, in the order their first cell appears in the plan."""
    out = {}
    for c in run.cells:
        if c.result is None or not c.result.ok:
            continue
        g = out.get(c.group)
        if g is None:
            g = out[c.group] = Group(c.group, c.bench)
        for rec in c.result.records:
            h = rec.head
            if h is None:
                continue
            e = Entry()
            e.group, e.bench, e.size, e.threads, e.cell = c.group, c.bench, c.size_bytes, c.threads, c.id
            e.record, e.metric, e.unit, e.value = rec.name, rec.headline, h.unit, h.value
            e.rate_mbps = units.convert(h.value, h.unit, "MB/s") if h.value is not None and units.is_rate(h.unit) else None
            e.n, e.cv = rec.repetitions()
            e.low, e.high, e.spread = repetition_range(rec)
            e.result, e.raw, e.label = c.result, rec.raw, c.result.label
            g.add(e)
    return list(out.values())


# (label, sysinfo key, env.json fact key)
MACHINE_FACTS = (
    ("host", "hostname", "host"),
    ("CPU model", "cpu_model", None),
    ("sockets", "sockets", None),
    ("physical cores", "cores", None),
    ("hardware threads (CPUs online)", "cpus_online", "cpus"),
    ("SMT", "smt", "smt"),
    ("memory", "mem_total_bytes", None),
    ("DIMMs", "dimms", "dimms"),
    ("NUMA nodes", "numa_nodes", "numa"),
    ("kernel", "kernel", "kernel"),
    ("firmware", "firmware", "firmware"),
    ("virtualization", "virtualization", "virtualization"),
    ("DAMON", "damon", "damon"),
)


def machine(run):
    """[(label, value or None, why when None, source)] from the first valid
    cell's sysinfo, else env.json's facts."""
    si, src = {}, ""
    for c in run.cells:
        if c.result is not None and c.result.ok and isinstance(c.result.get("sysinfo"), dict) \
                and c.result.get("sysinfo"):
            si, src = c.result.get("sysinfo"), "cell %s sysinfo" % c.id
            break
    facts = {}
    if isinstance(run.env, dict):
        for f in run.env.get("facts") or []:
            if isinstance(f, dict) and isinstance(f.get("key"), str):
                facts[f["key"]] = f
    out = []
    for label, key, fact in MACHINE_FACTS:
        v = si.get(key)
        if v is not None and v != "" and not isinstance(v, (dict, list)):
            if key == "mem_total_bytes" and is_number(v):
                v = "%s (%d bytes)" % (units.human_bytes(v), v)
            out.append((label, one_line(v) if not isinstance(v, str) else v, "", src))
            continue
        f = facts.get(fact) if fact else None
        if f is not None and f.get("value") not in (None, ""):
            out.append((label, one_line(f.get("value")) if not isinstance(f.get("value"), str) else f["value"],
                        "", "env.json fact %s" % fact))
            continue
        why = si.get(key + "_unavailable") if si else None
        if not isinstance(why, str) or not why:
            why = (f.get("why") if f is not None and isinstance(f.get("why"), str) and f.get("why") else
                   "not recorded by this run")
        out.append((label, None, why, ""))
    return out


def _pick(ctx, group, record, prefer):
    """The entry of group/record that stands for the machine's figure:
    out of cache, most threads; prefer 'rule' (the smallest size at or
    above 4 x LLC) or 'one-thread' (one thread, the largest size)."""
    g = next((x for x in ctx.groups if x.name == group), None)
    if g is None:
        return None, "no %s cell in this run" % group
    es = [e for e in g.entries if (record is None or e.record == record) and e.value is not None]
    if not es:
        return None, "no measured %s figure in this run" % group
    mem = [e for e in es if not ctx.in_cache(e.size)]
    if not mem:
        return None, "every %s size is in cache (below 4 x LLC): no memory figure" % group
    if prefer == "one-thread":
        t = min(e.threads for e in mem)
        cand = [e for e in mem if e.threads == t]
        return max(cand, key=lambda e: e.size), ""
    t = max(e.threads for e in mem)
    cand = [e for e in mem if e.threads == t]
    return min(cand, key=lambda e: e.size), ""


def _others(ctx, group, record, chosen):
    """The measured out-of-cache entries of group/record at chosen's
    thread count but for chosen, by size."""
    g = next((x for x in ctx.groups if x.name == group), None)
    return sorted((e for e in g.entries if (record is None or e.record == record) and e.value is not None
                   and not ctx.in_cache(e.size) and e.threads == chosen.threads and e.size != chosen.size),
                  key=lambda e: e.size)


SUSTAINED = (
    # key            words                                     group            record   unit    prefer
    ("stream_triad", "STREAM Triad (the 4 x LLC rule's size, all threads)", "stream", "Triad", "GB/s", "rule"),
    ("seqread", "sequential read (mencal seqread, all threads)", "mencal:seqread", None, "GB/s", "rule"),
    ("idle_latency", "idle latency (mencal randread, one thread)", "mencal:randread", None, "ns", "one-thread"),
)


def sustained(ctx):
    """{key: Figure} of SUSTAINED, in the display unit."""
    cores = next((v for label, v, _, _ in ctx.machine if label == "physical cores"), None)
    cores = int(cores) if isinstance(cores, str) and cores.isdigit() else None
    out = {}
    for key, words, group, record, unit, prefer in SUSTAINED:
        f = Figure(key, words, unit)
        e, why = _pick(ctx, group, record, prefer)
        if e is None:
            f.why = why
        else:
            rec = e.result.record(e.record)
            head = rec.head if rec is not None else None
            if unit == "ns":
                conv = (lambda x: None if x is None else units.convert(x * head.scale, units.base(head.unit)[0], "ns")) \
                    if head is not None and units.base(head.unit)[0] == "s" else None
            else:
                conv = (lambda x: None if x is None else units.convert(x * head.scale, "B/s", "GB/s")) \
                    if head is not None and units.is_rate(head.unit) else None
            if conv is None:
                f.why = "cell %s reports %s in %s, not a %s" % (e.cell, e.metric, e.unit or "no unit",
                                                               "time" if unit == "ns" else "bandwidth")
            else:
                f.value, f.low, f.high = conv(e.value), conv(e.low), conv(e.high)
                f.spread, f.cell, f.threads, f.size, f.why = e.spread, e.cell, e.threads, e.size, ""
                f.cv = e.cv
                notes = []
                if prefer == "rule" and is_number(cores) and e.threads < cores:
                    notes.append("%d threads; the machine has %d physical cores" % (e.threads, cores))
                # the rule picks one cell; the reader sees what the others gave
                f.others = [(o.size, conv(o.value)) for o in _others(ctx, group, record, e)]
                if f.others:
                    notes.append("the rule's cell; at %d thread%s the other sizes out of cache gave %s" % (
                        e.threads, "" if e.threads == 1 else "s",
                        ", ".join("%s %s" % (units.fmt_number(v), unit) + " (%s)" % units.human_bytes(z, True)
                                  for z, v in f.others if v is not None)))
                f.note = "; ".join(notes)
        out[key] = f
    return out


# ---- the command ----------------------------------------------------------------------

SUMMARY = "the report of a results directory (text, Markdown or HTML)"

FORMATS = ("text", "markdown", "html")


def add_arguments(p):
    p.add_argument("--format", choices=FORMATS, default="text")
    p.add_argument("--plots", default=None, metavar="DIR",
                   help="also draw the plots into DIR (text/Markdown list them)")
    p.add_argument("--tolerance", type=float, default=10.0)
    p.add_argument("--efficiency", type=float, default=70.0)
    p.add_argument("--cv-max", type=float, default=5.0)
    p.add_argument("--peak-min", type=float, default=50.0)
    p.add_argument("--peak-gbps", type=float, default=None)
    p.add_argument("--requirements", default=None, metavar="FILE")
    p.add_argument("--version-text", default="", help="memsuite's version, for the HTML footer")
    p.add_argument("--prefix", default="memsuite-analyse: report", help="the prefix of messages")
    p.add_argument("dir")


def draw_plots(run, outdir):
    """(plots [(path, title, caption)], note): plots.draw_run when the
    plots module is there, else none and why."""
    try:
        from . import plots
    except ImportError as e:
        return [], "plots unavailable: the analyser's plots module is not installed (%s)" % one_line(str(e))
    notes = []
    try:
        drawn = plots.draw_run(run, outdir, notes.append)
    except Exception as e:      # a plot must not cost the report
        return [], "plots unavailable: drawing failed (%s: %s)" % (type(e).__name__, one_line(str(e)))
    if not drawn:
        return [], one_line(notes[0]) if notes else \
            "no plot: a plot needs 2 or more thread counts or sizes of one benchmark"
    return list(drawn), ""


def plots_warn(note):
    return note.startswith("plots unavailable:") and "plots module is not installed" not in note


def messages(ctx, prefix):
    """The lines for standard error after the report (the verdict)."""
    out = []
    d = ctx.dir
    if ctx.count("invalid"):
        out.append("%d invalid cell file(s) in %s (listed at the top); their figures are left out" % (ctx.count("invalid"), d))
    if ctx.count("missing"):
        out.append("%d cell file(s) missing from the complete run %s (listed at the top); their figures are absent"
                   % (ctx.count("missing"), d))
    if not ctx.count("valid"):
        out.append("no valid cell in %s: nothing was measured" % d)
    if ctx.verdict == "FAIL":
        failed = [j for j in ctx.judgements if j.verdict != "PASS"]
        out.append("%d stated requirement(s) not met (verdict FAIL): %s" % (
            len(failed), "; ".join("%s %s %g %s" % (j.req.metric, j.req.op, j.req.limit, j.req.unit)
                                   for j in failed)))
    return ["%s: %s" % (prefix, m) for m in out]


def run(args):
    from . import render_html, render_md, render_text
    from .render import printable, printable_text
    for name in ("tolerance", "efficiency", "cv_max", "peak_min"):
        v = getattr(args, name)
        if not (v == v and 0 <= v < 1e6):
            sys.stderr.write("%s: --%s: %s is not a percentage\n" % (args.prefix, name.replace("_", "-"), v))
            return exitcodes.USAGE
    if args.peak_gbps is not None and not (0 < args.peak_gbps < 1e9):
        sys.stderr.write("%s: --peak-gbps: %g is not a bandwidth in GB/s above 0 (and below 1e9)\n"
                         % (args.prefix, args.peak_gbps))
        return exitcodes.USAGE
    try:
        rd = RunDir(args.dir)
        ctx = Context(rd, args.dir.rstrip("/") or args.dir, args.tolerance, args.efficiency, args.cv_max,
                      args.peak_min, args.peak_gbps, args.requirements,
                      "GB/s" if args.format == "html" else "MB/s")
    except RunError as e:
        sys.stderr.write("%s: %s\n" % (args.prefix, e))
        return e.code
    except requirements.Invalid as e:
        sys.stderr.write("%s: %s\n" % (args.prefix, e))
        return exitcodes.USAGE
    plots, note = [], ""
    if args.plots:
        try:   # a file or FIFO where the charts go is the environment's (exit 3), named
            outfile.make_dir(args.plots)
        except outfile.OutError as e:
            sys.stderr.write("%s: --plots: cannot draw the charts into %s\n" % (args.prefix, printable(e.strerror)))
            return e.code
        plots, note = draw_plots(rd, args.plots)
        # said on stderr too when the module is there and could not draw
        # (matplotlib missing); a tree without the module says it in the
        # document only
        if plots_warn(note) and args.format == "html":
            sys.stderr.write("%s: %s; the HTML report has no plots\n" % (args.prefix, note))
    renderer = {"text": render_text, "markdown": render_md, "html": render_html}[args.format]
    text = renderer.render(ctx, plots=plots, plots_note=note, plots_asked=bool(args.plots),
                           version=args.version_text)
    # text and Markdown: printable line by line already; HTML escapes
    # its own way, then line by line
    sys.stdout.write(printable_text(text) if args.format == "html" else text)
    sys.stdout.flush()
    for m in messages(ctx, args.prefix):
        sys.stderr.write(printable(m) + "\n")
    return ctx.status
