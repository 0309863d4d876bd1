/* randread: random-access latency by dependent pointer chasing.
 *
 * Every thread owns a slice of 64-byte nodes linked into K random cycles
 * (Sattolo) that spread over the whole slice; a hop is one dependent
 * load.  ns per load = time / hops minus the measured cost of the loop
 * without its loads.  --chains K runs K independent cycles at once
 * (memory-level parallelism: latency per hop and achieved GB/s);
 * --tlb-locality PAGES keeps hops inside groups of PAGES pages; --sweep
 * draws the latency curve from 16 KiB to --size, one thread. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "mencal.h"
#include "timer.h"

#define MAIN_TARGET_NS 100000000ULL    /* ~0.1 s per repetition */
#define SWEEP_TARGET_NS 20000000ULL    /* ~20 ms per sweep repetition */
#define VERIFY_MAX_MEMBERS (1u << 20)   /* walk the cycle to check it below this */
#define MIN_ROUNDS 64
#define MAX_ROUNDS (1ULL << 28)

typedef struct {
    size_t nodes;          /* per thread */
    int chains;
    size_t group_nodes;
    uint64_t target_ns;
} plan_t;

static size_t members_of_chain0(const plan_t *p)
{
    return (p->nodes + (size_t)p->chains - 1) / (size_t)p->chains;
}

/* rounds so that one repetition lasts about target_ns, from a calibration
 * run that lasted cal_ns for cal_rounds */
static size_t rounds_for(uint64_t target_ns, uint64_t cal_ns, size_t cal_rounds)
{
    if (cal_ns == 0)
        cal_ns = 1;
    double r = (double)cal_rounds * (double)target_ns / (double)cal_ns;
    if (r < MIN_ROUNDS)
        r = MIN_ROUNDS;
    if (r > (double)MAX_ROUNDS)
        r = (double)MAX_ROUNDS;
    return (size_t)r;
}

/* The node numbers of the first 64 hops of thread 0's first chain,
 * hashed to an integer below 2^52: equal for equal --seed and layout. */
static double chain_signature(void *base, void *start)
{
    uint64_t h = 1469598103934665603ULL;
    void *p = start;
    for (int i = 0; i < 64; i++) {
        h = (h ^ (uint64_t)(((char *)p - (char *)base) / MC_LINE_BYTES)) * 1099511628211ULL;
        p = *(void **)p;
    }
    return (double)(h & ((1ULL << 52) - 1));
}

static const mc_col_t thread_cols[] = {
    { "thread", "", false }, { "cpu", "", false }, { "node", "", false },
    { "nodes", "", false },  { "latency", "ns", false },
};

static const mc_col_t sweep_cols[] = {
    { "size_bytes", "bytes", false }, { "level", "", true },        { "latency", "ns", false },
    { "min", "ns", false },           { "max", "ns", false },       { "cv", "", false },
    { "bandwidth", "GB/s", false },   { "hops", "", false },
};

static void cache_note(mc_result_t *res, const mc_config_t *cfg)
{
    char a[32], b[32], c[32];
    const mc_caches_t *k = &cfg->caches;
    mc_result_note(res, "cache levels: L1d %s (%s), L2 %s (%s), LLC %s (%s)",
                   k->l1d_bytes ? mb_format_bytes(k->l1d_bytes, a, sizeof a) : "unknown",
                   k->l1d_source,
                   k->l2_bytes ? mb_format_bytes(k->l2_bytes, b, sizeof b) : "unknown",
                   k->l2_source,
                   k->llc.total_bytes ? mb_format_bytes(k->llc.total_bytes, c, sizeof c) : "unknown",
                   k->llc.note[0] ? k->llc.note : mb_llc_source_name(k->llc.source));
}

/* ---- one thread per slice ------------------------------------------- */

static int run_threads(const mc_config_t *cfg, mc_result_t *res)
{
    const int nt = cfg->nthreads, reps = cfg->reps, K = cfg->chains;
    plan_t p = {
        .nodes = mc_slice_bytes(cfg->size_bytes, nt, 4096) / MC_LINE_BYTES,
        .chains = K,
        .group_nodes = cfg->tlb_pages ? cfg->tlb_pages * (4096 / MC_LINE_BYTES) : 0,
        .target_ns = MAIN_TARGET_NS,
    };
    const size_t slice = p.nodes * MC_LINE_BYTES, total = slice * (size_t)nt;
    if (p.nodes < (size_t)K * 2)
        return mc_result_fail(res, 2, "--size leaves %zu nodes per thread, too few for %d chains",
                              p.nodes, K);
    char why[256];
    void *buf;
    if (mc_buffer_alloc(total, cfg->hugepages, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, 3, "%s", why);

    double *thr_ns = calloc((size_t)(reps + 1) * (size_t)nt, sizeof *thr_ns);
    double *wall_ns = calloc((size_t)reps + 1, sizeof *wall_ns);
    double *ovh_ns = calloc((size_t)nt, sizeof *ovh_ns);
    uint64_t *cal = calloc((size_t)nt, sizeof *cal);
    int *cpu = calloc((size_t)nt, sizeof *cpu), *node = calloc((size_t)nt, sizeof *node);
    if (!thr_ns || !wall_ns || !ovh_ns || !cal || !cpu || !node) {
        free(thr_ns), free(wall_ns), free(ovh_ns), free(cal), free(cpu), free(node);
        mc_buffer_free(buf, total);
        return mc_result_fail(res, 3, "out of memory for the timing arrays");
    }
    volatile int failed = 0, abort_flag = 0;
    int done = 0;
    double signature = NAN;
    size_t rounds = MIN_ROUNDS;
    uint64_t t0 = 0;

#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        cpu[t] = sched_getcpu();
        node[t] = mc_cpu_node(-1);
        void *base = (char *)buf + (size_t)t * slice;
        void *start[MC_MAX_CHAINS];
        mc_rng_t rng;
        mc_rng_seed(&rng, cfg->seed, (uint64_t)t);
        mc_chain_spec_t spec = { .nodes = p.nodes, .chains = K, .group_nodes = p.group_nodes };
        if (mc_chain_build(base, &spec, &rng, start) != 0)
            failed = 1;
        else if (members_of_chain0(&p) <= VERIFY_MAX_MEMBERS
                 && !mc_chain_verify(start[0], members_of_chain0(&p)))
            failed = 2;
        else if (t == 0)
            signature = chain_signature(base, start[0]);
#pragma omp barrier
        if (!failed) {
            /* calibration (also a first warm-up) */
            size_t cal_rounds = 1024;
            uint64_t a = mb_now_ns();
            mc_chase(start, K, cal_rounds);
            cal[t] = mb_now_ns() - a;
#pragma omp barrier
#pragma omp master
            {
                uint64_t worst = 0;
                for (int i = 0; i < nt; i++)
                    worst = cal[i] > worst ? cal[i] : worst;
                rounds = rounds_for(p.target_ns, worst, cal_rounds);
            }
#pragma omp barrier
            ovh_ns[t] = (double)mc_chase_overhead_ns(K, rounds);
            for (int r = 0; r <= reps; r++) {   /* r == 0: warm-up */
#pragma omp barrier
                if (abort_flag)
                    break;
#pragma omp master
                {
                    if (r == 1)
                        mc_counters_begin(res, cfg);
                    t0 = mb_now_ns();
                }
#pragma omp barrier
                uint64_t s = mb_now_ns();
                mc_chase(start, K, rounds);
                thr_ns[(size_t)r * (size_t)nt + (size_t)t] = (double)(mb_now_ns() - s);
#pragma omp barrier
#pragma omp master
                {
                    wall_ns[r] = (double)(mb_now_ns() - t0);
                    done = r;
                    if (*cfg->stop)
                        abort_flag = 1;
                }
            }
#pragma omp master
            if (done >= 1)
                mc_counters_end(res, cfg);
        }
    }
    mc_buffer_finish(res, cfg, buf, total);

    int rc = 0;
    if (failed == 1)
        rc = mc_result_fail(res, 3, "building the chains failed: out of memory");
    else if (failed == 2)
        rc = mc_result_fail(res, 1, "validation failed: a chain is not a single cycle through "
                            "its nodes");
    int n = done;
    if (abort_flag && n < reps)
        res->complete = false;
    const double hops_thread = (double)rounds * MC_CHASE_UNROLL * K;   /* all chains */
    double *lat = calloc((size_t)(n > 0 ? n : 1), sizeof *lat);
    double *raw = calloc((size_t)(n > 0 ? n : 1), sizeof *raw);
    double *gbps = calloc((size_t)(n > 0 ? n : 1), sizeof *gbps);
    double ovh = 0;
    for (int t = 0; t < nt; t++)
        ovh += ovh_ns[t] / hops_thread;
    ovh /= nt;
    for (int r = 1; lat && raw && gbps && r <= n; r++) {
        double sum = 0;
        for (int t = 0; t < nt; t++)
            sum += thr_ns[(size_t)r * (size_t)nt + (size_t)t] / (hops_thread / K);
        raw[r - 1] = sum / nt;                 /* ns per hop of one chain */
        lat[r - 1] = raw[r - 1] - ovh * K;     /* overhead is per hop of all chains */
        gbps[r - 1] = hops_thread * nt * MC_LINE_BYTES / wall_ns[r];
    }
    if (!rc) {
        mc_metric_samples(res, "latency", "ns", lat, (size_t)n, "no repetition completed");
        mc_metric_samples(res, "latency_raw", "ns", raw, (size_t)n, "no repetition completed");
        mc_metric(res, "loop_overhead", "ns", ovh * K);
        mc_metric_samples(res, "bandwidth", "GB/s", gbps, (size_t)n, "no repetition completed");
        mc_metric(res, "hops_per_rep", "loads", hops_thread * nt);
        mc_metric(res, "chains", "per thread", K);
        mc_metric(res, "permutation_signature", "", signature);
    }
    mc_table_t *tab = mc_table_new(res, "per_thread", thread_cols, 5);
    for (int t = 0; t < nt; t++) {
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, t);
        mc_table_num(tab, row, 1, cpu[t]);
        mc_table_num(tab, row, 2, node[t] >= 0 ? node[t] : NAN);
        mc_table_num(tab, row, 3, (double)p.nodes);
        double v[1024];
        int m = 0;
        for (int r = 1; r <= n && m < 1024; r++)
            v[m++] = thr_ns[(size_t)r * (size_t)nt + (size_t)t] / (hops_thread / K) - ovh * K;
        mc_table_num(tab, row, 4, m ? mb_median(v, (size_t)m) : NAN);
    }
    if (!rc)
        mc_result_counter_metrics(res, hops_thread * nt * n, "dependent load (hop)");
    if (K > 1)
        mc_result_note(res, "%d chains per thread: latency is per hop of one chain; bandwidth "
                       "counts one 64-byte line per hop", K);
    if (p.group_nodes && p.group_nodes < p.nodes)
        mc_result_note(res, "--tlb-locality %zu: hops stay inside groups of %zu pages (%zu nodes)",
                       cfg->tlb_pages, cfg->tlb_pages, p.group_nodes);
    else if (p.group_nodes)   /* mc_chain_build ignores a group that covers the slice */
        mc_result_note(res, "--tlb-locality %zu has no effect: a group would hold the whole "
                       "slice of %zu pages per thread, so hops span the slice; use fewer "
                       "than %zu pages", cfg->tlb_pages, slice / 4096, slice / 4096);
    cache_note(res, cfg);
    mc_result_note(res, "working set %s per thread, %d threads: %s",
                   mb_format_bytes(slice, why, sizeof why), nt,
                   mc_cache_level(&cfg->caches, slice, total));
    free(lat), free(raw), free(gbps);
    free(thr_ns), free(wall_ns), free(ovh_ns), free(cal), free(cpu), free(node);
    return rc;
}

/* ---- the latency curve ------------------------------------------------ */

#define MAX_SWEEP_REPS 1000

typedef struct {
    double median, min, max, cv, gbps, hops;
    bool ok;
    int n;
    double lat[MAX_SWEEP_REPS];   /* ns per hop of each repetition */
} point_t;

static void sweep_point(const mc_config_t *cfg, void *buf, size_t bytes, point_t *pt,
                        double *all_loads, int *failed)
{
    const int K = cfg->chains;
    memset(pt, 0, sizeof *pt);
    mc_chain_spec_t spec = {
        .nodes = bytes / MC_LINE_BYTES,
        .chains = K,
        .group_nodes = cfg->tlb_pages ? cfg->tlb_pages * (4096 / MC_LINE_BYTES) : 0,
    };
    if (spec.nodes < (size_t)K * 2)
        return;
    void *start[MC_MAX_CHAINS];
    mc_rng_t rng;
    mc_rng_seed(&rng, cfg->seed, bytes);
    if (mc_chain_build(buf, &spec, &rng, start) != 0) {
        *failed = 1;
        return;
    }
    size_t members = (spec.nodes + (size_t)K - 1) / (size_t)K;
    if (members <= VERIFY_MAX_MEMBERS && !mc_chain_verify(start[0], members)) {
        *failed = 2;
        return;
    }
    /* warm-up: a full lap when affordable, which also loads the cache */
    size_t warm = members / MC_CHASE_UNROLL + 1;
    mc_chase(start, K, warm < (1u << 20) ? warm : (1u << 20));
    uint64_t a = mb_now_ns();
    mc_chase(start, K, 256);
    size_t rounds = rounds_for(SWEEP_TARGET_NS, mb_now_ns() - a, 256);
    const double hops = (double)rounds * MC_CHASE_UNROLL;   /* per chain */
    double ovh = (double)mc_chase_overhead_ns(K, rounds) / (hops * K);
    double *lat = pt->lat;
    int n = 0;
    double wall = 0;
    for (int r = 0; r < cfg->reps && r < MAX_SWEEP_REPS && !*cfg->stop; r++) {
        uint64_t s = mb_now_ns();
        mc_chase(start, K, rounds);
        double dt = (double)(mb_now_ns() - s);
        wall += dt;
        lat[n++] = dt / hops - ovh * K;
    }
    mb_stats_t st;
    if (n == 0 || mb_stats_compute(lat, (size_t)n, 0, &st) != 0)
        return;
    pt->n = n;
    pt->median = st.median;
    pt->min = st.min;
    pt->max = st.max;
    pt->cv = n >= 2 ? st.cv : NAN;   /* one repetition has no spread (n/a, not 0) */
    pt->hops = hops * K * n;
    pt->gbps = pt->hops * MC_LINE_BYTES / wall;
    pt->ok = true;
    *all_loads += pt->hops;
}

static int run_sweep(const mc_config_t *cfg, mc_result_t *res)
{
    const size_t total = cfg->size_bytes - cfg->size_bytes % 4096;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(total, cfg->hugepages, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, 3, "%s", why);
    mc_table_t *tab = mc_table_new(res, "sweep", sweep_cols, 8);
    mc_pin_self(cfg->cpu[0]);
    int failed = 0;
    double loads = 0;
    point_t *pts = calloc(3, sizeof *pts);   /* large: kept off the stack */
    if (!pts) {
        mc_buffer_free(buf, total);
        return mc_result_fail(res, 3, "out of memory");
    }
    point_t *const first = &pts[0], *const last = &pts[1], *const pt = &pts[2];
    size_t last_bytes = 0;
    mc_counters_begin(res, cfg);
    for (size_t bytes = 16384; bytes <= total && !failed; bytes *= 2) {
        if (*cfg->stop) {
            res->complete = false;
            break;
        }
        sweep_point(cfg, buf, bytes, pt, &loads, &failed);
        if (!pt->ok)
            continue;
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, (double)bytes);
        mc_table_str(tab, row, 1, mc_cache_level(&cfg->caches, bytes, bytes));
        mc_table_num(tab, row, 2, pt->median);
        mc_table_num(tab, row, 3, pt->min);
        mc_table_num(tab, row, 4, pt->max);
        mc_table_num(tab, row, 5, pt->cv);
        if (!isfinite(pt->cv))   /* the reason JSON gives with the null */
            mc_table_str(tab, row, 5, "one repetition has no spread; use --reps 2 or more");
        mc_table_num(tab, row, 6, pt->gbps);
        mc_table_num(tab, row, 7, pt->hops);
        if (!first->ok)
            *first = *pt;
        *last = *pt;
        last_bytes = bytes;
        if (bytes > SIZE_MAX / 2)
            break;
    }
    mc_counters_end(res, cfg);
    mc_buffer_finish(res, cfg, buf, total);
    int rc = 0;
    if (failed == 1)
        rc = mc_result_fail(res, 3, "building the chains failed: out of memory");
    else if (failed == 2)
        rc = mc_result_fail(res, 1, "validation failed: a chain is not a single cycle");
    if (rc) {
        free(pts);
        return rc;
    }
    if (first->ok) {
        mc_metric_samples(res, "latency_smallest", "ns", first->lat, (size_t)first->n, "no sample");
        mc_metric_samples(res, "latency_largest", "ns", last->lat, (size_t)last->n, "no sample");
        mc_metric(res, "largest_size", "bytes", (double)last_bytes);
        mc_metric(res, "points", "", (double)tab->nrows);
    } else {
        mc_metric_na(res, "latency_largest", "ns", "no sweep point completed");
    }
    mc_result_counter_metrics(res, loads, "dependent load (hop)");
    /* the last point, not --size: a size between powers of two stops below it */
    mc_result_note(res, "sweep: one thread on CPU %d, %d chain%s, sizes 16 KiB to %s by powers "
                   "of two", cfg->cpu[0], cfg->chains, cfg->chains > 1 ? "s" : "",
                   last_bytes ? mb_format_bytes(last_bytes, why, sizeof why) : "none (--size under 16 KiB)");
    cache_note(res, cfg);
    free(pts);
    return 0;
}

static int randread_run(const mc_config_t *cfg, mc_result_t *res)
{
    return cfg->sweep ? run_sweep(cfg, res) : run_threads(cfg, res);
}

static const char *const randread_options[] = { "chains", "tlb-locality", "sweep", NULL };

const mc_scenario_t mc_sc_randread = {
    .name = "randread",
    .summary = "pointer-chasing latency over a random cycle (ns per dependent load)",
    .options = randread_options,
    .supported = mc_supported_always,
    .run = randread_run,
};
