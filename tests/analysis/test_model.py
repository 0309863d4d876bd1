"""memsuite_analysis.model: every directory entry is accounted for, by name,
and nothing blocks."""

import json
import os
import tempfile
import unittest

import _path  # noqa: F401
from memsuite_analysis import model

REF_ID = "sha256:" + "0123456789abcdef" * 4
REPORT = {"schema": model.NODE_SCHEMA, "node": "n1", "run_id": "r1", "ref": {"id": REF_ID},
          "verdict": "PASS", "exit": 0, "summary": "memsuite: PASS",
          "metrics": [{"record": "Triad", "metric": "best_rate_mbps", "value": 12000.5},
                      {"record": "Copy", "metric": "best_rate_mbps", "value": None}]}


class ReadDirectory(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, name, content):
        with open(os.path.join(self.d, name), "w") as f:
            f.write(content if isinstance(content, str) else json.dumps(content))

    def entries(self, run_id=""):
        return {e.name: e for e in model.read_directory(self.d, run_id)}

    def test_kinds(self):
        self.put("n1.json", REPORT)
        self.put("n2.json", dict(REPORT, node="n1"))            # a claim: kept as a report of n1
        self.put("empty.json", "")
        self.put("broken.json", "{broken")
        self.put("nan.json", '{"schema": "%s", "node": "nan", "exit": NaN}' % model.NODE_SCHEMA)
        self.put("other.json", {"schema": "memsuite/result/1"})
        self.put("list.json", [1, 2])
        self.put("deep.json", "[" * 100000 + "]" * 100000)     # hostile sweep cluster-015: RecursionError
        self.put("noname.json", dict(REPORT, node=""))
        self.put("notes.txt", "x")
        self.put(".n3.json", REPORT)
        os.mkfifo(os.path.join(self.d, "fifo.json"))            # never opened for long: no writer
        os.symlink("n1.json", os.path.join(self.d, "link.json"))
        os.mkdir(os.path.join(self.d, "dir.json"))
        e = self.entries()
        table = (
            ("n1.json", "report", "n1", ""), ("n2.json", "report", "n2", ""),
            ("empty.json", "unreadable", "empty", "is empty (a truncated report?)"),
            ("broken.json", "unreadable", "broken", "is not valid JSON (line 1 column 2: "),
            ("nan.json", "unreadable", "nan", "is not valid JSON ("),
            ("other.json", "other", "other", "is not a node report (schema memsuite/result/1)"),
            ("list.json", "other", "list", "is not a node report (schema array)"),
            ("deep.json", "unreadable", "deep", "is not valid JSON (nested too deeply to read)"),
            ("noname.json", "unreadable", "noname", "has no node name"),
            ("notes.txt", "ignored", None, "is not named NODE.json"),
            (".n3.json", "hidden", "n3", "is a hidden file (not read)"),
            ("fifo.json", "unreadable", "fifo", "is a FIFO (not read)"),
            ("link.json", "unreadable", "link", "is a symbolic link (not followed)"),
            ("dir.json", "unreadable", "dir", "is a directory"),
        )
        self.assertEqual(sorted(e), sorted(t[0] for t in table))
        for name, kind, stem, why in table:
            with self.subTest(name=name):
                self.assertEqual((e[name].kind, e[name].stem), (kind, stem))
                self.assertTrue(e[name].why.startswith(why), e[name].why)
        rep = e["n2.json"].report
        self.assertEqual((rep.stem, rep.node, rep.ref_id), ("n2", "n1", REF_ID))
        self.assertEqual(rep.values, {"Triad.best_rate_mbps": 12000.5, "Copy.best_rate_mbps": None})

    def test_stale_run(self):
        self.put("b.json", dict(REPORT, node="b"))
        self.put("a.json", dict(REPORT, node="a", run_id="r0"))
        e = sorted(model.read_directory(self.d, "r1"), key=lambda x: x.name)
        self.assertEqual([(x.name, x.kind, x.why) for x in e], [("a.json", "stale", "r0"), ("b.json", "report", "")])

    def test_a_passing_node_keeps_no_summary(self):
        self.put("n1.json", REPORT)
        self.put("n2.json", dict(REPORT, node="n2", verdict="FAIL", summary="memsuite: FAIL 1/2"))
        e = self.entries()
        self.assertEqual((e["n1.json"].report.summary, e["n2.json"].report.summary), ("", "memsuite: FAIL 1/2"))

    def test_text_fields_are_one_line_and_cut(self):
        self.put("n1.json", dict(REPORT, summary="a\tb\nc\\" + "x" * 5000, verdict=7))
        rep = self.entries()["n1.json"].report
        self.assertTrue(rep.summary.startswith("a\\tb\\nc\\\\x"))
        self.assertEqual(len(rep.summary), model.SUMMARY_MAX_CHARS + len("...(cut)"))
        self.assertEqual(rep.verdict, "7")

    def test_one_line_keeps_names_apart(self):
        # two file names never show as one: the escaping is reversible
        names = ["a\nb", "a\\nb", "a\tb", "a\\tb", "a\\", "a\\\\", "a\rb"]
        shown = [model.one_line(n) for n in names]
        self.assertEqual(len(set(shown)), len(names))
        self.assertTrue(all("\n" not in s and "\t" not in s and "\r" not in s for s in shown))
        self.assertEqual(model.one_line(5), "5")
        self.assertEqual(model.one_line(None), "")

    def test_numbers_only(self):
        # 1 and 400 zeros: an integer past a double's range (OverflowError)
        for value in ("true", '"12"', "1e400", "null", "{}", "1" + "0" * 400, "-1" + "0" * 400):
            with self.subTest(value=value):
                doc = json.dumps(dict(REPORT, metrics=[{"record": "T", "metric": "m", "value": 0}]))
                self.put("n1.json", doc.replace('"value": 0', '"value": ' + value))
                self.assertEqual(self.entries()["n1.json"].report.values, {"T.m": None})


    def test_huge_exit_status_is_infinite_never_zero(self):
        self.put("n1.json", json.dumps(REPORT).replace('"exit": 0', '"exit": 1' + "0" * 400))
        self.assertEqual(self.entries()["n1.json"].report.exit, float("inf"))

    def test_a_report_that_names_no_reference_is_invalid(self):
        cases = (
            ({k: v for k, v in REPORT.items() if k != "ref"}, 'has no "ref" block (no reference id)'),
            (dict(REPORT, ref=[1]), 'has a "ref" of type array, not an object (no reference id)'),
            (dict(REPORT, ref={}), "has no reference id (ref.id)"),
            (dict(REPORT, ref={"id": "garbage"}), 'has the reference id "garbage", not sha256:<64 hex digits>'),
            (dict(REPORT, ref={"id": 7}), 'has the reference id "7", not sha256:<64 hex digits>'),
            (dict(REPORT, ref={"id": REF_ID.upper()}), 'has the reference id "SHA256:'),
            (dict(REPORT, ref={"id": "x\n" * 100}), 'has the reference id "x\\nx\\n'),
        )
        for doc, why in cases:
            with self.subTest(why=why):
                self.put("n1.json", doc)
                e = self.entries()["n1.json"]
                self.assertEqual((e.kind, e.stem), ("invalid", "n1"))
                self.assertTrue(e.why.startswith(why), e.why)
        self.assertTrue(e.why.endswith('...(cut, 300 characters)", not sha256:<64 hex digits>'), e.why)


if __name__ == "__main__":
    unittest.main()
