/* validate: scalar replay and the per-array error check. */
#include "validate.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

#define ST_DOT_EPSILON 1e-8

double st_epsilon(size_t elem_bytes)
{
    return elem_bytes == 4 ? 1e-6 : 1e-13;
}

/* Replays the run on the three gold scalars; returns the per-element dot
 * expectation of the last Dot (NaN when Dot did not run).  With
 * finite_rounds non-NULL, also counts the rounds after which every gold
 * value and the dot expectation (times n elements) are still finite. */
static double replay(const st_plan_t *plan, double s, double gold[3], int *finite_rounds)
{
    double dot_elem = NAN;
    float gf[3] = { 1.0f, 2.0f, 0.0f };
    double gd[3] = { 1.0, 2.0, 0.0 };
    void *g = plan->type == ST_FLOAT ? (void *)gf : (void *)gd;
    bool finite = true;

    gf[0] = 2.0f * gf[0];
    gd[0] = 2.0 * gd[0];
    if (finite_rounds)
        *finite_rounds = 0;
    for (int k = 0; k < plan->ntimes; k++) {
        for (size_t i = 0; i < plan->nkernels; i++) {
            const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)plan->kernel[i]);
            double r = kd->gold[plan->type](g, s);
            if (kd->dot) {
                dot_elem = r;
                finite = finite && isfinite(r * (double)plan->n);
            }
        }
        for (int i = 0; i < 3 && finite; i++)
            finite = plan->type == ST_FLOAT ? isfinite(gf[i]) : isfinite(gd[i]);
        if (finite_rounds && finite)
            *finite_rounds = k + 1;
    }
    for (int i = 0; i < 3; i++)
        gold[i] = plan->type == ST_FLOAT ? (double)gf[i] : gd[i];
    return dot_elem;
}

int st_validate_rounds(const st_plan_t *plan)
{
    double gold[3];
    int rounds;
    (void)replay(plan, plan->scalar, gold, &rounds);
    return rounds;
}

static void check_array(const st_plan_t *plan, const st_arrays_t *x, int array,
                        double gold, double eps, st_array_check_t *out)
{
    const size_t n = x->n;
    double sum = 0.0;
    size_t errors = 0, nonfinite = 0;
    const st_type_t t = plan->type;
    const void *p = array == 0 ? x->a : array == 1 ? x->b : x->c;
    /* A gold value of 0 (c when no kernel writes it) is checked absolutely. */
    const double denom = gold != 0.0 ? fabs(gold) : 1.0;

    /* Errors are counted where |x - gold| / |gold| is not <= eps: NaN counts. */
#pragma omp parallel for schedule(static) reduction(+ : sum, errors, nonfinite)
    for (size_t j = 0; j < n; j++) {
        double v = t == ST_FLOAT ? (double)((const float *)p)[j] : ((const double *)p)[j];
        double rel = fabs(v - gold) / denom;
        if (!isfinite(v))
            nonfinite++;
        sum += fabs(v - gold);
        if (!(rel <= eps))
            errors++;
    }
    out->name = (char)('a' + array);
    out->expected = gold;
    out->avg_abs_err = n ? sum / (double)n : 0.0;
    out->avg_rel_err = out->avg_abs_err / denom;
    out->errors = errors;
    out->nonfinite = nonfinite;
    out->ok = isfinite(gold) && nonfinite == 0 && isfinite(out->avg_rel_err) &&
              out->avg_rel_err <= eps;
}

void st_inject_error(const st_plan_t *plan, const st_arrays_t *x, double *dot_last)
{
    size_t j = x->n / 2;
    double v;

    if (plan->inject < 0)
        return;
    if (plan->inject == 3) {
        *dot_last *= 2.0;
        return;
    }
    v = st_array_get(plan->type, x, plan->inject, j);
    st_array_set(plan->type, x, plan->inject, j, v != 0.0 ? v * (1.0 + (double)x->n) : 1.0);
}

void st_validate(const st_plan_t *plan, const st_arrays_t *x, double dot_last,
                 st_validation_t *out)
{
    double gold[3];
    double dot_elem;

    memset(out, 0, sizeof *out);
    out->epsilon = st_epsilon(plan->elem_bytes);
    dot_elem = replay(plan, x->scalar, gold, NULL);

    out->arrays_ok = true;
    for (int i = 0; i < 3; i++) {
        check_array(plan, x, i, gold[i], out->epsilon, &out->arr[i]);
        out->arrays_ok = out->arrays_ok && out->arr[i].ok;
    }

    out->has_dot = !isnan(dot_elem);
    out->dot_ok = true;
    if (out->has_dot) {
        out->dot_expected = dot_elem * (double)x->n;
        out->dot_value = dot_last;
        out->dot_epsilon = ST_DOT_EPSILON;
        out->dot_rel_err = fabs((dot_last - out->dot_expected) / out->dot_expected);
        out->dot_ok = isfinite(out->dot_expected) && isfinite(dot_last) &&
                      out->dot_rel_err <= out->dot_epsilon;
    }
    out->ok = out->arrays_ok && out->dot_ok;
}
