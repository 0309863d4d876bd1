/* pairs: enumerate or sample the unordered pairs of n items. */
#include <stdbool.h>
#include <stdlib.h>

#include "pairs.h"
#include "rng.h"

size_t mc_pairs_total(int n)
{
    return n < 2 ? 0 : (size_t)n * (size_t)(n - 1) / 2;
}

void mc_pair_of(size_t k, int n, int *i, int *j)
{
    int a = 0;
    size_t row = (size_t)(n - 1);   /* pairs whose first item is a */
    while (k >= row && row > 0) {
        k -= row;
        a++;
        row--;
    }
    *i = a;
    *j = a + 1 + (int)k;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t mc_pairs_choose(int n, size_t max, uint64_t random_state, size_t *out)
{
    size_t all = mc_pairs_total(n), got = 0;
    if (all <= max) {
        for (size_t k = 0; k < all; k++)
            out[got++] = k;
        return got;
    }
    /* Floyd's sampling: for k from all - max to all - 1, draw t in
     * [0, k]; take t unless already taken, else k.  Each max-subset is
     * equally likely.  Membership by a linear scan: max is a few
     * thousand at most (--c2c-max-pairs). */
    mc_rng_t rng;
    mc_rng_init(&rng, random_state, 0x9a125);
    for (size_t k = all - max; k < all; k++) {
        size_t t = (size_t)mc_rng_below(&rng, (uint64_t)k + 1);
        bool taken = false;
        for (size_t q = 0; q < got && !taken; q++)
            taken = out[q] == t;
        out[got++] = taken ? k : t;
    }
    qsort(out, got, sizeof *out, cmp_size);
    return got;
}
