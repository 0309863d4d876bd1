/* stats: descriptive statistics over a sample vector, warm-up dropped. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of an array the caller lets us sort in place. */
static double median_sorted_inplace(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double mb_median(const double *v, size_t n)
{
    if (n == 0 || !v)
        return NAN;
    double *copy = malloc(n * sizeof *copy);
    if (!copy)
        return NAN;
    memcpy(copy, v, n * sizeof *copy);
    double m = median_sorted_inplace(copy, n);
    free(copy);
    return m;
}

double mb_percentile(const double *v, size_t n, double p)
{
    if (n == 0 || !v || !(p > 0 && p <= 100))
        return NAN;
    double *copy = malloc(n * sizeof *copy);
    if (!copy)
        return NAN;
    memcpy(copy, v, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, cmp_double);
    size_t k = (size_t)ceil(p / 100.0 * (double)n);
    double r = copy[k > 0 ? k - 1 : 0];
    free(copy);
    return r;
}

int mb_stats_compute(const double *samples, size_t n, size_t drop, mb_stats_t *out)
{
    memset(out, 0, sizeof *out);
    if (!samples || drop >= n)
        return -EINVAL;
    const double *x = samples + drop;
    size_t m = n - drop;

    double sum = 0.0, lo = x[0], hi = x[0];
    for (size_t i = 0; i < m; i++) {
        if (!isfinite(x[i]))
            return -EINVAL;
        sum += x[i];
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    double mean = sum / (double)m;

    /* Two-pass variance: stable for the near-equal timings we see. */
    double ss = 0.0;
    for (size_t i = 0; i < m; i++) {
        double d = x[i] - mean;
        ss += d * d;
    }
    double stddev = m > 1 ? sqrt(ss / (double)(m - 1)) : 0.0;

    double *work = malloc(m * sizeof *work);
    if (!work)
        return -ENOMEM;
    memcpy(work, x, m * sizeof *work);
    double median = median_sorted_inplace(work, m);
    for (size_t i = 0; i < m; i++)
        work[i] = fabs(x[i] - median);
    double mad = median_sorted_inplace(work, m);
    free(work);

    out->n = m;
    out->min = lo;
    out->max = hi;
    out->mean = mean;
    out->median = median;
    out->stddev = stddev;
    out->cv = mean != 0.0 ? stddev / mean : 0.0;
    out->mad = mad;
    return 0;
}

double mb_jain_index(const double *v, size_t n)
{
    if (n == 0 || !v)
        return NAN;
    double sum = 0.0, sum_sq = 0.0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        sum_sq += v[i] * v[i];
    }
    if (sum_sq == 0.0)
        return NAN;
    return (sum * sum) / ((double)n * sum_sq);
}
