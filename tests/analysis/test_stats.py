"""memsuite_analysis.stats: median, MAD and the outlier rule, table-driven."""

import unittest

import _path  # noqa: F401  (puts scripts/analysis on sys.path)
from memsuite_analysis import stats


class Median(unittest.TestCase):
    CASES = (
        ([5.0], 5.0),
        ([1.0, 3.0], 2.0),
        ([1.0, 2.0, 9.0], 2.0),
        ([1.0, 2.0, 3.0, 100.0], 2.5),
        ([-3.0, -1.0], -2.0),
    )

    def test_table(self):
        for values, want in self.CASES:
            with self.subTest(values=values):
                self.assertEqual(stats.median(values), want)

    def test_empty_is_an_error(self):
        with self.assertRaises(ValueError):
            stats.median([])


class Mad(unittest.TestCase):
    CASES = (
        ([7.0], 0.0),                           # one value: no spread
        ([1.0, 2.0, 3.0, 4.0, 100.0], 1.0),     # deviations 2 1 0 1 97 -> 1
        ([10.0, 10.0, 10.0, 50.0], 0.0),        # most agree: an outlier does not widen it
        ([1.0, 3.0], 1.0),
        ([1.0, 2.0, 4.0, 8.0], 1.5),            # median 3, deviations 2 1 1 5 -> 1.5
    )

    def test_table(self):
        for values, want in self.CASES:
            with self.subTest(values=values):
                self.assertAlmostEqual(stats.mad(sorted(values)), want)


class Spread(unittest.TestCase):
    def test_fences_and_floor(self):
        # median 100, MAD 1; the floor (0.5% of 100 = 0.5) does not apply
        s = stats.Spread([99.0, 100.0, 101.0, 100.0, 102.0], 5, 0.5)
        self.assertEqual((s.n, s.median, s.mad, s.mad_used), (5, 100.0, 1.0, 1.0))
        self.assertEqual((s.low_fence, s.high_fence), (95.0, 105.0))
        # identical nodes: MAD 0, the floor (2% of 100) is used
        s = stats.Spread([100.0] * 9, 5, 2)
        self.assertEqual((s.mad, s.mad_used, s.low_fence, s.high_fence), (0.0, 2.0, 90.0, 110.0))

    def test_order_does_not_matter(self):
        a = stats.Spread([3.0, 1.0, 2.0, 10.0], 3, 0)
        b = stats.Spread([10.0, 2.0, 1.0, 3.0], 3, 0)
        self.assertEqual((a.median, a.mad), (b.median, b.mad))

    def test_side_follows_the_better_direction(self):
        s = stats.Spread([100.0, 101.0, 99.0, 100.0, 100.0], 5, 0)   # median 100, MAD 0 -> floor 0
        self.assertEqual(s.mad_used, 0.0)
        self.assertIsNone(s.side(50.0, False))      # no spread: nothing is an outlier
        s = stats.Spread([98.0, 99.0, 100.0, 101.0, 102.0], 5, 0)   # MAD 1, fences 95 and 105
        table = (
            (94.0, False, "slow"), (106.0, False, "high"), (95.0, False, None), (100.0, False, None),
            (94.0, True, "high"), (106.0, True, "slow"),      # a time: smaller is better
        )
        for value, lower_better, want in table:
            with self.subTest(value=value, lower_is_better=lower_better):
                self.assertEqual(s.side(value, lower_better), want)
        self.assertEqual(s.deviation(90.0, False), -10.0)
        self.assertEqual(s.deviation(90.0, True), 10.0)

    def test_no_values_is_an_error(self):
        with self.assertRaises(ValueError):
            stats.Spread([], 5, 0.5)


class Ratio(unittest.TestCase):
    CASES = (
        (90.0, 100.0, False, 0.9),      # a rate below the median
        (110.0, 100.0, True, 100 / 110),  # a time above the median: worse, below 1
        (0.0, 100.0, True, 0.0),        # a zero time cannot be judged: worst
        (50.0, 0.0, False, 1.0),        # a zero median: no ratio
    )

    def test_table(self):
        for value, med, lb, want in self.CASES:
            with self.subTest(value=value, median=med, lower_is_better=lb):
                self.assertAlmostEqual(stats.ratio_to_median(value, med, lb), want)


if __name__ == "__main__":
    unittest.main()
