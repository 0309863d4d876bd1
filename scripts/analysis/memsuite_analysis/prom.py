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
