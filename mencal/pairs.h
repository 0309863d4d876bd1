/* pairs: the unordered pairs of n items (CPUs for c2c, nodes for a
 * matrix), numbered row by row: (0,1), (0,2) .. (0,n-1), (1,2) ..; all of
 * them, or a reproducible random sample when there are too many. */
#ifndef MC_PAIRS_H
#define MC_PAIRS_H

#include <stddef.h>
#include <stdint.h>

/* n (n - 1) / 2 */
size_t mc_pairs_total(int n);
/* Pair number k (0 <= k < mc_pairs_total(n)) as (i, j) with i < j. */
void mc_pair_of(size_t k, int n, int *i, int *j);
/* The pair numbers to measure, ascending, into out[] (room for max):
 * every pair when there are at most max, else max distinct ones drawn
 * uniformly at random from `random_state` (the same start, the same pairs).
 * Returns how many. */
size_t mc_pairs_choose(int n, size_t max, uint64_t random_state, size_t *out);

#endif
