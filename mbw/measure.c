/* measure: one method's timed runs, optionally over OpenMP threads. */
#include "measure.h"

#include <errno.h>
#include <omp.h>
#include <stdlib.h>

#include "slice.h"
#include "timer.h"

#define MBW_MAX_REPS (1ul << 24)
#define MBW_SERIES_FIRST_CAP 16

/* One copy of the whole array: the method on each thread's slice. */
static void mbw_copy_once(const mbw_measure_t *q)
{
    if (q->threads <= 1) {
        q->method->fn(q->dst, q->src, q->bytes, q->block_bytes);
        return;
    }
    size_t unit = q->method->blocked ? q->block_bytes : MBW_SLICE_ALIGN_BYTES;
#pragma omp parallel num_threads(q->threads)
    {
        size_t off, len;
        mbw_slice(q->bytes, unit, omp_get_thread_num(), omp_get_num_threads(), &off, &len);
        if (len)
            q->method->fn((char *)q->dst + off, (const char *)q->src + off, len, q->block_bytes);
    }
}

/* Seconds per copy for one sample; *reps grows when a copy is too quick. */
static double mbw_sample(const mbw_measure_t *q, unsigned long *reps)
{
    uint64_t dt_ns;
    for (;;) {
        if (q->counters)
            mb_counters_start(q->counters);
        uint64_t t0_ns = mb_now_ns();
        for (unsigned long r = 0; r < *reps; r++)
            mbw_copy_once(q);
        dt_ns = mb_now_ns() - t0_ns;
        if (q->counters) {
            mb_counters_stop(q->counters);
            /* bytes moved: each copy reads and writes the array */
            q->counters->bytes_moved += 2.0 * (double)q->bytes * (double)*reps;
        }
        if (dt_ns >= q->min_ns || *reps >= MBW_MAX_REPS)
            break;
        *reps *= 2;
    }
    if (dt_ns == 0)          /* the clock never moved: bound it by one tick */
        dt_ns = 1;
    return (double)dt_ns * 1e-9 / (double)*reps;
}

static int mbw_series_push(mbw_series_t *s, double t)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : MBW_SERIES_FIRST_CAP;
        double *p = realloc(s->time_s, cap * sizeof *p);
        if (!p)
            return -ENOMEM;
        s->time_s = p;
        s->cap = cap;
    }
    s->time_s[s->n++] = t;
    return 0;
}

int mbw_measure(const mbw_measure_t *q, mbw_series_t *out)
{
    out->time_s = NULL;
    out->n = out->cap = 0;
    out->reps = 1;
    out->interrupted = out->truncated = false;

    if (q->runs > 0) {
        out->time_s = malloc((size_t)q->runs * sizeof *out->time_s);
        if (!out->time_s)
            return -ENOMEM;
        out->cap = (size_t)q->runs;
    }
    for (size_t i = 0;; i++) {
        double t = mbw_sample(q, &out->reps);
        if (mbw_series_push(out, t) != 0) {
            out->truncated = true;
            return out->n ? 0 : -ENOMEM;
        }
        if (q->on_sample)
            q->on_sample(q->ctx, i, t);
        if (q->runs > 0 && (long long)out->n >= q->runs)
            break;
        if (*q->stop) {
            out->interrupted = q->runs > 0;
            break;
        }
    }
    return 0;
}

void mbw_series_free(mbw_series_t *s)
{
    free(s->time_s);
    s->time_s = NULL;
    s->n = s->cap = 0;
}

double mbw_series_mean_s(const mbw_series_t *s)
{
    double sum = 0;
    for (size_t i = 0; i < s->n; i++)
        sum += s->time_s[i];
    return s->n ? sum / (double)s->n : 0;
}
