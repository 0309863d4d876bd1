"""Robust statistics over a population of nodes: median, MAD and the
outlier rule.  Pure functions of numbers; no I/O, no formatting.

The outlier rule (cluster aggregation): a value is an outlier when it lies
more than k x MAD' from the median, where MAD' = max(MAD, floor_pct/100 x
|median|).  The floor keeps a population of near-identical values from
flagging differences of a few tenths of a percent.  Which side is "slow"
depends on the metric's better direction.
"""

import math


def median(sorted_values):
    """Median of an already sorted, non-empty sequence of numbers."""
    n = len(sorted_values)
    if n == 0:
        raise ValueError("median of no values")
    mid = n // 2
    if n % 2:
        return sorted_values[mid]
    return (sorted_values[mid - 1] + sorted_values[mid]) / 2


def mad(sorted_values, med=None):
    """Median absolute deviation from the median (unscaled), of an already
    sorted, non-empty sequence."""
    if med is None:
        med = median(sorted_values)
    return median(sorted(abs(v - med) for v in sorted_values))


class Spread:
    """The population summary of one metric: n, median, MAD, the MAD the
    rule uses and the two fences (low_fence < high_fence, whatever the
    better direction)."""

    __slots__ = ("n", "median", "mad", "mad_used", "low_fence", "high_fence", "k")

    def __init__(self, values, k, floor_pct):
        """values: the metric's values over the nodes (any order, at least
        one); k > 0 the threshold in MADs; floor_pct >= 0 the smallest MAD
        used, in % of |median|."""
        if not values:
            raise ValueError("a spread of no values")
        v = sorted(values)
        self.n = len(v)
        self.k = k
        self.median = median(v)
        self.mad = mad(v, self.median)
        self.mad_used = max(self.mad, floor_pct / 100 * abs(self.median))
        self.low_fence = self.median - k * self.mad_used
        self.high_fence = self.median + k * self.mad_used

    def deviation(self, value, lower_is_better):
        """Signed distance of value from the median in units of mad_used,
        positive on the better side (0 when mad_used is 0)."""
        if self.mad_used <= 0:
            return 0.0
        z = (value - self.median) / self.mad_used
        return -z if lower_is_better else z

    def side(self, value, lower_is_better):
        """'slow' beyond k on the worse side, 'high' beyond k on the better
        side, else None."""
        z = self.deviation(value, lower_is_better)
        if z < -self.k:
            return "slow"
        if z > self.k:
            return "high"
        return None


def ratio_to_median(value, med, lower_is_better):
    """How a value compares with the median, as a factor where below 1 is
    worse: value/median when higher is better, median/value when lower is
    better (0 for a non-positive time; 1 against a zero median)."""
    if lower_is_better:
        return med / value if value > 0 else 0.0
    return value / med if med != 0 else 1.0


def finite(x):
    """True for an int or float that is finite (bool is not a number)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
