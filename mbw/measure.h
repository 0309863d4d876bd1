/* measure: time one method's runs.
 *
 * Each sample is the wall time of one copy of the whole array on the
 * monotonic ns clock.  When one copy is too quick for the clock (under
 * min_ns), a sample times `reps` back-to-back copies and divides; reps
 * doubles until the total is measurable, so a time is never 0, inf or
 * nan.  Nothing here prints: each finished sample goes to on_sample. */
#ifndef MBW_MEASURE_H
#define MBW_MEASURE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "counters.h"
#include "methods.h"

typedef struct {
    const mbw_method_t *method;
    void *dst;
    const void *src;
    size_t bytes;                  /* per array */
    size_t block_bytes;
    int threads;                   /* 1: no parallel region at all */
    uint64_t min_ns;               /* shortest measurable sample */
    long long runs;                /* samples; 0: until *stop */
    const volatile sig_atomic_t *stop; /* set by SIGINT (common/signals) */
    mb_counters_t *counters;       /* NULL: none */
    void (*on_sample)(void *ctx, size_t index, double time_s);
    void *ctx;
} mbw_measure_t;

typedef struct {
    double *time_s;                /* per sample: seconds per copy */
    size_t n, cap;
    unsigned long reps;            /* copies per sample at the end */
    bool interrupted;              /* stopped by *stop before `runs` */
    bool truncated;                /* sample storage ran out (-n 0) */
} mbw_series_t;

/* Runs the samples (at least one).  0, or -ENOMEM when no sample could be
 * stored at all. */
int mbw_measure(const mbw_measure_t *req, mbw_series_t *out);
void mbw_series_free(mbw_series_t *s);
/* Mean time of the samples, seconds (the AVG line's figure). */
double mbw_series_mean_s(const mbw_series_t *s);

#endif
