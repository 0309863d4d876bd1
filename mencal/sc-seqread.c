/* seqread: the whole machine's sequential read bandwidth.
 *
 * Every thread streams through its own slice with a vectorised integer
 * sum.  The sum is checked against its closed form on every repetition,
 * so the loads cannot be optimised away and a wrong read is caught.
 * The kernel is chosen by measurement (readkern.h): with --kernel-variant
 * auto, a short calibration (at most --kernel-calibration seconds and 5%
 * of the run) times every variant twice, alternating, on fresh chunks of
 * each slice, and the fastest runs the measurement; the figures go to the
 * result (table kernel_calibration and a note).  A calibration whose
 * trials would be too short to time (under MIN_TRIAL_NS), or that ran
 * past --kernel-calibration (a machine so busy that the trials were
 * preempted), leaves the default variant, and the note says so. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "json.h"
#include "measure.h"
#include "readkern.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"

/* --kernel-variant and --kernel-calibration. */
typedef struct {
    int variant;          /* CHOICE: 0 auto, else mc_readkerns[variant - 1] */
    double cal_max_s;     /* most seconds the calibration may take */
} seqread_conf_t;

#define OFF(f) offsetof(seqread_conf_t, f)
static const mb_opt_t seqread_opts[] = {
    { .long_name = "kernel-variant", .type = MB_OPT_CHOICE, .offset = OFF(variant),
      .choices = MC_READKERN_CHOICES, .def = "auto",
      .help = "seqread: the read kernel (vector bytes x accumulators, pf: software prefetch); "
              "auto: the fastest in a short calibration on this machine at this size" },
    { .long_name = "kernel-calibration", .type = MB_OPT_DOUBLE, .offset = OFF(cal_max_s),
      .dmin = 0, .dmax = 1, .metavar = "SECONDS", .def = "1",
      .help = "seqread: most time the calibration of --kernel-variant auto may take (it also "
              "takes at most 5% of the run); 0: no calibration, the default variant" },
};
#undef OFF

static void seqread_json(mb_json_t *j, const void *conf)
{
    const seqread_conf_t *c = conf;
    mb_json_string(j, "kernel_variant", c->variant ? mc_readkerns[c->variant - 1].name : "auto");
    mb_json_number(j, "kernel_calibration_max_s", c->cal_max_s);
}

/* sum of first .. first+n-1, modulo 2^64 */
static uint64_t expected_sum(uint64_t first, uint64_t n)
{
    unsigned __int128 a = first, b = first + n - 1;
    unsigned __int128 t = (a + b) * (unsigned __int128)n / 2;
    return (uint64_t)t;
}

#define MIN_REP_S 0.02   /* a repetition lasts at least ~20 ms */

static int passes_for(double one_pass_s)
{
    if (!(one_pass_s > 0))
        return 1;
    double p = ceil(MIN_REP_S / one_pass_s);
    return p < 1 ? 1 : p > 10000 ? 10000 : (int)p;
}

static const mc_col_t thread_cols[] = {
    { "thread", "", false }, { "cpu", "", false }, { "node", "", false },
    { "slice", "bytes", false }, { "bandwidth", "GB/s", false },
};

/* What a thread reads: its slice, the sum it must find, and the passes
 * per repetition (1 while calibrating). */
typedef struct {
    const uint64_t *w;
    size_t words;
    uint64_t first;                   /* the value of w[0] */
    uint64_t want;
    const int *passes;
    const mc_readkern_t *const *kern; /* the variant in use */
    int *bad_thread;
} slice_t;

static void read_body(void *arg, int t, int r)
{
    (void)r;
    const slice_t *s = arg;
    int np = *s->passes;
    mc_readkern_fn sum = (*s->kern)->fn;
    for (int k = 0; k < np; k++) {
        if (sum(s->w, s->words) != s->want) {
#pragma omp critical
            *s->bad_thread = t;
        }
        __asm__ volatile("" ::: "memory");   /* every pass really reads */
    }
}

/* Calibration: passes per repetition from the faster of two timed single
 * passes (the first one pays for cold TLB and caches and, alone, gave
 * repetitions far under MIN_REP_S). */
typedef struct {
    int passes;
    double one_pass_s;   /* the faster single pass */
} pass_cal_t;

static void calibrated(mc_measure_t *cal, int r, void *ctx)
{
    pass_cal_t *pc = ctx;
    double s = cal->wall_ns[r] * 1e-9, first = cal->wall_ns[0] * 1e-9;
    pc->one_pass_s = r == 0 || s > first ? first : s;
    pc->passes = passes_for(pc->one_pass_s);
}

/* ---- the kernel calibration ------------------------------------------ */

#define CAL_RUN_SHARE 0.05          /* at most 5% of the run */
#define MIN_TRIAL_NS 200000.0       /* a trial shorter than 0.2 ms is not timed */
#define CAL_TRIALS 3                /* per variant, alternating */

/* The plan and the figures of the calibration (master writes, team reads
 * after a barrier). */
typedef struct {
    bool on;                 /* the calibration runs */
    const char *why_not;     /* when not: why (static text) */
    size_t chunk_words;      /* per thread and trial */
    size_t nchunks;          /* chunks of a slice, trials rotate through them */
    double budget_s, run_s;  /* its budget, and the run it is a share of */
    double gbps[16][CAL_TRIALS];  /* per variant and trial */
    double took_s, max_s;        /* its wall time; the hard cap (--kernel-calibration) */
    const mc_readkern_t *kern;   /* the variant in use (default until chosen) */
    bool overran, finished;      /* past max_s; every trial ran */
} kcal_t;

/* The best trial of variant i (GB/s). */
static double kcal_best(const kcal_t *kc, size_t i)
{
    double g = 0;
    for (int k = 0; k < CAL_TRIALS; k++)
        g = kc->gbps[i][k] > g ? kc->gbps[i][k] : g;
    return g;
}

/* Trial r (1-based) of the calibration: variant (r - 1) % n, chunk r % nchunks. */
static const mc_readkern_t *trial_kern(int r)
{
    return r == 0 ? &mc_readkerns[MC_READKERN_DEFAULT] : &mc_readkerns[(size_t)(r - 1) % mc_nreadkerns];
}

typedef struct {
    const slice_t *s;
    const kcal_t *kc;
} trial_t;

static void trial_body(void *arg, int t, int r)
{
    const trial_t *tr = arg;
    const slice_t *s = tr->s;
    size_t cw = tr->kc->chunk_words, off = (size_t)r % tr->kc->nchunks * cw;
    uint64_t first = s->first + off;
    unsigned __int128 a = first, b = first + cw - 1;
    uint64_t want = (uint64_t)((a + b) * (unsigned __int128)cw / 2);
    if (trial_kern(r)->fn(s->w + off, cw) != want) {
#pragma omp critical
        *s->bad_thread = t;
    }
    __asm__ volatile("" ::: "memory");
}

/* After each trial: its rate; after the last, the fastest variant. */
static void trial_done(mc_measure_t *m, int r, void *ctx)
{
    kcal_t *kc = ctx;
    if (r == 0)
        return;
    size_t v = (size_t)(r - 1) % mc_nreadkerns, k = (size_t)(r - 1) / mc_nreadkerns;
    kc->gbps[v][k] = (double)kc->chunk_words * 8 * (double)m->nthreads / m->wall_ns[r];
    kc->took_s += m->wall_ns[r] * 1e-9;
    if (r < m->reps)
        return;
    kc->finished = true;
    kc->took_s += m->wall_ns[0] * 1e-9;
    /* planned at 5% of the run; past the hard cap (a machine so busy
     * that the trials were preempted) its figures are not trusted */
    if (kc->took_s > kc->max_s) {
        kc->overran = true;
        return;
    }
    double best = 0;
    for (size_t i = 0; i < mc_nreadkerns; i++)
        if (kcal_best(kc, i) > best)
            best = kcal_best(kc, i), kc->kern = &mc_readkerns[i];
}

/* The plan, from the pass calibration: the run lasts about (reps + 1)
 * repetitions of `passes` passes; the calibration gets min(max_s, 5% of
 * that), split into equal trials over chunks of the slice. */
static void kcal_plan(kcal_t *kc, double max_s, int reps, const pass_cal_t *pc, size_t words)
{
    kc->run_s = (double)(reps + 1) * pc->passes * pc->one_pass_s;
    kc->budget_s = fmin(max_s, CAL_RUN_SHARE * kc->run_s);
    const double trials = (double)(CAL_TRIALS * mc_nreadkerns + 1);
    const double trial_ns = kc->budget_s * 1e9 / trials;
    if (max_s <= 0) {
        kc->why_not = "--kernel-calibration 0: no calibration";
        return;
    }
    if (!(pc->one_pass_s > 0) || trial_ns < MIN_TRIAL_NS) {
        kc->why_not = "the calibration cannot finish in time: its trials would be shorter than "
                      "0.2 ms within its budget";
        return;
    }
    /* words one thread reads in trial_ns at the pass's rate, whole lines */
    double w = (double)words * trial_ns / (pc->one_pass_s * 1e9);
    size_t cw = w >= (double)words ? words : (size_t)w / 8 * 8;
    if (cw < 8) {
        kc->why_not = "the calibration cannot finish in time: a trial would read under one line";
        return;
    }
    kc->chunk_words = cw;
    kc->nchunks = words / cw;
    kc->on = true;
}

static const mc_col_t kcal_cols[] = {
    { "variant", "", true },        { "vector_bytes", "bytes", false },
    { "accumulators", "", false },  { "prefetch_bytes", "bytes", false },
    { "bandwidth", "GB/s", false }, { "chosen", "", true },
};

/* The result's record of the choice: a table of every variant's best
 * trial and one note. */
static void kcal_report(mc_result_t *res, const seqread_conf_t *c, const kcal_t *kc, int nt)
{
    const mc_readkern_t *def = &mc_readkerns[MC_READKERN_DEFAULT];
    if (c->variant) {
        mc_result_note(res, "kernel %s forced by --kernel-variant (%u-byte vectors, %u "
                       "accumulators, prefetch %u B); no calibration", kc->kern->name,
                       kc->kern->vector_bytes, kc->kern->accumulators, kc->kern->prefetch_bytes);
        return;
    }
    if (kc->on && !kc->finished) {
        mc_result_note(res, "kernel %s (the default): the calibration was interrupted", def->name);
        return;
    }
    if (!kc->on) {
        mc_result_note(res, "kernel %s (the default): %s (budget %.3g ms = min(--kernel-calibration, "
                       "5%% of a %.3g s run)); force one with --kernel-variant", def->name,
                       kc->why_not, kc->budget_s * 1e3, kc->run_s);
        return;
    }
    mc_table_t *tab = mc_table_new(res, "kernel_calibration", kcal_cols, 6);
    char list[512];
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < mc_nreadkerns; i++) {
        const mc_readkern_t *k = &mc_readkerns[i];
        double g = kcal_best(kc, i);
        long row = mc_table_row(tab);
        mc_table_str(tab, row, 0, k->name);
        mc_table_num(tab, row, 1, k->vector_bytes);
        mc_table_num(tab, row, 2, k->accumulators);
        mc_table_num(tab, row, 3, k->prefetch_bytes);
        mc_table_num(tab, row, 4, g);
        mc_table_str(tab, row, 5, k == kc->kern ? "yes" : "no");
        if (used < sizeof list)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s %.3g", i ? ", " : "",
                                     k->name, g);
    }
    char sz[32];
    if (kc->overran)
        mc_result_note(res, "kernel %s (the default): the calibration could not finish in time "
                       "(%.3g ms, over --kernel-calibration %.3g s; planned %.3g ms); its figures "
                       "(GB/s, best of %d): %s; force one with --kernel-variant", def->name,
                       kc->took_s * 1e3, kc->max_s, kc->budget_s * 1e3, CAL_TRIALS, list);
    else
        mc_result_note(res, "kernel %s chosen by calibration, GB/s best of %d alternating trials "
                       "of %s per thread x %d threads: %s; it took %.3g ms (budget %.3g ms = "
                       "min(--kernel-calibration, 5%% of a %.3g s run))", kc->kern->name,
                       CAL_TRIALS, mb_format_bytes(kc->chunk_words * 8, sz, sizeof sz), nt, list,
                       kc->took_s * 1e3, kc->budget_s * 1e3, kc->run_s);
    /* how long the calibration took: a cost, not a figure of the memory */
    mb_metric_better(mc_metric(res, "kernel_calibration_time", "s", kc->took_s), MB_BETTER_NONE);
}

static int seqread_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const seqread_conf_t *c = conf;
    const int nt = cfg->nthreads;
    const size_t slice = mc_slice_bytes(cfg->size_bytes, nt, MC_LINE_BYTES);
    const size_t words = slice / sizeof(uint64_t), total = slice * (size_t)nt;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);

    mc_measure_t m, cal, vc;
    int *cpu = calloc((size_t)nt, sizeof *cpu), *node = calloc((size_t)nt, sizeof *node);
    int cal_ok = mc_measure_init(&cal, cfg, res, 1) == 0;
    int m_ok = mc_measure_init(&m, cfg, res, cfg->reps) == 0;
    int vc_ok = mc_measure_init(&vc, cfg, res, (int)(CAL_TRIALS * mc_nreadkerns)) == 0;
    if (!cpu || !node || !cal_ok || !m_ok || !vc_ok) {
        free(cpu), free(node);
        if (cal_ok)
            mc_measure_free(&cal);
        if (m_ok)
            mc_measure_free(&m);
        if (vc_ok)
            mc_measure_free(&vc);
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
    int bad_thread = -1, cal_passes = 1;
    pass_cal_t pc = { .passes = 1 };
    cal.count = false;
    cal.on_rep = calibrated;
    cal.on_rep_ctx = &pc;
    kcal_t kc = { .kern = c->variant ? &mc_readkerns[c->variant - 1] : &mc_readkerns[MC_READKERN_DEFAULT],
                  .max_s = c->cal_max_s };
    vc.count = false;
    vc.on_rep = trial_done;
    vc.on_rep_ctx = &kc;
    const mc_readkern_t *kern = kc.kern;

#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        cpu[t] = sched_getcpu();
        node[t] = mc_cpu_node(-1);
        uint64_t *w = (uint64_t *)((char *)buf + (size_t)t * slice);
        uint64_t first = (uint64_t)t * words;
        for (size_t i = 0; i < words; i++)   /* first touch by the owner */
            w[i] = first + i;
        slice_t s = { w, words, first, expected_sum(first, words), &cal_passes, &kern, &bad_thread };
        mc_measure_run(&cal, t, read_body, &s);
        if (!c->variant) {   /* auto: the calibration, then the winner */
#pragma omp master
            kcal_plan(&kc, c->cal_max_s, cfg->reps, &pc, words);
#pragma omp barrier
            if (kc.on) {
                trial_t tr = { &s, &kc };
                mc_measure_run(&vc, t, trial_body, &tr);
            }
#pragma omp master
            kern = kc.kern;
        }
        s.passes = &pc.passes;
        mc_measure_run(&m, t, read_body, &s);   /* rep 0 is the warm-up, not counted */
    }
    const int passes = pc.passes;
    mc_measure_free(&cal);
    mc_measure_free(&vc);
    mc_buffer_finish(res, cfg, buf, total);

    int n = mc_measure_finish(&m);   /* counted reps: 1..n */
    double *gbps = calloc((size_t)(n > 0 ? n : 1), sizeof *gbps);
    double *wall_s = calloc((size_t)(n > 0 ? n : 1), sizeof *wall_s);
    const double rep_bytes = (double)total * passes;
    if (gbps)
        mc_measure_rates(&m, rep_bytes, gbps);
    for (int r = 1; wall_s && r <= n; r++)
        wall_s[r - 1] = m.wall_ns[r] * 1e-9;
    res->rec.headline = "bandwidth";
    mc_metric_samples(res, "bandwidth", "GB/s", gbps, (size_t)n,
                      "interrupted before the first repetition");
    mc_metric_samples(res, "time", "s", wall_s, (size_t)n,
                      "interrupted before the first repetition");
    mc_metric(res, "bytes_per_rep", "bytes", rep_bytes);
    mc_metric(res, "passes_per_rep", "", passes);
    kcal_report(res, c, &kc, nt);

    /* per thread: median over reps of slice / own time */
    mc_table_t *tab = mc_table_new(res, "per_thread", thread_cols, 5);
    double *v = calloc((size_t)(n > 0 ? n : 1), sizeof *v);
    double *thr_med = calloc((size_t)nt, sizeof *thr_med);
    for (int t = 0; v && thr_med && t < nt; t++) {
        for (int r = 1; r <= n; r++)
            v[r - 1] = (double)slice * passes / MC_THR_NS(&m, r, t);
        thr_med[t] = n ? mb_median(v, (size_t)n) : NAN;
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, t);
        mc_table_num(tab, row, 1, cpu[t]);
        mc_table_num(tab, row, 2, node[t] >= 0 ? node[t] : NAN);
        mc_table_num(tab, row, 3, (double)slice);
        mc_table_num(tab, row, 4, thr_med[t]);
    }
    if (thr_med && n) {
        mb_stats_t st;
        if (mb_stats_compute(thr_med, (size_t)nt, 0, &st) == 0) {
            mc_metric(res, "per_thread_min", "GB/s", st.min);
            mc_metric(res, "per_thread_max", "GB/s", st.max);
        }
    }
    mc_result_counter_metrics(res, rep_bytes / MC_LINE_BYTES * (n > 0 ? n : 0),
                              "64-byte line read");
    mc_result_counter_bytes(res, rep_bytes * (n > 0 ? n : 0));
    free(v), free(thr_med), free(gbps), free(wall_s);
    free(cpu), free(node);
    mc_measure_free(&m);
    if (bad_thread >= 0)
        return mc_result_fail(res, MB_EXIT_FAIL, "validation failed: thread %d read a sum that does not "
                              "match the data written; memory or kernel error", bad_thread);
    return 0;
}

const mc_scenario_t mc_sc_seqread = {
    .name = "seqread",
    .summary = "sequential read bandwidth of all threads (GB/s total and per thread)",
    MC_SCENARIO_OPTIONS(seqread_opts, seqread_conf_t),
    .config_json = seqread_json,
    .run = seqread_run,
};
