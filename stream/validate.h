/* validate: STREAM's check.  The kernels that ran are replayed on scalars
 * (a=1, b=2, c=0; a=2a; then ntimes rounds of the kernel sequence, the
 * first round included), in the run's own type.  For each array
 * AvgAbsErr = sum |x[j] - gold| / n; it fails when AvgAbsErr / |gold| >
 * epsilon (1e-13 for 8-byte, 1e-6 for 4-byte elements).  Unlike the
 * original, a non-finite element or gold value is a failure, so an
 * overflowed float run cannot "validate".
 *
 * Dot is checked on its own: the last sum against n * a*b (relative
 * error <= 1e-8; the sum is accumulated in double). */
#ifndef ST_VALIDATE_H
#define ST_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "kernels.h"

typedef struct {
    char name;                 /* 'a', 'b', 'c' */
    double expected;           /* gold value */
    double avg_abs_err;
    double avg_rel_err;        /* avg_abs_err / |expected| */
    size_t errors;             /* elements off by more than epsilon (relative) */
    size_t nonfinite;          /* elements that are inf or NaN */
    bool ok;
} st_array_check_t;

typedef struct {
    double epsilon;
    st_array_check_t arr[3];
    bool arrays_ok;
    bool has_dot;
    double dot_expected;
    double dot_value;
    double dot_rel_err;
    double dot_epsilon;
    bool dot_ok;
    bool ok;                   /* everything passed */
} st_validation_t;

/* Epsilon for an element size: 1e-13 for 8 bytes, 1e-6 for 4. */
double st_epsilon(size_t elem_bytes);

/* --inject-error: after the run, one element of array plan->inject (0..2:
 * a, b, c; the middle one) far outside either epsilon, or for 3 (dot) a
 * doubled *dot_last, so the failure path can be tested at any size.
 * Nothing happens when plan->inject < 0. */
void st_inject_error(const st_plan_t *plan, const st_arrays_t *x, double *dot_last);

/* How many of plan->ntimes rounds the replay survives: the values grow
 * every round (Copy, Scale, Add, Triad with s = 3 multiply them), and
 * once a gold value or the Dot expectation overflows the run cannot be
 * validated (float from about -n 33, double from about -n 262 with the
 * standard kernels).  Needs plan's type, kernels, scalar, n and ntimes;
 * costs ntimes x kernels scalar steps.  == plan->ntimes: all finite. */
int st_validate_rounds(const st_plan_t *plan);

/* dot_last: the sum the last Dot run returned (ignored without Dot). */
void st_validate(const st_plan_t *plan, const st_arrays_t *x, double dot_last,
                 st_validation_t *out);

#endif
