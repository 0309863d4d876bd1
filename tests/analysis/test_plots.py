"""memsuite_analysis.plots: the series of each chart from known result
documents (no matplotlib needed), and draw.py when matplotlib is there."""

import json
import os
import tempfile
import unittest

import _path  # noqa: F401  (puts scripts/analysis on sys.path)
from memsuite_analysis import plots, results


def doc(records, **top):
    d = {"schema": "memsuite/result/1", "tool": "mencal", "complete": True,
         "config": {"scenarios": ["x"]}, "records": records}
    d.update(top)
    return results.judge("t.json", d)


SWEEP = doc([{"name": "sweep", "metrics": {"points": {"value": 3, "unit": ""}},
              "tables": {"mountain": [
                  {"kernel": "read", "threads": 1, "size": 32768, "bandwidth": 400.0,
                   "min": 390.0, "max": 410.0},
                  {"kernel": "read", "threads": 1, "size": 16384, "bandwidth": 500.0,
                   "min": 450.0, "max": 520.0},
                  {"kernel": "read", "threads": 1, "size": 1048576, "bandwidth": 20.0,
                   "min": 19.0, "max": 21.0}]}}],
            config={"scenarios": ["sweep"], "caches": {"l1d_bytes": 49152, "l2_bytes": 1048576}},
            llc={"total_bytes": 33554432})

LOADED = doc([{"name": "loaded", "metrics": {"latency_idle": {"value": 34.0, "unit": "ns"}},
               "tables": {"curve": [
                   {"delay": 0, "bandwidth": 25000.0, "latency": 80.0, "latency_p99": 200.0,
                    "load": "traffic"},
                   {"delay": 1000, "bandwidth": 1000.0, "latency": 50.0, "latency_p99": 120.0,
                    "load": "traffic"},
                   {"delay": None, "bandwidth": 0, "latency": 34.0, "load": "idle"}]}}],
             config={"scenarios": ["loaded"], "threads": 3, "loaded": {"traffic": "read"}})


class Sweep(unittest.TestCase):
    def setUp(self):
        self.fig = plots.result_figure(SWEEP)
        self.p = self.fig.panels[0]

    def test_kind_and_log_axes(self):
        self.assertEqual(plots.kind_of(SWEEP), "sweep")
        self.assertTrue(self.p.logx)
        self.assertTrue(self.p.logy)

    def test_points_sorted_in_the_axis_unit(self):
        s = self.p.series[0]
        self.assertEqual(s.label, "read, 1 thread")
        self.assertEqual(s.x, [16.0, 32.0, 1024.0])          # KiB
        self.assertEqual(s.y, [500.0, 400.0, 20.0])
        self.assertIn("(KiB, log scale)", self.p.xlabel)
        self.assertIn("GB/s", self.p.ylabel)

    def test_error_bars_are_min_max(self):
        s = self.p.series[0]
        self.assertEqual(s.lo, [450.0, 390.0, 19.0])
        self.assertEqual(s.hi, [520.0, 410.0, 21.0])
        self.assertIn("minimum to maximum", self.fig.caption)

    def test_cache_marks_at_their_sizes(self):
        marks = {m.label.split()[0]: m.x for m in self.p.marks}
        self.assertEqual(marks, {"L1d": 48.0, "L2": 1024.0, "LLC": 32768.0})
        self.assertIn("L1d 48 KiB per core", [m.label for m in self.p.marks])

    def test_ticks_are_in_the_title_unit(self):
        self.assertEqual([t for _, t in self.p.xticks][:3], ["16", "32", "64"])
        for v, t in self.p.xticks:
            self.assertEqual(float(t), v)


class Loaded(unittest.TestCase):
    def test_idle_point_is_apart(self):
        fig = plots.result_figure(LOADED)
        by = {s.label: s for s in fig.panels[0].series}
        med = by["median latency, traffic on"]
        idle = by["idle: no traffic injected"]
        self.assertEqual(med.style, "line")
        self.assertEqual(idle.style, "marker")
        self.assertEqual(med.x, [1.0, 25.0])                 # GB/s, sorted
        self.assertEqual(med.y, [50.0, 80.0])
        self.assertEqual((idle.x, idle.y), ([0.0], [34.0]))
        self.assertNotIn(34.0, med.y)
        self.assertIn("not joined", fig.caption)
        self.assertIn("of 2 threads", fig.title)

    def test_a_one_thread_loaded_cell_draws_no_curve(self):
        # one thread: no traffic thread, the idle point alone; the report
        # draws no one-point chart for it, the other cells still
        one = doc([{"name": "loaded", "metrics": {"latency_idle": {"value": 34.0, "unit": "ns"}},
                    "tables": {"curve": [{"delay": None, "bandwidth": 0, "latency": 34.0, "load": "idle"}]}}],
                  config={"scenarios": ["loaded"], "threads": 1, "loaded": {"traffic": "read"}})

        class Cell:
            def __init__(self, cid, res):
                self.id, self.result, self.scenario = cid, res, "loaded"

        class Run:
            cells = [Cell("t1", one), Cell("t3", LOADED)]
        self.assertEqual([f.name for f in plots.cell_figures(Run)], ["loaded-t3"])

    def test_linear_y_unless_the_values_span_a_factor_of_ten(self):
        self.assertFalse(plots.result_figure(LOADED).panels[0].logy)
        d = json.loads(json.dumps(LOADED.doc))
        d["records"][0]["tables"]["curve"][0]["latency_p99"] = 5000.0
        p = plots.result_figure(results.judge("t", d)).panels[0]
        self.assertTrue(p.logy)
        self.assertIn("log scale", p.ylabel)

    def test_idle_point_of_older_results(self):
        # before the load column: delay null, delay_unavailable "idle: ..."
        d = json.loads(json.dumps(LOADED.doc))
        for row in d["records"][0]["tables"]["curve"]:
            row.pop("load")
        d["records"][0]["tables"]["curve"][2]["delay_unavailable"] = "idle: the traffic threads wait"
        by = {s.label: s for s in plots.result_figure(results.judge("t", d)).panels[0].series}
        self.assertEqual(by["idle: no traffic injected"].y, [34.0])
        self.assertEqual(by["median latency, traffic on"].y, [50.0, 80.0])

    def test_p99_points_only(self):
        fig = plots.result_figure(LOADED)
        p99 = [s for s in fig.panels[0].series if s.label.startswith("p99")][0]
        self.assertEqual(p99.style, "points")
        self.assertEqual(p99.y, [120.0, 200.0])


class Heatmaps(unittest.TestCase):
    def test_c2c_in_cpu_order_with_bounds(self):
        r = doc([{"name": "c2c", "metrics": {}, "tables": {
            "pairs": [], "cpus": [{"cpu": 0, "package": 0, "l3_domain": 0},
                                  {"cpu": 1, "package": 0, "l3_domain": 1}],
            "matrix": [{"cpu": 1, "cpu0": 90.0, "cpu1": None},
                       {"cpu": 0, "cpu0": None, "cpu1": 80.0}]}}])
        h = plots.result_figure(r).panels[0]
        self.assertEqual(h.values, [[None, 80.0], [90.0, None]])
        self.assertEqual(h.bounds, [1])
        self.assertIn("ns", h.unit)

    def test_matrix_two_panels_with_units(self):
        r = doc([{"name": "matrix", "metrics": {}, "tables": {
            "cells": [], "latency": [{"initiator": 0, "node1": 120.0, "node0": 90.0}],
            "bandwidth": [{"initiator": 0, "node0": 40.0, "node1": "x"}]}}])
        f = plots.result_figure(r)
        self.assertEqual([h.unit for h in f.panels], ["Latency (ns)", "Bandwidth (GB/s)"])
        self.assertEqual(f.panels[0].cols, ["0", "1"])
        self.assertEqual(f.panels[0].values, [[90.0, 120.0]])
        self.assertEqual(f.panels[1].values, [[40.0, None]])   # text is no number


class Records(unittest.TestCase):
    def test_stream_rate_bars_from_times(self):
        r = doc([{"name": "Copy", "metrics": {
            "best_rate_mbps": {"value": 10000.0, "unit": "MB/s"},
            "min_time_s": {"value": 0.001, "unit": "s",
                           "stats": {"n": 3, "min": 0.001, "max": 0.002}},
            "bytes": {"value": 1e7, "unit": "bytes"}}}], tool="stream")
        s = plots.result_figure(r).panels[0].series[0]
        self.assertEqual(s.y, [10.0])                          # GB/s
        self.assertAlmostEqual(s.lo[0], 5.0)
        self.assertAlmostEqual(s.hi[0], 10.0)

    def test_mbw_keeps_mib_per_second(self):
        r = doc([{"name": "MEMCPY", "metrics": {
            "avg_rate_mibps": {"value": 1000.0, "unit": "MiB/s",
                               "stats": {"n": 2, "min": 900.0, "max": 1100.0}}}}], tool="mbw")
        f = plots.result_figure(r)
        self.assertEqual(f.panels[0].ylabel, "Bandwidth (MiB/s)")
        self.assertEqual(f.panels[0].series[0].y, [1000.0])
        self.assertEqual(f.panels[0].series[0].lo, [900.0])
        self.assertIn("MiB/s", f.caption)

    def test_one_repetition_has_no_bar(self):
        r = doc([{"name": "x", "metrics": {"bandwidth": {"value": 5.0, "unit": "GB/s",
                                                         "stats": {"n": 1, "min": 5.0, "max": 5.0}}}}])
        self.assertEqual(plots.result_figure(r).panels[0].series[0].lo, [None])


def stream_cell(rate_mbps, tmin, tmax):
    return {"schema": "memsuite/result/1", "tool": "stream", "complete": True, "records": [
        {"name": "Triad", "metrics": {
            "best_rate_mbps": {"value": rate_mbps, "unit": "MB/s"},
            "min_time_s": {"value": tmin, "unit": "s", "stats": {"n": 3, "min": tmin, "max": tmax}},
            "bytes": {"value": rate_mbps * 1e6 * tmin, "unit": "bytes"}}}]}


class RunDirectory(unittest.TestCase):
    """A 2-size x 2-thread stream run: known cells -> known points."""

    CELLS = {  # id: (size, threads, MB/s)
        "s1-t1": (1 << 20, 1, 10000.0), "s1-t2": (1 << 20, 2, 18000.0),
        "s8-t1": (8 << 20, 1, 8000.0), "s8-t2": (8 << 20, 2, 15000.0),
    }

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        os.mkdir(os.path.join(d, "cells"))
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump({"schema": "memsuite/run/1", "complete": True,
                       "config": {"llc_bytes": 1 << 20}}, f)
        with open(os.path.join(d, "plan.tsv"), "w") as f:
            for cid, (size, t, rate) in self.CELLS.items():
                f.write("%s\tstream\t-\t%d\t%d\t3\n" % (cid, size, t))
                with open(os.path.join(d, "cells", cid + ".json"), "w") as c:
                    json.dump(stream_cell(rate, 0.001, 0.002), c)
        self.figs = {f.name: f for f in plots.run_figures(results.RunDir(d))}

    def tearDown(self):
        self.tmp.cleanup()

    def test_both_axes_charted(self):
        self.assertEqual(sorted(self.figs), ["stream-size", "stream-threads"])

    def test_threads_axis_a_line_per_size(self):
        p = self.figs["stream-threads"].panels[0]
        self.assertEqual(p.title, "Triad")
        self.assertEqual(p.ylabel, "Bandwidth (GB/s)")
        self.assertEqual(p.xticks, [(1, "1"), (2, "2")])
        lines = {s.label: s for s in p.series if s.style == "line"}
        self.assertEqual(lines["1 MiB per array"].y, [10.0, 18.0])
        self.assertEqual(lines["8 MiB per array"].y, [8.0, 15.0])
        # min..max of the repetitions: bytes / max time .. bytes / min time
        self.assertEqual(lines["8 MiB per array"].lo, [4.0, 7.5])
        self.assertEqual(lines["8 MiB per array"].hi, [8.0, 15.0])

    def test_size_axis_in_mib_with_in_cache_rings(self):
        p = self.figs["stream-size"].panels[0]
        self.assertTrue(p.logx)
        self.assertEqual(p.xlabel, "Array size per array (MiB, log scale)")
        self.assertEqual(p.xticks, [(1.0, "1"), (8.0, "8")])
        ring = [s for s in p.series if s.style == "ring"][0]
        self.assertEqual(ring.x, [1.0, 1.0])                 # < 4x LLC: the 1 MiB cells

    def test_draw_run_without_matplotlib_is_a_note(self):
        import builtins
        real = builtins.__import__

        def no_draw(name, globs=None, locs=None, fromlist=(), level=0):
            if fromlist and "draw" in fromlist or name.endswith("draw"):
                raise ImportError("no matplotlib")
            return real(name, globs, locs, fromlist, level)
        notes = []
        builtins.__import__ = no_draw
        try:
            out = plots.draw_run(results.RunDir(self.tmp.name), self.tmp.name, notes.append)
        finally:
            builtins.__import__ = real
        self.assertEqual(out, [])
        self.assertEqual(notes, [plots.UNAVAILABLE])


class Command(unittest.TestCase):
    """memsuite-analyse plot: bad input is exit 2 naming it, never a hang."""

    def plot(self, *argv):
        import subprocess
        import sys
        prog = os.path.join(_path.sys.path[0], "memsuite-analyse")
        return subprocess.run([sys.executable, prog, "plot"] + list(argv), capture_output=True,
                              timeout=60)

    def test_bad_inputs(self):
        with tempfile.TemporaryDirectory() as d:
            fifo = os.path.join(d, "f.json")
            os.mkfifo(fifo)
            empty = os.path.join(d, "e.json")
            with open(empty, "w") as f:
                json.dump({"schema": "memsuite/result/1", "tool": "stream", "complete": True,
                           "records": [{"name": "Copy", "metrics": {
                               "best_rate_mbps": {"value": None, "unit": "MB/s"}}}]}, f)
            cases = (
                (["--result", os.path.join(d, "nope.json"), "--out", "x.png"], 2, b"nope.json"),
                (["--result", fifo, "--out", "x.png"], 2, b"FIFO"),
                (["--result", empty], 2, b"--result needs --out"),
                (["--result", empty, "--out", os.path.join(d, "e.png")], 1, b"no measured point"),
                (["--run", d, "--outdir", d], 2, b"no run.json"),
            )
            for argv, code, says in cases:
                with self.subTest(argv=argv):
                    p = self.plot(*argv)
                    self.assertEqual(p.returncode, code, p.stderr)
                    self.assertIn(says, p.stderr)
            self.assertFalse(os.path.exists(os.path.join(d, "e.png")))

    def test_series_from_stdin(self):
        import subprocess
        import sys
        prog = os.path.join(_path.sys.path[0], "memsuite-analyse")
        p = subprocess.run([sys.executable, prog, "plot", "--result", "-", "--series"],
                           input=json.dumps(SWEEP.doc).encode(), capture_output=True, timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr)
        fig = json.loads(p.stdout)
        self.assertEqual(fig["name"], "sweep")
        self.assertTrue(fig["panels"][0]["logx"] and fig["panels"][0]["logy"])


class Helpers(unittest.TestCase):
    CASES = ((1000.0, (1024.0, "KiB")), (1048576.0, (1048576.0, "MiB")))

    def test_size_unit(self):
        for lo, want in self.CASES:
            self.assertEqual(plots.size_unit(lo), want)

    def test_nonfinite_points_left_out(self):
        s = plots.Series("a")
        self.assertFalse(s.add(1, float("nan")))
        self.assertFalse(s.add("1", 2))
        self.assertTrue(s.add(1, 2))
        self.assertEqual(len(s), 1)

    def test_log_axis_drops_nonpositive(self):
        p = plots.Panel("", "", "", logx=True, logy=True)
        s = plots.Series("a")
        for x, y in ((0, 1), (1, 0), (2, 3)):
            s.add(x, y)
        p.series = [s]
        p.drop_nonpositive()
        self.assertEqual((p.series[0].x, p.series[0].y), ([2.0], [3.0]))


class Draw(unittest.TestCase):
    def test_png_written_atomically(self):
        try:
            from memsuite_analysis import draw
        except ImportError:
            self.skipTest("matplotlib not installed")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "s.png")
            draw.write_png(plots.result_figure(SWEEP), path)
            with open(path, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            self.assertEqual(os.listdir(d), ["s.png"])

    def test_labels_from_documents_drawn_in_caret_notation(self):
        try:
            from memsuite_analysis import draw
        except ImportError:
            self.skipTest("matplotlib not installed")
        import warnings
        p = plots.Panel("T\x1b[31m", "size \x07", "MB/s\ud800")
        s = plots.Series("Triad\x1b[2J")
        s.add(1, 2)
        s.add(2, 3)
        p.series = [s]
        p.marks = [plots.Mark(1.5, "L1\x1b")]
        fig = plots.Figure("f", "run\x1b]0;x\x07", caption="node\x1b", panels=[p])
        h = plots.Heatmap("h\x1b", ["r\x1b"], ["c\x1b"], [[1.0]], "ns\x1b", "x", "y")
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            png = draw.render(fig)
            png2 = draw.render(plots.Figure("g", "t", panels=[h]))
        self.assertEqual(png[:4], b"\x89PNG")
        self.assertEqual(png2[:4], b"\x89PNG")
        # matplotlib has no glyph for ESC: drawn raw it warned with the byte itself
        glyph = [str(w.message) for w in seen if "Glyph" in str(w.message)]
        self.assertEqual(glyph, [])
        self.assertEqual(draw._t("Triad\x1b[2J\ud800"), "Triad^[[2J?")

    def test_full_device_is_an_error(self):
        try:
            from memsuite_analysis import draw
        except ImportError:
            self.skipTest("matplotlib not installed")
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        import subprocess
        import sys
        prog = os.path.join(_path.sys.path[0], "memsuite-analyse")
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "s.json")
            with open(src, "w") as f:
                json.dump(SWEEP.doc, f)
            with open("/dev/full", "wb") as full:
                p = subprocess.run([sys.executable, prog, "plot", "--result", src, "--out", "-"],
                                   stdout=full, stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertIn(b"No space left on device", p.stderr)


if __name__ == "__main__":
    unittest.main()
