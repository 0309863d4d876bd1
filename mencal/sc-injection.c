/* injection: the bandwidth all threads draw from memory at several read to
 * write ratios, one table (what Intel MLC's --peak_injection_bandwidth
 * reports): all reads, 3:1, 2:1 and 1:1 whole-line loads to stores, and a
 * STREAM-Triad-like mix (two arrays read, one written).
 *
 * Every row is a traffic kernel (traffic.h) run by trafficbw.h on the
 * whole team over --size: `read` for all reads, rw:75, rw:67 and rw:50
 * for the ratios (exact per 100 lines: 2:1 is 67:33), `triad` for the
 * Triad-like mix.  Bytes are counted as STREAM counts them; the table
 * adds the figure with the write-allocate reads that ordinary stores
 * cause. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "scenario.h"
#include "team.h"
#include "trafficbw.h"

static const struct {
    const char *kind;      /* traffic.h's name */
    const char *label;     /* the row */
    const char *metric;
} rows[] = {
    { "read", "all reads", "bandwidth_read" },
    { "rw:75", "3:1 reads:writes", "bandwidth_3to1" },
    { "rw:67", "2:1 reads:writes", "bandwidth_2to1" },
    { "rw:50", "1:1 reads:writes", "bandwidth_1to1" },
    { "triad", "triad-like (2 reads : 1 write)", "bandwidth_triad" },
};
#define NROWS (sizeof rows / sizeof rows[0])

enum { I_MIX, I_KERNEL, I_RPW, I_BW, I_RFO, I_MIN, I_MAX, I_CV, I_SAMPLES, I_PASSES, I_VARIANT,
       I_NCOLS };
static const mc_col_t cols[I_NCOLS] = {
    [I_MIX] = { "mix", "", true },              [I_KERNEL] = { "kernel", "", true },
    [I_RPW] = { "reads_per_write", "", false }, [I_BW] = { "bandwidth", "GB/s", false },
    [I_RFO] = { "with_write_allocate", "GB/s", false },
    [I_MIN] = { "min", "GB/s", false },         [I_MAX] = { "max", "GB/s", false },
    [I_CV] = { "cv", "", false },               [I_SAMPLES] = { "samples", "", false },
    [I_PASSES] = { "passes", "", false },       [I_VARIANT] = { "variant", "", true },
};

static void injection_plan(FILE *f, const void *conf)
{
    (void)conf;
    fprintf(f, "  injection:");
    for (size_t r = 0; r < NROWS; r++)
        fprintf(f, "%s %s", r ? "," : "", rows[r].kind);
    fprintf(f, " on every thread over --size, samples of at least 10 ms\n");
}

/* Reads per written array element (or line), for the table. */
static double reads_per_write(const mc_traffic_spec_t *s)
{
    if (s->k->mix)
        return s->read_pct >= 100 ? INFINITY : (double)s->read_pct / (100.0 - s->read_pct);
    return s->k->writes ? (double)s->k->reads / s->k->writes : INFINITY;
}

static int injection_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    (void)conf;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, cfg->size_bytes, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    mc_table_t *tab = mc_table_new(res, "injection", cols, I_NCOLS);
    int rc = 0, short_total = 0;
    res->rec.headline = "bandwidth_read";   /* the all-reads row, rows[0] */
    bool stopped = false;
    for (size_t r = 0; r < NROWS && !rc && !stopped; r++) {
        mc_traffic_spec_t spec;
        if (mc_traffic_parse(rows[r].kind, &spec, why, sizeof why) != 0) {
            rc = mc_result_fail(res, MB_EXIT_FAIL, "internal: %s", why);
            break;
        }
        mc_tbw_t b;
        rc = mc_traffic_bandwidth(cfg, &spec, buf, cfg->size_bytes, cfg->reps, res, &b);
        if (rc)
            break;
        stopped = b.interrupted;
        short_total += b.short_samples;
        long row = mc_table_row(tab);
        mc_table_str(tab, row, I_MIX, rows[r].label);
        mc_table_str(tab, row, I_KERNEL, rows[r].kind);
        double rpw = reads_per_write(&spec);
        mc_table_num(tab, row, I_RPW, isfinite(rpw) ? rpw : NAN);
        if (!isfinite(rpw))
            mc_table_str(tab, row, I_RPW, "no writes");
        mc_table_num(tab, row, I_BW, b.median);
        mc_table_num(tab, row, I_RFO, b.median_rfo);
        mc_table_num(tab, row, I_MIN, b.min);
        mc_table_num(tab, row, I_MAX, b.max);
        mc_table_num(tab, row, I_CV, b.cv);
        if (b.samples < 2)
            mc_table_str(tab, row, I_CV, "one sample has no spread; use --reps 2");
        mc_table_num(tab, row, I_SAMPLES, b.samples);
        mc_table_num(tab, row, I_PASSES, (double)b.passes);
        const mc_kfamily_t *fam = mc_traffic_family(spec.k);   /* spec.variant 0: the default */
        mc_table_str(tab, row, I_VARIANT, fam ? mc_kfamily_at(fam, fam->def)->name : "one loop");
        if (b.samples > 0)
            mc_metric(res, rows[r].metric, "GB/s", b.median);
        else
            mc_metric_na(res, rows[r].metric, "GB/s", "interrupted before the first sample");
    }
    mc_buffer_finish(res, cfg, buf, cfg->size_bytes);
    if (rc)
        return rc;
    if (stopped) {
        res->complete = false;
        mc_result_note(res, "injection: interrupted; the rows measured are kept");
    }
    if (short_total)
        mc_result_note(res, "injection: %d sample(s) under 10 ms were discarded and measured again "
                       "with more passes", short_total);
    mc_result_note(res, "injection: every row runs its kernel's default loop (column variant: "
                   "read v64x8, write and copy v64 ordinary stores; no calibration), so the rows "
                   "differ only in their mix");
    mc_result_note(res, "injection: bytes as STREAM counts them (every element read or written "
                   "once per pass); with_write_allocate adds the reads that stores to uncached "
                   "lines cause; rw:PCT loads or stores whole 64-byte lines, PCT of every 100 "
                   "loaded");
    return 0;
}

const mc_scenario_t mc_sc_injection = {
    .name = "injection",
    .summary = "bandwidth of all threads at all reads, 3:1, 2:1, 1:1 and a Triad-like mix (GB/s)",
    .plan = injection_plan,
    .run = injection_run,
};
