"""The hostile sweep's families with fresh values: every run draws new ones.

cases.py's lists are fixed (the same checkout, the same cases); the
families here are the defect classes of the fourth hardening sweep, each
with values drawn anew on each run (random numbers >= 2^53, huge range
products, FIFOs and sparse files at random places of a fixture tree,
control characters, lone surrogates and 1 MB strings planted in random
result cells, random signal times, ...), so that a rerun tries what the
last one did not.  A case's id and description name its shape, never its
value (--list is the same on every run); -v shows the value a run drew.

Case fields are cases.py's, plus:
  inputs   paths whose content must be the same after the command
           (an output written over an input is OVERWRITE)
  limit    the hang guard of this case in seconds (HANG past it)
  eof      True: stdout is a pipe read to EOF; a process still holding it
           past the limit after the command ended is a HANG
  signal_pid  True: the signal goes to the command's own process only (as
           the OOM killer's SIGKILL), not to its process group
  max_line a message defect when an output line is longer (a huge value
           echoed uncut)

{R} is a copy of the real run directory (stream and mbw, built once by
sweep.py) made in the case's directory; {C} its stream cell.
"""

import random

RNG = random.SystemRandom()
ESCAPES = ["\x1b[2J", "\x1b]0;pwned\x07", "\x1b", "\x07\x08", "\x7f", "\x1b[31m", "\r\x1b[K"]
BIG_MIN = 1 << 53


def big():
    """A whole number >= 2^53 of 16 to 40 digits."""
    return str(RNG.randrange(BIG_MIN, 10 ** RNG.randint(16, 40)))


def esc():
    return "".join(RNG.choice(ESCAPES) for _ in range(RNG.randint(1, 3)))


def huge_text(n=None):
    """n bytes of one letter; as an argument 100 KB to 128 KB (Linux takes
    at most 128 KiB in one argument)."""
    n = n or RNG.randint(100_000, 131_000)
    return RNG.choice("xyzq7") * n


def copy_run():
    return [["copytree", "{FX}/run-stream", "{W}/R"]]


CELL = "{W}/R/cells/stream-s262144-t1.json"
STRINGS = [
    ("a lone surrogate", lambda: "T\ud800" + str(RNG.randint(0, 99))),
    ("a newline forging a PASS line", lambda: "T\nmemsuite: PASS 9/9 forged %d" % RNG.randint(0, 999)),
    ("an escape sequence", lambda: "T" + esc()),
    ("a 1 MB string", lambda: huge_text(RNG.randint(1 << 20, (1 << 20) + 4096))),
]
CELL_PLACES = ["records.%d.name" % i for i in range(4)] + ["tool", "label", "sysinfo.cpu_model",
                                                          "sysinfo.hostname", "command"]


def node_lists(g):
    agg = ["{M}", "cluster", "--aggregate", "{FX}/nodes", "--ref", "{FX}/nodes.ref"]
    for i in range(40):
        how = RNG.choice(["n[%s]" % big(), "n[%s-%s]" % (big(), big()), "n[0,%s]" % big(),
                          "n%s" % big()])
        g.add("nodelist", "a bracket number >= 2^53 in --nodes", agg + ["--nodes", how],
              [["exit_in", [0, 1, 2]]], limit=8)
        g.add("nodelist", "a bracket number >= 2^53 in SLURM_JOB_NODELIST", agg,
              [["exit_in", [0, 1, 2]]], env={"SLURM_JOB_NODELIST": how}, limit=8)
    for i in range(40):
        a, b = RNG.randint(1001, 999999), RNG.randint(1001, 999999)
        parts = RNG.randint(2, 4)
        nl = "".join("%s[0-%d]" % (chr(97 + k), RNG.choice([a, b])) for k in range(parts))
        g.add("nodelist", "ranges whose product passes the expansion limit", agg + ["--nodes", nl],
              [["exit_in", [2]]], limit=8)


FACT_FILES = [("sys", "kernel/mm/transparent_hugepage/enabled"), ("sys", "kernel/mm/transparent_hugepage/defrag"),
              ("proc", "meminfo"), ("proc", "cpuinfo"), ("proc", "loadavg"), ("proc", "stat"),
              ("sys", "devices/system/node/node0/meminfo"), ("sys", "devices/system/node/node0/cpulist"),
              ("sys", "devices/system/cpu/cpu0/cache/index3/size")]
FACT_TOOLS = [
    ("stream", ["{BIN}/stream", "-s", "2000", "-n", "2", "-q"]),
    ("mbw", ["{BIN}/mbw", "-q", "-n", "1", "-t0", "1"]),
    ("mencal", ["{BIN}/mencal", "run", "seqread", "--size", "1M", "--reps", "1", "-t", "1", "-q",
                "--kernel-calibration", "0"]),
    ("memsuite-facts", ["{BIN}/memsuite-facts"]),
    ("memsuite-size", ["{BIN}/memsuite-size", "--llc"]),
    ("memsuite env", ["{M}", "env"]),
]


def fact_trees(g):
    for _ in range(45):
        for tname, cmd in FACT_TOOLS:
            picks = RNG.sample(FACT_FILES, RNG.randint(1, 3))
            prep = [["copytree", "{REPO}/tests/fixtures/memsuite-host", "{W}/t"]]
            for root, rel in picks:
                f = "{W}/t/%s/%s" % (root, rel)
                prep.append(["rm_f", f])
                prep.append(["mkfifo", f] if RNG.random() < 0.5 else ["sparse", f, RNG.choice([1, 2, 4]) << 30])
            g.add("facttree", "%s over a fixture tree with FIFOs and sparse GiB files" % tname, cmd,
                  [["exit_in", [0, 1]]], prep=prep,
                  env={"MEMSUITE_SYSFS": "{W}/t/sys", "MEMSUITE_PROCFS": "{W}/t/proc", "MEMSUITE_LLC": "256K"},
                  limit=8)


def output_targets(g):
    tgt = "{W}/out"
    outs = [
        ("stream -O", ["{BIN}/stream", "-s", "2000", "-n", "2", "-q", "--format", "json", "-O", tgt]),
        ("mbw --output", ["{BIN}/mbw", "-q", "-n", "1", "--format", "json", "--output", tgt, "1"]),
        ("mencal -O", ["{BIN}/mencal", "run", "seqread", "--size", "1M", "--reps", "1", "-q",
                       "--kernel-calibration", "0", "--format", "json", "-O", tgt]),
        ("check --prom", ["{M}", "check", "--ref", "{FX}/ref.json", "--result", "{FX}/result.json", "--prom", tgt]),
        ("check --record --ref", ["{M}", "check", "--record", "--ref", tgt, "--result", "{FX}/result.json"]),
        ("report --html --output", ["{M}", "report", "--html", "--output", tgt, "{FX}/run-stream"]),
    ]
    for _ in range(3):
        for name, cmd in outs:
            kind = RNG.choice(["fifo", "sparse"])
            prep = [["mkfifo", tgt]] if kind == "fifo" else [["sparse", tgt, 1 << 30]]
            g.add("outtarget", "%s to a FIFO without a reader or a sparse GiB file" % name, cmd,
                  [["exit_in", [0, 1, 2, 3]]], prep=prep, limit=6)
    g.add("outtarget", "report --html R with R/report.html a FIFO", ["{M}", "report", "--html", "{W}/R"],
          [["exit_in", [2, 3]]], prep=copy_run() + [["mkfifo", "{W}/R/report.html"]], limit=6)
    g.add("outtarget", "report --plots R with R/plots a FIFO", ["{M}", "report", "--plots", "{W}/R"],
          [["exit_in", [3]]], prep=copy_run() + [["mkfifo", "{W}/R/plots"]], limit=10)
    for name, cmd in [("report --html --output /dev/stdout", ["{M}", "report", "--html", "--output", "/dev/stdout", "{FX}/run-stream"]),
                      ("check --prom /dev/stdout", ["{M}", "check", "--ref", "{FX}/ref.json", "--result",
                                                    "{FX}/result.json", "--prom", "/dev/stdout"]),
                      ("stream -O /dev/stdout", ["{BIN}/stream", "-s", "2000", "-n", "2", "-q", "--format", "json",
                                                 "-O", "/dev/stdout"])]:
        g.add("closedout", "%s with stdout closed" % name,
              ["bash", "-c", 'exec "$@" >&-', "x"] + cmd, [["exit_in", [3]]], limit=10)


def planted_strings(g):
    cmds = [("report", ["{M}", "report", "{W}/R"]), ("report --html", ["{M}", "report", "--html", "{W}/R"]),
            ("compare", ["{M}", "compare", "{FX}/run-stream", "{W}/R"]),
            ("check --result", ["{M}", "check", "--ref", "{FX}/ref.json", "--result", CELL])]
    for _ in range(6):
        for sname, mk in STRINGS:
            for cname, cmd in cmds:
                place = RNG.choice(CELL_PLACES)
                g.add("cellstring", "%s planted in a cell, then %s" % (sname, cname), cmd,
                      [["exit_in", [0, 1, 2]], ["no_line_re", r"^memsuite: PASS 9/9 forged"]],
                      prep=copy_run() + [["json_edit", CELL, place, mk(), False]], ctl=True,
                      max_line=4096, limit=15, inputs=[CELL])
    for _ in range(8):
        for sname, mk in STRINGS:
            g.add("refstring", "%s planted in a reference, then check" % sname,
                  ["{M}", "check", "--ref", "{W}/ref.json", "--result", "{FX}/result.json"],
                  [["exit_in", [0, 1, 2, 3]]],
                  prep=[["copy", "{FX}/ref.json", "{W}/ref.json"],
                        ["json_edit", "{W}/ref.json", RNG.choice(["made_with.env.cpu_model", "run.bench", "id"]),
                         mk(), False]], ctl=True, max_line=4096, limit=15)
    for _ in range(8):
        for sname, mk in STRINGS:
            g.add("nodestring", "%s planted in one node report, then aggregate" % sname,
                  ["{M}", "cluster", "--aggregate", "{W}/nodes", "--ref", "{FX}/nodes.ref"],
                  [["exit_in", [0, 1]]],
                  prep=[["copytree", "{FX}/nodes", "{W}/nodes"],
                        ["json_edit_one", "{W}/nodes", RNG.choice(["node", "host", "verdict", "ref.id"]), mk()]],
                  ctl=True, max_line=4096, limit=15)


def malformed_stats(g):
    bad = [0, -0.0, -1, "x", None, True, [], {}, 1e308, float("nan")]
    for _ in range(30):
        r = RNG.randrange(4)
        place = RNG.choice(["records.%d.metrics.min_time_s.stats.max" % r, "records.%d.metrics.min_time_s.stats.min" % r,
                            "records.%d.metrics.best_rate_mbps.value" % r, "records", "records.%d.metrics" % r,
                            "records.%d.metrics.min_time_s.stats" % r])
        v = RNG.choice(bad)
        for cname, cmd in [("report", ["{M}", "report", "{W}/R"]), ("compare", ["{M}", "compare", "{FX}/run-stream", "{W}/R"]),
                           ("report --html", ["{M}", "report", "--html", "{W}/R"])]:
            g.add("stats", "a malformed statistic in a cell, then %s" % cname, cmd, [["exit_in", [0, 1]]],
                  prep=copy_run() + [["json_edit", CELL, place, v, False]], limit=15, inputs=[CELL])
    for _ in range(15):
        r = RNG.randrange(4)
        unit = RNG.choice(["GB/s", "KB/s", "B/s", "GiB/s", "MB/s\x1b"])
        # --force: the fixture reference was made with other settings (that
        # refusal, exit 2, would come first for a unit that still reads)
        g.add("unitscale", "a unit that disagrees with its scale, then check",
              ["{M}", "check", "--force", "--ref", "{FX}/ref.json", "--result", CELL], [["exit_in", [1]]],
              prep=copy_run() + [["json_edit", CELL, "records.%d.metrics.best_rate_mbps.unit" % r, unit, False]],
              limit=15, inputs=[CELL])


def outputs_over_inputs(g):
    for _ in range(10):
        for name, cmd in [("report --html --output CELL", ["{M}", "report", "--html", "--output", CELL, "{W}/R"]),
                          ("check --record --ref CELL --result CELL", ["{M}", "check", "--record", "--ref", CELL, "--result", CELL]),
                          ("check --result CELL --prom CELL", ["{M}", "check", "--ref", "{FX}/ref.json", "--result", CELL,
                                                               "--prom", CELL])]:
            g.add("overinput", "an output naming an input: %s" % name, cmd, [["exit_in", [2]]],
                  prep=copy_run(), limit=15, inputs=[CELL])


def run_dir_damage(g):
    for _ in range(12):
        dmg = RNG.choice([["write", "{W}/R/plan.tsv", ""],
                          ["write", "{W}/R/plan.tsv", "#id\tbench\tscenario\tsize_bytes\tthreads\treps\n"],
                          ["sub", "{W}/R/plan.tsv", "\t1\t", "\t0\t"],
                          ["sub", "{W}/R/plan.tsv", "\t1\t2", "\t%s\t2" % big()],
                          ["truncate", "{W}/R/run.json", RNG.randint(1, 200)],
                          ["json_edit", "{W}/R/run.json", "config.tool_args", RNG.choice(["-x", 5, {"stream": "-q"}]), False]])
        for name, cmd in [("report --plots", ["{M}", "report", "--plots", "{W}/R"]), ("report", ["{M}", "report", "{W}/R"]),
                          ("run --resume --dry-run", ["{M}", "run", "--resume", "{W}/R", "--dry-run"])]:
            g.add("plandamage", "plan.tsv or run.json damaged, then %s" % name, cmd, [["exit_in", [1, 2, 3]]],
                  prep=copy_run() + [dmg], limit=20)
    for _ in range(20):
        n = RNG.randint(1025, 1 << 20)
        g.add("threads", "memsuite run --dry-run with more threads than the tools allow",
              ["{M}", "run", "--dry-run", "--bench", "stream", "--threads", str(n), "--out", "{W}/o"],
              [["exit_in", [2]]], limit=15)


def messages(g):
    for _ in range(60):
        opt = RNG.choice(["-n", "-b", "-t"])
        v = RNG.choice(["-" + big(), big(), "x" + str(RNG.randint(0, 9)), "-%d" % RNG.randint(1, 99), esc() + "1"])
        g.add("mbwstrict", "mbw --strict with a refused -n, -b or -t: the value named",
              ["{BIN}/mbw", "--strict", "-q", opt, v, "16"], [["exit_in", [2]], ["named_shown", v]], ctl=True)
        s = RNG.choice(["-" + big(), "0", esc(), "x%d" % RNG.randint(0, 99)])
        g.add("mbwstrict", "mbw --strict with a refused size: the value named",
              ["{BIN}/mbw", "--strict", "-q", "-n", "1", "--", s], [["exit_in", [2]], ["named_shown", s]], ctl=True)
    huge_cmds = [
        ("mencal run SCENARIO", lambda h: ["{BIN}/mencal", "run", h]),
        ("stream --array-size", lambda h: ["{BIN}/stream", "-q", "--array-size", h]),
        ("stream --kernels", lambda h: ["{BIN}/stream", "-q", "--kernels", h]),
        ("mencal --size", lambda h: ["{BIN}/mencal", "run", "seqread", "--size", h]),
        ("mbw --strict size", lambda h: ["{BIN}/mbw", "--strict", "-q", h]),
        ("memsuite CMD", lambda h: ["{M}", h]),
        ("memsuite run --bench", lambda h: ["{M}", "run", "--dry-run", "--bench", h]),
        ("memsuite run --bind", lambda h: ["{M}", "run", "--dry-run", "--bind", h]),
        ("memsuite run --sizes", lambda h: ["{M}", "run", "--dry-run", "--sizes", h]),
    ]
    for _ in range(25):
        for name, mk in huge_cmds:
            g.add("hugearg", "a 100 KB argument to %s: cut in the message" % name, mk(huge_text()),
                  [["exit_in", [1, 2]]], max_line=4096)
    esc_cmds = [
        ("stream ARG", lambda e: ["{BIN}/stream", e]),
        ("stream --kernels", lambda e: ["{BIN}/stream", "-q", "--kernels", "copy," + e]),
        ("mencal run SCENARIO", lambda e: ["{BIN}/mencal", "run", "seq" + e]),
        ("mbw size", lambda e: ["{BIN}/mbw", "--strict", "-q", "1" + e]),
        ("memsuite run --sizes", lambda e: ["{M}", "run", "--dry-run", "--sizes", "1" + e]),
        ("memsuite CMD", lambda e: ["{M}", "x" + e]),
    ]
    for _ in range(40):
        for name, mk in esc_cmds:
            g.add("escape", "control characters in an argument to %s: caret notation" % name, mk(esc()),
                  [["exit_in", [1, 2]]], ctl=True)
    for _ in range(15):
        g.add("escape", "GLIBC_TUNABLES with control characters: mencal's warning in caret notation",
              ["{BIN}/mencal", "run", "seqread", "--size", "1M", "--reps", "1", "-t", "1", "-q",
               "--kernel-calibration", "0", "--dry-run"], [["exit_in", [0, 1, 2]]],
              env={"GLIBC_TUNABLES": "glibc.x" + esc() + "=1"}, ctl=True)


def signals(g):
    run = ["{M}", "run", "--bench", "stream", "--sizes", "1M,2M", "--threads", "1,2", "--reps", "2",
           "--cooldown", "0", "--out", "{W}/o"]
    for _ in range(6):
        g.add("killrun", "memsuite run killed by SIGKILL at a random point, stdout read to EOF", run,
              [["exit_in", [0, 137]]], env={"MEMSUITE_LLC": "256K"}, signal=["SIGKILL", round(RNG.uniform(0.3, 2.5), 2)],
              signal_pid=True, eof=True, limit=20)
    for sig in ("SIGINT", "SIGTERM"):
        for _ in range(5):
            g.add("stopcheck", "memsuite check stopped by %s at a random point" % sig,
                  ["{M}", "check", "--ref", "{FX}/ref.json", "--ignore-load", "--prom", "{W}/p"],
                  [["exit_in", [130, 143]]], env={"MEMSUITE_LLC": "256K"},
                  signal=[sig, round(RNG.uniform(0.05, 0.6), 2)], limit=20, eof=True)
    for _ in range(6):
        g.add("concurrent", "two check --record --ref X at once",
              ["bash", "-c", '"$1" check --record --ref "$2" --result "$3" & "$1" check --record --ref "$2" --result "$3"; '
               'a=$?; wait $! || exit $?; exit $a', "x", "{M}", "{W}/X.json", "{FX}/result.json"],
              [["exit_in", [0]]], limit=20)


FAMILIES = [node_lists, fact_trees, output_targets, planted_strings, malformed_stats, outputs_over_inputs,
            run_dir_damage, messages, signals]


def generate(g):
    for fam in FAMILIES:
        fam(g)
