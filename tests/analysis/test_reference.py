"""memsuite_analysis.reference: a reference is refused with the reason
(table of bad documents), never read from a FIFO; settings compare a
result with the reference's run and made_with blocks."""

import copy
import json
import os
import tempfile
import unittest

import _path  # noqa: F401
from memsuite_analysis import reference, results

GOOD = {"schema": "memsuite/ref/1", "run": {"bench": "stream", "size_bytes": 1 << 27, "threads": 2, "reps": 10},
        "metrics": [{"record": "Triad", "metric": "best_rate_mbps", "unit": "MB/s", "expected": 20600,
                     "lower_pct": 10, "upper_pct": None}]}


def bad(change):
    d = copy.deepcopy(GOOD)
    change(d)
    return d


def setm(k, v):
    return lambda d: d["metrics"][0].__setitem__(k, v)


def delm(k):
    return lambda d: d["metrics"][0].pop(k)


# (how the good reference is spoilt, the words of the reason)
PROBLEMS = (
    (lambda d: d.__setitem__("schema", "nhc/ref/2"), "schema is nhc/ref/2, expected memsuite/ref/1"),
    (lambda d: d.pop("schema"), "schema is missing, expected memsuite/ref/1"),
    (lambda d: d.__setitem__("rnu", {}), 'unknown key "rnu" (a typo?'),
    (lambda d: d.__setitem__("made_with", "stream"), '"made_with" must be an object'),
    (lambda d: d.__setitem__("made_with", {"env": {"cpu": {"model": 1}}}), '"made_with" must be an object'),
    (lambda d: d.pop("metrics"), 'no "metrics" array'),
    (lambda d: d.__setitem__("metrics", []), '"metrics" is empty: nothing to check'),
    (lambda d: d["metrics"].__setitem__(0, 5), "metrics[0] is not an object"),
    (setm("record", 7), 'metrics[0] has no "record"'),
    (setm("metric", ""), 'metrics[0] has no "metric"'),
    (setm("expected", 0), 'metrics[0] (Triad.best_rate_mbps): "expected" must be a number > 0 and below 1000000000000000'),
    (setm("expected", True), '"expected" must be a number > 0'),
    (setm("expected", 1e15), '"expected" must be a number > 0'),
    (setm("lower_pct", 130), '"lower_pct" must be a number 0..100'),
    (delm("lower_pct"), '"lower_pct" must be a number 0..100'),
    (setm("upper_pc", 5), 'unknown key "upper_pc" (a typo? known: record, metric, unit, expected, lower_pct, upper_pct)'),
    (setm("unit", 5), '"unit" must be a string (or left out)'),
    (delm("upper_pct"), '"upper_pct" is missing; give a number, or null for no upper bound'),
    (setm("upper_pct", -1), '"upper_pct" must be a number >= 0 or null'),
    (lambda d: d.__setitem__("run", []), '"run" is not an object'),
    (lambda d: d["run"].__setitem__("threds", 2), 'run: unknown key "threds"'),
    (lambda d: d["run"].__setitem__("threads", "two"), "run.threads must be a whole number > 0"),
    (lambda d: d["run"].__setitem__("reps", 1.5), "run.reps must be a whole number > 0"),
    (lambda d: d["run"].__setitem__("bench", 1), "run.bench must be a string"),
)


class Problems(unittest.TestCase):
    def test_good(self):
        self.assertIsNone(reference.problem(GOOD))
        self.assertIsNone(reference.problem(bad(delm("unit"))))      # no unit: compared as it is

    def test_each_problem_is_named(self):
        for spoil, words in PROBLEMS:
            why = reference.problem(bad(spoil))
            self.assertIsNotNone(why, words)
            self.assertIn(words, why)

    def test_metric_problems_come_before_the_run_block(self):
        d = bad(setm("unit", 5))
        d["run"]["threds"] = 1
        self.assertIn('"unit" must be a string', reference.problem(d))


class Files(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, name, text):
        p = os.path.join(self.d, name)
        with open(p, "w") as f:
            f.write(text)
        return p

    def refused(self, path):
        with self.assertRaises(reference.RefError) as c:
            reference.load(path)
        return str(c.exception)

    def test_fifo_never_blocks(self):
        p = os.path.join(self.d, "ff")
        os.mkfifo(p)
        self.assertEqual(self.refused(p), "cannot read reference %s: not a regular file (a FIFO or a device); "
                                          "name the reference file itself" % p)

    def test_missing_directory_empty_two_documents_nan(self):
        self.assertEqual(self.refused(os.path.join(self.d, "no")), "cannot read reference %s/no" % self.d)
        self.assertEqual(self.refused(self.d), "cannot read reference %s" % self.d)
        p = self.put("blank.json", " \n")
        self.assertIn("is empty: no JSON document", self.refused(p))
        p = self.put("two.json", "{} {}")
        self.assertIn("is not a JSON object (exactly one document is expected)", self.refused(p))
        p = self.put("nan.json", json.dumps(GOOD).replace("20600", "NaN"))
        self.assertIn('"expected" must be a number > 0', self.refused(p))

    def test_a_link_to_a_reference_is_read(self):
        p = self.put("ref.json", json.dumps(GOOD))
        os.symlink(p, os.path.join(self.d, "link.json"))
        r = reference.Reference(os.path.join(self.d, "link.json"), validate=True)
        self.assertEqual([m.name for m in r.metrics], ["Triad.best_rate_mbps"])
        self.assertIsNone(r.metrics[0].high)
        self.assertAlmostEqual(r.metrics[0].low, 18540.0)


RESULT = {"schema": "memsuite/result/1", "tool": "stream", "version": "0.1.0", "complete": True,
          "config": {"array_bytes": 1 << 27, "ntimes": 11}, "threads": {"counted": 2},
          "sysinfo": {"cpu_model": "AMD", "kernel": "6.1", "cores": 2},
          "records": [{"name": "Triad", "metrics": {"best_rate_mbps": {"value": 20713.4, "unit": "MB/s"}}}]}


class Settings(unittest.TestCase):
    def diffs(self, ref_doc, res_doc):
        ref = reference.Reference.__new__(reference.Reference)
        ref.run = ref_doc.get("run", {})
        ref.made_with = ref_doc.get("made_with")
        return list(reference.settings(ref, results.judge("r.json", res_doc)))

    def test_run_block_and_made_with(self):
        self.assertEqual(reference.run_block(results.judge("r.json", RESULT)),
                         {"bench": "stream", "size_bytes": 1 << 27, "threads": 2, "reps": 10})
        self.assertEqual(self.diffs(GOOD, RESULT), [])
        other = dict(RESULT, config={"array_bytes": 1 << 26, "ntimes": 11})
        self.assertEqual(self.diffs(GOOD, other),
                         [("refuse", "run.size_bytes 134217728 in the reference, 67108864 in the result")])
        mw = reference.made_with(results.judge("r.json", RESULT), "0.1.0")
        self.assertEqual(mw["env"], {"cpu_model": "AMD", "cores": 2, "kernel": "6.1"})
        ref = dict(GOOD, made_with=dict(mw, tool="mbw", env=dict(mw["env"], kernel="5.10", cpu_model="Intel")))
        self.assertEqual(self.diffs(ref, RESULT), [
            ("refuse", 'tool "mbw" in the reference, "stream" in the result'),
            ("refuse", 'cpu_model "Intel" in the reference, "AMD" here'),
            ("note", 'kernel "5.10" in the reference, "6.1" here')])

    def test_true_is_not_one(self):
        ref = dict(GOOD, made_with={"env": {"smt": True}})
        res = dict(RESULT, sysinfo={"smt": 1})
        self.assertEqual(self.diffs(ref, res), [("refuse", "smt true in the reference, 1 here")])


if __name__ == "__main__":
    unittest.main()
