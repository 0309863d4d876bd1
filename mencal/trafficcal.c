/* trafficcal: a traffic kernel's variants timed on a team (trafficcal.h). */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>

#include "team.h"
#include "timer.h"
#include "trafficcal.h"

#define PROBE_NS 100000.0   /* the probe doubles its lines until 0.1 ms at least */

/* mc_kcal_fit_later (trafficcal.h).  The trials are sized from the default variant's
 * rate; a slower variant takes longer (the prefetching reads ran at about
 * half of it in DRAM on an Intel Xeon, family 6 model 167, and the
 * sweep's calibration took 1.26-1.34x its budget).  After the first pass
 * (every variant once, first_pass_ns in all), the two later passes get
 * what is left of the budget, never a trial under MC_KCAL_MIN_TRIAL_NS
 * at the first pass's fastest trial (fastest_ns).  Sets kc->later_share. */
size_t mc_kcal_fit_later(mc_kcal_t *kc, size_t lines, double first_pass_ns, double fastest_ns)
{
    const double left_ns = (kc->budget_s - kc->took_s) * 1e9;
    const double need_ns = first_pass_ns * (MC_KCAL_TRIALS - 1);
    if (!(need_ns > left_ns) || !(fastest_ns > 0) || lines == 0)
        return lines;
    double share = left_ns > 0 ? left_ns / need_ns : 0;
    const double floor_share = MC_KCAL_MIN_TRIAL_NS / fastest_ns;
    share = share < floor_share ? floor_share : share;
    if (share >= 1)
        return lines;
    const size_t n = (size_t)((double)lines * share);
    kc->later_share = (double)(n ? n : 1) / (double)lines;
    return n ? n : 1;
}

int mc_traffic_calibrate(const mc_config_t *cfg1, const mc_traffic_spec_t *spec, void *buf,
                         size_t bytes, double run_s, mc_kcal_t *kc)
{
    const int th = cfg1->nthreads;
    const size_t share = bytes / (size_t)th & ~(size_t)4095;   /* own pages per thread */
    const int rw = spec->k->reads + spec->k->writes;           /* arrays moved per line step */
    const size_t step = (size_t)MC_LINE_BYTES * (size_t)(rw > 0 ? rw : 1);
    if (kc->forced >= 0 || kc->max_s <= 0 || share < (size_t)spec->k->arrays * 64 * MC_LINE_BYTES) {
        mc_kcal_plan(kc, run_s, 0, 0, step, th);
        if (kc->forced < 0 && kc->max_s > 0)
            kc->why_not = "the calibration cannot finish in time: under 64 lines per array and "
                          "thread to time";
        return 0;
    }
    mc_traffic_t *tr = calloc((size_t)th, sizeof *tr);
    double *rate = calloc((size_t)th, sizeof *rate);     /* bytes/ns of each thread's probe */
    double *probe_took = calloc((size_t)th, sizeof *probe_took);   /* ns of each thread's probe */
    uint64_t *moved = calloc((size_t)th, sizeof *moved);
    if (!tr || !rate || !probe_took || !moved) {
        free(tr), free(rate), free(probe_took), free(moved);
        return -ENOMEM;
    }
    /* the probe lasts about one planned trial, so its rate is the trials' (a
     * 0.1 ms probe read twice the DRAM rate and the trials overran 2x) */
    const double budget_s = fmin(kc->max_s, MC_KCAL_RUN_SHARE * run_s);
    const double probe_ns = fmax(PROBE_NS, budget_s * 1e9 / (double)(mc_kcal_trials(kc) + 1));
    uint64_t t0 = 0;
    size_t lines = 0;
    double first_pass_ns = 0, fastest_ns = INFINITY;
    volatile bool stop = false;
#pragma omp parallel num_threads(th)
    {
        const int t = omp_get_thread_num();
        mc_traffic_t *x = &tr[t];
        mc_pin_self(cfg1->cpu[t]);
        mc_traffic_init(x, spec, (char *)buf + (size_t)t * share, share, cfg1->random_state,
                        (uint64_t)t);
        for (size_t n = 64;; n *= 2) {   /* the probe: the default variant, wrapping */
            uint64_t b0 = x->stream_bytes, a = mb_now_ns();
            mc_traffic_lines(x, n);
            double dt = (double)(mb_now_ns() - a);
            probe_took[t] += dt;
            if (dt >= probe_ns || n >= ((size_t)1 << 40)) {
                rate[t] = dt > 0 ? (double)(x->stream_bytes - b0) / dt : 0;
                break;
            }
        }
#pragma omp barrier
#pragma omp master
        {
            double slow = INFINITY, probe_ns_taken = 0;
            for (int k = 0; k < th; k++) {
                slow = fmin(slow, rate[k]);
                probe_ns_taken = fmax(probe_ns_taken, probe_took[k]);
            }
            /* the probe counts inside the budget: the trials get what it left */
            const double left = budget_s > 0 ? 1 - probe_ns_taken / (budget_s * 1e9) : 0;
            mc_kcal_plan(kc, run_s, isfinite(slow) && left > 0 ? slow * left : 0, 0, step,
                         th);   /* trials wrap */
            kc->took_s += probe_ns_taken * 1e-9;
            lines = kc->on ? (size_t)(kc->chunk_bytes / (double)step) : 0;
        }
#pragma omp barrier
        for (int r = 0; kc->on && r <= mc_kcal_trials(kc); r++) {
#pragma omp barrier
            if (stop)
                break;
            mc_traffic_use(x, mc_kcal_trial_variant(kc, r));
            uint64_t b0 = x->stream_bytes;
#pragma omp barrier
#pragma omp master
            t0 = mb_now_ns();
#pragma omp barrier
            mc_traffic_lines(x, lines);
            moved[t] = x->stream_bytes - b0;
#pragma omp barrier
#pragma omp master
            {
                double ns = (double)(mb_now_ns() - t0), sum = 0;
                for (int k = 0; k < th; k++)
                    sum += (double)moved[k];
                mc_kcal_trial_done(kc, r, sum, ns);
                if (r >= 1 && (size_t)r <= kc->nvar) {   /* the first pass */
                    first_pass_ns += ns;
                    fastest_ns = fmin(fastest_ns, ns);
                    if ((size_t)r == kc->nvar)
                        lines = mc_kcal_fit_later(kc, lines, first_pass_ns, fastest_ns);
                }
                if (r == mc_kcal_trials(kc))
                    mc_kcal_finish(kc);
                stop = cfg1->stop && *cfg1->stop;
            }
        }
    }
    mc_restore_mask(cfg1);
    free(tr), free(rate), free(probe_took), free(moved);
    return 0;
}
