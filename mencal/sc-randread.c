/* randread: random-access latency by dependent pointer chasing.
 *
 * Every thread owns a slice of nodes --stride bytes apart (default 256, as
 * multichase) linked into K random cycles (Sattolo); a hop is one
 * dependent load.  ns per load = time / hops, as multichase counts it
 * (the loop without its loads is timed and reported, not subtracted: it
 * runs beside the loads on an out-of-order core).  --chains K runs K
 * independent cycles at once (memory-level parallelism: latency per hop
 * and achieved GB/s).
 * --tlb-locality PAGES (default 64, as multichase) keeps hops inside groups
 * of PAGES pages: that pass gives "latency", the DRAM figure people quote;
 * a second pass over the whole slice gives "latency_full_random", page
 * walks included.  --sweep draws the latency curve from 16 KiB to --size,
 * one thread, with the same stride. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "buffer.h"
#include "chase.h"
#include "exitcodes.h"
#include "json.h"
#include "pagesize.h"
#include "measure.h"
#include "scenario.h"
#include "team.h"
#include "timer.h"

/* --chains, --tlb-locality, --stride, --sweep and their checked values. */
typedef struct {
    long long chains_opt, tlb_opt, stride_opt;   /* as parsed */
    bool sweep;
    int layout;                /* CHOICE: the mc_chain_layout_t */
    int chains;
    size_t tlb_pages;          /* 0: full random only */
    size_t stride_bytes;       /* bytes between chase nodes */
} randread_conf_t;

#define OFF(f) offsetof(randread_conf_t, f)
static const mb_opt_t randread_opts[] = {
    { .long_name = "chains", .type = MB_OPT_INT, .offset = OFF(chains_opt), .min = 1,
      .max = MC_MAX_CHAINS, .metavar = "K", .def = "1",
      .help = "randread: independent chains per thread (memory-level parallelism)" },
    MC_OPT_TLB_LOCALITY(randread_conf_t, tlb_opt),
    { .long_name = "sweep", .type = MB_OPT_FLAG, .offset = OFF(sweep),
      .help = "randread: latency curve from 16 KiB to --size by powers of two" },
    MC_OPT_STRIDE(randread_conf_t, stride_opt),
    MC_OPT_CHAIN_LAYOUT(randread_conf_t, layout),
};
#undef OFF

static int randread_resolve(void *conf, mc_config_t *cfg, char *msg, size_t msglen)
{
    (void)cfg;
    randread_conf_t *c = conf;
    if (!mc_chase_stride_ok(c->stride_opt, msg, msglen))
        return MB_EXIT_USAGE;
    c->chains = (int)c->chains_opt;
    c->tlb_pages = (size_t)c->tlb_opt;
    c->stride_bytes = (size_t)c->stride_opt;
    if (!mc_chase_chains_fit(c->chains, c->stride_bytes, (mc_chain_layout_t)c->layout, msg, msglen))
        return MB_EXIT_USAGE;
    /* a group larger than the set it groups: the set is a thread's slice
     * (the whole --size for the sweep); the default is clamped with a note */
    if (cfg->size_bytes && mc_opt_seen(cfg, "tlb-locality") && mc_run_selects(cfg, "randread")) {
        const size_t page = mb_page_size();
        char ps[32];
        size_t set = c->sweep ? cfg->size_bytes - cfg->size_bytes % 4096
                              : mc_slice_bytes(cfg->size_bytes, cfg->nthreads > 0 ? cfg->nthreads : 1, 4096);
        if (c->tlb_pages > set / page) {
            snprintf(msg, msglen, "randread: --tlb-locality %zu: a group of %zu pages is larger than "
                     "the set of %zu pages (%s) %s; expected 0 to %zu", c->tlb_pages,
                     c->tlb_pages, set / page, mb_page_text(page, ps, sizeof ps),
                     c->sweep ? "of --size" : "per thread", set / page);
            return MB_EXIT_USAGE;
        }
    }
    return 0;
}

static const char *randread_not_standard(const void *conf)
{
    return mc_chain_layout_not_standard((mc_chain_layout_t)((const randread_conf_t *)conf)->layout);
}

static void randread_json(mb_json_t *j, const void *conf)
{
    const randread_conf_t *c = conf;
    mb_json_int(j, "chains", c->chains);
    mc_json_uint_or(j, "tlb_locality_pages", c->tlb_pages,
                    "--tlb-locality 0: hops span the whole slice");
    mb_json_uint(j, "stride_bytes", c->stride_bytes);
    mb_json_bool(j, "sweep", c->sweep);
    mb_json_string(j, "chain_layout", mc_chain_layout_name((mc_chain_layout_t)c->layout));
}

#define MAIN_TARGET_NS 100000000ULL    /* ~0.1 s per repetition */
#define SWEEP_TARGET_NS 20000000ULL    /* ~20 ms per sweep repetition */
#define VERIFY_MAX_MEMBERS (1u << 20)   /* walk the cycle to check it below this */
#define MIN_ROUNDS 64
#define MAX_ROUNDS (1ULL << 28)

typedef struct {
    size_t nodes;          /* per thread */
    size_t stride;         /* bytes between nodes */
    int chains;
    size_t group_nodes;
    mc_chain_layout_t layout;
    uint64_t target_ns;
} plan_t;

static mc_chain_spec_t plan_spec(const plan_t *p)
{
    return (mc_chain_spec_t){ .nodes = p->nodes, .stride = p->stride, .chains = p->chains,
                              .group_nodes = p->group_nodes, .layout = p->layout };
}

static size_t members_of_chain0(const plan_t *p)
{
    mc_chain_spec_t spec = plan_spec(p);
    return mc_chain_members(&spec, 0);
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
 * hashed to an integer below 2^52: equal for equal --random-state and layout. */
static double chain_signature(void *base, size_t stride, void *start)
{
    uint64_t h = 1469598103934665603ULL;
    void *p = start;
    for (int i = 0; i < 64; i++) {
        h = (h ^ (uint64_t)(((char *)p - (char *)base) / stride)) * 1099511628211ULL;
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

/* One measured pass over every thread's slice: the raw timings. */
typedef struct {
    mc_measure_t m;      /* reps + 1 repetitions (r 0: warm-up), ns per thread and wall */
    double *ovh_ns;      /* [nt]: the loop without its loads, for `rounds` */
    uint64_t *cal;       /* [nt]: calibration ns */
    int *cpu, *node;     /* [nt]: where each thread ran */
    size_t rounds;
    int failed;          /* 1: building failed (memory), 2: a chain is not one cycle */
    double signature;
} pass_t;

static void pass_free(pass_t *ps)
{
    mc_measure_free(&ps->m);
    free(ps->ovh_ns), free(ps->cal), free(ps->cpu), free(ps->node);
    memset(ps, 0, sizeof *ps);
}

/* Counters cover the timed repetitions when `count` is set. */
static bool pass_alloc(pass_t *ps, const mc_config_t *cfg, mc_result_t *res, bool count)
{
    const int nt = cfg->nthreads;
    memset(ps, 0, sizeof *ps);
    ps->ovh_ns = calloc((size_t)nt, sizeof *ps->ovh_ns);
    ps->cal = calloc((size_t)nt, sizeof *ps->cal);
    ps->cpu = calloc((size_t)nt, sizeof *ps->cpu);
    ps->node = calloc((size_t)nt, sizeof *ps->node);
    ps->signature = NAN;
    if (mc_measure_init(&ps->m, cfg, res, cfg->reps) == 0 && ps->ovh_ns && ps->cal && ps->cpu
        && ps->node) {
        ps->m.count = count;
        return true;
    }
    pass_free(ps);
    return false;
}

/* A thread's chains and the shared rounds per repetition. */
typedef struct {
    void **start;
    int chains;
    const size_t *rounds;
} chaser_t;

static void chase_body(void *arg, int t, int r)
{
    (void)t, (void)r;
    chaser_t *c = arg;
    mc_chase(c->start, c->chains, *c->rounds);
}

/* Builds the chains of plan p in every slice and times reps + 1 repetitions
 * (the first is a warm-up). */
static void run_pass(const mc_config_t *cfg, const plan_t *p, void *buf, size_t slice,
                     pass_t *ps)
{
    const int nt = cfg->nthreads, K = p->chains;
    volatile int failed = 0;

    ps->rounds = MIN_ROUNDS;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num();
        mc_pin_self(cfg->cpu[t]);
        ps->cpu[t] = sched_getcpu();
        ps->node[t] = mc_cpu_node(-1);
        void *base = (char *)buf + (size_t)t * slice;
        void *start[MC_MAX_CHAINS];
        mc_rng_t rng;
        mc_rng_init(&rng, cfg->random_state, (uint64_t)t);
        mc_chain_spec_t spec = plan_spec(p);
        spec.mixer_start = cfg->random_state;
        if (mc_chain_build(base, &spec, &rng, start, NULL) != 0)
            failed = 1;
        else if (members_of_chain0(p) <= VERIFY_MAX_MEMBERS
                 && !mc_chain_verify(start[0], members_of_chain0(p)))
            failed = 2;
        else if (t == 0)
            ps->signature = chain_signature(base, p->stride, start[0]);
#pragma omp barrier
        if (!failed) {
            /* calibration (also a first warm-up) */
            size_t cal_rounds = 1024;
            uint64_t a = mb_now_ns();
            mc_chase(start, K, cal_rounds);
            ps->cal[t] = mb_now_ns() - a;
#pragma omp barrier
#pragma omp master
            {
                uint64_t worst = 0;
                for (int i = 0; i < nt; i++)
                    worst = ps->cal[i] > worst ? ps->cal[i] : worst;
                ps->rounds = rounds_for(p->target_ns, worst, cal_rounds);
            }
#pragma omp barrier
            ps->ovh_ns[t] = (double)mc_chase_overhead_ns(K, ps->rounds);
            chaser_t c = { start, K, &ps->rounds };
            mc_measure_run(&ps->m, t, chase_body, &c);
        }
    }
    ps->failed = failed;
    mc_measure_finish(&ps->m);
}

/* Latency samples of a pass: ns per hop of one chain, mean over threads.
 * The loop control is not subtracted: an out-of-order core runs it beside
 * the dependent loads, off their critical path, so subtracting the empty
 * loop's time made an L1 hit on Zen 4 read 3.9 cycles (it is 4) and the
 * 32 KiB figure 3-4% under multichase's.  Its cost is returned in
 * *ovh_out for information.  Returns the count. */
static int pass_latency(const pass_t *ps, int nt, int K, double *lat, double *gbps,
                        double *ovh_out)
{
    const double hops_thread = (double)ps->rounds * MC_CHASE_UNROLL * K;   /* all chains */
    double ovh = 0;
    for (int t = 0; t < nt; t++)
        ovh += ps->ovh_ns[t] / hops_thread;
    ovh /= nt;
    for (int r = 1; r <= ps->m.done; r++) {
        double sum = 0;
        for (int t = 0; t < nt; t++)
            sum += MC_THR_NS(&ps->m, r, t) / (hops_thread / K);
        lat[r - 1] = sum / nt;                 /* ns per hop of one chain */
    }
    if (gbps)
        mc_measure_rates(&ps->m, hops_thread * nt * MC_LINE_BYTES, gbps);
    *ovh_out = ovh * K;
    return ps->m.done;
}

/* "4 KiB pages (MADV_NOHUGEPAGE)" etc.: the page size a figure was taken
 * with (the base page of common/pagesize: 64 KiB on a 64 KiB kernel). */
static const char *page_label(mc_hugepages_t hp)
{
    static char never[64];
    char ps[32];
    switch (hp) {
    case MC_HP_NEVER:
        snprintf(never, sizeof never, "%s pages (MADV_NOHUGEPAGE)",
                 mb_page_text(mb_page_size(), ps, sizeof ps));
        return never;
    case MC_HP_MADVISE: return "huge pages requested (MADV_HUGEPAGE; THP share in the buffer notes)";
    default: return "pages as the system THP policy gives (THP share in the buffer notes)";
    }
}

static int run_threads(const mc_config_t *cfg, const randread_conf_t *rk, mc_result_t *res)
{
    const int nt = cfg->nthreads, reps = cfg->reps, K = rk->chains;
    const size_t stride = rk->stride_bytes;
    const size_t slice_nodes = mc_slice_bytes(cfg->size_bytes, nt, 4096) / stride;
    /* a TLB group is tlb_pages base pages: 64 KiB each on a 64 KiB kernel */
    const size_t page = mb_page_size();
    const size_t tlb_nodes = rk->tlb_pages ? rk->tlb_pages * page / stride : 0;
    /* Two passes when a TLB group is smaller than the slice: with locality
     * (the figure people quote as DRAM latency) and full random. */
    const bool grouped = tlb_nodes && tlb_nodes < slice_nodes;
    plan_t p = {
        .nodes = slice_nodes,
        .stride = stride,
        .chains = K,
        .group_nodes = grouped ? (tlb_nodes ? tlb_nodes : 1) : 0,
        .layout = (mc_chain_layout_t)rk->layout,
        .target_ns = MAIN_TARGET_NS,
    };
    const size_t slice = p.nodes * stride, total = slice * (size_t)nt;
    if (p.nodes < (size_t)K * 2)
        return mc_result_fail(res, MB_EXIT_USAGE, "--size leaves %zu nodes of %zu bytes per thread, too few "
                              "for %d chains", p.nodes, stride, K);
    char why[256], sz[32];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);

    pass_t main_pass, full_pass;
    bool have_full = false;
    if (!pass_alloc(&main_pass, cfg, res, true)) {
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
    run_pass(cfg, &p, buf, slice, &main_pass);
    if (grouped && !main_pass.failed && !main_pass.m.aborted) {
        plan_t q = p;
        q.group_nodes = 0;
        if (!pass_alloc(&full_pass, cfg, res, false)) {
            pass_free(&main_pass);
            mc_buffer_free(cfg, buf, total);
            return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
        }
        run_pass(cfg, &q, buf, slice, &full_pass);
        have_full = true;
    }
    mc_buffer_finish(res, cfg, buf, total);

    int rc = 0;
    const int failed = main_pass.failed ? main_pass.failed : have_full ? full_pass.failed : 0;
    if (failed == 1)
        rc = mc_result_fail(res, MB_EXIT_RESOURCE, "building the chains failed: out of memory");
    else if (failed == 2)
        rc = mc_result_fail(res, MB_EXIT_FAIL, "validation failed: a chain is not a single cycle through "
                            "its nodes");
    int n = main_pass.m.done;
    const size_t cap = (size_t)(reps > 0 ? reps : 1);
    double *lat = calloc(cap, sizeof *lat), *gbps = calloc(cap, sizeof *gbps);
    double *flat = calloc(cap, sizeof *flat);
    double ovh = 0, fovh = 0;
    int fn = 0;
    if (!lat || !gbps || !flat)
        n = 0;
    else {
        n = pass_latency(&main_pass, nt, K, lat, gbps, &ovh);
        if (have_full)
            fn = pass_latency(&full_pass, nt, K, flat, NULL, &fovh);
    }
    const double hops_thread = (double)main_pass.rounds * MC_CHASE_UNROLL * K;
    if (!rc) {
        res->rec.headline = "latency";   /* ns per dependent load */
        mc_metric_samples(res, "latency", "ns", lat, (size_t)n, "no repetition completed");
        if (have_full)
            mc_metric_samples(res, "latency_full_random", "ns", flat, (size_t)fn,
                              "no repetition of the full-random pass completed");
        else if (grouped)
            mc_metric_na(res, "latency_full_random", "ns", "interrupted before the full-random pass");
        mb_metric_better(mc_metric(res, "loop_overhead", "ns", ovh), MB_BETTER_NONE);   /* calibration */
        mc_metric_samples(res, "bandwidth", "GB/s", gbps, (size_t)n, "no repetition completed");
        mc_metric(res, "hops_per_rep", "loads", hops_thread * nt);
        mc_metric(res, "chains", "per thread", K);
        mc_metric(res, "stride", "bytes", (double)stride);
        mc_metric(res, "permutation_signature", "", main_pass.signature);
    }
    mc_table_t *tab = mc_table_new(res, "per_thread", thread_cols, 5);
    for (int t = 0; t < nt; t++) {
        long row = mc_table_row(tab);
        mc_table_num(tab, row, 0, t);
        mc_table_num(tab, row, 1, main_pass.cpu[t]);
        mc_table_num(tab, row, 2, main_pass.node[t] >= 0 ? main_pass.node[t] : NAN);
        mc_table_num(tab, row, 3, (double)p.nodes);
        double v[1024];
        int m = 0;
        for (int r = 1; r <= n && m < 1024; r++)
            v[m++] = MC_THR_NS(&main_pass.m, r, t) / (hops_thread / K);
        mc_table_num(tab, row, 4, m ? mb_median(v, (size_t)m) : NAN);
    }
    if (!rc)
        mc_result_counter_metrics(res, hops_thread * nt * n, "dependent load (hop)");
    if (!rc)   /* each hop loads one 64-byte line */
        mc_result_counter_bytes(res, hops_thread * nt * n * MC_LINE_BYTES);
    if (K > 1)
        mc_result_note(res, "%d chains per thread: latency is per hop of one chain; bandwidth "
                       "counts one 64-byte line per hop", K);
    const char *pages = page_label(cfg->hugepages);
    if (grouped) {
        mc_result_note(res, "latency: stride %zu B, TLB locality %zu pages (hops stay inside "
                       "groups of %s, %zu nodes), %s", stride, rk->tlb_pages,
                       mb_format_bytes(rk->tlb_pages * page, sz, sizeof sz), p.group_nodes, pages);
        mc_result_note(res, "latency_full_random: stride %zu B, no TLB locality (hops span the "
                       "%s slice, page walks included), %s", stride,
                       mb_format_bytes(slice, sz, sizeof sz), pages);
    } else if (rk->tlb_pages) {   /* a group would cover the slice */
        mc_result_note(res, "--tlb-locality %zu has no effect: a group would hold the whole "
                       "slice of %zu pages per thread, so hops span the slice; use fewer "
                       "than %zu pages", rk->tlb_pages, slice / page, slice / page);
        mc_result_note(res, "latency: stride %zu B, hops span the %s slice, %s", stride,
                       mb_format_bytes(slice, sz, sizeof sz), pages);
    } else {
        mc_result_note(res, "latency: stride %zu B, full random (--tlb-locality 0: hops span "
                       "the %s slice, page walks included), %s", stride,
                       mb_format_bytes(slice, sz, sizeof sz), pages);
    }
    mc_result_note(res, "%s", mc_chain_layout_note((mc_chain_layout_t)rk->layout));
    cache_note(res, cfg);
    mc_result_note(res, "working set %s per thread, %d threads: %s",
                   mb_format_bytes(slice, why, sizeof why), nt,
                   mc_cache_level(&cfg->caches, slice, total));
    free(lat), free(gbps), free(flat);
    pass_free(&main_pass);
    if (have_full)
        pass_free(&full_pass);
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

static void sweep_point(const mc_config_t *cfg, const randread_conf_t *rk, void *buf, size_t bytes, point_t *pt,
                        double *all_loads, int *failed)
{
    const int K = rk->chains;
    memset(pt, 0, sizeof *pt);
    mc_chain_spec_t spec = {
        .nodes = bytes / rk->stride_bytes,
        .stride = rk->stride_bytes,
        .chains = K,
        .group_nodes = rk->tlb_pages ? rk->tlb_pages * mb_page_size() / rk->stride_bytes : 0,
        .layout = (mc_chain_layout_t)rk->layout,
        .mixer_start = cfg->random_state,
    };
    if (spec.nodes < (size_t)K * 2)
        return;
    void *start[MC_MAX_CHAINS];
    mc_rng_t rng;
    mc_rng_init(&rng, cfg->random_state, bytes);
    if (mc_chain_build(buf, &spec, &rng, start, NULL) != 0) {
        *failed = 1;
        return;
    }
    size_t members = mc_chain_members(&spec, 0);
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
    double *lat = pt->lat;
    int n = 0;
    double wall = 0;
    for (int r = 0; r < cfg->reps && r < MAX_SWEEP_REPS && !*cfg->stop; r++) {
        uint64_t s = mb_now_ns();
        mc_chase(start, K, rounds);
        double dt = (double)(mb_now_ns() - s);
        wall += dt;
        lat[n++] = dt / hops;   /* the loop control is not subtracted: see pass_latency */
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

static int run_sweep(const mc_config_t *cfg, const randread_conf_t *rk, mc_result_t *res)
{
    const size_t total = cfg->size_bytes - cfg->size_bytes % 4096;
    char why[256];
    void *buf;
    if (mc_buffer_alloc(cfg, total, &buf, why, sizeof why) != 0)
        return mc_result_fail(res, MB_EXIT_RESOURCE, "%s", why);
    mc_table_t *tab = mc_table_new(res, "sweep", sweep_cols, 8);
    mc_pin_self(cfg->cpu[0]);
    int failed = 0;
    double loads = 0;
    point_t *pts = calloc(3, sizeof *pts);   /* large: kept off the stack */
    if (!pts) {
        mc_buffer_free(cfg, buf, total);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory");
    }
    point_t *const first = &pts[0], *const last = &pts[1], *const pt = &pts[2];
    size_t last_bytes = 0;
    mc_counters_begin(res, cfg);
    for (size_t bytes = 16384; bytes <= total && !failed; bytes *= 2) {
        if (*cfg->stop) {
            res->complete = false;
            break;
        }
        sweep_point(cfg, rk, buf, bytes, pt, &loads, &failed);
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
        rc = mc_result_fail(res, MB_EXIT_RESOURCE, "building the chains failed: out of memory");
    else if (failed == 2)
        rc = mc_result_fail(res, MB_EXIT_FAIL, "validation failed: a chain is not a single cycle");
    if (rc) {
        free(pts);
        return rc;
    }
    res->rec.headline = "latency_largest";   /* the largest size: memory, past the caches */
    if (first->ok) {
        mc_metric_samples(res, "latency_smallest", "ns", first->lat, (size_t)first->n, "no sample");
        mc_metric_samples(res, "latency_largest", "ns", last->lat, (size_t)last->n, "no sample");
        mc_metric(res, "largest_size", "bytes", (double)last_bytes);
        mc_metric(res, "points", "", (double)tab->nrows);
    } else {
        mc_metric_na(res, "latency_largest", "ns", "no sweep point completed");
    }
    mc_result_counter_metrics(res, loads, "dependent load (hop)");
    mc_result_counter_bytes(res, loads * MC_LINE_BYTES);
    /* the last point, not --size: a size between powers of two stops below it */
    mc_result_note(res, "sweep: one thread on CPU %d, %d chain%s, stride %zu B, TLB locality %s, "
                   "%s, sizes 16 KiB to %s by powers of two", cfg->cpu[0], rk->chains,
                   rk->chains > 1 ? "s" : "", rk->stride_bytes,
                   rk->tlb_pages ? "on (--tlb-locality pages per group)" : "off (full random)",
                   page_label(cfg->hugepages),
                   last_bytes ? mb_format_bytes(last_bytes, why, sizeof why) : "none (--size under 16 KiB)");
    mc_result_note(res, "%s", mc_chain_layout_note((mc_chain_layout_t)rk->layout));
    cache_note(res, cfg);
    free(pts);
    return 0;
}

static int randread_run(const mc_config_t *cfg, const void *conf, mc_result_t *res)
{
    const randread_conf_t *rk = conf;
    return rk->sweep ? run_sweep(cfg, rk, res) : run_threads(cfg, rk, res);
}

const mc_scenario_t mc_sc_randread = {
    .name = "randread",
    .summary = "pointer-chasing latency over a random cycle (ns per dependent load)",
    MC_SCENARIO_OPTIONS(randread_opts, randread_conf_t),
    .resolve = randread_resolve,
    .config_json = randread_json,
    .not_standard = randread_not_standard,
    .run = randread_run,
};
