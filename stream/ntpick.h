/* ntpick: with --nt-stores and --nt-isa auto, the non-temporal variant is
 * chosen by measurement on the machine and at the size (issue 24: the
 * tuned lead over likwid-bench's stream_mem was a Zen 4 fact).  Every
 * variant the CPU has times the Triad on chunks of the arrays, three
 * trials each, alternating; the fastest runs the measurement.  The
 * calibration, its probe included, takes at most 1 s and is planned at 5%
 * of the run; one that cannot finish in time keeps the best-first default
 * and says why. */
#ifndef ST_NTPICK_H
#define ST_NTPICK_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "kernels.h"

#define ST_NTPICK_MAX 4

typedef struct {
    bool ran;                          /* every trial ran; the variant is the fastest */
    char why[200];                     /* when not: why (the default stays) */
    size_t n;                          /* variants timed */
    const char *name[ST_NTPICK_MAX];
    double mbps[ST_NTPICK_MAX];        /* best Triad trial, MB/s (STREAM's 3 words) */
    size_t chunk;                      /* elements per trial */
    double took_s, budget_s, run_s;    /* its time; min(1 s, 5% of the estimated run) */
    double probe_s;                    /* the two probes' time, inside budget_s */
} st_ntpick_t;

/* With p->nt and p->nt_auto: measures, sets p->nt_isa to the fastest
 * and the plan's reason text to match, then refills the arrays with
 * STREAM's initial values (the trials wrote a).  Fills out either way. */
void st_ntpick(st_plan_t *p, const st_arrays_t *x, st_ntpick_t *out);
/* The winner and every variant's figure, one note on stderr. */
void st_ntpick_note(const st_ntpick_t *k, const char *chosen);

#endif
