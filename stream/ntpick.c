/* ntpick: the non-temporal variant chosen by measurement (ntpick.h). */
#include "ntpick.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "nt.h"
#include "timer.h"

#define PICK_TRIALS 3              /* per variant, alternating */
#define PICK_RUN_SHARE 0.05        /* at most 5% of the run */
#define PICK_MAX_S 1.0             /* and at most 1 s */
#define PICK_MIN_TRIAL_S 2e-4      /* a trial under 0.2 ms is not timed */

static double trial_s(const st_nt_isa_t *isa, const st_plan_t *p, const st_arrays_t *x,
                      size_t off, size_t len)
{
    double t0 = mb_now_s();
    st_nt_run_range(isa, p->type, ST_K_TRIAD, x, off, len);
    return mb_now_s() - t0;
}

/* The plan's "non-temporal stores (...)" reason, rewritten for the pick. */
static void set_reason(st_plan_t *p, const char *how)
{
    for (size_t i = 0; i < p->nreasons; i++)
        if (strncmp(p->reasons[i], "non-temporal stores (", 21) == 0)
            snprintf(p->reasons[i], sizeof p->reasons[i], "non-temporal stores (%s, %s)",
                     p->nt_isa->name, how);
}

/* The probe and the trials (they write a): true when every trial ran in
 * time and out->mbps holds their figures. */
static bool measure(st_plan_t *p, const st_arrays_t *x, const st_nt_isa_t *const *cand,
                    st_ntpick_t *out)
{
    /* the run's length from a probe of the default on 1/16 of the arrays
     * (at least 2^16 elements, so that the team's fork and join are a
     * small part of it) */
    size_t probe = x->n / 16 > 65536 ? x->n / 16 : (x->n < 65536 ? x->n : 65536);
    double pt1 = trial_s(p->nt_isa, p, x, 0, probe), pt2 = trial_s(p->nt_isa, p, x, 0, probe);
    double pt = pt1 < pt2 ? pt1 : pt2;   /* the second is warm */
    double per_elem = pt / (double)probe;                   /* s per element of Triad */
    out->run_s = per_elem * (double)x->n * (double)p->ntimes * (double)p->nkernels;
    out->budget_s = fmin(PICK_MAX_S, PICK_RUN_SHARE * out->run_s);
    /* the probes are part of the calibration: the trials get what they
     * leave (two probes of 1/16 of a pass are a quarter of a 10-repetition
     * Triad's 5%; left out of the plan, the calibration ran to 1.4-1.5x
     * its budget on an Intel Xeon guest) */
    out->probe_s = pt1 + pt2;
    const double per_trial = (out->budget_s - out->probe_s) / (double)(PICK_TRIALS * out->n);
    /* under 100 MB/s the probe was preempted or the team was slow to
     * start: nothing it says about the run can be trusted */
    if (!(per_elem > 0) || st_kernel_bytes(3, p->elem_bytes, 1) / per_elem < 1e8) {
        snprintf(out->why, sizeof out->why, "the calibration cannot run: its probe read %.3g MB/s "
                 "(a busy machine)", per_elem > 0 ? st_kernel_bytes(3, p->elem_bytes, 1) / per_elem * 1e-6 : 0.0);
        set_reason(p, "the default: no trustworthy probe");
        return false;
    }
    if (per_trial < PICK_MIN_TRIAL_S) {
        snprintf(out->why, sizeof out->why, "the calibration cannot finish in time: its trials "
                 "would be shorter than 0.2 ms within %.3g ms (5%% of a %.3g s run, "
                 "its %.3g ms probe included)", out->budget_s * 1e3, out->run_s,
                 out->probe_s * 1e3);
        set_reason(p, "the default: no time to calibrate");
        return false;
    }
    double c = per_trial / per_elem;
    out->chunk = c >= (double)x->n ? x->n : (size_t)c;
    const size_t nchunks = x->n / out->chunk;
    double t0 = mb_now_s();
    for (int k = 0; k < PICK_TRIALS; k++)
        for (size_t v = 0; v < out->n; v++) {
            size_t off = ((size_t)k * out->n + v + 1) % nchunks * out->chunk;
            double s = trial_s(cand[v], p, x, off, out->chunk);
            double mbps = st_kernel_bytes(3, p->elem_bytes, out->chunk) / s * 1e-6;
            if (mbps > out->mbps[v])
                out->mbps[v] = mbps;
        }
    out->took_s = mb_now_s() - t0 + out->probe_s;
    if (out->took_s > PICK_MAX_S) {
        snprintf(out->why, sizeof out->why, "the calibration could not finish in time (%.3g s, "
                 "over %.3g s)", out->took_s, PICK_MAX_S);
        set_reason(p, "the default: calibration overran");
        return false;
    }
    return true;
}

void st_ntpick(st_plan_t *p, const st_arrays_t *x, st_ntpick_t *out)
{
    memset(out, 0, sizeof *out);
    if (!p->nt || !p->nt_auto) {
        snprintf(out->why, sizeof out->why, "%s", p->nt ? "forced by --nt-isa" : "no --nt-stores");
        return;
    }
    const st_nt_isa_t *cand[ST_NTPICK_MAX];
    for (size_t i = 0; st_nt_at(i) && out->n < ST_NTPICK_MAX; i++) {
        const st_nt_isa_t *v = st_nt_at(i);
        if (v->nontemporal && v->supported() && st_nt_has(v, p->type, ST_K_TRIAD)) {
            cand[out->n] = v;
            out->name[out->n++] = v->name;
        }
    }
    if (out->n < 2) {
        snprintf(out->why, sizeof out->why, "only %s here: nothing to choose",
                 out->n ? out->name[0] : "the portable variant");
        return;
    }
    bool ok = measure(p, x, cand, out);
    st_arrays_fill(p->type, x, 1.0, 2.0, 0.0);   /* the probe and trials wrote a: STREAM's start */
    if (!ok)
        return;
    size_t best = 0;
    for (size_t v = 1; v < out->n; v++)
        if (out->mbps[v] > out->mbps[best])
            best = v;
    p->nt_isa = cand[best];
    out->ran = true;
    set_reason(p, "chosen by calibration");
}

void st_ntpick_note(const st_ntpick_t *k, const char *chosen)
{
    char list[160];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < k->n && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s %.0f", i ? ", " : "",
                                 k->name[i], k->mbps[i]);
    mb_note("--nt-isa auto: %s chosen by calibration (Triad MB/s, best of %d trials of %zu "
            "elements: %s; %.3g ms of a %.3g ms budget, its %.3g ms probe included)", chosen,
            PICK_TRIALS, k->chunk, list, k->took_s * 1e3, k->budget_s * 1e3, k->probe_s * 1e3);
}
