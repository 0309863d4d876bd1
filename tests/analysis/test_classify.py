"""memsuite_analysis.classify: verdicts, order, claims, busy nodes and the
reference check, from summaries built in memory."""

import unittest

import _path  # noqa: F401
from memsuite_analysis import classify, model, reference


class Ref:
    def __init__(self, metrics):
        self.id = "sha256:good"
        self.metrics = [reference.RefMetric(m) for m in metrics]
        self.units = {m.name: m.unit for m in self.metrics}


REF = Ref([{"record": "T", "metric": "bw", "unit": "MB/s", "expected": 100, "lower_pct": 10, "upper_pct": None},
           {"record": "L", "metric": "lat", "unit": "ns", "expected": 80, "lower_pct": 100, "upper_pct": 20}])


def entry(stem, node=None, verdict="PASS", exit=0, summary="s", bw=100.0, lat=80.0, ref_id="sha256:good"):
    doc = {"schema": model.NODE_SCHEMA, "node": stem if node is None else node, "verdict": verdict, "exit": exit,
           "summary": summary, "ref": {"id": ref_id},
           "metrics": [{"record": "T", "metric": "bw", "value": bw}, {"record": "L", "metric": "lat", "value": lat}]}
    return model.Entry(stem + ".json", "d/%s.json" % stem, stem, "report", report=model.Report(stem, doc))


def judge(entries, expected=()):
    pop = classify.Population(entries)
    spread = classify.spreads(pop, REF, 5, 0.5)
    return pop, classify.Judgement(pop, REF, spread, dict.fromkeys(expected), 5, "d")


class Judge(unittest.TestCase):
    def test_verdicts_and_order(self):
        nodes = [entry("n%02d" % i, bw=100.0 + i * 0.01) for i in range(10)]
        nodes += [entry("slow", bw=90.5),                    # passes, but far below the median
                  entry("fail", bw=80.0),                     # below 90: FAIL
                  entry("late", lat=100.0),                   # a time above 96: FAIL
                  entry("err", verdict="ERROR", exit=3, summary="arrays do not fit", bw=None, lat=None),
                  entry("busy", verdict="ERROR", exit=5, summary="node busy", bw=None, lat=None),
                  entry("lock", verdict="ERROR", exit=3, summary="x: another memsuite run holds the lock /l",
                        bw=None, lat=None),
                  entry("claim", node="n01", bw=1.0),
                  model.Entry(".gone.json", "d/.gone.json", "gone", "hidden", "is a hidden file (not read)")]
        pop, j = judge(nodes, expected=["ghost"])
        rows = {r.node: r for r in j.rows}
        table = (
            ("ghost", "MISSING", "-", "memsuite: no report"),
            ("err", "ERROR", "-", "memsuite: check could not run: arrays do not fit"),
            ("busy", "ERROR", "-", ""), ("lock", "ERROR", "-", ""),
            ("claim", "ERROR", "-", "memsuite: report names another node"),
            ("gone", "ERROR", "-", "memsuite: report unreadable"),
            ("fail", "FAIL", "SLOW", "memsuite: FAIL T.bw 80.0 < 90.0"),
            ("late", "FAIL", "SLOW", "memsuite: FAIL L.lat 100.0 > 96.0"),
            ("slow", "PASS", "SLOW", None),
            ("n05", "PASS", "-", ""),
        )
        for node, status, outlier, reason in table:
            with self.subTest(node=node):
                r = rows[node]
                self.assertEqual((r.status, r.outlier), (status, outlier))
                if reason is None:
                    self.assertTrue(r.reason.startswith("memsuite: outlier T.bw 90.5 is "), r.reason)
                else:
                    self.assertEqual(r.reason, reason)
        self.assertIn("not in the expected node list", rows["n05"].detail)
        self.assertTrue(rows["busy"].detail.startswith("busy, not judged (rerun when idle): "))
        # the claim counts for neither node: n01 keeps its own values
        self.assertEqual(rows["n01"].status, "PASS")
        self.assertEqual(classify.spreads(pop, REF, 5, 0.5)["T.bw"][0].n, 13)   # the claim is not counted
        order = [r.status for r in j.rows]
        self.assertEqual(order, sorted(order, key=["MISSING", "ERROR", "FAIL", "PASS"].index))
        self.assertEqual([r.node for r in j.rows[:7]], ["ghost", "busy", "claim", "err", "gone", "lock", "fail"])
        self.assertEqual(j.outliers["T.bw"], [2, 0])
        self.assertEqual(j.outliers["L.lat"], [1, 0])
        self.assertFalse(j.ok())

    def test_the_drain_reason_names_the_dimm_first(self):
        nodes = [entry("n%02d" % i) for i in range(5)]
        bad = entry("dimm", verdict="FAIL", exit=1, bw=80.0)
        bad.report.diagnosis = ("memory population: CPU1_DIMM_D1: reference 16 GB DDR4, found empty",)
        # what a report file brings: strings only, a few, each cut; none for a PASS
        doc = {"node": "x", "verdict": "FAIL", "diagnosis": ["d" * 500, 5] + ["e"] * 9}
        self.assertEqual(model.Report("x", doc).diagnosis, ("d" * 200, "e", "e"))
        self.assertEqual(model.Report("x", dict(doc, verdict="PASS")).diagnosis, ())
        _, j = judge(nodes + [bad])
        row = next(r for r in j.rows if r.node == "dimm")
        self.assertEqual(row.status, "FAIL")
        self.assertTrue(row.reason.startswith("memsuite: FAIL memory population: CPU1_DIMM_D1: reference 16 GB DDR4, "
                                              "found empty; T.bw 80.0 < 90.0"), row.reason)

    def test_healthy(self):
        _, j = judge([entry("a"), entry("b", bw=100.2), entry("c", bw=99.9)])
        self.assertTrue(j.ok())
        self.assertEqual(j.counts()["PASS"], 3)

    def test_a_report_that_contradicts_itself_is_error(self):
        # hostile sweep cluster-035..038: both were counted as PASS
        nodes = [entry("a"), entry("b"), entry("odd", verdict="MAYBE"), entry("num", verdict=7),
                 entry("pass1", exit=1), entry("passs", exit="2"), entry("fail", verdict="FAIL", exit=1)]
        _, j = judge(nodes)
        rows = {r.node: r for r in j.rows}
        table = (("a", "PASS", ""), ("b", "PASS", ""),
                 ("odd", "ERROR", "memsuite: report not trusted: the report's verdict MAYBE is not PASS, FAIL or ERROR"),
                 ("num", "ERROR", "memsuite: report not trusted: the report's verdict 7 is not PASS, FAIL or ERROR"),
                 ("pass1", "ERROR", "memsuite: report not trusted: the report says PASS but check exited 1"),
                 ("passs", "ERROR", "memsuite: report not trusted: the report says PASS but check exited 2"),
                 ("fail", "FAIL", None))
        for node, status, reason in table:
            with self.subTest(node=node):
                self.assertEqual(rows[node].status, status)
                if reason is not None:
                    self.assertEqual(rows[node].reason, reason)
        self.assertEqual(j.counts()["ERROR"], 4)
        self.assertFalse(j.ok())


class Refs(unittest.TestCase):
    def test_one_reference(self):
        pop = classify.Population([entry("a"), entry("b")])
        self.assertIsNone(classify.refs_problem(pop, "sha256:good"))

    def test_mixed(self):
        pop = classify.Population([entry("n%d" % i, ref_id="sha256:old" if i % 2 else "sha256:good") for i in range(1, 9)])
        why = classify.refs_problem(pop, "sha256:good")
        self.assertEqual(why, "2 different references: sha256:old...: 4 nodes (n1,n3,n5,...); "
                              "sha256:good... (this --ref): 4 nodes (n2,n4,n6,...)")
        why = classify.refs_problem(classify.Population([entry("a", ref_id="")]), "sha256:good")
        self.assertEqual(why, "2 different references: no reference id: 1 node (a); none against this --ref (sha256:good...)")


if __name__ == "__main__":
    unittest.main()
