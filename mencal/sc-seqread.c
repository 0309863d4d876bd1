/* seqread: the whole machine's sequential read bandwidth.
 *
 * Every thread streams through its own slice with a vectorised integer
 * sum.  The sum is checked against its closed form on every repetition,
 * so the loads cannot be optimised away and a wrong read is caught.
 * The kernel is chosen by measurement (readkern.h, kcalib.h): with
 * --kernel-variant auto, a short calibration (at most --kernel-calibration
 * seconds and 5% of the run) times every variant three times,
 * alternating, on fresh chunks of each slice, and the fastest runs the
 * measurement; the figures go to the result (table kernel_calibration, a
 * note).  A calibration whose trials would be too short to time, or that
 * ran past --kernel-calibration (a machine so busy that the trials were
 * preempted), leaves the default variant, and the note says so. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "json.h"
#include "measure.h"
#include "kcalib.h"
#include "readkern.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"

/* --kernel-variant and --kernel-calibration. */
typedef struct {
    const char *variant_opt;   /* "auto" or a read variant's name */
    double cal_max_s;          /* most seconds the calibration may take */
    long variant;              /* resolved: mc_readkerns index forced, or -1 (auto) */
} seqread_conf_t;

#define OFF(f) offsetof(seqread_conf_t, f)
static const mb_opt_t seqread_opts[] = {
    MC_OPT_KERNEL_VARIANT(seqread_conf_t, variant_opt),
    MC_OPT_KERNEL_CALIBRATION(seqread_conf_t, cal_max_s),
};
#undef OFF

static int seqread_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    seqread_conf_t *c = conf;
    const mc_kfamily_t *fams[1] = { &mc_read_family };
    const bool mine = mc_run_selects(cfg, "seqread") || mc_run_selects(cfg, "matrix");
    int rc = mc_kcal_parse(c->variant_opt, fams, 1, mine && !cfg->running_all, &c->variant,
                           msg, msglen);
    if (rc && !mine)
        c->variant = -1;   /* not run: its check is the selected scenarios' */
    return mine ? rc : 0;
}

static void seqread_json(mb_json_t *j, const void *conf)
{
    const seqread_conf_t *c = conf;
    mb_json_string(j, "kernel_variant", c->variant >= 0 ? mc_readkerns[c->variant].v.name : "auto");
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

/* ---- the kernel calibration (kcalib.h) -------------------------------- */

typedef struct {
    const slice_t *s;
    const mc_kcal_t *kc;
} trial_t;

/* Trial r: variant mc_kcal_trial_variant(r) over chunk r % nchunks of the slice. */
static void trial_body(void *arg, int t, int r)
{
    const trial_t *tr = arg;
    const slice_t *s = tr->s;
    size_t cw = (size_t)tr->kc->chunk_bytes / 8, off = (size_t)r % tr->kc->nchunks * cw;
    uint64_t want = expected_sum(s->first + off, cw);
    if (mc_readkerns[mc_kcal_trial_variant(tr->kc, r)].fn(s->w + off, cw) != want) {
#pragma omp critical
        *s->bad_thread = t;
    }
    __asm__ volatile("" ::: "memory");
}

/* After each trial: its rate; after the last, the choice. */
static void trial_done(mc_measure_t *m, int r, void *ctx)
{
    mc_kcal_t *kc = ctx;
    mc_kcal_trial_done(kc, r, kc->chunk_bytes * (double)m->nthreads, m->wall_ns[r]);
    if (r == m->reps)
        mc_kcal_finish(kc);
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
    mc_kcal_t kc;
    mc_kcal_init(&kc, NULL, &mc_read_family, c->variant, c->cal_max_s);
    int vc_ok = mc_measure_init(&vc, cfg, res, mc_kcal_trials(&kc)) == 0;
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
    vc.count = false;
    vc.on_rep = trial_done;
    vc.on_rep_ctx = &kc;
    const mc_readkern_t *kern = &mc_readkerns[kc.chosen];

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
        if (c->variant < 0) {   /* auto: the calibration, then the winner */
#pragma omp master
            mc_kcal_plan(&kc, (double)(cfg->reps + 1) * pc.passes * pc.one_pass_s,
                         pc.one_pass_s > 0 ? (double)slice / (pc.one_pass_s * 1e9) : 0,
                         (double)slice, MC_LINE_BYTES, nt);
#pragma omp barrier
            if (kc.on) {
                trial_t tr = { &s, &kc };
                mc_measure_run(&vc, t, trial_body, &tr);
            }
#pragma omp master
            kern = &mc_readkerns[kc.chosen];
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
    const mc_kcal_t *kcs[1] = { &kc };
    mc_kcal_report(res, kcs, 1);

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
    .resolve = seqread_resolve,
    .config_json = seqread_json,
    .run = seqread_run,
};
