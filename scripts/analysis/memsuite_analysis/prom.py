"""Prometheus text exposition format (node_exporter's textfile collector):
gauges, one HELP and TYPE per family, label values escaped as the format
wants (\\\\, \\", \\n).  Formats; never computes a verdict."""

from .render import number_text

VERDICTS = ("PASS", "FAIL", "ERROR")


def esc(s):
    """A label value, escaped."""
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def family(name, help_text):
    return "# HELP %s %s\n# TYPE %s gauge\n" % (name, help_text, name)


def _band(x):
    return "%.3f" % x


# (family, help, the row's value or None when the metric has none)
METRIC_FAMILIES = (
    ("memsuite_check_value", "Measured value of a reference metric (its unit in the unit label).",
     lambda r: None if r["value"] is None else number_text(r["value"])),
    ("memsuite_check_expected", "Expected value of a reference metric.", lambda r: number_text(r["expected"])),
    ("memsuite_check_low", "Lowest passing value of a reference metric.", lambda r: _band(r["low"])),
    ("memsuite_check_high", "Highest passing value of a reference metric (absent when unbounded).",
     lambda r: None if r["high"] is None else _band(r["high"])),
    ("memsuite_check_metric_pass", "1 when the metric was within its tolerance, else 0.",
     lambda r: "1" if r["pass"] else "0"),
)


# The busy evidence of the idle look (idle.sh's facts): (fact, family,
# help).  A fact in % becomes a ratio (0 to 1); a look not taken (no
# number) is left out, never 0.
IDLE_FAMILIES = (
    ("others_cpus", "memsuite_check_busy_other_cpus",
     "CPUs worth of work other processes wanted (running plus waiting for a CPU) over the busy window."),
    ("max_busy_cpus", "memsuite_check_busy_limit_cpus",
     "The busy limit: other processes wanting more CPUs than this make the node busy."),
    ("cpus", "memsuite_check_busy_mask_cpus", "CPUs in the affinity mask of the check."),
    ("window_s", "memsuite_check_busy_window_seconds", "Length of the busy window."),
    ("cpus_busy_pct", "memsuite_check_busy_cpus_busy_ratio",
     "Share of the mask CPUs time spent busy over the window (0 to 1)."),
    ("steal_pct", "memsuite_check_busy_steal_ratio",
     "Share of the mask CPUs time stolen by the hypervisor over the window (0 to 1)."),
    ("cpu_pressure_pct", "memsuite_check_busy_cpu_pressure_ratio",
     "Share of the window some task stalled waiting for a CPU (0 to 1)."),
    ("memory_pressure_pct", "memsuite_check_busy_memory_pressure_ratio",
     "Share of the window some task stalled waiting for memory (0 to 1)."),
    ("mem_available_bytes", "memsuite_check_busy_mem_available_bytes", "MemAvailable when the check looked."),
    ("load1", "memsuite_check_busy_load1", "The 1-minute load average (reported, never the verdict)."),
)


def _gauge(x):
    """A gauge value: whole numbers as integers, others to 6 digits."""
    return "%d" % x if x == int(x) and abs(x) < 1e15 else "%.6g" % x


def idle(host, facts):
    """The busy evidence (facts: {fact: text}) as Prometheus text."""
    import re
    h = 'host="%s"' % esc(host)
    out = []
    for key, name, help_text in IDLE_FAMILIES:
        x = facts.get(key)
        if x is None or not re.fullmatch(r"[0-9]+(\.[0-9]+)?", x):
            continue
        v = float(x) / 100 if key.endswith("_pct") else float(x)
        out.append("%s%s{%s} %s\n" % (family(name, help_text), name, h, _gauge(v)))
    return "".join(out)


def memory(host, m):
    """The node's memory (diagnosis.gauges: m, or None) as gauges: DIMM
    slots populated and in all, channels per socket, EDAC corrected and
    uncorrected errors per controller and DIMM.  What the node could not
    say is left out, never 0."""
    if not isinstance(m, dict):
        return ""
    h = 'host="%s"' % esc(host)
    out = []
    if isinstance(m.get("slots"), int):
        out.append(family("memsuite_memory_dimm_slots", "DIMM slots the firmware lists (SMBIOS type 17)."))
        out.append("memsuite_memory_dimm_slots{%s} %d\n" % (h, m["slots"]))
        out.append(family("memsuite_memory_dimms_populated", "DIMM slots holding a module."))
        out.append("memsuite_memory_dimms_populated{%s} %d\n" % (h, m.get("populated") or 0))
    ch = [c for c in m.get("channels") or [] if isinstance(c.get("channels"), int)]
    if ch:
        out.append(family("memsuite_memory_channels_populated", "Memory channels with a module, per socket."))
        out += ['memsuite_memory_channels_populated{%s,socket="%s"} %d\n' % (h, esc(str(c.get("socket"))), c["channels"])
                for c in ch]
    ed = m.get("edac")
    for key, name, what in (("ce", "memsuite_memory_edac_corrected_errors", "corrected"),
                            ("ue", "memsuite_memory_edac_uncorrected_errors", "uncorrected")):
        rows = [e for e in ed or [] if isinstance(e.get(key), int)]
        if not rows:
            continue
        out.append(family(name, "EDAC %s error count since boot, per memory controller (dimm=\"\") and DIMM."
                          % what))
        for e in rows:
            lab = ',controller="%s",dimm="%s"' % (esc(str(e.get("controller"))), esc("" if e.get("dimm") is None else str(e["dimm"])))
            if e.get("label"):
                lab += ',label="%s"' % esc(str(e["label"]))
            out.append("%s{%s%s} %d\n" % (name, h, lab, e[key]))
    return "".join(out)


def diagnosis(host, ds):
    """One gauge per diagnosis finding: 1, labelled by kind, subject and
    severity (fail, warn, note)."""
    if not ds:
        return ""
    h = 'host="%s"' % esc(host)
    out = [family("memsuite_check_diagnosis", "A finding of the last check's diagnosis (1), by kind, subject and severity.")]
    out += ['memsuite_check_diagnosis{%s,kind="%s",subject="%s",severity="%s"} 1\n'
            % (h, esc(str(d.get("kind"))), esc(str(d.get("subject"))), esc(str(d.get("severity")))) for d in ds]
    return "".join(out)


def check(host, v, busy, duration, now):
    """memsuite check's verdict v (verdict.Verdict) as Prometheus text."""
    h = 'host="%s"' % esc(host)
    out = [family("memsuite_check_verdict",
                  "The verdict of the last memsuite check: 1 for the verdict it gave, 0 for the others.")]
    out += ['memsuite_check_verdict{%s,verdict="%s"} %d\n' % (h, x, x == v.verdict) for x in VERDICTS]
    out.append(family("memsuite_check_pass", "1 when the last memsuite check passed, else 0."))
    out.append("memsuite_check_pass{%s} %d\n" % (h, v.verdict == "PASS"))
    out.append(family("memsuite_check_busy",
                      "1 when the last memsuite check found the node busy and measured nothing."))
    out.append("memsuite_check_busy{%s} %d\n" % (h, 1 if busy == 1 else 0))
    out.append(family("memsuite_check_exit_code",
                      "Exit status of the last memsuite check (0 PASS, 1 FAIL, 2 usage, 3 environment, 5 busy)."))
    out.append("memsuite_check_exit_code{%s} %d\n" % (h, v.exit))
    out.append(family("memsuite_check_timestamp_seconds", "When the last memsuite check finished, Unix time."))
    out.append("memsuite_check_timestamp_seconds{%s} %d\n" % (h, now))
    out.append(family("memsuite_check_duration_seconds", "How long the last memsuite check took."))
    out.append("memsuite_check_duration_seconds{%s} %d\n" % (h, duration))
    if not v.rows:
        return "".join(out)
    for name, help_text, get in METRIC_FAMILIES:
        out.append(family(name, help_text))
        for r in v.rows:
            x = get(r)
            if x is not None:
                out.append("%s{%s} %s\n" % (name, _labels(h, r), x))
    return "".join(out)


def _labels(h, r):
    l = h
    if r.get("numa_node") is not None:
        l += ',numa_node="%s"' % esc(str(r["numa_node"]))
    return l + ',record="%s",metric="%s",unit="%s"' % (esc(r["record"]), esc(r["metric"]), esc(r["unit"]))
