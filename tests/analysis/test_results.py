"""memsuite_analysis.results and units: result documents of schema 1 and 2
read into one model; a number is a number; nothing blocks."""

import json
import os
import tempfile
import unittest

import _path  # noqa: F401
from memsuite_analysis import results, units

V1 = {"schema": "memsuite/result/1", "tool": "stream", "complete": True, "label": "standard",
      "config": {"array_bytes": 80000000}, "records": [
          {"name": "Copy", "metrics": {
              "best_rate_mbps": {"value": 40000.5, "unit": "MB/s"},
              "min_time_s": {"value": 0.004, "unit": "s", "stats": {"n": 10, "min": 0.004, "max": 0.005, "cv": 0.02}}}}]}

V2 = {"schema": "memsuite/result/2", "tool": "mencal", "complete": True, "label": "standard",
      "config": {"scenarios": ["randread"]}, "records": [
          {"name": "randread", "headline": "latency", "metrics": {
              "bandwidth": {"value": 0.5, "unit": "GB/s", "base_unit": "B/s", "scale": 1e9, "better": "higher"},
              "latency": {"value": 120.0, "unit": "ns", "base_unit": "s", "scale": 1e-9, "better": "lower",
                          "stats": {"n": 5, "min": 110.0, "max": 130.0}}}}]}


class Units(unittest.TestCase):
    def test_table(self):
        for unit, b, scale in (("MB/s", "B/s", 1e6), ("MiB/s", "B/s", 1048576), ("GB/s", "B/s", 1e9),
                               ("ns", "s", 1e-9), ("%", "fraction", 0.01), ("bytes", "B", 1)):
            self.assertEqual(units.base(unit), (b, scale), unit)
        self.assertEqual(units.base("widgets"), ("widgets", 1.0))

    def test_convert_and_direction(self):
        self.assertAlmostEqual(units.convert(1000, "MiB/s", "MB/s"), 1048.576)
        self.assertRaises(ValueError, units.convert, 1, "ns", "MB/s")
        self.assertEqual(units.default_better("MB/s"), "higher")
        self.assertEqual(units.default_better("ns"), "lower")
        self.assertIsNone(units.default_better("fraction"))
        self.assertEqual(units.display_unit("MiB/s"), "GB/s")

    def test_formatters(self):
        self.assertEqual(units.human_bytes(32768), "32 KiB")
        self.assertEqual(units.human_bytes(1536 << 10), "1.5 MiB")
        self.assertEqual(units.human_bytes(100), "100 B")
        self.assertEqual(units.fmt_number(12345.6), "12346")
        self.assertEqual(units.fmt_number(1.23456), "1.235")
        self.assertEqual(units.fmt_value(40000.5, "MB/s", "GB/s"), "40.00 GB/s")
        self.assertEqual(units.fmt_value(None, "MB/s"), "unavailable")


class ReadResult(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, doc, name="r.json"):
        p = os.path.join(self.tmp.name, name)
        with open(p, "w") as f:
            f.write(doc if isinstance(doc, str) else json.dumps(doc))
        return p

    def test_v1_headline_by_preference(self):
        r = results.read_result(self.put(V1))
        self.assertEqual(r.state, "complete")
        rec = r.records[0]
        self.assertEqual(rec.headline, "best_rate_mbps")
        self.assertEqual(rec.head.base_value, 40000.5e6)
        self.assertEqual(rec.head.better, "higher")
        self.assertEqual(rec.repetitions(), (10, 0.02))   # stream keeps stats on its times

    def test_v2_states_its_meaning(self):
        r = results.read_result(self.put(V2))
        self.assertEqual((r.state, r.schema_version, r.bench), ("complete", 2, "mencal:randread"))
        rec = r.records[0]
        self.assertEqual(rec.headline, "latency")
        self.assertAlmostEqual(rec.head.base_value, 120e-9)
        self.assertEqual(rec.head.better, "lower")
        self.assertAlmostEqual(rec.metrics["bandwidth"].in_unit("MB/s"), 500.0)

    def test_v2_headline_must_exist(self):
        doc = json.loads(json.dumps(V2))
        doc["records"][0]["headline"] = "nope"
        r = results.read_result(self.put(doc))
        self.assertEqual(r.state, "invalid")
        self.assertIn("headline names \"nope\"", r.why)

    def test_numbers_are_numbers(self):
        cases = (
            (("records", 0, "metrics", "best_rate_mbps", "value"), "1;touch x", "not a measured value"),
            (("records", 0, "metrics", "best_rate_mbps", "value"), -5, "not a measured value"),
            (("records", 0, "metrics", "best_rate_mbps", "value"), 1e300, "not a measured value"),
            (("records", 0, "metrics", "best_rate_mbps", "unit"), 7, "not a string"),
            (("records", 0, "metrics", "min_time_s", "stats", "cv"), "x", "stats.cv"),
            (("config", "caches"), {"l1d_bytes": "1;x=system(\"touch pwned\")"}, "config.caches.l1d_bytes"),
            (("llc",), {"total_bytes": [1]}, "llc.total_bytes"),
        )
        for path, value, why in cases:
            doc = json.loads(json.dumps(V1))
            d = doc
            for k in path[:-1]:
                d = d[k]
            d[path[-1]] = value
            r = results.read_result(self.put(doc))
            self.assertEqual(r.state, "invalid", path)
            self.assertIn(why, r.why, path)

    def test_null_is_unavailable_not_invalid(self):
        doc = json.loads(json.dumps(V1))
        doc["records"][0]["metrics"]["best_rate_mbps"]["value"] = None
        r = results.read_result(self.put(doc))
        self.assertEqual(r.state, "complete")
        self.assertIsNone(r.records[0].head.base_value)

    def test_a_time_of_zero_is_a_figure(self):
        # a CPU time of a short repetition is 0 when no clock tick fell in
        # it (mencal alloc's user_time): a figure, not a broken result
        doc = json.loads(json.dumps(V1))
        doc["records"][0]["metrics"]["user_time"] = {
            "value": 0, "unit": "s", "base_unit": "s", "scale": 1, "better": "lower",
            "stats": {"n": 1, "min": 0, "max": 0, "mean": 0, "median": 0}}
        r = results.read_result(self.put(doc))
        self.assertEqual(r.state, "complete", r.why)
        # a maximum below the minimum still is one
        doc["records"][0]["metrics"]["user_time"]["stats"]["min"] = 0.5
        r = results.read_result(self.put(doc))
        self.assertEqual(r.state, "invalid")
        self.assertIn("user_time.stats.min 0.5 is above stats.max 0", r.why)

    def test_not_result_documents(self):
        self.assertIn("not valid JSON", results.read_result(self.put("{cut")).why)
        self.assertIn("holds 0 JSON documents", results.read_result(self.put("")).why)
        self.assertEqual(
            results.read_result(self.put('{"schema": "memsuite/result/1", "records": [], "x": NaN}')).state,
            "unreadable")
        self.assertIn("schema nhc/1", results.read_result(self.put({"schema": "nhc/1"})).why)
        self.assertEqual(results.read_result(self.put(dict(V1, complete=False))).state, "incomplete")
        self.assertIn("failed its own validation",
                      results.read_result(self.put(dict(V1, validation={"passed": False}))).why)
        r = results.read_result(self.put(V1), tool="mbw")
        self.assertEqual(r.state, "invalid")
        self.assertIn("runs mbw", r.why)

    def test_fifo_does_not_block(self):
        p = os.path.join(self.tmp.name, "fifo.json")
        os.mkfifo(p)
        r = results.read_result(p)
        self.assertEqual(r.state, "unreadable")
        self.assertIn("FIFO", r.why)


class ReadRunDir(unittest.TestCase):
    def test_cells_in_plan_order(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "cells"))
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump({"schema": results.RUN_SCHEMA, "complete": True, "config": {}}, f)
            with open(os.path.join(d, "plan.tsv"), "w") as f:
                f.write("# id bench scenario size_bytes threads reps\n"
                        "s1\tstream\t-\t80000000\t2\t10\nm1\tmencal:randread\trandread\t1073741824\t1\t5\n")
            with open(os.path.join(d, "cells", "s1.json"), "w") as f:
                json.dump(V1, f)
            with open(os.path.join(d, "cells", "m1.json"), "w") as f:
                json.dump(V1, f)            # a stream result at a mencal cell's path
            run = results.RunDir(d)
            self.assertTrue(run.complete)
            self.assertEqual([c.id for c in run.cells], ["s1", "m1"])
            self.assertEqual(run.cells[0].result.state, "complete")
            self.assertEqual(run.cells[1].result.state, "invalid")
            with open(os.path.join(d, "plan.tsv"), "a") as f:
                f.write("bad line\n")
            with self.assertRaises(results.RunError):
                results.RunDir(d)


if __name__ == "__main__":
    unittest.main()
