"""memsuite_analysis.peers: ratios paired within a round, medians over
rounds, every pair kept; the table as memsuite peers prints it."""

import unittest

import _path  # noqa: F401
from memsuite_analysis import peers, rundir_check

ROWS = [["lat", "multichase", "randread", "multichase", "ns", "lower", "0.97-1.03"],
        ["bw", "likwid", "seqread", "likwid", "GB/s", "higher", "0.97-"],
        ["gone", "x", "ours", "peer", "ns", "lower", "-"]]
# round 1: ours 100 vs 100; round 2: ours 110 vs 100; round 3: ours 90 vs 60 (a slow phase)
DATA = [["1", "lat", "ours", "100", "median 104"], ["1", "lat", "peer", "100", ""],
        ["2", "lat", "peer", "100", ""], ["2", "lat", "ours", "110", ""],
        ["3", "lat", "ours", "90", ""], ["3", "lat", "peer", "60", ""],
        ["1", "bw", "ours", "40", ""]]


class Build(unittest.TestCase):
    def doc(self):
        return peers.build(ROWS, DATA, [["bw", "peer: no figure (read 'x')"]], [["sysbench", "not installed"]],
                           {"cpu_model": "Fake"}, 3, 2, 1 << 30, "2026-12-02T00:00:00Z")

    def test_pairs_within_a_round(self):
        lat = self.doc()["rows"][0]
        # per-round ratios 1.0, 1.1, 1.5: median 1.1 (the medians apart would give 100/100 = 1.0)
        self.assertAlmostEqual(lat["ratio"], 1.1)
        self.assertEqual((lat["ours_median"], lat["peer_median"], lat["rounds_paired"]), (100, 100, 3))
        self.assertEqual([(p["round"], p["first"]) for p in lat["per_round"]], [(1, "ours"), (2, "peer"), (3, "ours")])
        self.assertEqual(lat["per_round"][0]["ours_detail"], "median 104")

    def test_unpaired_and_absent_rows(self):
        d = self.doc()
        bw = d["rows"][1]
        self.assertIsNone(bw["ratio"])
        self.assertEqual(bw["unavailable"], "peer: no figure (read 'x')")
        self.assertEqual([r["id"] for r in d["rows"]], ["lat", "bw"])     # no figure at all: no row
        self.assertEqual(d["not_run"], [{"group": "sysbench", "why": "not installed"}])

    def test_text(self):
        t = peers.text(self.doc())
        self.assertTrue(t[0].startswith("memsuite peers: Fake; microcode unavailable: None"))
        # per-round ratios 1.0, 1.1, 1.5: range 1-1.5, and a median known to
        # +-38% (two standard errors), far wider than the target's 3%
        self.assertRegex(t[3], r"^lat +randread +multichase +ns +100 +100 +1\.1 +1-1\.5 +0\.97-1\.03 "
                               r"unsettled: median \+-38\.3% \(2 SE over 3 rounds\)$")
        lat = self.doc()["rows"][0]
        self.assertEqual((lat["ratio_range"], lat["rounds_in_target"]), ([1.0, 1.5], 1))
        self.assertRegex(t[4], r"^bw .* 40 +- +unavailable: peer: no figure")
        self.assertIn("not run: sysbench: not installed", t)

    def test_rounding_as_jq(self):
        self.assertEqual(peers._fig(46450.45), "46450.5")      # halves away from zero
        self.assertEqual(peers._fig(20.0), "20")
        self.assertEqual(peers._fig(1.0005), "1.001")


class Variants(unittest.TestCase):
    """A peer with several variants a round (likwid-bench) is compared
    through the variant of the best median, never each round's best."""
    ROWS = [["bw", "likwid", "seqread", "likwid", "GB/s", "higher", "0.97-"],
            ["lat", "x", "randread", "x", "ns", "lower", "-"]]

    def test_best_median_not_best_of_each_round(self):
        # A is steady at 40; B and C each spike to 60 in one round: the
        # round-by-round best (60, 40, 60) would make ours 0.667 of it
        data = []
        for rnd, (a, b, c) in enumerate([(40, 60, 38), (40, 38, 38), (40, 38, 60)], 1):
            data += [[str(rnd), "bw", "ours", "40", ""], [str(rnd), "bw", "peer", str(a), "A"],
                     [str(rnd), "bw", "peer", str(b), "B"], [str(rnd), "bw", "peer", str(c), "C"]]
        row = peers.build(self.ROWS, data, [], [], {}, 3, 2, 1 << 30, "d")["rows"][0]
        self.assertEqual(row["peer_variant"], "A")
        self.assertEqual(row["peer_variant_medians"], {"A": 40, "B": 38, "C": 38})
        self.assertAlmostEqual(row["ratio"], 1.0)
        self.assertEqual([p["peer"] for p in row["per_round"]], [40, 40, 40])
        self.assertEqual(row["peer_variants"], ["A", "B", "C"])
        self.assertRegex(peers.text({"machine": {}, "date": "d", "rounds": 3, "threads": 2, "size_bytes": 1,
                                     "rows": [row], "not_run": []})[3],
                         r"^bw +seqread +likwid \(A, best median of 3\) +GB/s +40 +40 +1 +1-1 +0\.97- +ok$")

    def test_lower_is_better_picks_the_lowest_median(self):
        data = [["1", "lat", "ours", "100", ""], ["1", "lat", "peer", "90", "fast"], ["1", "lat", "peer", "120", "slow"],
                ["2", "lat", "ours", "100", ""], ["2", "lat", "peer", "95", "fast"], ["2", "lat", "peer", "80", "slow"]]
        row = peers.build(self.ROWS, data, [], [], {}, 2, 2, 1, "d")["rows"][0]   # only lat has data
        self.assertEqual(row["peer_variant"], "fast")
        self.assertAlmostEqual(row["ratio"], (100 / 90 + 100 / 95) / 2)

    def test_one_figure_a_round_is_used_as_it_is(self):
        data = [["1", "bw", "ours", "20", ""], ["1", "bw", "peer", "25", "load_avx512"],
                ["2", "bw", "ours", "20", ""], ["2", "bw", "peer", "20", "sum_avx"]]
        row = peers.build(self.ROWS, data, [], [], {}, 2, 2, 1, "d")["rows"][0]
        self.assertIsNone(row["peer_variant"])
        self.assertAlmostEqual(row["ratio"], (0.8 + 1.0) / 2)


class Settled(unittest.TestCase):
    """A row is settled where its median ratio is known more precisely (two
    standard errors, from its own per-round ratios) than its target's
    tolerance; the A/A control of its kind rides along."""
    ROWS = [["lat", "multichase", "randread", "multichase", "ns", "lower", "0.97-1.03"],
            ["bw", "likwid", "seqread", "likwid", "GB/s", "higher", "0.97-"],
            ["nt", "likwid", "stream nt", "likwid", "MB/s", "higher", "1.02-"],
            ["info", "mbw", "mbw", "mbw", "MiB/s", "higher", "-"],
            ["control_bandwidth", "control", "seqread A", "seqread B", "GB/s", "higher", "-"],
            ["control_latency", "control", "randread A", "randread B", "ns", "lower", "-"]]

    def doc(self, figures, controls=True):
        """figures: {row: [(ours, peer) per round]}."""
        if controls:
            figures = dict(figures, control_bandwidth=[(40, 50), (50, 40), (45, 45)],
                           control_latency=[(100, 100), (101, 100), (99, 100)])
        data = [[str(rnd), row, side, str(v), ""] for row, pairs in figures.items()
                for rnd, pair in enumerate(pairs, 1) for side, v in zip(("ours", "peer"), pair)]
        return {r["id"]: r for r in peers.build(self.ROWS, data, [], [], {}, 3, 2, 1, "d")["rows"]}

    def test_tolerance_from_the_target(self):
        self.assertAlmostEqual(peers._tolerance("0.97-1.03"), 0.03)
        self.assertAlmostEqual(peers._tolerance("0.97-"), 0.03)
        self.assertAlmostEqual(peers._tolerance("1.02-"), 0.02)
        self.assertAlmostEqual(peers._tolerance("-1.05"), 0.05)
        self.assertIsNone(peers._tolerance("1-"))          # parity itself: no band to judge by

    def test_median_uncertainty(self):
        # ratios 0.9, 1.0, 1.1: s = 0.1, 2 x 1.2533 x 0.1 / sqrt(3)
        self.assertAlmostEqual(peers._median_uncertainty([0.9, 1.0, 1.1]), 2 * 1.2533 * 0.1 / 3 ** 0.5)
        self.assertEqual(peers._median_uncertainty([1.0, 1.0, 1.0]), 0)
        self.assertIsNone(peers._median_uncertainty([0.5, 1.5]))   # two rounds: not enough to judge

    def test_a_steady_row_is_settled_even_when_off(self):
        rows = self.doc({"lat": [(120, 100), (121, 100), (119, 100)], "bw": [(40, 40), (39.8, 40), (38.6, 40)]})
        self.assertEqual((rows["lat"]["settled"], peers._verdict(rows["lat"])), (True, "OFF"))
        self.assertEqual((rows["bw"]["settled"], peers._verdict(rows["bw"])), (True, "ok, 2/3 rounds in"))
        self.assertEqual((rows["lat"]["control"], rows["bw"]["control"]), ("control_latency", "control_bandwidth"))
        self.assertEqual(rows["bw"]["control_range"], [0.8, 1.25])

    def test_a_noisy_row_is_unsettled_whatever_its_median(self):
        # ratios 0.7, 1.0, 1.3: the median is 1, but +-43% (2 SE)
        rows = self.doc({"lat": [(70, 100), (100, 100), (130, 100)], "nt": [(42, 40), (40, 40), (41.6, 40)]})
        self.assertFalse(rows["lat"]["settled"])
        self.assertAlmostEqual(rows["lat"]["median_uncertainty"], 2 * 1.2533 * 0.3 / 3 ** 0.5)
        self.assertEqual(peers._verdict(rows["lat"]),
                         "unsettled: median +-43.4% (2 SE over 3 rounds); A/A control 0.99-1.01")
        # 1.02-: a tolerance of 2%, and these ratios (1.05, 1, 1.04) are known to +-5%
        self.assertFalse(rows["nt"]["settled"])

    def test_the_uncertainty_is_printed_to_three_digits(self):
        row = {"id": "lat", "ratio": 0.98, "target": "0.97-1.03", "settled": False,
               "median_uncertainty": 0.0304, "rounds_paired": 7, "control_range": None}
        self.assertEqual(peers._verdict(row), "unsettled: median +-3.04% (2 SE over 7 rounds)")

    def test_no_target_or_too_few_rounds_judges_nothing(self):
        rows = self.doc({"info": [(9, 10), (5, 10), (10, 10)], "lat": [(50, 100), (150, 100)]})
        self.assertIsNone(rows["info"]["settled"])
        self.assertIsNone(rows["lat"]["settled"])
        self.assertEqual(peers._verdict(rows["info"]), "-")
        self.assertIsNone(rows["control_latency"]["settled"])
        self.assertEqual(peers._verdict(rows["control_latency"]), "A/A control")

    def test_without_a_control_the_verdict_names_none(self):
        row = self.doc({"lat": [(70, 100), (100, 100), (130, 100)]}, controls=False)["lat"]
        self.assertEqual((row["control"], row["control_range"]), (None, None))
        self.assertEqual(peers._verdict(row), "unsettled: median +-43.4% (2 SE over 3 rounds)")

    def test_the_text_says_what_unsettled_means(self):
        rows = self.doc({"lat": [(70, 100), (100, 100), (130, 100)]})
        t = peers.text({"machine": {}, "date": "d", "rounds": 3, "threads": 2, "size_bytes": 1,
                        "rows": list(rows.values()), "not_run": []})
        self.assertRegex(next(x for x in t if x.startswith("lat ")), r"unsettled: median \+-43\.4% ")
        self.assertTrue(t[-1].startswith("unsettled = the median ratio is known less precisely than"))
        steady = self.doc({"lat": [(100, 100)] * 3})
        t = peers.text({"machine": {}, "date": "d", "rounds": 3, "threads": 2, "size_bytes": 1,
                        "rows": list(steady.values()), "not_run": []})
        self.assertFalse([x for x in t if "unsettled" in x])


class Machine(unittest.TestCase):
    def test_from_probe_and_facts(self):
        probe = {"sysinfo": {"cpu_model": "EPYC", "mem_total_bytes": 24 << 30, "virtualization": "kvm"},
                 "llc": {"total_bytes": 32 << 20, "source": "sysfs"}}
        facts = {"facts": [{"key": "microcode", "verdict": "ok", "value": "0x1000065"},
                           {"key": "cpu_flags", "verdict": "ok", "value": "avx2  avx512f "}]}
        m = peers.machine(probe, facts)
        self.assertEqual((m["cpu_model"], m["microcode"], m["microcode_unavailable"], m["flags"], m["llc_bytes"]),
                         ("EPYC", "0x1000065", None, ["avx2", "avx512f"], 32 << 20))

    def test_unknown_is_null_and_named(self):
        facts = {"facts": [{"key": "microcode", "verdict": "unavailable", "value": ""}]}
        m = peers.machine({}, facts)
        self.assertIsNone(m["microcode"])
        self.assertIn("no microcode line", m["microcode_unavailable"])
        self.assertEqual((m["cpu_model"], m["flags"], m["llc_bytes"]), (None, [], None))


class RundirCheck(unittest.TestCase):
    def test_bad_directories(self):
        import json
        import os
        import tempfile
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(rundir_check.Bad) as e:
                rundir_check.check(d, "stream")
            self.assertIn("no run.json", str(e.exception))
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump({"schema": "memsuite/run/1", "complete": "yes", "config": {}}, f)
            with self.assertRaises(rundir_check.Bad) as e:
                rundir_check.check(d, "stream")
            self.assertIn('complete is "yes", not true or false', str(e.exception))
            with open(os.path.join(d, "run.json"), "w") as f:
                json.dump({"schema": "memsuite/run/1", "complete": True, "config": {}}, f)
            os.mkfifo(os.path.join(d, "plan.tsv"))
            with self.assertRaises(rundir_check.Bad) as e:
                rundir_check.check(d, "stream")
            self.assertIn("plan.tsv is not a regular file (a FIFO)", str(e.exception))
            os.unlink(os.path.join(d, "plan.tsv"))
            with open(os.path.join(d, "plan.tsv"), "w") as f:
                f.write("c1\tstream\t-\t100\t1\t2\nc2\tbogus\t-\t1\t1\t1\n")
            with self.assertRaises(rundir_check.Bad) as e:
                rundir_check.check(d, "stream mbw")
            self.assertIn("line 2: bench is not one of: stream mbw", str(e.exception))


if __name__ == "__main__":
    unittest.main()
