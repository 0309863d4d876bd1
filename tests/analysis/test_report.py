"""memsuite_analysis.report, health, requirements, summary and the three
renderers, against the known run directory tests/fixtures/report-basic
(its README lists the cells): the verdicts, the ranges and the units the
report shows."""

import io
import json
import os
import re
import shutil
import sys
import tempfile
import unittest
from contextlib import redirect_stderr, redirect_stdout

import _path  # noqa: F401
from memsuite_analysis import cli, health, render_html, render_md, render_text, report, requirements, summary
from memsuite_analysis.results import RunDir

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "report-basic")


def context(path=FIXTURE, **kw):
    return report.Context(RunDir(path), path, **kw)


class Copy:
    """A private copy of the fixture (tests that change files)."""

    def __enter__(self):
        self.tmp = tempfile.mkdtemp(prefix="test_report.")
        self.dir = os.path.join(self.tmp, "r")
        shutil.copytree(FIXTURE, self.dir)
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.tmp)

    def edit(self, cell, fn):
        p = os.path.join(self.dir, "cells", cell + ".json")
        with open(p) as f:
            d = json.load(f)
        fn(d)
        with open(p, "w") as f:
            json.dump(d, f)

    def write(self, name, text):
        p = os.path.join(self.tmp, name)
        with open(p, "w") as f:
            f.write(text)
        return p


def run_cli(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            rc = cli.main(argv)
        except SystemExit as e:
            rc = e.code
    return rc, out.getvalue(), err.getvalue()


def finding(ctx, check, subject_start=""):
    return [f for f in ctx.findings if f.check == check and f.detail.startswith(subject_start)]


class Health(unittest.TestCase):
    def test_known_verdicts(self):
        ctx = context()
        want = (
            ("kernel-order", "stream 128.0 MiB x1", "pass"),
            ("kernel-order", "stream 128.0 MiB x2", "pass"),
            ("scaling", "stream 128.0 MiB Triad 1->2", "pass"),
            ("peak", "stream:", "warn"),            # 22200 of 307200 MB/s
            ("method-order", "mbw 128.0 MiB", "pass"),
            ("noise", "all 13", "pass"),
            ("throttle", "5 cell(s)", "pass"),
        )
        for check, start, verdict in want:
            with self.subTest(check=check, start=start):
                fs = finding(ctx, check, start)
                self.assertEqual(len(fs), 1, ctx.findings)
                self.assertEqual(fs[0].verdict, verdict)
        self.assertIn("= 7.2% of the theoretical peak 307200 MB/s (< 50.0%)", finding(ctx, "peak", "stream:")[0].detail)
        self.assertEqual(health.counts(ctx.findings), {"pass": 10, "warn": 3, "skip": 0})

    def test_every_finding_says_expected_and_found(self):
        for f in context().findings:
            with self.subTest(f=f):
                self.assertTrue(f.expected and f.found, f)

    def test_copy_far_below_scale_is_a_warning_saying_what_was_expected(self):
        with Copy() as c:
            c.edit("stream-s134217728-t1", lambda d: d["records"][0]["metrics"]["best_rate_mbps"].update(value=5000))
            f = finding(context(c.dir), "kernel-order", "stream 128.0 MiB x1")[0]
            self.assertEqual(f.verdict, "warn")
            self.assertIn("Copy within 10.0% of Scale (regular stores", f.expected)
            self.assertIn("Copy 5000 vs Scale 9900 MB/s (-49.5%)", f.found)
            self.assertNotIn("~", f.detail)

    def test_streaming_copy_is_expected_to_beat_scale(self):
        def nt_copy(d):
            d["records"][0]["nontemporal"] = True
            d["records"][0]["isa"] = "avx2"
            d["records"][0]["metrics"]["best_rate_mbps"]["value"] = 14000     # 41% above Scale
        with Copy() as c:
            c.edit("stream-s134217728-t1", nt_copy)
            f = finding(context(c.dir), "kernel-order", "stream 128.0 MiB x1")[0]
            self.assertEqual(f.verdict, "pass", f.detail)
            self.assertIn("Copy at or above Scale (Copy ran with non-temporal (streaming) stores (avx2)", f.expected)
            # the same figures with regular stores: a warning
            c.edit("stream-s134217728-t1", lambda d: d["records"][0].update(nontemporal=False))
            self.assertEqual(finding(context(c.dir), "kernel-order", "stream 128.0 MiB x1")[0].verdict, "warn")
            # a streaming Copy below Scale is still a warning
            c.edit("stream-s134217728-t1", lambda d: (d["records"][0].update(nontemporal=True),
                                                      d["records"][0]["metrics"]["best_rate_mbps"].update(value=8000)))
            self.assertEqual(finding(context(c.dir), "kernel-order", "stream 128.0 MiB x1")[0].verdict, "warn")

    def test_thresholds(self):
        ctx = context(peak_min=5)
        self.assertEqual(finding(ctx, "peak", "stream:")[0].verdict, "pass")
        ctx = context(efficiency=101)
        self.assertEqual(finding(ctx, "scaling")[0].verdict, "warn")

    def test_table_names_the_checks(self):
        self.assertEqual([row[0] for row in health.CHECKS],
                         ["kernel-order", "method-order", "scaling", "in-cache", "peak"])


class Figures(unittest.TestCase):
    def test_sustained_figures_units_ranges_cells(self):
        f = context().figures
        t = f["stream_triad"]
        self.assertEqual((t.value, t.unit, t.cell, t.threads), (22.2, "GB/s", "stream-s134217728-t2", 2))
        # Triad's repetitions from the times 0.1..0.11 s: 20.18..22.2 GB/s
        self.assertAlmostEqual(t.low, 22.2 * 0.1 / 0.11)
        self.assertAlmostEqual(t.high, 22.2)
        self.assertIn("min..max of 3 repetitions", t.spread)
        s = f["seqread"]
        self.assertEqual((s.value, s.low, s.high, s.unit), (30, 29, 31, "GB/s"))
        lat = f["idle_latency"]
        self.assertEqual((lat.unit, lat.cell), ("ns", "mencal-randread-s134217728-t1"))
        self.assertAlmostEqual(lat.value, 95)
        self.assertAlmostEqual(lat.low, 94)
        self.assertAlmostEqual(lat.high, 97)
        # "all cores": the run used 2 threads of 64 cores, and says so
        self.assertIn("2 threads; the machine has 64 physical cores", t.note)

    def test_mbw_range_from_the_mean_time(self):
        e = context().groups[3].at[(134217728, 1, "MEMCPY")]
        self.assertEqual(e.unit, "MiB/s")
        self.assertAlmostEqual(e.low, 8000 * 0.01 / 0.0125)
        self.assertAlmostEqual(e.high, 8000 * 0.01 / 0.008)

    def test_a_missing_figure_says_why(self):
        with Copy() as c:
            os.unlink(os.path.join(c.dir, "cells", "mencal-seqread-s134217728-t2.json"))
            ctx = context(c.dir)
            self.assertIsNone(ctx.figures["seqread"].value)
            self.assertEqual(ctx.figures["seqread"].why, "no mencal:seqread cell in this run")
            self.assertEqual(ctx.status, 1)      # missing from a complete run
            self.assertIn("missing: %s/cells/mencal-seqread-s134217728-t2.json" % c.dir, ctx.problems[0])

    def test_machine(self):
        m = {label: (v, why) for label, v, why, src in context().machine}
        self.assertEqual(m["CPU model"][0], "Fixture CPU 9000")
        self.assertEqual(m["sockets"][0], "2")
        self.assertEqual(m["DIMMs"][0], "16 x 32 GiB DDR5-4800")
        self.assertEqual(m["memory"][0], "512 GiB (549755813888 bytes)")
        self.assertIsNone(m["firmware"][0])
        self.assertTrue(m["firmware"][1])


def summary_page(d):
    """The summary section of the HTML report of run directory d."""
    h = render_html.render(context(d))
    return h[h.index('<section id="summary">'):h.index("</section>")]


def add_env_facts(c, *facts):
    """Appends facts to the env.json of Copy c."""
    p = os.path.join(c.dir, "env.json")
    with open(p) as f:
        env = json.load(f)
    env["facts"] += list(facts)
    with open(p, "w") as f:
        json.dump(env, f)


def set_cells_sysinfo(c, **kv):
    """Sets sysinfo keys in every cell of Copy c."""
    for name in os.listdir(os.path.join(c.dir, "cells")):
        c.edit(name[:-len(".json")], lambda d: d["sysinfo"].update(kv))


class Requirements(unittest.TestCase):
    def test_dimm_peak_gives_no_verdict(self):
        ctx = context()
        self.assertIsNone(ctx.verdict)
        self.assertEqual(ctx.status, 0)
        self.assertAlmostEqual(ctx.peak.gbps, 307.2)
        self.assertTrue(ctx.peak.source.startswith("computed from the DIMMs"))

    def test_stated_peak(self):
        ctx = context(peak_gbps=40)          # 22.2 of 40 = 55.5% >= 50%
        self.assertEqual((ctx.verdict, ctx.status), ("PASS", 0))
        self.assertAlmostEqual(ctx.judgements[0].value, 55.5)
        ctx = context(peak_gbps=50)          # 44.4% < 50%
        self.assertEqual((ctx.verdict, ctx.status), ("FAIL", 1))
        self.assertEqual(ctx.peak.source, "stated: --peak-gbps 50.00")

    def test_file(self):
        with Copy() as c:
            p = c.write("req.json", json.dumps({"schema": requirements.SCHEMA, "requirements": [
                {"metric": "stream_triad", "min_gbps": 20},
                {"metric": "idle_latency", "max_ns": 90, "note": "the tender"},
                {"metric": "seqread", "min_gbps": 25}]}))
            ctx = context(reqs_file=p)
            self.assertEqual([j.verdict for j in ctx.judgements], ["PASS", "FAIL", "PASS"])
            self.assertEqual((ctx.verdict, ctx.status), ("FAIL", 1))

    def test_an_unmeasured_requirement_fails(self):
        with Copy() as c:
            os.unlink(os.path.join(c.dir, "cells", "mencal-randread-s134217728-t1.json"))
            p = c.write("req.json", json.dumps({"schema": requirements.SCHEMA, "requirements": [
                {"metric": "idle_latency", "max_ns": 200}]}))
            ctx = context(c.dir, reqs_file=p)
            self.assertEqual(ctx.judgements[0].verdict, "UNAVAILABLE")
            self.assertEqual(ctx.verdict, "FAIL")

    BAD = (
        ([], "not a JSON object"),
        ({"requirements": []}, "schema is null"),
        ({"schema": requirements.SCHEMA, "requirements": []}, "requirements is []"),
        ({"schema": requirements.SCHEMA, "requirements": [{"metric": "triad", "min_gbps": 1}]}, "requirements[0].metric is \"triad\""),
        ({"schema": requirements.SCHEMA, "requirements": [{"metric": "stream_triad", "min_gbps": "fast"}]},
         "requirements[0].min_gbps is \"fast\", not a positive number"),
        ({"schema": requirements.SCHEMA, "requirements": [{"metric": "stream_triad", "min_gbps": -1}]}, "min_gbps is -1"),
        ({"schema": requirements.SCHEMA, "requirements": [{"metric": "idle_latency", "min_gbps": 1}]},
         "requirements[0].min_gbps is not a threshold of idle_latency"),
        ({"schema": requirements.SCHEMA, "requirements": [{"metric": "seqread", "min_gbps": 1, "min_pct_of_peak": 5}]},
         "has 2 thresholds"),
        ({"schema": requirements.SCHEMA, "requirements": [{"metric": "seqread"}]}, "has 0 thresholds"),
        ({"schema": requirements.SCHEMA, "peak_gbps": True, "requirements": [{"metric": "seqread", "min_gbps": 1}]}, "peak_gbps is true"),
        ({"schema": requirements.SCHEMA, "extra": 1, "requirements": [{"metric": "seqread", "min_gbps": 1}]}, "unknown member \"extra\""),
    )

    def test_bad_files_name_the_field(self):
        for doc, want in self.BAD:
            with self.subTest(doc=doc):
                with self.assertRaises(requirements.Invalid) as e:
                    requirements.parse(doc, "req.json")
                self.assertIn(want, str(e.exception))

    def test_cli_exit_codes(self):
        with Copy() as c:
            bad = c.write("bad.json", '{"schema": "memsuite/requirements/1", "requirements": [{"metric": "x"}]}')
            rc, out, err = run_cli(["report", "--requirements", bad, c.dir])
            self.assertEqual(rc, 2)
            self.assertIn("requirements[0].metric is \"x\"", err)
            self.assertEqual(out, "")
            rc, out, err = run_cli(["report", "--peak-gbps", "50", c.dir])
            self.assertEqual(rc, 1)
            self.assertIn("Requirements: verdict FAIL", out)
            self.assertIn("stated requirement(s) not met (verdict FAIL)", err)
            rc, out, err = run_cli(["report", "--peak-gbps", "40", c.dir])
            self.assertEqual(rc, 0)


class Text(unittest.TestCase):
    def test_tables_and_health_lines(self):
        t = render_text.render(context())
        lines = t.splitlines()
        self.assertIn("stream: best_rate_mbps (MB/s)", lines)
        self.assertIn("   128.0 MiB        2      20000.0      19800.0      22000.0      22200.0  ", lines)
        self.assertIn("mbw: avg_rate_mibps (MiB/s)", lines)
        self.assertIn("  theoretical peak 307200 MB/s (8 channel(s) x 4800 MT/s x 8 bytes)", lines)
        self.assertIn("health: 10 pass, 3 warn, 0 skip", lines)
        self.assertTrue(any(re.match(r"^  pass  scaling       stream 128\.0 MiB Triad 1->2 threads: 11100 -> 22200 MB/s, "
                                     r"efficiency 100\.0% \(>= 70\.0%\)$", x) for x in lines))

    def test_markdown(self):
        t = render_md.render(context())
        self.assertIn("| 128.0 MiB | 1 | 8000.0 | 6000.0 | 9000.0 |  |", t.splitlines())
        self.assertIn("| verdict | check | detail |", t.splitlines())

    def test_plots_unavailable_without_the_module(self):
        import memsuite_analysis as pkg
        saved = sys.modules.get("memsuite_analysis.plots")
        saved_attr = pkg.__dict__.pop("plots", None)        # imported by another test
        sys.modules["memsuite_analysis.plots"] = None       # import fails
        try:
            with tempfile.TemporaryDirectory() as d:
                plots, note = report.draw_plots(RunDir(FIXTURE), d)
        finally:
            if saved is None:
                del sys.modules["memsuite_analysis.plots"]
            else:
                sys.modules["memsuite_analysis.plots"] = saved
            if saved_attr is not None:
                pkg.plots = saved_attr
        self.assertEqual(plots, [])
        self.assertTrue(note.startswith("plots unavailable: the analyser's plots module is not installed"), note)
        t = render_text.render(context(), plots=plots, plots_note=note, plots_asked=True)
        self.assertIn("  (plots unavailable: the analyser's plots module", t)
        h = render_html.render(context(), plots=plots, plots_note=note, plots_asked=True)
        self.assertIn('<p class="warn">plots unavailable: the analyser&#x27;s plots module', h)


class Html(unittest.TestCase):
    def test_summary_page_figures_bars_and_units(self):
        h = render_html.render(context(peak_gbps=40), version="0.1.0")
        page = h[h.index('<section id="summary">'):h.index("</section>")]
        self.assertIn('<p class="verdict PASS">Overall verdict: PASS</p>', page)
        self.assertIn('<rect class="bar" data-figure="stream_triad" data-value="22.20"', page)
        self.assertIn('<path class="errorbar" data-low="20.18" data-high="22.20"', page)
        self.assertIn('<rect class="bar" data-figure="seqread" data-value="30.00"', page)
        self.assertIn('data-low="29.00" data-high="31.00"', page)
        self.assertIn("sustained bandwidth (GB/s); whiskers: min..max of the repetitions", page)
        self.assertIn('<td class="num">95.00 ns</td>', page)
        self.assertIn("Peak: 40.00 GB/s, stated: --peak-gbps 40.00.", page)
        self.assertIn('<td class="PASS">PASS</td><td>stream_triad &gt;= 50 % of peak</td>', page)
        self.assertIn("<td>CPU model</td><td>Fixture CPU 9000</td>", page)
        self.assertNotIn("CV", page)

    def test_summary_page_firmware_row(self):
        row = '<tr><td>firmware</td><td>%s</td><td class="note">%s</td></tr>'
        # (the source column is left out when one source gave every fact)
        gone = '<tr><td>firmware</td><td class="unavailable">unavailable: %s</td>'
        no_dmi = "no /sys/class/dmi/id/bios_version (no DMI: a VM or non-x86 may have none)"
        # the fixture records none: the row says so, never a blank
        self.assertIn(gone % "not recorded by this run", summary_page(FIXTURE))
        with Copy() as c:
            # env.json's fact (memsuite run writes env.json from memsuite-facts --json)
            add_env_facts(c, {"key": "firmware", "verdict": "ok", "value": "Dell Inc. 1.5.6 (2022-03-21)",
                              "why": "", "fix": ""})
            self.assertIn(row % ("Dell Inc. 1.5.6 (2022-03-21)", "env.json fact firmware"), summary_page(c.dir))
            # a cell's sysinfo comes first
            set_cells_sysinfo(c, firmware="American Megatrends Inc. 2.3.1 (2021-05-10)")
            p = summary_page(c.dir)
            self.assertIn('<tr><td>firmware</td><td>American Megatrends Inc. 2.3.1 (2021-05-10)</td></tr>', p)
            self.assertRegex(p, re.escape('<p class="note">Every fact above from cell ') + r"\S+" + re.escape(" sysinfo.</p>"))
            self.assertNotIn("Dell Inc.", p)
        with Copy() as c:
            # unknown: the fact's reason
            add_env_facts(c, {"key": "firmware", "verdict": "unavailable", "value": "", "why": no_dmi, "fix": ""})
            self.assertIn(gone % no_dmi, summary_page(c.dir))
            set_cells_sysinfo(c, firmware=None, firmware_unavailable="cannot read /sys/class/dmi/id/bios_version: "
                              "Permission denied")
            self.assertIn(gone % "cannot read /sys/class/dmi/id/bios_version: Permission denied", summary_page(c.dir))
        with Copy() as c:
            # a raw terminal escape and markup in a hand-made env.json: escaped, in caret notation
            add_env_facts(c, {"key": "firmware", "verdict": "ok", "value": "Evil\x1b]0;x\x07 <b>1.0</b>",
                              "why": "", "fix": ""})
            rc, out, err = run_cli(["report", "--format", "html", c.dir])
            self.assertEqual(rc, 0, err)
            self.assertIn(row % ("Evil^[]0;x^G &lt;b&gt;1.0&lt;/b&gt;", "env.json fact firmware"), out)
            self.assertNotIn("\x1b", out)

    def test_summary_page_damon_row(self):
        row = '<tr><td>DAMON</td><td>%s</td><td class="note">%s</td></tr>'
        running = "kdamond 0 on (paddr; pageout at age >= 12 x 5 s)"
        self.assertIn('<tr><td>DAMON</td><td class="unavailable">unavailable: not recorded by this run</td>',
                      summary_page(FIXTURE))
        with Copy() as c:
            # memsuite-facts gives a running monitor as a warning, its value what runs
            add_env_facts(c, {"key": "damon", "verdict": "warn", "value": running,
                              "why": "DAMON is running", "fix": ""})
            self.assertIn(row % (running.replace(">", "&gt;"), "env.json fact damon"), summary_page(c.dir))
            set_cells_sysinfo(c, damon="off")
            self.assertIn('<tr><td>DAMON</td><td>off</td></tr>', summary_page(c.dir))
        with Copy() as c:
            set_cells_sysinfo(c, damon=None, damon_unavailable="cannot read /sys/kernel/mm: No such file or directory")
            self.assertIn('<tr><td>DAMON</td><td class="unavailable">unavailable: cannot read /sys/kernel/mm: '
                          'No such file or directory</td>', summary_page(c.dir))

    def test_one_bandwidth_unit_and_mibs_stated(self):
        h = render_html.render(context())
        res = h[h.index('<h2 id="results">'):h.index('<h2 id="plots">')]
        units_shown = set(re.findall(r'data-unit="([^"]+)"', res))
        self.assertEqual(units_shown, {"GB/s", "ns"})
        # mbw's MEMCPY: 8000 MiB/s = 8.389 GB/s, its range 6.711..10.49 GB/s
        self.assertIn('data-unit="GB/s" data-value="8.389" data-low="6.711" data-high="10.49"', res)
        self.assertIn("the tool writes MiB/s, 2^20 B/s, as mbw always has", res)
        self.assertEqual(res.count('<table class="bench"'), 4)

    def test_axis_ticks_are_round_numbers(self):
        for raw, want in ((0.7, 1), (3, 5), (12, 20), (40, 50), (100, 100), (0.013, 0.02)):
            with self.subTest(raw=raw):
                self.assertAlmostEqual(render_html._nice_step(raw), want)

    def test_caveats_on_the_summary_page(self):
        self.assertEqual(context().caveats, [])
        with Copy() as c:
            p = os.path.join(c.dir, "run.json")
            with open(p) as f:
                run = json.load(f)
            run["config"].update(quick=True, tool_args={"stream": ["--nt-stores"]})
            with open(p, "w") as f:
                json.dump(run, f)
            h = render_html.render(context(c.dir))
            page = h[h.index('<section id="summary">'):h.index("</section>")]
            self.assertIn("<li>a quick (smoke) run: short, not for acceptance</li>", page)
            self.assertIn("<li>tuned: the tools ran with extra arguments (stream: --nt-stores)</li>", page)

    def test_quality_and_signoff_on_the_summary_page(self):
        # the fixture warns 3 times: NOISY, with the count; not enforced
        word, reasons, how = context().quality
        self.assertEqual(word, "NOISY")
        self.assertEqual(reasons, ["3 health warning(s), listed under Health"])
        self.assertIn("not enforced", how)
        with Copy() as c:
            p = os.path.join(c.dir, "run.json")
            with open(p) as f:
                run = json.load(f)
            run["config"]["enforce"] = "governor performance, SMT off"
            with open(p, "w") as f:
                json.dump(run, f)
            req = c.write("req.json", json.dumps({
                "schema": requirements.SCHEMA, "requirements": [{"metric": "stream_triad", "min_gbps": 10}],
                "signoff": {"site": "Centre <A&B>", "serial": "SN-42"}}))
            ctx = context(c.dir, cv_max=0.5, reqs_file=req)
            word, reasons, how = ctx.quality
            self.assertEqual(how, "settings enforced for the run: governor performance, SMT off")
            # a CV limit of 0.5%: the sustained figures' spreads count too
            self.assertTrue(any("CV is" in r and "> 0.5%" in r for r in reasons), reasons)
            h = render_html.render(ctx)
            page = h[h.index('<section id="summary">'):h.index("</section>")]
            self.assertIn('Measurement quality: NOISY (', page)
            self.assertIn("<tr><th>site</th><td>Centre &lt;A&amp;B&gt;</td>", page)
            self.assertIn("<tr><th>serial number</th><td>SN-42</td>", page)
            # what the file does not fill is a line to write on; so are date and signature
            self.assertIn('<tr><th>operator</th><td class="blank"></td>', page)
            self.assertIn('<tr><th>date</th><td class="blank"></td>', page)
            self.assertIn('<tr><th>signature</th><td class="blank sign"></td>', page)
            self.assertIn("<tr><th>measured with</th><td>memsuite ", page)

    def test_the_rules_cell_and_the_other_sizes(self):
        # a 256 MiB cell at 2 threads beside the rule's 128 MiB one: the
        # headline stays the rule's, its note gives what the other gave
        with Copy() as c:
            with open(os.path.join(c.dir, "plan.tsv"), "a") as f:
                f.write("stream-s268435456-t2\tstream\t-\t268435456\t2\t3\n")
            with open(os.path.join(c.dir, "cells", "stream-s134217728-t2.json")) as f:
                d = json.load(f)
            for r in d["records"]:
                if r["name"] == "Triad":
                    r["metrics"]["best_rate_mbps"]["value"] = 32400
            d["config"]["array_size_bytes"] = 268435456
            with open(os.path.join(c.dir, "cells", "stream-s268435456-t2.json"), "w") as f:
                json.dump(d, f)
            f = context(c.dir).figures["stream_triad"]
            self.assertEqual((f.value, f.size), (22.2, 134217728))
            self.assertEqual(f.others, [(268435456, 32.4)])
            self.assertIn("the rule's cell; at 2 threads the other sizes out of cache gave 32.40 GB/s (256.0 MiB)", f.note)

    def test_next_steps_follow_what_was_found(self):
        ctx = context()
        warned = {f.check for f in ctx.findings if f.verdict == "warn"}
        self.assertEqual(ctx.next_steps, [report.NEXT_STEPS[c] for c in
                                          ("noise", "throttle", "peak", "scaling", "in-cache", "kernel-order",
                                           "method-order") if c in warned])
        self.assertTrue(ctx.next_steps)
        # a FAILed requirement asks for a rerun before it is believed, first
        ctx = context(peak_gbps=1000)
        self.assertEqual(ctx.verdict, "FAIL")
        self.assertEqual(ctx.next_steps[0], report.NEXT_STEPS["fail"])
        lines = render_text.render(ctx)
        self.assertIn("Next: " + report.NEXT_STEPS["fail"], lines)
        self.assertIn("<li>%s</li>" % render_html.esc(report.NEXT_STEPS["fail"]), render_html.render(ctx))
        self.assertIn("- " + report.NEXT_STEPS["fail"], render_md.render(ctx))

    def test_signoff_in_a_requirements_file_is_checked(self):
        base = {"schema": requirements.SCHEMA, "requirements": [{"metric": "seqread", "min_gbps": 1}]}
        for so, want in ((["x"], "signoff is not an object"), ({"name": "x"}, "signoff.name is not a sign-off line"),
                         ({"site": ""}, "signoff.site is \"\", not a text"), ({"site": "x" * 201}, "not a text of 1 to 200"),
                         ({"operator": 7}, "signoff.operator is 7")):
            with self.subTest(so=so):
                with self.assertRaises(requirements.Invalid) as e:
                    requirements.parse(dict(base, signoff=so), "req.json")
                self.assertIn(want, str(e.exception))
        self.assertEqual(requirements.parse(dict(base, signoff={"site": "S"}), "r")[2], {"site": "S"})

    def test_health_rows_expected_and_found(self):
        h = render_html.render(context(bw_unit="GB/s"))
        self.assertIn("<th>expected</th><th>found</th>", h)
        self.assertIn('<td class="warn">warn</td><td>peak</td><td>stream</td>', h)
        self.assertIn("best Triad 22.20 GB/s (128.0 MiB x2) = 7.2% of the theoretical peak 307.2 GB/s", h)
        self.assertIn("Triad 22.20 vs Add 22.00 GB/s (+0.9%), Copy 20.00 vs Scale 19.80 GB/s (+1.0%)", h)
        self.assertIn("11.10 -&gt; 22.20 GB/s, efficiency 100.0%", h)
        self.assertIn("MEMCPY 8.389 GB/s &gt;= DUMB 6.291 GB/s, MCBLOCK 9.437 GB/s", h)
        # one bandwidth unit in the whole page, but where a caption says
        # what the tool wrote (stream's MB/s, mbw's MiB/s)
        other = [x for x in h.splitlines() if re.search(r"\b(MB|MiB)/s", x)]
        self.assertEqual(other, ["<caption>values: best_rate_mbps in GB/s (10^9 B/s; the tool writes MB/s)</caption>",
                                 "<caption>values: avg_rate_mibps in GB/s (10^9 B/s; the tool writes MiB/s, 2^20 B/s, "
                                 "as mbw always has)</caption>"])

    def test_cli_html_is_in_gbps(self):
        rc, out, err = run_cli(["report", "--format", "html", FIXTURE])
        self.assertEqual(rc, 0, err)
        self.assertIn("best Triad 22.20 GB/s", out)

    def test_escaped_and_damaged_cells_named(self):
        with Copy() as c:
            c.edit("stream-s134217728-t1", lambda d: d["records"][0].update(name="<b onclick=x>&Copy"))
            with open(os.path.join(c.dir, "run.json")) as f:
                run = json.load(f)
            run["host"] = "<i>h</i>"
            with open(os.path.join(c.dir, "run.json"), "w") as f:
                json.dump(run, f)
            p = os.path.join(c.dir, "cells", "mbw-s134217728-t1.json")
            os.unlink(p)
            os.mkfifo(p)
            rc, out, err = run_cli(["report", "--format", "html", c.dir])
            self.assertEqual(rc, 1)
            self.assertIn("&lt;b onclick=x&gt;&amp;Copy", out)
            self.assertNotIn("<b onclick", out)
            self.assertIn("<b>&lt;i&gt;h&lt;/i&gt;</b>", out)
            self.assertIn("<li>invalid: %s/cells/mbw-s134217728-t1.json: cannot read it: it is a FIFO, "
                          "not a regular file</li>" % c.dir, out)
            self.assertIn("1 invalid cell file(s)", err)


class Summary(unittest.TestCase):
    def test_header_and_rows(self):
        text = summary.lines(RunDir(FIXTURE))
        rows = text.splitlines()
        self.assertEqual(rows[0], summary.HEADER)
        self.assertIn("stream-s134217728-t1,stream,-,134217728,1,spread,Triad,best_rate_mbps,MB/s,11100,3,0.02,,1,11100",
                      rows)
        self.assertIn("mbw-s134217728-t1,mbw,-,134217728,1,spread,MEMCPY,avg_rate_mibps,MiB/s,8000,3,0.02,,1,8388.608",
                      rows)
        self.assertIn("stream-s134217728-t1,stream,-,134217728,1,spread,Triad,min_time_s,s,0.1,3,0.02,0.11,0,", rows)
        # 2 stream cells x 4 records x 3 metrics, seqread 1, randread 2, mbw 3 x 3
        self.assertEqual(len(rows), 1 + 24 + 1 + 2 + 9)

    def test_commas_cannot_shift_columns(self):
        with Copy() as c:
            c.edit("stream-s134217728-t1", lambda d: d["records"][0]["metrics"]["best_rate_mbps"].update(unit="MB/s,1,2"))
            rows = summary.lines(RunDir(c.dir)).splitlines()
            self.assertTrue(all(r.count(",") == 14 for r in rows))


if __name__ == "__main__":
    unittest.main()
