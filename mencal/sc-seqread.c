/* seqread: the whole machine's sequential read bandwidth.
 *
 * Every thread streams through its own slice with a vectorised integer
 * sum.  The sum is checked against its closed form on every repetition,
 * so the loads cannot be optimised away and a wrong read is caught. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "isa.h"
#include "measure.h"
#include "scenario.h"
#include "team.h"

/* Sum of the n words at w (64-byte aligned), as 32-byte vectors with four
 * independent accumulators so the adds never limit the loads; GCC's
 * vector extension keeps it vectorised at any optimisation level (split
 * into 16-byte operations where AVX is absent).  32 bytes, not 64: on
 * Zen 4 the 64-byte form measured 0.92x likwid-bench's load_avx while
 * this one measured 0.97-1.03x in the same phases (scripts/peers-mencal.sh).
 * MB_HOT_LOOP (common/isa.h): never inlined, one call per pass, and
 * compiled for AVX-512, AVX2 and the build's target, the best chosen at
 * start-up, so a portable (packaged) build reads 32 bytes per load as a
 * native one does. */
typedef uint64_t mc_v4u_t __attribute__((vector_size(32)));

MB_HOT_LOOP static uint64_t sum_words(const uint64_t *w, size_t n)
{
    const mc_v4u_t *v = (const mc_v4u_t *)(const void *)w;
    size_t nv = n / 4, i = 0;
    mc_v4u_t a0 = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    for (; i + 4 <= nv; i += 4) {
        a0 += v[i];
        a1 += v[i + 1];
        a2 += v[i + 2];
        a3 += v[i + 3];
    }
    for (; i < nv; i++)
        a0 += v[i];
    mc_v4u_t a = a0 + a1 + a2 + a3;
    uint64_t s = 0;
    for (int k = 0; k < 4; k++)
        s += a[k];
    for (size_t j = nv * 4; j < n; j++)
        s += w[j];
    return s;
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
    uint64_t want;
    const int *passes;
    int *bad_thread;
} slice_t;

static void read_body(void *arg, int t, int r)
{
    (void)r;
    const slice_t *s = arg;
    int np = *s->passes;
    for (int k = 0; k < np; k++) {
        if (sum_words(s->w, s->words) != s->want) {
#pragma omp critical
            *s->bad_thread = t;
        }
        __asm__ volatile("" ::: "memory");   /* every pass really reads */
    }
}

/* Calibration: passes per repetition from the faster of two timed single
 * passes (the first one pays for cold TLB and caches and, alone, gave
 * repetitions far under MIN_REP_S). */
static void calibrated(mc_measure_t *cal, int r, void *ctx)
{
    double s = cal->wall_ns[r] * 1e-9, first = cal->wall_ns[0] * 1e-9;
    *(int *)ctx = passes_for(r == 0 || s > first ? first : s);
}

static int seqread_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    (void)conf;
    const int nt = cfg->nthreads;
    const size_t slice = mc_slice_bytes(cfg->size_bytes, nt, MC_LINE_BYTES);
    const size_t words = slice / sizeof(uint64_t), total = slice * (size_t)nt;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);

    mc_measure_t m, cal;
    int *cpu = calloc((size_t)nt, sizeof *cpu), *node = calloc((size_t)nt, sizeof *node);
    int cal_ok = mc_measure_init(&cal, cfg, res, 1) == 0;
    int m_ok = mc_measure_init(&m, cfg, res, cfg->reps) == 0;
    if (!cpu || !node || !cal_ok || !m_ok) {
        free(cpu), free(node);
        if (cal_ok)
            mc_measure_free(&cal);
        if (m_ok)
            mc_measure_free(&m);
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
    int bad_thread = -1, passes = 1, cal_passes = 1;
    cal.count = false;
    cal.on_rep = calibrated;
    cal.on_rep_ctx = &passes;

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
        slice_t s = { w, words, expected_sum(first, words), &cal_passes, &bad_thread };
        mc_measure_run(&cal, t, read_body, &s);
        s.passes = &passes;
        mc_measure_run(&m, t, read_body, &s);   /* rep 0 is the warm-up, not counted */
    }
    mc_measure_free(&cal);
    mc_buffer_finish(res, cfg, buf, total);

    int n = mc_measure_finish(&m);   /* counted reps: 1..n */
    double *gbps = calloc((size_t)(n > 0 ? n : 1), sizeof *gbps);
    double *wall_s = calloc((size_t)(n > 0 ? n : 1), sizeof *wall_s);
    const double rep_bytes = (double)total * passes;
    if (gbps)
        mc_measure_rates(&m, rep_bytes, gbps);
    for (int r = 1; wall_s && r <= n; r++)
        wall_s[r - 1] = m.wall_ns[r] * 1e-9;
    mc_metric_samples(res, "bandwidth", "GB/s", gbps, (size_t)n,
                      "interrupted before the first repetition");
    mc_metric_samples(res, "time", "s", wall_s, (size_t)n,
                      "interrupted before the first repetition");
    mc_metric(res, "bytes_per_rep", "bytes", rep_bytes);
    mc_metric(res, "passes_per_rep", "", passes);

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
    .run = seqread_run,
};
