/* stats: descriptive statistics over a sample vector.
 * Samples are not modified.  Warm-up samples (the first `drop`) are
 * excluded from every figure. */
#ifndef MB_STATS_H
#define MB_STATS_H

#include <stddef.h>

typedef struct {
    size_t n;        /* samples used (after dropping warm-up) */
    double min, max, mean, median;
    double stddev;   /* sample standard deviation (n-1); 0 when n < 2 */
    double cv;       /* stddev / mean; 0 when mean == 0 */
    double mad;      /* median absolute deviation from the median (unscaled) */
} mb_stats_t;

/* Returns 0, or -EINVAL when no sample remains after dropping `drop`
 * or a sample is not finite, or -ENOMEM (then *out is zeroed). */
int mb_stats_compute(const double *samples, size_t n, size_t drop, mb_stats_t *out);
/* Median of v[0..n) (copies; does not reorder v).  NaN when n == 0. */
double mb_median(const double *v, size_t n);
/* The p-th percentile (0 < p <= 100) of v[0..n) by nearest rank: the
 * smallest value with at least p% of the samples at or below it (copies
 * all n; does not reorder v).  NaN when n == 0, p is out of range or out
 * of memory. */
double mb_percentile(const double *v, size_t n, double p);
/* Jain's fairness index (sum x)^2 / (n * sum x^2), in (0,1]; NaN if n==0
 * or all zero. */
double mb_jain_index(const double *v, size_t n);

#endif
