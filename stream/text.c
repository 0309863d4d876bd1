/* text: the STREAM 5.10 compatible report. */
#include "text.h"

#include <math.h>

#include "counter_names.h"
#include "kernels.h"
#include "log.h"

#define HLINE "-------------------------------------------------------------\n"

void st_text_ticks(const st_run_t *run, st_ticks_t *t)
{
    /* STREAM 5.10: quantum = checktick(); below 1 it prints "less than
     * one microsecond" and counts ticks of 1 us; t is the calibration
     * pass in microseconds, printed as (int)t and (int)(t / quantum). */
    int quantum = run->quantum_us;

    t->quantum_us = quantum >= 1 ? quantum : 0;
    if (quantum < 1)
        quantum = 1;
    t->test_us = (int)run->calib_us;
    t->ticks = (int)(run->calib_us / quantum);
}

static void header(const st_outcome_t *o, FILE *f)
{
    const st_plan_t *p = o->plan;
    const double mib = 1024.0 * 1024.0, gib = mib * 1024.0;
    const double per = (double)p->array_bytes, total = 3.0 * per;

    fputs(HLINE, f);
    fputs("STREAM version $Revision: 5.10 $\n", f);
    fputs(HLINE, f);
    if (p->tuned)
        fprintf(f, "%s\n", p->tuned_line);
    fprintf(f, "This system uses %d bytes per array element.\n", (int)p->elem_bytes);
    fputs(HLINE, f);
    fprintf(f, "Array size = %llu (elements), Offset = %d (elements)\n",
            (unsigned long long)p->n, (int)p->offset);
    fprintf(f, "Memory per array = %.1f MiB (= %.1f GiB).\n", per / mib, per / gib);
    fprintf(f, "Total memory required = %.1f MiB (= %.1f GiB).\n", total / mib, total / gib);
    fprintf(f, "Each kernel will be executed %d times.\n", p->ntimes);
    fputs(" The *best* time for each kernel (excluding the first iteration)\n", f);
    fputs(" will be used to compute the reported bandwidth.\n", f);
    fputs(HLINE, f);
    fprintf(f, "Number of Threads requested = %i\n", o->aff->requested);
    fprintf(f, "Number of Threads counted = %i\n", o->aff->counted);
    fputs(HLINE, f);
}

void st_text_clock_block(const st_run_t *run, const char *word, FILE *f)
{
    st_ticks_t t;

    st_text_ticks(run, &t);
    if (t.quantum_us >= 1)
        fprintf(f, "Your %s granularity/precision appears to be %d microseconds.\n", word,
                t.quantum_us);
    else
        fprintf(f, "Your %s granularity appears to be less than one microsecond.\n", word);
    fprintf(f, "Each test below will take on the order of %d microseconds.\n", t.test_us);
    fprintf(f, "   (= %d %s ticks)\n", t.ticks, word);
    fputs("Increase the size of the arrays if this shows that\n", f);
    fprintf(f, "you are not getting at least 20 %s ticks per test.\n", word);
    fputs(HLINE, f);
    fputs("WARNING -- The above is only a rough guideline.\n", f);
    fputs("For best results, please be sure you know the\n", f);
    fputs("precision of your system timer.\n", f);
    fputs(HLINE, f);
}

static void table(const st_outcome_t *o, FILE *f)
{
    fputs("Function    Best Rate MB/s  Avg time     Min time     Max time\n", f);
    for (size_t i = 0; i < o->plan->nkernels; i++) {
        const st_summary_t *s = &o->sum[i];
        const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)s->id);
        fprintf(f, "%s%12.1f  %11.6f  %11.6f  %11.6f\n", kd->label, s->best_rate_mbps,
                s->stats.mean, s->stats.min, s->stats.max);
    }
    fputs(HLINE, f);
}

void st_text_validation(const st_validation_t *v, FILE *f)
{
    for (int i = 0; i < 3; i++) {
        const st_array_check_t *a = &v->arr[i];
        if (a->ok)
            continue;
        fprintf(f, "Failed Validation on array %c[], AvgRelAbsErr > epsilon (%e)\n", a->name,
                v->epsilon);
        fprintf(f, "     Expected Value: %e, AvgAbsErr: %e, AvgRelAbsErr: %e\n", a->expected,
                a->avg_abs_err, a->avg_rel_err);
        if (i > 0)
            fprintf(f, "     AvgRelAbsErr > Epsilon (%e)\n", v->epsilon);
        fprintf(f, "     For array %c[], %zu errors were found.\n", a->name, a->errors);
    }
    if (v->arrays_ok)
        fprintf(f, "Solution Validates: avg error less than %e on all three arrays\n", v->epsilon);
    /* Dot runs only in tuned mode, so this line never appears in a
     * standard report. */
    if (v->has_dot) {
        if (v->dot_ok)
            fprintf(f, "Dot product validates: relative error %e less than %e\n", v->dot_rel_err,
                    v->dot_epsilon);
        else
            fprintf(f, "Failed Validation on dot product: Expected Value: %e, Value: %e, "
                       "RelErr: %e > %e\n", v->dot_expected, v->dot_value, v->dot_rel_err,
                    v->dot_epsilon);
    }
    fputs(HLINE, f);
}

int st_text_render(const st_outcome_t *o, FILE *f)
{
    header(o, f);
    st_text_clock_block(o->run, "clock", f);
    table(o, f);
    st_text_validation(o->val, f);
    return ferror(f) ? -1 : 0;
}

void st_text_extras(const st_outcome_t *o, FILE *f)
{
    const st_plan_t *p = o->plan;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", mb_log_prog());
    if (p->hugepages != ST_HP_THP) {
        const mb_thp_t *t = o->thp;
        if (t->valid)
            fprintf(f, "%shuge pages: --hugepages %s, THP share %.1f%% of the arrays "
                       "(%zu of %zu bytes in AnonHugePages)\n", prefix, p->hugepages_name,
                    t->share * 100.0, t->anon_huge_bytes, t->range_bytes);
        else
            fprintf(f, "%shuge pages: --hugepages %s, THP share unavailable: %s\n", prefix,
                    p->hugepages_name, t->why);
    }
    if (!o->run->counters)
        return;
    for (size_t i = 0; i < p->nkernels; i++) {
        const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)o->sum[i].id);
        mb_counters_text(f, prefix, kd->title, &o->run->counters[i]);
    }
}
