/* warns: run warnings to stderr and into the result. */
#include "warns.h"

#include <stdarg.h>
#include <stdio.h>

#include "log.h"
#include "text.h"

void st_warn(st_warns_t *w, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    mb_warn("%s", buf);
    if (w->n < ST_MAX_WARN) {
        snprintf(w->text[w->n], sizeof w->text[0], "%s", buf);
        w->ptr[w->n] = w->text[w->n];
        w->n++;
    }
}

void st_check_ticks(const st_plan_t *p, const st_run_t *run, const st_summary_t *sum,
                    const char *clock, st_warns_t *w)
{
    st_ticks_t t;
    double tick_s, fastest = -1.0;

    st_text_ticks(run, &t);
    tick_s = (t.quantum_us > 0 ? t.quantum_us : 1) * 1e-6;
    for (size_t i = 0; i < p->nkernels; i++)
        if (sum[i].stats_ok && (fastest < 0 || sum[i].stats.min < fastest))
            fastest = sum[i].stats.min;
    if (t.ticks < 20 || (fastest >= 0 && fastest < 20 * tick_s))
        st_warn(w, "a test takes only about %d %s ticks (fewer than 20): the times are "
                "imprecise; use a larger --array-size",
                t.ticks < 20 ? t.ticks : (int)(fastest / tick_s), clock);
}
