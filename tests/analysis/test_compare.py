"""memsuite_analysis.compare: the table's change, noise, markers and the
verdict (table of row pairs), and the size labels."""

import unittest

import _path  # noqa: F401
from memsuite_analysis import compare


def row(rec, value, cv, unit="MB/s", better="higher", threads=1):
    return compare.Row(("stream", "-", 128 << 20, threads, rec, "best_rate_mbps"), value, cv, unit, better)


# (rows of A, rows of B, min noise, the last two lines: counts and verdict)
CASES = (
    ([row("Copy", 10000, 0.01)], [row("Copy", 12000, 0.01)], 10,
     "1 row(s); 1 change(s) beyond the noise (*: |change| > max(2 x sqrt(cvA^2 + cvB^2), 10%))",
     "verdict: improvement: 1 row(s) better beyond the noise, none worse"),
    ([row("Copy", 10000, 0.01)], [row("Copy", 10100, 0.01)], 10,
     "1 row(s); 0 change(s) beyond the noise (*: |change| > max(2 x sqrt(cvA^2 + cvB^2), 10%))",
     "verdict: no change beyond the noise in 1 judged row(s)"),
    ([row("Copy", 10000, 0.01)], [row("Copy", 8500, 0.01)], 10, None,
     "verdict: REGRESSION: 1 row(s) worse beyond the noise; worst stream 128.0 MiB x1 Copy.best_rate_mbps "
     "-15.0% (noise 10.0%)"),
    ([row("Lat", 80, 0.01, "ns", "lower")], [row("Lat", 100, 0.01, "ns", "lower")], 10, None,
     "verdict: REGRESSION: 1 row(s) worse beyond the noise; worst stream 128.0 MiB x1 Lat.best_rate_mbps "
     "+25.0% (noise 10.0%)"),
    # a single repetition (no CV) is still judged, against 2 x the floor
    ([row("Copy", 10000, None), row("Add", 1, 0.01, threads=2)], [row("Copy", 5000, 0.01)], 10,
     "2 row(s); 1 change(s) beyond the noise (*: |change| > max(2 x sqrt(cvA^2 + cvB^2), 10%)); 1 row(s) "
     "without a noise estimate (?: a single repetition), judged against |change| > 20% (2 x the floor); "
     "1 row(s) in one run only",
     "verdict: REGRESSION: 1 row(s) worse beyond the noise; worst stream 128.0 MiB x1 Copy.best_rate_mbps "
     "-50.0% (threshold 20.0%, no noise estimate) (1 of 2 row(s) not judged)"),
    ([row("Copy", 10000, None)], [row("Copy", 9000, 0.01)], 10, None,
     "verdict: no change beyond the noise in 1 judged row(s)"),
    ([row("Copy", None, 0.01)], [row("Copy", 100, 0.01)], 10, None,
     "verdict: no change beyond the noise in 0 judged row(s) (1 of 1 row(s) not judged)"),
)


class Table(unittest.TestCase):
    def test_verdicts(self):
        for a, b, noise, counts, verdict in CASES:
            t = compare.Table(a, b, noise, "", False)
            if counts:
                self.assertEqual(t.lines[-2], counts)
            self.assertEqual(t.lines[-1], verdict)
            self.assertEqual(t.regression, verdict.startswith("verdict: REGRESSION"))

    def test_noise_from_the_cvs_and_the_markers(self):
        t = compare.Table([row("Copy", 10000, 0.03)], [row("Copy", 9300, 0.0158)], 0, "", False)
        self.assertRegex(t.lines[1], r" -7\.0% +6\.8% \*$")
        self.assertTrue(t.regression)
        t = compare.Table([row("Copy", 10000, 0.01)], [], 10, "B (b)", True)
        self.assertEqual(t.lines[-2:], ["", "**verdict: none: no valid cell in B (b), nothing to compare**"])
        self.assertTrue(t.regression)
        self.assertIn("| stream | 128.0 MiB | 1 | Copy | best_rate_mbps | 10000.0 | - | - | - | only A |", t.lines)

    def test_size_label(self):
        self.assertEqual([compare.size_label(x) for x in (512, 1024, 1536, 128 << 20, 3 << 40)],
                         ["512 B", "1.0 KiB", "1.5 KiB", "128.0 MiB", "3.0 TiB"])


if __name__ == "__main__":
    unittest.main()


class EnvDiffs(unittest.TestCase):
    class Run:
        def __init__(self, facts):
            self.env = {"facts": [{"key": k, "verdict": "ok", "value": v} for k, v in facts]}

    def test_volatile_facts_are_no_difference(self):
        a = self.Run([("mem_available_bytes", 24774975488), ("cpu_freq_khz", 2096026), ("swappiness", 60)])
        b = self.Run([("mem_available_bytes", 24452694016), ("cpu_freq_khz", 2400000), ("swappiness", 10)])
        self.assertEqual(compare.env_diffs(a, b), [("swappiness", "60", "10")])
