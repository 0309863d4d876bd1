"""memsuite_analysis.docs_summary (scripts/summary.sh): the environment
block, a line per headline-style metric, labels and warnings, and a
damaged document named, over the cells of tests/fixtures/report-basic."""

import os
import unittest

import _path  # noqa: F401
from memsuite_analysis import docs_summary
from memsuite_analysis.results import read_result

CELLS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "report-basic", "cells")


def docs():
    return [(n[:-5], read_result(os.path.join(CELLS, n))) for n in sorted(os.listdir(CELLS))]


class DocsSummary(unittest.TestCase):
    def test_environment_and_figures(self):
        lines = docs_summary.render(docs())
        self.assertEqual(lines[0], "Environment (fixture-host, null)")
        self.assertIn("  CPU        Fixture CPU 9000; 2 socket(s), 64 cores, 128 CPUs online", lines)
        self.assertIn("  memory     512 GiB, swappiness=unavailable: not recorded, DIMMs: 16 x 32 GiB DDR5-4800", lines)
        self.assertIn("%-14s %-10s %-32s %14s  %s" % ("stream-s134217728-t2", "Triad", "best_rate_mbps", "22200", "MB/s"),
                      lines)
        self.assertIn("%-14s %-10s %-32s %14s  %s" % ("mbw-s134217728-t1", "MEMCPY", "avg_rate_mibps", "8000", "MiB/s"),
                      lines)
        # best_rate_mibps and the times are not summary figures
        self.assertFalse(any("best_rate_mibps" in x or "min_time_s" in x for x in lines))
        self.assertIn("stream-s134217728-t1: standard", lines)
        # a result from before sysinfo.damon says it was not recorded
        self.assertIn("  DAMON      unavailable: not recorded", lines)

    def test_damon_shown_as_the_result_records_it(self):
        d = docs()
        d[0][1].doc["sysinfo"]["damon"] = "kdamond 0 on (paddr; pageout at age >= 12 x 5 s)"
        self.assertIn("  DAMON      kdamond 0 on (paddr; pageout at age >= 12 x 5 s)", docs_summary.render(d))
        d[0][1].doc["sysinfo"].update(damon=None, damon_unavailable="cannot read /sys/kernel/mm: Permission denied")
        self.assertIn("  DAMON      unavailable: cannot read /sys/kernel/mm: Permission denied", docs_summary.render(d))

    def test_a_damaged_document_is_named_without_figures(self):
        d = docs()
        r = d[0][1]
        r.state, r.why = "invalid", "Copy.best_rate_mbps is -5, not a measured value"
        lines = docs_summary.render(d)
        self.assertIn("%s: the result is not to be trusted: Copy.best_rate_mbps is -5, not a measured value" % d[0][0],
                      lines)
        self.assertFalse(any(x.startswith(d[0][0] + " ") for x in lines))


if __name__ == "__main__":
    unittest.main()
