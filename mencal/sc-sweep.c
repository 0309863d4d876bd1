/* sweep: the memory mountain, bandwidth against working set.
 *
 * For each kernel of --kernels (read, write, copy, triad: mencal/traffic.c)
 * and for one thread and for all threads, the working set steps from
 * 16 KiB to the top by powers of two and their midpoints
 * (mencal/mountain.c); the top is --size, or by default twice the
 * smallest power of two >= 4x LLC, so the curve always reaches DRAM.  A
 * size is the total of the kernel's arrays over all threads; each thread
 * streams its own share, pinned one per physical core.
 *
 * A point is --reps samples on the shared driver (measure.h) after a
 * warm-up that also times a pass (the fastest of its doubling runs, so a
 * run slowed by a preemption cannot shrink the samples): every sample
 * repeats whole passes so that it lasts at least 20 ticks of the clock
 * and at least 10 ms, so a 16 KiB point repeats ~500 000 passes and a
 * DRAM point several (the threads' uneven finish of one pass then weighs
 * little, as in seqread).  Each sample is checked when it ends: one that
 * lasted less is measured again with proportionally more passes (the
 * driver's redo), up to MAX_REMEASURE times; a sample still short after
 * that leaves the point unmeasured, with the reason.  Bandwidth = STREAM
 * bytes of the sample's passes / its wall time (GB/s), median over the
 * samples; each sample's passes and duration are kept (table `mountain_samples`).
 *
 * The plateaus (mountain.h: the median of the points well inside each
 * level, sized by the caches common/ detects) are reported per kernel and
 * thread count, with the sizes they were read at; the read kernel's are
 * the headline metrics.  The read, write and copy loops are chosen by
 * measurement before each kernel's curves (kcalib.h, trafficcal.h): every
 * variant timed on all threads at the top size (at 4x LLC when the top is
 * larger: DRAM with the default top); the fastest runs the points of that
 * level (column `variant`), the others keep the default loop (a loop that
 * wins in DRAM, such as non-temporal stores, can lose in the caches);
 * --kernel-variant forces one everywhere.  SIGINT ends the sweep after the current sample:
 * the finished points are kept, the result is marked incomplete. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "json.h"
#include "log.h"
#include "measure.h"
#include "mountain.h"
#include "plot.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"
#include "traffic.h"
#include "trafficcal.h"

#define MIN_SAMPLE_NS 10000000.0  /* a sample lasts at least 10 ms ... */
#define MIN_TICKS 20              /* ... and at least 20 clock ticks */
#define CAL_NS 200000.0           /* the warm-up times passes for at least 0.2 ms */
#define MAX_REMEASURE 8           /* a short sample is measured again at most 8 times */
#define MAX_KERNELS 4

typedef struct {
    const char *kernels_opt, *plot, *variant_opt;
    double cal_max_s;          /* --kernel-calibration */
    /* resolved */
    const mc_traffic_kernel_t *kernel[MAX_KERNELS];
    int nkernels;
    size_t top;
    char top_how[160];
    size_t sizes[MC_MOUNTAIN_MAX_POINTS];
    size_t nsizes;
    long forced[MAX_KERNELS];  /* per kernel: the family index --kernel-variant forced, or -1 */
} sweep_conf_t;

#define OFF(f) offsetof(sweep_conf_t, f)
static const mb_opt_t sweep_opts[] = {
    { .long_name = "kernels", .type = MB_OPT_STRING, .offset = OFF(kernels_opt),
      .metavar = "LIST", .def = "read,write,copy,triad",
      .help = "sweep: kernels to sweep, comma-separated (read, write, copy, triad)" },
    MC_OPT_PLOT(sweep_conf_t, plot),
    MC_OPT_KERNEL_VARIANT(sweep_conf_t, variant_opt),
    MC_OPT_KERNEL_CALIBRATION(sweep_conf_t, cal_max_s),
};
#undef OFF

static int parse_kernels(sweep_conf_t *c, char *msg, size_t msglen)
{
    char shown[160], item[32];
    const char *p = c->kernels_opt;
    c->nkernels = 0;
    for (;;) {
        size_t len = strcspn(p, ",");
        snprintf(item, sizeof item, "%.*s", (int)(len < 31 ? len : 31), p);
        const mc_traffic_kernel_t *k = len && len < 31 ? mc_traffic_find(item) : NULL;
        if (!k || k->mix) {
            snprintf(msg, msglen, "--kernels '%s': %s; expected a comma-separated list of "
                     "read, write, copy, triad", mb_shown(c->kernels_opt, 60, shown, sizeof shown),
                     len ? "unknown kernel" : "empty item");
            return MB_EXIT_USAGE;
        }
        bool dup = false;
        for (int i = 0; i < c->nkernels; i++)
            dup |= c->kernel[i] == k;
        if (!dup)
            c->kernel[c->nkernels++] = k;
        if (p[len] == '\0')
            return 0;
        p += len + 1;
    }
}

/* --kernel-variant over the families of the kernels swept (read: the read
 * sums, write and copy: the stores; triad has one loop). */
static int parse_variants(sweep_conf_t *c, const mc_config_t *cfg, char *msg, size_t msglen)
{
    const mc_kfamily_t *fams[MAX_KERNELS];
    long forced[MAX_KERNELS];
    int nfam = 0;
    for (int i = 0; i < c->nkernels; i++) {
        const mc_kfamily_t *f = mc_traffic_family(c->kernel[i]);
        bool have = false;
        for (int k = 0; k < nfam; k++)
            have |= fams[k] == f;
        if (f && !have)
            fams[nfam++] = f;
    }
    const bool mine = mc_run_selects(cfg, "sweep");
    int rc = mc_kcal_parse(c->variant_opt, fams, nfam, mine && !cfg->running_all, forced, msg,
                           msglen);
    for (int i = 0; i < c->nkernels; i++) {
        c->forced[i] = -1;
        for (int k = 0; !rc && k < nfam; k++)
            if (fams[k] == mc_traffic_family(c->kernel[i]))
                c->forced[i] = forced[k];
    }
    return mine ? rc : 0;
}

static int sweep_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    sweep_conf_t *c = conf;
    int rc = parse_kernels(c, msg, msglen);
    if (rc)
        return rc;
    if ((rc = parse_variants(c, cfg, msg, msglen)) != 0)
        return rc;
    if (cfg->size_default) {
        c->top = mc_mountain_default_top(&cfg->caches, c->top_how, sizeof c->top_how);
        if (cfg->mem_available_bytes && c->top > cfg->mem_available_bytes / 2) {
            c->top = cfg->mem_available_bytes / 2;
            snprintf(c->top_how, sizeof c->top_how, "MemAvailable/2 (the default top, twice "
                     "4x LLC, does not fit)");
        }
    } else {
        c->top = cfg->size_bytes;
        snprintf(c->top_how, sizeof c->top_how, "--size");
    }
    c->nsizes = mc_mountain_sizes(c->top, c->sizes, MC_MOUNTAIN_MAX_POINTS);
    return 0;
}

static void sweep_json(mb_json_t *j, const void *conf)
{
    const sweep_conf_t *c = conf;
    mb_json_array_begin(j, "kernels");
    for (int i = 0; i < c->nkernels; i++)
        mb_json_string(j, NULL, c->kernel[i]->name);
    mb_json_array_end(j);
    mb_json_uint(j, "top_bytes", c->top);
    mb_json_string(j, "top_how", c->top_how);
    mb_json_uint(j, "points_per_curve", c->nsizes);
    mb_json_string(j, "kernel_variant", c->variant_opt ? c->variant_opt : "auto");
    mb_json_number(j, "kernel_calibration_max_s", c->cal_max_s);
}

static void sweep_plan(FILE *f, const void *conf)
{
    const sweep_conf_t *c = conf;
    char a[32];
    fprintf(f, "sweep: %zu sizes from 16 KiB to %s (%s), kernels", c->nsizes,
            mb_format_bytes(c->top, a, sizeof a), c->top_how);
    for (int i = 0; i < c->nkernels; i++)
        fprintf(f, "%s%s", i ? "," : " ", c->kernel[i]->name);
    fprintf(f, ", at 1 thread and at all threads\n");
}

/* ---- the measurement ---------------------------------------------------- */

typedef struct {
    mc_traffic_t *tr;          /* [threads] */
    double *pass_ns;           /* [threads]: one pass, the fastest timed in the warm-up */
    uint64_t passes;           /* per sample: sized after the warm-up, raised by a short one */
    uint64_t *sample_passes;   /* [reps + 1]: the passes of each accepted sample */
    double min_sample_ns;      /* max(10 ms, 20 clock ticks) */
    int tries;                 /* re-measurements of the current sample */
    int remeasured;            /* samples of the point measured more than once */
    bool short_left;           /* a sample stayed short after MAX_REMEASURE tries */
} point_t;

/* mc_body_fn: r == 0 times passes (doubling until CAL_NS) and keeps the
 * fastest time of one; then `passes` passes per sample. */
static void body(void *arg, int t, int r)
{
    point_t *P = arg;
    mc_traffic_t *tr = &P->tr[t];
    if (r > 0) {
        mc_traffic_passes(tr, P->passes);
        return;
    }
    mc_traffic_passes(tr, 1);   /* caches and TLB warm */
    double best = INFINITY;
    for (uint64_t n = 1;; n *= 2) {
        uint64_t a = mb_now_ns();
        mc_traffic_passes(tr, n);
        double dt = (double)(mb_now_ns() - a);
        if (dt > 0 && dt / (double)n < best)
            best = dt / (double)n;
        if (dt >= CAL_NS || n >= (1ULL << 40))
            break;
    }
    P->pass_ns[t] = isfinite(best) ? best : 0;
}

/* mc_measure_t.on_rep.  After the warm-up: passes for the slowest thread.
 * After a sample: one shorter than min_sample_ns is run again (m->redo)
 * with the passes scaled by its shortfall; an accepted one keeps its
 * passes for the bandwidth. */
static void check_sample(mc_measure_t *m, int r, void *ctx)
{
    point_t *P = ctx;
    if (r == 0) {
        double slow = 0;
        for (int t = 0; t < m->nthreads; t++)
            slow = P->pass_ns[t] > slow ? P->pass_ns[t] : slow;
        P->passes = mc_mountain_sample_passes(slow, P->min_sample_ns);
        P->tries = P->remeasured = 0;
        P->short_left = false;
        return;
    }
    const double ns = m->wall_ns[r];
    const uint64_t more = mc_mountain_retry_passes(P->passes, ns, P->min_sample_ns);
    if (more && P->tries < MAX_REMEASURE) {
        P->passes = more;
        P->remeasured += P->tries++ == 0;
        m->redo = true;
        return;
    }
    P->short_left |= ns < P->min_sample_ns;
    P->sample_passes[r] = P->passes;
    P->tries = 0;
}

static const mc_col_t mountain_cols[] = {
    { "kernel", "", true },        { "threads", "", false },    { "size", "bytes", false },
    { "level", "", true },         { "bandwidth", "GB/s", false }, { "min", "GB/s", false },
    { "max", "GB/s", false },      { "cv", "", false },         { "passes", "", false },
    { "shortest", "ns", false },   { "remeasured", "", false },   { "variant", "", true },
};
enum { M_KERNEL, M_THREADS, M_SIZE, M_LEVEL, M_BW, M_MIN, M_MAX, M_CV, M_PASSES, M_SHORTEST,
       M_REMEASURED, M_VARIANT, M_NCOLS };

/* Every accepted sample of every point (JSON and CSV only: a default run
 * has about 1000). */
static const mc_col_t sample_cols[] = {
    { "kernel", "", true },   { "threads", "", false },  { "size", "bytes", false },
    { "sample", "", false },  { "passes", "", false },   { "duration", "ns", false },
    { "bandwidth", "GB/s", false },
};
enum { S_KERNEL, S_THREADS, S_SIZE, S_SAMPLE, S_PASSES, S_NS, S_BW, S_NCOLS };

static const mc_col_t plateau_cols[] = {
    { "kernel", "", true },      { "threads", "", false },       { "level", "", true },
    { "bandwidth", "GB/s", false }, { "from", "bytes", false }, { "to", "bytes", false },
    { "points", "", false },
};
enum { P_KERNEL, P_THREADS, P_LEVEL, P_BW, P_FROM, P_TO, P_POINTS, P_NCOLS };

/* The samples of one measured point, as rows of `samples`; bw[] gets
 * each sample's GB/s.  Returns the samples (m->done). */
static int point_samples(const mc_measure_t *m, const point_t *P, double pass_bytes,
                         mc_table_t *st, const char *kernel, int th, size_t size, double *bw,
                         double *shortest)
{
    *shortest = INFINITY;
    for (int r = 1; r <= m->done; r++) {
        const double ns = m->wall_ns[r], passes = (double)P->sample_passes[r];
        bw[r - 1] = pass_bytes * passes / ns;
        *shortest = ns < *shortest ? ns : *shortest;
        long row = mc_table_row(st);
        mc_table_str(st, row, S_KERNEL, kernel);
        mc_table_num(st, row, S_THREADS, th);
        mc_table_num(st, row, S_SIZE, (double)size);
        mc_table_num(st, row, S_SAMPLE, r);
        mc_table_num(st, row, S_PASSES, passes);
        mc_table_num(st, row, S_NS, ns);
        mc_table_num(st, row, S_BW, bw[r - 1]);
    }
    return m->done;
}

/* The loop a point runs: the calibrated one (specs[1]) in the level the
 * calibration ran at, the default (specs[0]) elsewhere (a loop chosen in
 * DRAM, e.g. non-temporal stores, says nothing about the caches). */
typedef struct {
    mc_traffic_spec_t specs[2];
    const char *level;         /* of the calibration's size, or NULL: the default everywhere */
    long forced;               /* --kernel-variant's index in the kernel's family, or -1 */
} curve_kernel_t;

/* The progress note of a point just measured, on stderr and silenced by
 * --quiet: "sweep: KERNEL, T threads: point P of N (SIZE): B GB/s" (or
 * "no figure" where a sample stayed too short).  A sweep takes seconds
 * to minutes; this says how far it is. */
static void note_point(const char *kernel, int th, size_t i, const sweep_conf_t *c, double gbps)
{
    char sz[32], fig[32];
    if (isfinite(gbps))
        snprintf(fig, sizeof fig, "%.2f GB/s", gbps);
    else
        snprintf(fig, sizeof fig, "no figure");
    mb_note("sweep: %s, %d thread%s: point %zu of %zu (%s): %s", kernel, th, th == 1 ? "" : "s",
            i + 1, c->nsizes, mb_format_bytes(c->sizes[i], sz, sizeof sz), fig);
}

/* One curve: kernel k at `th` threads over every size.  Fills gbps[] (NaN
 * where not measured), rows of tab and of the samples table st; returns
 * false when interrupted. */
static bool run_curve(const mc_config_t *cfg1, const sweep_conf_t *c, mc_result_t *res,
                      const curve_kernel_t *ck, void *buf, mc_table_t *tab, mc_table_t *st,
                      double *gbps)
{
    const int th = cfg1->nthreads, reps = cfg1->reps;
    mc_measure_t m;
    point_t P = { .min_sample_ns = MIN_SAMPLE_NS };
    double tick = (double)mb_timer_granularity_ns(20);
    if (MIN_TICKS * tick > P.min_sample_ns)
        P.min_sample_ns = MIN_TICKS * tick;
    P.tr = calloc((size_t)th, sizeof *P.tr);
    P.pass_ns = calloc((size_t)th, sizeof *P.pass_ns);
    P.sample_passes = calloc((size_t)reps + 1, sizeof *P.sample_passes);
    double *bw = calloc((size_t)reps, sizeof *bw);
    if (!P.tr || !P.pass_ns || !P.sample_passes || !bw ||
        mc_measure_init(&m, cfg1, res, reps) != 0) {
        free(P.tr), free(P.pass_ns), free(P.sample_passes), free(bw);
        mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
        return false;
    }
    m.on_rep = check_sample;
    m.on_rep_ctx = &P;
    const mc_traffic_kernel_t *k = ck->specs[0].k;
    char name[32];
    mc_traffic_name(&ck->specs[0], name, sizeof name);
    bool stopped = false;
    for (size_t i = 0; i < c->nsizes; i++)
        gbps[i] = NAN;

#pragma omp parallel num_threads(th)
    {
        const int t = omp_get_thread_num();
        mc_pin_self(cfg1->cpu[t]);
        for (size_t i = 0; i < c->nsizes && !stopped; i++) {
            const size_t share = c->sizes[i] / (size_t)th;
            const size_t stride = (share + 4095) & ~(size_t)4095;   /* own pages per thread */
            if (share < (size_t)k->arrays * MC_LINE_BYTES)   /* the same on every thread */
                continue;
            const char *lvl = mc_cache_level(&cfg1->caches, share, c->sizes[i]);
            const bool cal = ck->level && strcmp(lvl, ck->level) == 0;
            mc_traffic_init(&P.tr[t], &ck->specs[cal], (char *)buf + (size_t)t * stride, share,
                            cfg1->random_state, (uint64_t)t);
#pragma omp master
            m.done = 0;
#pragma omp barrier
            mc_measure_run(&m, t, body, &P);
#pragma omp barrier
#pragma omp master
            {
                const size_t span = mc_traffic_span(&P.tr[0]) * (size_t)th;
                const double pass_bytes = mc_traffic_pass_bytes(&P.tr[0]) * th;
                double shortest;
                int n = m.done;
                mb_stats_t sts;
                if (m.aborted && n < reps)
                    stopped = true;
                else if (n > 0 && point_samples(&m, &P, pass_bytes, st, name, th, c->sizes[i],
                                                bw, &shortest) > 0 &&
                         mb_stats_compute(bw, (size_t)n, 0, &sts) == 0) {
                    long row = mc_table_row(tab);
                    mc_table_str(tab, row, M_KERNEL, name);
                    mc_table_num(tab, row, M_THREADS, th);
                    mc_table_num(tab, row, M_SIZE, (double)c->sizes[i]);
                    mc_table_str(tab, row, M_LEVEL, mc_cache_level(&cfg1->caches, share, span));
                    mc_table_num(tab, row, M_PASSES, (double)P.passes);
                    mc_table_num(tab, row, M_SHORTEST, shortest);
                    mc_table_num(tab, row, M_REMEASURED, P.remeasured);
                    const mc_kvar_t *var = mc_traffic_variant(&P.tr[0]);
                    mc_table_str(tab, row, M_VARIANT, var ? var->name : "one loop");
                    if (P.short_left) {   /* never a figure from a sample too short */
                        char why[64];
                        snprintf(why, sizeof why, "a sample stayed under %.0f ms",
                                 P.min_sample_ns / 1e6);
                        for (int col = M_BW; col <= M_CV; col++)
                            mc_table_str(tab, row, col, why);
                    } else {
                        gbps[i] = sts.median;
                        mc_table_num(tab, row, M_BW, sts.median);
                        mc_table_num(tab, row, M_MIN, sts.min);
                        mc_table_num(tab, row, M_MAX, sts.max);
                        mc_table_num(tab, row, M_CV, n >= 2 ? sts.cv : NAN);
                        if (n < 2)
                            mc_table_str(tab, row, M_CV, "one sample has no spread; use --reps 2");
                    }
                    note_point(name, th, i, c, gbps[i]);
                }
            }
#pragma omp barrier
        }
    }
    mc_measure_free(&m);
    free(P.tr), free(P.pass_ns), free(P.sample_passes), free(bw);
    return !stopped;
}

static void plateau_rows(mc_result_t *res, mc_table_t *tab, const mc_config_t *cfg,
                         const char *kernel, int th, const size_t *sizes, const double *gbps,
                         size_t n, bool headline, bool single)
{
    mc_plateau_t pl[MC_PLATEAUS];
    mc_mountain_plateaus(&cfg->caches, th, sizes, gbps, n, pl);
    for (int i = 0; i < MC_PLATEAUS; i++) {
        long row = mc_table_row(tab);
        mc_table_str(tab, row, P_KERNEL, kernel);
        mc_table_num(tab, row, P_THREADS, th);
        mc_table_str(tab, row, P_LEVEL, pl[i].name);
        mc_table_num(tab, row, P_BW, pl[i].ok ? pl[i].gbps : NAN);
        if (!pl[i].ok)
            mc_table_str(tab, row, P_BW, pl[i].why);
        mc_table_num(tab, row, P_FROM, pl[i].ok ? (double)pl[i].from_bytes : NAN);
        mc_table_num(tab, row, P_TO, pl[i].ok ? (double)pl[i].to_bytes : NAN);
        mc_table_num(tab, row, P_POINTS, pl[i].points);
        if (!headline)
            continue;
        char name[48];
        snprintf(name, sizeof name, "%s_%s_%s", pl[i].name, kernel, single ? "1t" : "all");
        if (pl[i].ok)
            mc_metric(res, mc_result_keep(res, name), "GB/s", pl[i].gbps);
        else
            mc_metric_na(res, mc_result_keep(res, name), "GB/s", mc_result_keep(res, pl[i].why));
    }
}


/* The calibration of ck's kernel (kcalib.h, trafficcal.h), on every
 * thread, at the top of the sweep, or at 4x LLC when the top is in DRAM
 * and larger (the same level, less memory to touch).  Each of the nfam
 * calibrated kernels gets its share of --kernel-calibration and is
 * planned at 5% of its own curves.  Sets ck's specs and level; returns kc. */
static const mc_kcal_t *calibrate(const mc_config_t *cfg, const sweep_conf_t *c, mc_result_t *res,
                                  int nth, int nfam, void *buf, curve_kernel_t *ck, mc_kcal_t *kc)
{
    const mc_traffic_kernel_t *k = ck->specs[0].k;
    const mc_kfamily_t *fam = mc_traffic_family(k);
    const size_t llc = cfg->caches.llc.total_bytes, nt = (size_t)cfg->nthreads;
    const char *level = mc_cache_level(&cfg->caches, c->top / nt, c->top);
    size_t at = c->top;
    if (strcmp(level, "DRAM") == 0 && llc && llc <= SIZE_MAX / 4 && 4 * llc < at)
        at = 4 * llc;
    /* the kernel's curves: about nth x sizes x (reps + 1) samples of >= 10 ms */
    const double run_s = (double)nth * (double)c->nsizes * (cfg->reps + 1) * MIN_SAMPLE_NS *
                         MC_MOUNTAIN_SIZE_MARGIN * 1e-9;
    char where[256], a[32];
    mc_kcal_init(kc, k->name, fam, ck->forced, c->cal_max_s / (nfam > 0 ? nfam : 1));
    snprintf(where, sizeof where, "at %s (%s, the level of the sweep's top); the %s points run "
             "it, the others the default %s", mb_format_bytes(at, a, sizeof a), level, level,
             mc_kfamily_at(fam, fam->def)->name);
    kc->where = mc_result_keep(res, where);
    if (mc_traffic_calibrate(cfg, &ck->specs[1], buf, at, run_s, kc) != 0)
        kc->why_not = "out of memory for the calibration";
    ck->specs[1].variant = kc->chosen + 1;
    if (kc->forced >= 0)   /* forced: every point */
        ck->specs[0].variant = kc->chosen + 1;
    ck->level = level;
    return kc;
}

static int sweep_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const sweep_conf_t *c = conf;
    if (c->nsizes == 0)
        return mc_result_fail(res, MB_EXIT_USAGE, "--size is under 16 KiB, the first point");
    const int nth = cfg->nthreads > 1 ? 2 : 1;
    const int threads[2] = { 1, cfg->nthreads };
    const size_t bytes = c->top + (size_t)cfg->nthreads * 4096;
    char why[256], a[32];
    mb_out_t png = { 0 };   /* --plot: opened before measuring, so a bad path (a FIFO
                             * nobody reads) costs nothing */
    if (c->plot && mb_out_open_as(&png, c->plot, "--plot file", why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    void *buf;
    if (mc_buffer_alloc(cfg, bytes, &buf, why, sizeof why) != 0) {
        mb_out_abort(&png);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    }
    mc_config_t *one = malloc(sizeof *one);
    double *curves[2 * MAX_KERNELS] = { 0 };
    bool ok = one != NULL;
    for (int s = 0; ok && s < c->nkernels * nth; s++)
        ok = (curves[s] = mc_result_alloc(res, c->nsizes * sizeof(double))) != NULL;
    if (!ok) {
        free(one);
        mc_buffer_free(cfg, buf, bytes);
        mb_out_abort(&png);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory");
    }
    mc_table_t *tab = mc_table_new(res, "mountain", mountain_cols, M_NCOLS);
    mc_table_t *st = mc_table_new(res, "mountain_samples", sample_cols, S_NCOLS);
    if (st)
        st->text_hidden = true;
    bool complete = true;
    int nseries = 0, series_threads[2 * MAX_KERNELS], ncal = 0;
    mc_kcal_t kc[MAX_KERNELS];
    const mc_kcal_t *kcs[MAX_KERNELS];
    curve_kernel_t ck[MAX_KERNELS];
    int nfam = 0;
    for (int ki = 0; ki < c->nkernels; ki++) {
        ck[ki] = (curve_kernel_t){ { { .k = c->kernel[ki] }, { .k = c->kernel[ki] } }, NULL,
                                   c->forced[ki] };
        nfam += mc_traffic_family(c->kernel[ki]) != NULL;
    }
    for (int ki = 0; ki < c->nkernels && complete && !res->status; ki++) {
        if (mc_traffic_family(c->kernel[ki]))   /* just before the kernel's curves */
            kcs[ncal] = calibrate(cfg, c, res, nth, nfam, buf, &ck[ki], &kc[ncal]), ncal++;
        for (int ti = 0; ti < nth && complete && !res->status; ti++) {
            *one = *cfg;
            one->nthreads = threads[ti];
            complete = run_curve(one, c, res, &ck[ki], buf, tab, st, curves[ki * nth + ti]);
            series_threads[nseries++] = threads[ti];
        }
    }
    free(one);
    mc_kcal_report(res, kcs, ncal);
    for (int ki = 0; ki < c->nkernels; ki++)
        if (!mc_traffic_family(c->kernel[ki]))
            mc_result_note(res, "%s kernel: one loop (64-byte vectors), no variants to choose",
                           c->kernel[ki]->name);
    mc_buffer_finish(res, cfg, buf, bytes);
    if (!complete)
        res->complete = false;
    if (res->status) {
        mb_out_abort(&png);
        return res->status;
    }

    mc_table_t *pt = mc_table_new(res, "plateaus", plateau_cols, P_NCOLS);
    for (int s = 0; s < nseries; s++) {
        const char *kn = c->kernel[s / nth]->name;
        plateau_rows(res, pt, cfg, kn, series_threads[s], c->sizes, curves[s], c->nsizes,
                     strcmp(kn, "read") == 0, series_threads[s] == 1 && (s % nth) == 0);
    }
    /* the read kernel's DRAM plateau, all threads where swept, else one;
     * no read kernel: no headline */
    res->rec.headline = mb_record_metric(&res->rec, "DRAM_read_all") ? "DRAM_read_all"
                                                                      : "DRAM_read_1t";
    mc_metric(res, "largest_size", "bytes", (double)c->top);
    mc_metric(res, "points", "", tab ? (double)tab->nrows : 0);
    const mc_caches_t *k = &cfg->caches;
    char l1[32], l2[32], l3[32];
    mc_result_note(res, "cache sizes (common/ detector): L1d %s (%s), L2 %s (%s), LLC %s (%s); "
                   "plateau regions: L1 share L1d/8..L1d/2, L2 2xL1d..L2/2, L3 share >= 2xL2 and "
                   "total <= LLC/2, DRAM total >= 4x LLC",
                   k->l1d_bytes ? mb_format_bytes(k->l1d_bytes, l1, sizeof l1) : "unknown",
                   k->l1d_source, k->l2_bytes ? mb_format_bytes(k->l2_bytes, l2, sizeof l2)
                   : "unknown", k->l2_source,
                   k->llc.total_bytes ? mb_format_bytes(k->llc.total_bytes, l3, sizeof l3)
                   : "unknown", k->llc.note[0] ? k->llc.note : mb_llc_source_name(k->llc.source));
    mc_result_note(res, "sizes: 16 KiB to %s (%s), powers of two and midpoints; a size is every "
                   "array of the kernel over all threads; threads 1 and %d, pinned one per core "
                   "(CPUs from %d); each sample >= %d clock ticks (granularity %llu ns) and "
                   ">= %.0f ms, median of %d samples", mb_format_bytes(c->top, a, sizeof a),
                   c->top_how, cfg->nthreads, cfg->cpu[0], MIN_TICKS,
                   (unsigned long long)mb_timer_granularity_ns(20), MIN_SAMPLE_NS / 1e6,
                   cfg->reps);
    if (!complete)
        mc_result_note(res, "interrupted: the points measured so far are kept; later curves "
                       "and sizes are missing");
    if (c->plot && tab && tab->nrows)
        mc_plot_scenario(cfg, res, c->plot, "sweep", &png);
    else if (c->plot) {
        mb_out_abort(&png);
        mc_result_note(res, "--plot %s: chart not drawn: no point measured", c->plot);
    }
    return res->status;   /* 0, or a chart drawn and not written */
}

const mc_scenario_t mc_sc_sweep = {
    .name = "sweep",
    .summary = "the memory mountain: read, write, copy and triad bandwidth from 16 KiB to "
               "beyond the LLC, at 1 and all threads, with the L1/L2/L3/DRAM plateaus",
    MC_SCENARIO_OPTIONS(sweep_opts, sweep_conf_t),
    .resolve = sweep_resolve,
    .config_json = sweep_json,
    .plan = sweep_plan,
    .run = sweep_run,
};
