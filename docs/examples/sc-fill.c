/* fill: write bandwidth of memset over every thread's slice.
 *
 * The worked example of docs/architecture.md: a whole scenario with one
 * option (--fill-byte) in one file.  Copied to mencal/sc-fill.c and
 * registered by one line, X(fill), in mencal/scenarios.h, it is a mencal
 * scenario; the test build does exactly that (mencal/module.mk, target
 * $(BUILD)/example/mencal) and tests/bats/mencal-example.bats runs it. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "exitcodes.h"
#include "json.h"
#include "measure.h"
#include "scenario.h"
#include "team.h"

/* 1. The option's storage (and anything resolved from it). */
typedef struct {
    long long fill_byte;
} fill_conf_t;

/* 2. Its option table: offsets into fill_conf_t, the default, the range
 *    (checked by the parser); the help is generated from it. */
static const mb_opt_t fill_opts[] = {
    { .long_name = "fill-byte", .type = MB_OPT_INT, .offset = offsetof(fill_conf_t, fill_byte),
      .min = 0, .max = 255, .metavar = "B", .def = "90",
      .help = "fill: the byte value written" },
};

/* 3. Its object in the JSON "config". */
static void fill_json(mb_json_t *j, const void *conf)
{
    mb_json_int(j, "fill_byte", (int)((const fill_conf_t *)conf)->fill_byte);
}

/* 4. The kernel body the measurement driver times: one memset per
 *    repetition of this thread's slice. */
typedef struct {
    unsigned char *slice;
    size_t bytes;
    int byte;
} fill_job_t;

static void fill_body(void *arg, int t, int r)
{
    (void)t, (void)r;
    const fill_job_t *job = arg;
    memset(job->slice, job->byte, job->bytes);
    __asm__ volatile("" ::: "memory");   /* the stores happen */
}

/* 5. run(): buffer, team, driver, metrics; it never prints. */
static int fill_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const fill_conf_t *fc = conf;
    const int nt = cfg->nthreads;
    const size_t slice = mc_slice_bytes(cfg->size_bytes, nt, MC_LINE_BYTES);
    const size_t total = slice * (size_t)nt;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    mc_measure_t m;
    double *gbps = calloc((size_t)cfg->reps, sizeof *gbps);
    if (!gbps || mc_measure_init(&m, cfg, res, cfg->reps) != 0) {
        free(gbps);
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        fill_job_t job = { (unsigned char *)buf + (size_t)t * slice, slice, (int)fc->fill_byte };
        mc_measure_run(&m, t, fill_body, &job);
    }
    const unsigned char *p = buf;
    const bool written = total == 0 || (p[0] == fc->fill_byte && p[total - 1] == fc->fill_byte);
    mc_buffer_finish(res, cfg, buf, total);
    int n = mc_measure_finish(&m);
    mc_measure_rates(&m, (double)total, gbps);
    res->rec.headline = "bandwidth";   /* the figure that stands for the record */
    mc_metric_samples(res, "bandwidth", "GB/s", gbps, (size_t)n, "no repetition completed");
    free(gbps);
    mc_measure_free(&m);
    if (!written)
        return mc_result_fail(res, MB_EXIT_FAIL, "validation failed: the buffer does not hold "
                              "the fill byte");
    return 0;
}

/* 6. The descriptor, registered by X(fill) in scenarios.h. */
const mc_scenario_t mc_sc_fill = {
    .name = "fill",
    .summary = "memset write bandwidth of all threads (GB/s)",
    MC_SCENARIO_OPTIONS(fill_opts, fill_conf_t),
    .config_json = fill_json,
    .run = fill_run,
};
