"""memsuite_analysis.node_report: a cluster node's report from what its
memsuite check printed: values from the PASS/FAIL lines, the verdict from
the exit status, the summary (or why there is none)."""

import argparse
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

import _path  # noqa: F401
from memsuite_analysis import node_report

REF = {"schema": "memsuite/ref/1", "created": "2026-01-01T00:00:00Z", "metrics": [
    {"record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 12000, "lower_pct": 10},
    {"record": "Copy", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 11000.5, "lower_pct": 10},
    {"record": "Scale", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 9000, "lower_pct": 10}]}

PASS_OUT = """PASS  Triad.best_rate_mbps         12001.5 MB/s  expected 12000.0 (-10%/+inf: >= 10800.0)
FAIL  Copy.best_rate_mbps          9000 MB/s  expected 11000.5 (-10%/+inf: >= 9900.5)
FAIL  Scale.best_rate_mbps         missing from the result (expected 9000.0 MB/s)
memsuite: FAIL 2/3 metrics out of tolerance on n1 (stream 128.0 MiB x2): Copy...
"""


class NodeReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def file(self, name, text):
        p = os.path.join(self.dir.name, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def report(self, code, out, err=""):
        args = argparse.Namespace(
            ref=self.file("ref.json", json.dumps(REF)), ref_id="sha256:" + "0" * 64, node="n1", host="n1.x",
            run_id="r1", exit=code, started="S", finished="F", seconds=7,
            stdout=self.file("out", out), stderr=self.file("err", err))
        buf = io.StringIO()
        with redirect_stdout(buf):
            self.assertEqual(node_report.run(args), 0)
        text = buf.getvalue()
        self.assertEqual(text.count("\n"), 1, "one line")
        return json.loads(text)

    def test_values_and_passes_from_check_lines(self):
        d = self.report(1, PASS_OUT)
        self.assertEqual((d["schema"], d["verdict"], d["exit"], d["node"], d["run_id"]),
                         ("memsuite/cluster-node/1", "FAIL", 1, "n1", "r1"))
        self.assertEqual([(m["record"], m["value"], m["pass"], m["expected"]) for m in d["metrics"]],
                         [("Triad", 12001.5, True, 12000), ("Copy", 9000, False, 11000.5),
                          ("Scale", None, False, 9000)])
        self.assertTrue(d["summary"].startswith("memsuite: FAIL 2/3"))
        self.assertEqual(d["ref"]["created"], "2026-01-01T00:00:00Z")
        self.assertEqual(len(d["lines"]), 4)

    def test_the_diagnosis_fails_are_kept(self):
        out = ("FAIL  memory population: CPU1_DIMM_D1: reference 16 GB DDR4 3200 MT/s rank 2, found empty\n"
               "FAIL  EDAC: mc0 CPU1_DIMM_A1: 5 corrected error(s), more than --max-ce 4\n" + PASS_OUT)
        d = self.report(1, out)
        self.assertEqual(d["diagnosis"], ["memory population: CPU1_DIMM_D1: reference 16 GB DDR4 3200 MT/s rank 2, "
                                          "found empty", "EDAC: mc0 CPU1_DIMM_A1: 5 corrected error(s), more than --max-ce 4"])
        self.assertEqual(self.report(1, PASS_OUT)["diagnosis"], [])

    def test_error_passes_nothing(self):
        d = self.report(5, PASS_OUT.replace("memsuite: FAIL 2/3", "memsuite: ERROR busy"))
        self.assertEqual(d["verdict"], "ERROR")
        self.assertEqual([m["pass"] for m in d["metrics"]], [False, False, False])
        self.assertEqual(d["metrics"][0]["value"], 12001.5)

    def test_no_summary_names_the_exit_and_last_error(self):
        err = "".join("memsuite: line %d\n" % i for i in range(8)) + "memsuite: check: running: stream\n"
        d = self.report(3, "", err)
        self.assertEqual(d["summary"], "memsuite check exited 3: memsuite: line 7")
        self.assertEqual(len(d["stderr_tail"]), 5)
        self.assertEqual(d["stderr_tail"][-1], "memsuite: check: running: stream")
        self.assertEqual([m["value"] for m in d["metrics"]], [None, None, None])
        self.assertEqual(self.report(3, "")["summary"], "memsuite check exited 3")

    def test_unreadable_reference_is_exit_3(self):
        args = argparse.Namespace(ref=os.path.join(self.dir.name, "none.json"), ref_id="", node="n", host="h",
                                  run_id="", exit=0, started="", finished="", seconds=0,
                                  stdout=self.file("o", ""), stderr=self.file("e", ""))
        with redirect_stdout(io.StringIO()):
            self.assertEqual(node_report.run(args), 3)


if __name__ == "__main__":
    unittest.main()
