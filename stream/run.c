/* run: initialisation, calibration and the timed kernel rounds. */
#include "run.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "nt.h"
#include "timer.h"

int st_run_prepare(const st_plan_t *plan, st_run_t *run, char *msg, size_t msglen)
{
    size_t cells;

    memset(run, 0, sizeof *run);
    if (!mb_mul_size((size_t)plan->ntimes, plan->nkernels, &cells) ||
        !(run->times_s = calloc(cells, sizeof *run->times_s))) {
        snprintf(msg, msglen, "cannot allocate the time table for %d rounds; use a smaller --ntimes",
                 plan->ntimes);
        return MB_EXIT_RESOURCE;
    }
    st_run_nt_used(plan, run);

    if (mb_counters_init(&run->total, NULL, msg, msglen) != 0)
        return MB_EXIT_USAGE;
    if (plan->counters) {
        /* the whole-run set counts software events and rusage only */
        snprintf(run->total.hw_why, sizeof run->total.hw_why,
                 "counted per kernel: see records[].counters");
        run->counters = calloc(plan->nkernels, sizeof *run->counters);
        if (!run->counters) {
            snprintf(msg, msglen, "cannot allocate the counter sets: %s", strerror(errno));
            return MB_EXIT_RESOURCE;
        }
        for (size_t i = 0; i < plan->nkernels; i++) {
            char why[256];
            if (mb_counters_init(&run->counters[i], plan->counters, why, sizeof why) != 0) {
                snprintf(msg, msglen, "--counters: %s", why);
                return MB_EXIT_USAGE;
            }
        }
    }
    return 0;
}

void st_run_nt_used(const st_plan_t *plan, st_run_t *run)
{
    for (size_t i = 0; i < plan->nkernels; i++)
        run->nt_used[i] = plan->nt && st_nt_has(plan->nt_isa, plan->type, plan->kernel[i]);
}

void st_run_init(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run)
{
    double t0;

    mb_counters_start(&run->total);
    t0 = mb_now_s();
    st_arrays_fill(plan->type, x, 1.0, 2.0, 0.0);
    run->init_s = mb_now_s() - t0;
}

void st_run_calibrate(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run)
{
    double t0;

    run->granularity_ns = mb_timer_granularity_ns(20);
    run->quantum_us = mb_timer_checktick_us();
    t0 = mb_now_s();
    st_arrays_double_a(plan->type, x);
    run->calib_us = 1.0e6 * (mb_now_s() - t0);
}

void st_run_kernels(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run)
{
    (void)st_run_kernels_sync(plan, x, run, NULL);
}

int st_run_kernels_sync(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run,
                        const st_run_sync_t *sync)
{
    const size_t nk = plan->nkernels;
    const double start = mb_now_s();
    int rc = 0;

    run->rounds_done = 0;
    /* every thread of the kernels' team has its own event set; joined
     * here, after NUMA binding and --threads have shaped the team */
    for (size_t i = 0; run->counters && i < nk; i++)
        mb_counters_join_team(&run->counters[i], omp_get_max_threads());
    for (int k = 0; k < plan->ntimes && rc == 0; k++) {
        if (run->stop && *run->stop)
            break;
        for (size_t i = 0; i < nk; i++) {
            const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)plan->kernel[i]);
            mb_counters_t *c = run->counters ? &run->counters[i] : NULL;
            const size_t cell = i * (size_t)plan->ntimes + (size_t)k;
            double t0, ts, tk, t1, r;

            /* Counters cover the kernel only, never a barrier. */
            if (c && !sync)
                mb_counters_start(c);
            t0 = mb_now_s();
            ts = t0;
            if (sync) {
                if ((rc = sync->sync(sync->ctx)) != 0)
                    break;
                if (c)
                    mb_counters_start(c);
                ts = mb_now_s();
            }
            if (run->nt_used[i])
                r = st_nt_run(plan->nt_isa, plan->type, kd->id, x);
            else
                r = kd->fn[plan->type](x);
            tk = mb_now_s();
            if (c)
                mb_counters_stop(c);
            if (sync && (rc = sync->sync(sync->ctx)) != 0)
                break;
            t1 = sync ? mb_now_s() : tk;
            run->times_s[cell] = t1 - t0;
            if (sync && sync->kernel_only_s)
                sync->kernel_only_s[cell] = tk - ts;
            if (kd->dot)
                run->dot_last = r;
        }
        if (rc == 0)
            run->rounds_done = k + 1;
    }
    run->kernels_total_s = mb_now_s() - start;
    mb_counters_stop(&run->total);
    for (size_t i = 0; run->counters && i < nk; i++) {
        const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)plan->kernel[i]);
        /* the same team again: a slot whose OS thread changed is marked */
        mb_counters_join_team(&run->counters[i], omp_get_max_threads());
        run->counters[i].bytes_moved =
            st_kernel_bytes(kd->words, plan->elem_bytes, plan->n) * run->rounds_done;
    }
    return rc;
}

void st_run_summarize(const st_plan_t *plan, const st_run_t *run, st_summary_t *sum)
{
    const size_t nt = (size_t)plan->ntimes;

    for (size_t i = 0; i < plan->nkernels; i++) {
        const st_kernel_t *kd = st_kernel_get((st_kernel_id_t)plan->kernel[i]);
        st_summary_t *s = &sum[i];
        /* Streaming stores bypass the cache: no write-allocate read. */
        const unsigned wa = run->nt_used[i] ? kd->words : kd->words_wa;

        memset(s, 0, sizeof *s);
        s->id = kd->id;
        s->bytes = st_kernel_bytes(kd->words, plan->elem_bytes, plan->n);
        s->bytes_wa = st_kernel_bytes(wa, plan->elem_bytes, plan->n);
        s->samples = &run->times_s[i * nt];
        s->stats_ok = mb_stats_compute(s->samples, nt, 1, &s->stats) == 0;
        /* A zero minimum (too small to time) gives an infinite rate: it
         * renders as inf in text and null with a reason in JSON. */
        s->best_rate_mbps = s->stats_ok ? st_rate_mbps(s->bytes, s->stats.min) : NAN;
        s->best_rate_wa_mbps = s->stats_ok ? st_rate_mbps(s->bytes_wa, s->stats.min) : NAN;
    }
}

void st_run_free(const st_plan_t *plan, st_run_t *run)
{
    if (run->counters) {
        for (size_t i = 0; i < plan->nkernels; i++)
            mb_counters_finish(&run->counters[i]);
        free(run->counters);
        run->counters = NULL;
    }
    mb_counters_finish(&run->total);
    free(run->times_s);
    run->times_s = NULL;
}
