/* warns: the warnings of one run.  Each goes to stderr at once (mb_warn)
 * and is kept for the result document (st_outcome_t.warnings). */
#ifndef ST_WARNS_H
#define ST_WARNS_H

#include <stddef.h>

#include "run.h"

#define ST_MAX_WARN 16

typedef struct {
    size_t n;
    char text[ST_MAX_WARN][512];
    const char *ptr[ST_MAX_WARN];   /* ptr[i] = text[i]: hand ptr to the outcome */
} st_warns_t;

/* printf-style; kept up to ST_MAX_WARN (all still reach stderr). */
void st_warn(st_warns_t *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* STREAM's guideline: at least 20 clock ticks per test.  Checked on the
 * calibration pass (the figure STREAM prints) and on the fastest kernel;
 * `clock` names the clock in the message ("clock", or "timer" for
 * stream_mpi). */
void st_check_ticks(const st_plan_t *p, const st_run_t *run, const st_summary_t *sum,
                    const char *clock, st_warns_t *w);

#endif
