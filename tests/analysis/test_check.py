"""memsuite_analysis.check, verdict, prom, record: each metric against its
band (table), the verdict from the evaluations, the Prometheus lines, and
a reference recorded from results (medians, tolerances, refusals)."""

import argparse
import copy
import os
import tempfile
import unittest

import _path  # noqa: F401
from memsuite_analysis import check, prom, record, reference, results, verdict

RES = {"schema": "memsuite/result/1", "tool": "stream", "complete": True,
       "records": [{"name": "Triad", "metrics": {"best_rate_mbps": {"value": 20713.4, "unit": "MB/s"}}},
                   {"name": "Copy", "metrics": {"best_rate_mbps": {"value": None, "unit": "MB/s"}}},
                   {"name": "Lat", "metrics": {"latency": {"value": 90.0, "unit": "ns"}}}]}


def metric(rec, met, expected, lower, upper, unit="MB/s"):
    m = {"record": rec, "metric": met, "expected": expected, "lower_pct": lower, "upper_pct": upper}
    if unit is not None:
        m["unit"] = unit
    return reference.RefMetric(m)


# (reference metric, pass, the text line)
JUDGED = (
    (metric("Triad", "best_rate_mbps", 20600, 10, None), True,
     "PASS  Triad.best_rate_mbps         20713.4 MB/s  expected 20600.0 (-10%/+inf: >= 18540.0)"),
    (metric("Triad", "best_rate_mbps", 25000, 10, None), False,
     "FAIL  Triad.best_rate_mbps         20713.4 MB/s  expected 25000.0 (-10%/+inf: >= 22500.0)"),
    (metric("Triad", "best_rate_mbps", 15000, 10, 25), False,
     "FAIL  Triad.best_rate_mbps         20713.4 MB/s  expected 15000.0 (-10%/+25%: 13500.0..18750.0)"),
    (metric("Triad", "best_rate_mbps", 20600, 10, None, unit=None), True,
     "PASS  Triad.best_rate_mbps         20713.4 MB/s  expected 20600.0 (-10%/+inf: >= 18540.0)"),
    (metric("Triad", "best_rate_mbps", 20.6, 10, None, unit="GB/s"), True,     # converted
     "PASS  Triad.best_rate_mbps         20.7 GB/s  expected 20.6 (-10%/+inf: >= 18.5)"),
    (metric("Copy", "best_rate_mbps", 18500, 10, 25), False,
     "FAIL  Copy.best_rate_mbps          reported unavailable (expected 18500.0 MB/s)"),
    (metric("Add", "best_rate_mbps", 18500, 10, 25), False,
     "FAIL  Add.best_rate_mbps           missing from the result (expected 18500.0 MB/s)"),
    (metric("Lat", "latency", 80, 100, 20, unit="ns"), True,
     "PASS  Lat.latency                  90.0 ns  expected 80.0 (-100%/+20%: 0.0..96.0)"),
    (metric("Lat", "latency", 70, 100, 20, unit="ns"), False,
     "FAIL  Lat.latency                  90.0 ns  expected 70.0 (-100%/+20%: 0.0..84.0)"),
    (metric("Triad", "best_rate_mbps", 20.6, 10, None, unit="ns"), False,      # another quantity
     "FAIL  Triad.best_rate_mbps         unit MB/s in the result, ns in the reference (expected 20.6 ns)"),
)


class Judge(unittest.TestCase):
    def test_each_metric(self):
        res = results.judge("r.json", RES)
        for m, ok, line in JUDGED:
            row = check.judge(m, res, "")
            self.assertEqual((row.ok, row.line), (ok, line))
            self.assertEqual(row.why is None, ok)

    def test_evaluation_counts_and_what_failed(self):
        ref = argparse.Namespace(metrics=[JUDGED[0][0], JUDGED[1][0], JUDGED[6][0]])
        ev = check.evaluate(ref, results.judge("r.json", RES), "node1: ")
        self.assertEqual((ev.total, ev.fails), (3, 2))
        self.assertEqual(ev.failed, "node1: Triad.best_rate_mbps 20713.4 < 22500.0; "
                                    "node1: Add.best_rate_mbps missing from the result")
        rows = ev.to_doc()["rows"]
        self.assertEqual([r["numa_node"] for r in rows], [1, 1, 1])
        self.assertEqual((rows[1]["low"], rows[1]["value"], rows[2]["value"]), (22500.0, 20713.4, None))


def args(**kw):
    a = dict(format="text", host="n17", verdict=None, exit=0, summary="", reason="", lines="", label="result r",
             after=0, ref="", ref_id="", run="", attempts=0, started="", seconds=0, busy=0, notes="", idle="",
             version="")
    a.update(kw)
    return argparse.Namespace(**a)


class Verdict(unittest.TestCase):
    def evals(self, *judged):
        ref = argparse.Namespace(metrics=[j[0] for j in judged])
        return [check.evaluate(ref, results.judge("r.json", RES)).to_doc()]

    def test_pass_fail_error(self):
        v = verdict.decide(args(), self.evals(JUDGED[0]))
        self.assertEqual((v.verdict, v.exit, v.summary),
                         ("PASS", 0, "memsuite: PASS 1/1 metrics within tolerance on n17 (result r)"))
        v = verdict.decide(args(label="stream 128.0 MiB x2", after=2), self.evals(JUDGED[0], JUDGED[1]))
        self.assertEqual((v.verdict, v.exit), ("FAIL", 1))
        self.assertEqual(v.summary, "memsuite: FAIL 1/2 metrics out of tolerance on n17 (stream 128.0 MiB x2, "
                                    "after 2 attempt(s)): Triad.best_rate_mbps 20713.4 < 22500.0")
        v = verdict.decide(args(verdict="ERROR", exit=5, summary="memsuite: ERROR node busy"), [])
        self.assertEqual((v.verdict, v.exit, v.lines, v.rows), ("ERROR", 5, [], []))

    def test_prom(self):
        v = verdict.decide(args(), self.evals(JUDGED[0], JUDGED[6]))
        text = prom.check('n"1', v, 0, 3, 1700000000)
        self.assertIn('memsuite_check_verdict{host="n\\"1",verdict="FAIL"} 1\n', text)
        self.assertIn('memsuite_check_value{host="n\\"1",record="Triad",metric="best_rate_mbps",unit="MB/s"} 20713.4\n', text)
        self.assertIn('memsuite_check_expected{host="n\\"1",record="Add",metric="best_rate_mbps",unit="MB/s"} 18500\n', text)
        self.assertIn('memsuite_check_low{host="n\\"1",record="Triad",metric="best_rate_mbps",unit="MB/s"} 18540.000\n', text)
        self.assertNotIn('memsuite_check_value{host="n\\"1",record="Add"', text)       # no value: no sample
        self.assertNotIn('memsuite_check_high{host="n\\"1",record="Triad"', text)     # unbounded
        self.assertIn('memsuite_check_high{host="n\\"1",record="Add",metric="best_rate_mbps",unit="MB/s"} 23125.000\n', text)
        self.assertEqual(text.count("# TYPE memsuite_check_value gauge"), 1)

    def test_prom_memory_and_diagnosis(self):
        from memsuite_analysis import diagnosis
        now = {"slots": [{"locator": "DIMM_A1", "populated": True}, {"locator": "DIMM_A2", "populated": False}],
               "channels_per_socket": [{"socket": 0, "channels": 1}],
               "edac": [{"controller": "mc0", "ce_count": 7, "ue_count": 0,
                         "dimms": [{"dimm": "dimm0", "label": "CPU_SrcID#0_Ha#0_Chan#0_DIMM#0", "ce_count": 7, "ue_count": 0}]}]}
        text = prom.memory("n1", diagnosis.gauges(now))
        self.assertIn('memsuite_memory_dimm_slots{host="n1"} 2\n', text)
        self.assertIn('memsuite_memory_dimms_populated{host="n1"} 1\n', text)
        self.assertIn('memsuite_memory_channels_populated{host="n1",socket="0"} 1\n', text)
        self.assertIn('memsuite_memory_edac_corrected_errors{host="n1",controller="mc0",dimm=""} 7\n', text)
        self.assertIn('memsuite_memory_edac_corrected_errors{host="n1",controller="mc0",dimm="dimm0",'
                      'label="CPU_SrcID#0_Ha#0_Chan#0_DIMM#0"} 7\n', text)
        self.assertIn('memsuite_memory_edac_uncorrected_errors{host="n1",controller="mc0",dimm=""} 0\n', text)
        # a node that cannot say: no gauge, never 0
        self.assertEqual(prom.memory("n1", diagnosis.gauges({"slots": None, "edac": None})), "")
        self.assertEqual(prom.memory("n1", None), "")
        d = [{"kind": "population", "subject": "DIMM_A2", "severity": "fail"}]
        self.assertIn('memsuite_check_diagnosis{host="n1",kind="population",subject="DIMM_A2",severity="fail"} 1\n',
                      prom.diagnosis("n1", d))

    def test_prom_idle(self):
        text = prom.idle("n1", {"cpus_busy_pct": "12.5", "cpus": "2", "others_cpus": "-", "load1": "0.02",
                                "steal_pct": "x"})
        self.assertIn('memsuite_check_busy_cpus_busy_ratio{host="n1"} 0.125\n', text)
        self.assertIn('memsuite_check_busy_mask_cpus{host="n1"} 2\n', text)
        self.assertIn('memsuite_check_busy_load1{host="n1"} 0.02\n', text)
        self.assertNotIn("other_cpus", text)        # a look not taken: left out, never 0
        self.assertNotIn("steal", text)

    def test_json_document(self):
        v = verdict.decide(args(), self.evals(JUDGED[0]))
        d = verdict.json_doc(args(run='{"bench": "stream"}', idle="load1\t0.02\nskipped\t-\ncpu_list\t0-1"), v, 0)
        self.assertEqual((d["schema"], d["run"], d["finished"]), ("memsuite/check/1", {"bench": "stream"},
                                                                  "1970-01-01T00:00:00Z"))
        self.assertEqual(d["idle"], {"load1": 0.02, "skipped": None, "cpu_list": "0-1"})
        self.assertEqual((d["metrics"][0]["low"], d["metrics"][0]["high"]), (18540, None))


class Record(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, name, doc):
        import json
        p = os.path.join(self.tmp.name, name)
        with open(p, "w") as f:
            json.dump(doc, f)
        return p

    def result(self, name, factor, change=None):
        d = copy.deepcopy(RES)
        d["records"] = [{"name": "Triad", "metrics": {"best_rate_mbps": {"value": 20000 * factor, "unit": "MB/s"}}},
                        {"name": "Lat", "metrics": {"latency": {"value": 90.0 * factor, "unit": "ns"}}}]
        if change:
            change(d)
        return self.put(name, d)

    def make(self, paths, floor=5, cap=30, upper=None):
        return record.make(paths, floor, cap, upper, {}, lambda r: reference.made_with(r, "0.1"), "h", "t")

    def test_median_and_tolerance_by_direction(self):
        ps = [self.result("r%d.json" % i, f) for i, f in enumerate((1.0, 1.05, 1.1))]
        doc = self.make(ps)
        lat, tri = doc["metrics"]           # sorted by record
        self.assertEqual((tri["expected"], tri["lower_pct"], tri["upper_pct"], tri["runs"]), (21000, 14.3, None, 3))
        self.assertEqual((lat["expected"], lat["lower_pct"], lat["upper_pct"]), (94.5, 100, 14.3))
        self.assertIsNone(reference.problem(doc))
        self.assertIn("  Triad.best_rate_mbps expected 21000 MB/s -14.3%/+inf (spread 9.5% over 3 runs)",
                      record.summary_lines(doc))

    def test_refusals(self):
        good = self.result("good.json", 1.0)
        cases = (
            (lambda d: d["records"][0]["metrics"].__setitem__("best_rate_mbps", {"value": 20.0, "unit": "GB/s"}),
             "Triad.best_rate_mbps is in MB/s in %s but in GB/s in" % good, 2),
            (lambda d: d["records"][0]["metrics"]["best_rate_mbps"].__setitem__("value", None),
             "Triad.best_rate_mbps is reported unavailable in", 2),
            (lambda d: d["records"].pop(0), "Triad.best_rate_mbps is in 1 of the 2 results:", 2),
            (lambda d: d["records"][0].__setitem__("metrics", {"t": {"value": 1.0, "unit": "s"}}),
             "record Triad of", 2),
            (lambda d: d.__setitem__("complete", False), "the result is incomplete", 2),
            (lambda d: d.__setitem__("config", {"array_bytes": 5}), "the results were not made by the same run", 2),
        )
        for i, (change, words, code) in enumerate(cases):
            with self.assertRaises(record.Unfit) as c:
                self.make([good, self.result("bad%d.json" % i, 1.0, change)])
            self.assertIn(words, str(c.exception))
            self.assertEqual(c.exception.code, code)

    def test_too_noisy(self):
        with self.assertRaises(record.Unfit) as c:
            self.make([self.result("a.json", 1.0), self.result("b.json", 1.5)])
        self.assertEqual(c.exception.code, 1)
        self.assertIn("the runs vary too much to make a useful reference", str(c.exception))


if __name__ == "__main__":
    unittest.main()
