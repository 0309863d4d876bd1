/* mixed: cache-line loads and stores in a fixed ratio (default 70/30,
 * the key-value / cache pattern), random or sequential.
 *
 * Read and write bandwidth are reported separately from exact counts.
 * A store to a line that is not cached first reads it (write-allocate,
 * RFO) and later writes it back, so the memory traffic is estimated as
 * reads + 2 x writes; that second figure is reported too. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "buffer.h"
#include "exitcodes.h"
#include "json.h"
#include "measure.h"
#include "scenario.h"
#include "team.h"

/* --read-pct (shared with concurrent) and --pattern. */
enum { PATTERN_RANDOM, PATTERN_SEQUENTIAL };   /* --pattern, in its choices' order */

typedef struct {
    long long read_pct;
    int pattern;
    bool pattern_random;       /* resolved */
} mixed_conf_t;

static const mb_opt_t mixed_opts[] = {
    MC_OPT_READ_PCT(mixed_conf_t, read_pct),
    { .long_name = "pattern", .type = MB_OPT_CHOICE, .offset = offsetof(mixed_conf_t, pattern),
      .choices = "random|sequential", .def = "random", .help = "mixed: access order" },
};

static int mixed_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    (void)cfg, (void)msg, (void)msglen;
    mixed_conf_t *c = conf;
    c->pattern_random = c->pattern == PATTERN_RANDOM;
    return 0;
}

static void mixed_json(mb_json_t *j, const void *conf)
{
    const mixed_conf_t *c = conf;
    mb_json_int(j, "read_pct", (int)c->read_pct);
    mb_json_string(j, "pattern", c->pattern_random ? "random" : "sequential");
}

#define CAL_ACCESSES 200000   /* warm-up accesses per thread */
#define TARGET_S 0.2          /* about this long per repetition */

static size_t accesses_for(double cal_s)
{
    double n = cal_s > 0 ? (double)CAL_ACCESSES * TARGET_S / cal_s : CAL_ACCESSES;
    if (n < 100)
        n = 100;
    if (n > 4e9)
        n = 4e9;
    size_t a = (size_t)n;
    return a - a % 100;
}

static const mc_col_t thread_cols[] = {
    { "thread", "", false },     { "cpu", "", false },        { "reads", "", false },
    { "writes", "", false },     { "bandwidth", "GB/s", false },
};

/* One thread's mix and the shared per-repetition access count; reads and
 * writes of each repetition go to rd/wr [(reps + 1) * nt]. */
typedef struct {
    mc_mix_t mix;
    const size_t *accesses;
    uint64_t *rd, *wr;
    int nt;
} mixer_t;

static void mix_body(void *arg, int t, int r)
{
    mixer_t *x = arg;
    uint64_t r0 = x->mix.reads, w0 = x->mix.writes;
    mc_mix_run(&x->mix, r == 0 ? CAL_ACCESSES : *x->accesses);
    x->rd[(size_t)r * (size_t)x->nt + (size_t)t] = x->mix.reads - r0;
    x->wr[(size_t)r * (size_t)x->nt + (size_t)t] = x->mix.writes - w0;
}

/* After the warm-up (CAL_ACCESSES accesses): the count of a repetition,
 * for about TARGET_S, a whole number of 100-access blocks. */
static void sized(mc_measure_t *m, int r, void *ctx)
{
    if (r == 0)
        *(size_t *)ctx = accesses_for(m->wall_ns[0] * 1e-9);
}

static int mixed_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const mixed_conf_t *mx = conf;
    const int nt = cfg->nthreads, reps = cfg->reps;
    const size_t slice = mc_slice_bytes(cfg->size_bytes, nt, 4096);
    const size_t lines = slice / MC_LINE_BYTES, total = slice * (size_t)nt;
    size_t accesses = CAL_ACCESSES;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);

    const size_t nr = (size_t)reps + 1;
    mc_measure_t m;
    uint64_t *rd = calloc(nr * (size_t)nt, sizeof *rd), *wr = calloc(nr * (size_t)nt, sizeof *wr);
    int *cpu = calloc((size_t)nt, sizeof *cpu);
    if (!rd || !wr || !cpu || mc_measure_init(&m, cfg, res, reps) != 0) {
        free(rd), free(wr), free(cpu);
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
    m.on_rep = sized;
    m.on_rep_ctx = &accesses;
    uint64_t sink_all = 0;

#pragma omp parallel num_threads(nt) reduction(+ : sink_all)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        cpu[t] = sched_getcpu();
        uint64_t *base = (uint64_t *)((char *)buf + (size_t)t * slice);
        memset(base, 0, slice);   /* first touch by the owner */
        mixer_t x = { .accesses = &accesses, .rd = rd, .wr = wr, .nt = nt };
        mc_mix_init(&x.mix, base, lines, (unsigned)mx->read_pct, mx->pattern_random,
                    cfg->random_state, (uint64_t)t);
        mc_measure_run(&m, t, mix_body, &x);
        sink_all += x.mix.sink;
    }
    mc_buffer_finish(res, cfg, buf, total);

    int n = mc_measure_finish(&m);
    const size_t nn = (size_t)(n > 0 ? n : 1);
    double *rg = calloc(nn, sizeof *rg), *wg = calloc(nn, sizeof *wg);
    double *tg = calloc(nn, sizeof *tg), *ag = calloc(nn, sizeof *ag);
    uint64_t reads = 0, writes = 0;
    for (int r = 1; rg && wg && tg && ag && r <= n; r++) {
        uint64_t rr = 0, ww = 0;
        for (int t = 0; t < nt; t++) {
            rr += rd[(size_t)r * (size_t)nt + (size_t)t];
            ww += wr[(size_t)r * (size_t)nt + (size_t)t];
        }
        reads += rr, writes += ww;
        double w = m.wall_ns[r];
        rg[r - 1] = (double)rr * MC_LINE_BYTES / w;
        wg[r - 1] = (double)ww * MC_LINE_BYTES / w;
        tg[r - 1] = (double)(rr + ww) * MC_LINE_BYTES / w;
        ag[r - 1] = (double)(rr + 2 * ww) * MC_LINE_BYTES / w;
    }
    const char *none = "no repetition completed";
    res->rec.headline = "total_bandwidth";   /* reads and writes together */
    mc_metric_samples(res, "read_bandwidth", "GB/s", rg, (size_t)n, none);
    mc_metric_samples(res, "write_bandwidth", "GB/s", wg, (size_t)n, none);
    mc_metric_samples(res, "total_bandwidth", "GB/s", tg, (size_t)n, none);
    mc_metric_samples(res, "traffic_with_write_allocate", "GB/s", ag, (size_t)n, none);
    mc_metric(res, "read_bytes", "bytes", (double)reads * MC_LINE_BYTES);
    mc_metric(res, "write_bytes", "bytes", (double)writes * MC_LINE_BYTES);
    mc_metric(res, "total_bytes", "bytes", (double)(reads + writes) * MC_LINE_BYTES);
    mc_metric(res, "bytes_with_write_allocate", "bytes", (double)(reads + 2 * writes) * MC_LINE_BYTES);
    mc_metric(res, "read_share", "%",
              reads + writes ? 100.0 * (double)reads / (double)(reads + writes) : NAN);
    mc_table_t *tab = mc_table_new(res, "per_thread", thread_cols, 5);
    for (int t = 0; t < nt; t++) {
        uint64_t rr = 0, ww = 0;
        double s = 0;
        for (int r = 1; r <= n; r++) {
            rr += rd[(size_t)r * (size_t)nt + (size_t)t];
            ww += wr[(size_t)r * (size_t)nt + (size_t)t];
            s += MC_THR_NS(&m, r, t);
        }
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, t);
        mc_table_num(tab, row, 1, cpu[t]);
        mc_table_num(tab, row, 2, (double)rr);
        mc_table_num(tab, row, 3, (double)ww);
        mc_table_num(tab, row, 4, s > 0 ? (double)(rr + ww) * MC_LINE_BYTES / s : NAN);
    }
    mc_result_counter_metrics(res, (double)reads, "64-byte line load");
    mc_result_counter_bytes(res, (double)(reads + writes) * MC_LINE_BYTES);
    mc_result_note(res, "%s pattern, %d%% loads; %zu accesses per thread per repetition; "
                   "the *_bytes figures and the per-thread reads/writes are totals over the "
                   "%d counted repetition%s; write-allocate traffic = reads + 2 x writes "
                   "(RFO + write-back)", mx->pattern_random ? "random" : "sequential",
                   (int)mx->read_pct, accesses, n, n == 1 ? "" : "s");
    volatile uint64_t consumed = sink_all;   /* the loaded values are used */
    (void)consumed;
    free(rg), free(wg), free(tg), free(ag);
    free(rd), free(wr), free(cpu);
    mc_measure_free(&m);
    return 0;
}

const mc_scenario_t mc_sc_mixed = {
    .name = "mixed",
    .summary = "cache-line loads and stores at --read-pct (read, write and total GB/s)",
    MC_SCENARIO_OPTIONS(mixed_opts, mixed_conf_t),
    .resolve = mixed_resolve,
    .config_json = mixed_json,
    .run = mixed_run,
};
