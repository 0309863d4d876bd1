/* test_pairs: mencal/pairs.c, the pair numbering and the reproducible
 * random sample of pairs (c2c's --c2c-max-pairs). */
#include "check.h"
#include "pairs.h"

#include <stdbool.h>
#include <stdlib.h>

int main(void)
{
    static const struct { int n; size_t total; } totals[] = {
        { 0, 0 }, { 1, 0 }, { 2, 1 }, { 3, 3 }, { 16, 120 }, { 256, 32640 },
    };
    for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
        CHECK(mc_pairs_total(totals[t].n) == totals[t].total, "%d items have %zu pairs",
              totals[t].n, totals[t].total);

    /* numbering: every (i, j), i < j, exactly once, row by row */
    for (int n = 2; n <= 9; n++) {
        bool ok = true;
        size_t k = 0;
        for (int i = 0; i < n; i++)
            for (int j = i + 1; j < n; j++, k++) {
                int a, b;
                mc_pair_of(k, n, &a, &b);
                ok = ok && a == i && b == j;
            }
        CHECK(ok && k == mc_pairs_total(n), "pair numbers of %d items run (0,1), (0,2) .. (%d,%d)",
              n, n - 2, n - 1);
    }

    /* all of them when they fit */
    size_t out[4096];
    size_t got = mc_pairs_choose(5, 10, 1, out);
    bool all = got == 10;
    for (size_t k = 0; k < got; k++)
        all = all && out[k] == k;
    CHECK(all, "5 items, at most 10 pairs: all 10, in order");

    /* a sample: distinct, ascending, in range, as many as asked,
     * reproducible, and another random state gives another sample */
    const int n = 100;             /* 4950 pairs */
    const size_t max = 500;
    got = mc_pairs_choose(n, max, 7, out);
    bool sorted = got == max;
    for (size_t k = 0; k < got; k++)
        sorted = sorted && out[k] < mc_pairs_total(n) && (k == 0 || out[k - 1] < out[k]);
    CHECK(sorted, "100 items, at most 500 pairs: 500 distinct pair numbers, ascending, in range");
    size_t again[4096], other[4096];
    bool same = mc_pairs_choose(n, max, 7, again) == got;
    for (size_t k = 0; same && k < got; k++)
        same = again[k] == out[k];
    CHECK(same, "the same random state draws the same pairs");
    bool differs = false;
    mc_pairs_choose(n, max, 8, other);
    for (size_t k = 0; k < got && !differs; k++)
        differs = other[k] != out[k];
    CHECK(differs, "another random state draws other pairs");
    /* spread: the sample reaches both halves of the numbering */
    size_t low = 0;
    for (size_t k = 0; k < got; k++)
        low += out[k] < mc_pairs_total(n) / 2;
    CHECK(low > max / 4 && low < 3 * max / 4, "the sample covers both halves (%zu of %zu low)", low,
          max);
    return check_done();
}
