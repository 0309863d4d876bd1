/* c2c: core-to-core latency, in ns per one-way transfer of a cache line.
 *
 * For each pair of allowed CPUs, two threads pinned one to each CPU pass
 * a counter back and forth through two cache lines: the timing thread
 * stores n into its line and spins until the other thread's line holds n;
 * the other thread spins until it sees n and then stores n into its own
 * line.  One sample is 100 such round trips, timed as a whole; the pair's
 * figure is the fastest of --c2c-samples samples divided by 200 (one way
 * of one round trip).  That is the definition rigtorp's c2clat uses, so
 * the two can be compared pair by pair.  The figure is taken as
 * symmetric: a pair is measured once and shown both ways.
 *
 * Large machines: more than --c2c-max-pairs pairs are sampled at random
 * (the run's --random-state), and the result says how many of how many.
 * Each CPU's package, die and L3 domain (common/cputopo.h) label every
 * pair, so the matrix shows where the boundaries lie. */
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cputopo.h"
#include "exitcodes.h"
#include "json.h"
#include "pairs.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"

#define TRIPS_PER_SAMPLE 100   /* round trips timed together, as c2clat */

typedef struct {
    long long samples;
    long long max_pairs;
} c2c_conf_t;

static const mb_opt_t c2c_opts[] = {
    { .long_name = "c2c-samples", .type = MB_OPT_INT, .offset = offsetof(c2c_conf_t, samples),
      .min = 1, .max = 1000000, .metavar = "N", .def = "1000", .def_text = "1000, as c2clat",
      .help = "c2c: samples per pair of CPUs, each 100 round trips of a cache line; the pair's "
              "figure is the fastest sample / 200" },
    { .long_name = "c2c-max-pairs", .type = MB_OPT_INT, .offset = offsetof(c2c_conf_t, max_pairs),
      .min = 1, .max = 1LL << 24, .metavar = "N", .def = "2016", .def_text = "2016: every pair of 64 CPUs",
      .help = "c2c: measure at most N pairs of CPUs; more are sampled at random "
              "(--random-state), and the result says so" },
};

static void c2c_json(mb_json_t *j, const void *conf)
{
    const c2c_conf_t *c = conf;
    mb_json_int(j, "samples", (int)c->samples);
    mb_json_int(j, "round_trips_per_sample", TRIPS_PER_SAMPLE);
    mb_json_uint(j, "max_pairs", (size_t)c->max_pairs);
}

static void c2c_plan(FILE *f, const void *conf)
{
    const c2c_conf_t *c = conf;
    fprintf(f, "  c2c: every pair of allowed CPUs (at most %lld, sampled beyond), %lld samples of %d "
               "round trips each\n", c->max_pairs, c->samples, TRIPS_PER_SAMPLE);
}

/* The CPUs this process may use, in CPU order; returns how many. */
static int allowed_cpus(const mc_config_t *cfg, int *cpus, int max)
{
    int n = 0;
    for (int c = 0; c < CPU_SETSIZE && n < max; c++)
        if (CPU_ISSET(c, &cfg->orig_mask))
            cpus[n++] = c;
    return n;
}

static int c2c_supported(const mc_config_t *cfg, char *why, size_t whylen)
{
    int cpus[2];
    int n = allowed_cpus(cfg, cpus, 2);
    if (n >= 2)
        return 0;
    snprintf(why, whylen, "c2c needs two CPUs to pass a cache line between; this process may use "
                          "only %s%d (widen its affinity: taskset, cgroup cpuset, srun --cpus-per-task)",
             n ? "CPU " : "", n ? cpus[0] : 0);
    return MB_EXIT_RESOURCE;
}

/* The two lines the counter travels through, each on its own line. */
typedef struct {
    _Alignas(64) volatile int ping;   /* written by the timing thread */
    _Alignas(64) volatile int pong;   /* written by the answering thread */
    _Alignas(64) char pad[64];
} c2c_lines_t;

/* One pair: the fastest of `samples` samples, in ns per one-way transfer
 * (NAN when none ran).  The signal flag is read before each sample; *cut
 * says the pair was cut short by it. */
static double measure_pair(int cpu_timer, int cpu_answer, long long samples,
                           const volatile sig_atomic_t *stop, bool *cut)
{
    static c2c_lines_t lines;
    double best_ns = NAN;
    bool quit = false;
#pragma omp parallel num_threads(2)
    {
        int me = omp_get_thread_num();
        mc_pin_self(me == 0 ? cpu_timer : cpu_answer);
        for (long long s = 0; s < samples; s++) {
#pragma omp single
            {
                __atomic_store_n(&lines.ping, -1, __ATOMIC_RELAXED);
                __atomic_store_n(&lines.pong, -1, __ATOMIC_RELAXED);
                quit = stop && *stop;
            }   /* implicit barrier: both threads start the sample together, or both stop */
            if (quit)
                break;
            if (me == 0) {
                uint64_t t0 = mb_now_ns();
                for (int n = 0; n < TRIPS_PER_SAMPLE; n++) {
                    __atomic_store_n(&lines.ping, n, __ATOMIC_RELEASE);
                    while (__atomic_load_n(&lines.pong, __ATOMIC_ACQUIRE) != n)
                        ;
                }
                double ns = (double)(mb_now_ns() - t0) / (2.0 * TRIPS_PER_SAMPLE);
                if (!(ns >= best_ns))   /* the first sample, or a faster one */
                    best_ns = ns;
            } else {
                for (int n = 0; n < TRIPS_PER_SAMPLE; n++) {
                    while (__atomic_load_n(&lines.ping, __ATOMIC_ACQUIRE) != n)
                        ;
                    __atomic_store_n(&lines.pong, n, __ATOMIC_RELEASE);
                }
            }
#pragma omp barrier
        }
    }
    *cut = quit;
    return best_ns;
}

/* What lies between two CPUs, the widest boundary first. */
static const char *boundary(const mb_cpu_place_t *a, const mb_cpu_place_t *b)
{
    if (a->package < 0 || b->package < 0)
        return "unknown";
    if (a->package != b->package)
        return "other package";
    if (a->die >= 0 && b->die >= 0 && a->die != b->die)
        return "other die";
    if (a->l3 < 0 || b->l3 < 0)
        return "same package";
    return a->l3 == b->l3 ? "same L3" : "other L3";
}

static const mc_col_t pair_cols[] = {
    { "cpu_a", "", false }, { "cpu_b", "", false }, { "one_way", "ns", false },
    { "between", "", true },
};
static const mc_col_t cpu_cols[] = {
    { "cpu", "", false }, { "package", "", false }, { "die", "", false }, { "l3_domain", "", false },
};

/* The matrix as a table: a row per CPU, a column per CPU (ns; the
 * diagonal and pairs not measured are n/a). */
static void matrix_table(mc_result_t *res, const int *cpus, int ncpu, const double *ns)
{
    mc_col_t *cols = mc_result_alloc(res, sizeof *cols * (size_t)(ncpu + 1));
    char (*names)[16] = mc_result_alloc(res, sizeof *names * (size_t)ncpu);
    if (!cols || !names)
        return;
    cols[0] = (mc_col_t){ "cpu", "", false };
    for (int c = 0; c < ncpu; c++) {
        snprintf(names[c], sizeof names[c], "cpu%d", cpus[c]);
        cols[c + 1] = (mc_col_t){ names[c], "ns", false };
    }
    mc_table_t *t = mc_table_new(res, "matrix", cols, ncpu + 1);
    for (int r = 0; t && r < ncpu; r++) {
        long row = mc_table_row(t);
        mc_table_num(t, row, 0, cpus[r]);
        for (int c = 0; c < ncpu; c++)
            mc_table_num(t, row, c + 1, ns[(size_t)r * (size_t)ncpu + (size_t)c]);
    }
}

/* Median of the finite pair figures whose boundary is `kind` (NULL: all);
 * NAN when none. */
static double median_where(const double *v, const char *const *kinds, size_t n, const char *kind,
                           double *scratch)
{
    size_t m = 0;
    for (size_t k = 0; k < n; k++)
        if (isfinite(v[k]) && (!kind || strcmp(kinds[k], kind) == 0))
            scratch[m++] = v[k];
    return m ? mb_median(scratch, m) : NAN;
}

static const char *const boundary_metrics[][2] = {
    { "same L3", "latency_same_l3" },           { "other L3", "latency_other_l3" },
    { "other die", "latency_other_die" },       { "other package", "latency_other_package" },
};

static int c2c_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const c2c_conf_t *c = conf;
    int *cpus = mc_result_alloc(res, sizeof *cpus * CPU_SETSIZE);
    if (!cpus)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the CPU list");
    int ncpu = allowed_cpus(cfg, cpus, CPU_SETSIZE);
    size_t total = mc_pairs_total(ncpu);
    size_t cap = total < (size_t)c->max_pairs ? total : (size_t)c->max_pairs;
    size_t *pair_no = mc_result_alloc(res, sizeof *pair_no * (cap ? cap : 1));
    double *ns = mc_result_alloc(res, sizeof *ns * (size_t)ncpu * (size_t)ncpu);
    double *pair_ns = mc_result_alloc(res, sizeof *pair_ns * (cap ? cap : 1));
    double *scratch = mc_result_alloc(res, sizeof *scratch * (cap ? cap : 1));
    const char **kinds = mc_result_alloc(res, sizeof *kinds * (cap ? cap : 1));
    mb_cpu_place_t *place = mc_result_alloc(res, sizeof *place * (size_t)ncpu);
    if (!pair_no || !ns || !pair_ns || !scratch || !kinds || !place)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for a %d x %d matrix", ncpu, ncpu);
    for (size_t k = 0; k < (size_t)ncpu * (size_t)ncpu; k++)
        ns[k] = NAN;

    mc_table_t *cpu_tab = mc_table_new(res, "cpus", cpu_cols, 4);
    for (int k = 0; k < ncpu; k++) {
        mb_cpu_place(cpus[k], &place[k]);
        long row = mc_table_row(cpu_tab);
        mc_table_num(cpu_tab, row, 0, cpus[k]);
        mc_table_num(cpu_tab, row, 1, place[k].package >= 0 ? place[k].package : NAN);
        mc_table_num(cpu_tab, row, 2, place[k].die >= 0 ? place[k].die : NAN);
        mc_table_num(cpu_tab, row, 3, place[k].l3 >= 0 ? place[k].l3 : NAN);
    }

    size_t npairs = mc_pairs_choose(ncpu, cap, cfg->random_state, pair_no), done = 0;
    if (npairs < total)
        mc_result_note(res, "c2c: %zu of %zu pairs measured, chosen at random (--random-state "
                            "%llu); raise --c2c-max-pairs for every pair", npairs, total,
                       (unsigned long long)cfg->random_state);
    mc_table_t *pairs = mc_table_new(res, "pairs", pair_cols, 4);
    for (size_t k = 0; k < npairs; k++) {
        if (cfg->stop && *cfg->stop) {
            res->complete = false;
            break;
        }
        int i, j;
        mc_pair_of(pair_no[k], ncpu, &i, &j);
        bool cut = false;
        double v = measure_pair(cpus[i], cpus[j], c->samples, cfg->stop, &cut);
        if (cut) {
            res->complete = false;
            if (isnan(v))
                break;    /* not one sample of this pair: nothing to keep */
        }
        ns[(size_t)i * (size_t)ncpu + (size_t)j] = ns[(size_t)j * (size_t)ncpu + (size_t)i] = v;
        pair_ns[k] = v;
        kinds[k] = boundary(&place[i], &place[j]);
        long row = mc_table_row(pairs);
        mc_table_num(pairs, row, 0, cpus[i]);
        mc_table_num(pairs, row, 1, cpus[j]);
        mc_table_num(pairs, row, 2, v);
        mc_table_str(pairs, row, 3, kinds[k]);
        done++;
        if (cut)
            break;
    }
    mc_restore_mask(cfg);
    matrix_table(res, cpus, ncpu, ns);
    if (!res->complete)
        mc_result_note(res, "c2c: interrupted after %zu of %zu pairs; the pairs measured are kept",
                       done, npairs);

    const char *none = "interrupted before the first pair";
    res->rec.headline = "latency";   /* the median over the pairs */
    mc_metric_samples(res, "latency", "ns", pair_ns, done, none);
    for (size_t b = 0; b < sizeof boundary_metrics / sizeof boundary_metrics[0]; b++) {
        double m = median_where(pair_ns, kinds, done, boundary_metrics[b][0], scratch);
        if (isfinite(m))
            mc_metric(res, boundary_metrics[b][1], "ns", m);
    }
    mc_metric(res, "pairs_measured", "", (double)done);
    mc_metric(res, "pairs_total", "", (double)total);
    return 0;
}

const mc_scenario_t mc_sc_c2c = {
    .name = "c2c",
    .summary = "core-to-core latency: one cache line passed between every pair of CPUs (ns one way)",
    MC_SCENARIO_OPTIONS(c2c_opts, c2c_conf_t),
    .config_json = c2c_json,
    .plan = c2c_plan,
    .supported = c2c_supported,
    .run = c2c_run,
};
