/* alloc/render: the allocator comparison as text (a
 * block per thread count, a column per allocator, a row per block size,
 * the best cell marked), verdicts per block-size range, and the common
 * result model (JSON, CSV) with one record per cell. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "json.h"
#include "../result.h"

typedef enum { LOWER_BETTER, HIGHER_BETTER, NO_BEST } better_t;

/* One text table: which figure, how to print it, which way is better. */
typedef struct {
    const char *title;
    size_t stats_off;         /* offsetof(mc_cell_t, st_*) */
    double scale;             /* printed value = median x scale */
    const char *fmt;
    better_t better;
    bool overhead_only;       /* shown only with --overhead */
} view_t;

static const view_t views[] = {
    { "wall time (s), lower is better", offsetof(mc_cell_t, st_wall), 1, "%.4g", LOWER_BETTER,
      false },
    { "steps per second (all threads), higher is better", offsetof(mc_cell_t, st_ops), 1,
      "%.4g", HIGHER_BETTER, false },
    { "CPU utilisation (user+sys)/(wall x threads), %", offsetof(mc_cell_t, st_cpu), 100,
      "%.0f", NO_BEST, false },
    { "minor page faults, lower is better", offsetof(mc_cell_t, st_minflt), 1, "%.0f",
      LOWER_BETTER, false },
    { "max RSS (MiB, VmHWM of the child), lower is better", offsetof(mc_cell_t, st_rss),
      1.0 / 1024, "%.1f",
      LOWER_BETTER, false },
    { "p50 allocate+memcpy latency (us), lower is better", offsetof(mc_cell_t, st_p50), 1e-3,
      "%.3g", LOWER_BETTER, false },
    { "p99 allocate+memcpy latency (us), lower is better", offsetof(mc_cell_t, st_p99), 1e-3,
      "%.3g", LOWER_BETTER, false },
    { "harness share of the step time (%), --overhead", offsetof(mc_cell_t, st_harness), 1,
      "%.2f", NO_BEST, true },
};

static double cell_value(const mc_cell_t *c, const view_t *v)
{
    if (c->state != MC_CELL_OK)
        return NAN;
    const mb_stats_t *st = (const mb_stats_t *)((const char *)c + v->stats_off);
    return st->median * v->scale;
}

static const char *plural(int n)
{
    return n == 1 ? "" : "s";
}

static const char *alloc_name(const mc_cell_t *c)
{
    return mc_allocator_at((size_t)c->alloc)->name;
}

static void table_text(FILE *f, const mc_alloc_run_t *r, int ti, const view_t *v)
{
    const mc_alloc_cfg_t *cfg = r->cfg;
    fprintf(f, "%s\n%-8s", v->title, "block");
    for (int ai = 0; ai < cfg->nalloc; ai++)
        fprintf(f, " %12s", mc_allocator_at((size_t)cfg->alloc[ai])->name);
    fputc('\n', f);
    for (int bi = 0; bi < cfg->nblocks; bi++) {
        char bname[32];
        fprintf(f, "%-8s", mc_alloc_size_name(cfg->block_list[bi], bname, sizeof bname));
        int best = -1;
        double bestv = NAN;
        for (int ai = 0; ai < cfg->nalloc && v->better != NO_BEST; ai++) {
            double x = cell_value(mc_alloc_cell(r, ti, bi, ai), v);
            if (isfinite(x) && (best < 0 || (v->better == LOWER_BETTER ? x < bestv : x > bestv)))
                best = ai, bestv = x;
        }
        int nfinite = 0;
        for (int ai = 0; ai < cfg->nalloc; ai++)
            nfinite += isfinite(cell_value(mc_alloc_cell(r, ti, bi, ai), v));
        for (int ai = 0; ai < cfg->nalloc; ai++) {
            const mc_cell_t *c = mc_alloc_cell(r, ti, bi, ai);
            double x = cell_value(c, v);
            char cell[48];
            if (c->state == MC_CELL_SKIPPED)
                snprintf(cell, sizeof cell, "skipped");
            else if (c->state == MC_CELL_FAILED)
                snprintf(cell, sizeof cell, "FAILED");
            else if (!isfinite(x))
                snprintf(cell, sizeof cell, "n/a");
            else {
                snprintf(cell, sizeof cell, v->fmt, x);
                if (ai == best && nfinite > 1)
                    strcat(cell, "*");
            }
            fprintf(f, " %12s", cell);
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* Block-size ranges the verdicts are given for. */
static const struct {
    const char *name;
    size_t lo, hi;            /* lo < block <= hi */
} ranges[] = {
    { "small blocks (<= 16K)", 0, 16 << 10 },
    { "medium blocks (16K .. 4M]", 16 << 10, 4 << 20 },
    { "large blocks (> 4M)", 4 << 20, SIZE_MAX },
};

/* One verdict line for a thread count and a range of block sizes. */
static void verdict(FILE *f, const mc_alloc_run_t *r, int ti, size_t ri)
{
    const mc_alloc_cfg_t *cfg = r->cfg;
    double time[MC_ALLOC_MAX_ALLOCATORS], flt[MC_ALLOC_MAX_ALLOCATORS],
        rss[MC_ALLOC_MAX_ALLOCATORS], cpu[MC_ALLOC_MAX_ALLOCATORS];
    bool complete[MC_ALLOC_MAX_ALLOCATORS];
    int nb = 0;
    size_t lo = SIZE_MAX, hi = 0;
    for (int bi = 0; bi < cfg->nblocks; bi++) {
        size_t b = cfg->block_list[bi];
        if (!(b > ranges[ri].lo && b <= ranges[ri].hi))
            continue;
        lo = b < lo ? b : lo;
        hi = b > hi ? b : hi;
        nb++;
    }
    if (!nb)
        return;
    int nok = 0, fastest = -1, fewest = -1, smallest = -1;
    for (int ai = 0; ai < cfg->nalloc; ai++) {
        time[ai] = flt[ai] = rss[ai] = cpu[ai] = 0;
        complete[ai] = true;
        for (int bi = 0; bi < cfg->nblocks; bi++) {
            size_t b = cfg->block_list[bi];
            if (!(b > ranges[ri].lo && b <= ranges[ri].hi))
                continue;
            const mc_cell_t *c = mc_alloc_cell(r, ti, bi, ai);
            if (c->state != MC_CELL_OK || !isfinite(c->st_wall.median)) {
                complete[ai] = false;
                continue;
            }
            time[ai] += c->st_wall.median;
            flt[ai] += c->st_minflt.median;
            rss[ai] = fmax(rss[ai], c->st_rss.median);
            cpu[ai] += c->st_cpu.median / nb;
        }
        if (!complete[ai])
            continue;
        nok++;
        if (fastest < 0 || time[ai] < time[fastest])
            fastest = ai;
        if (fewest < 0 || flt[ai] < flt[fewest])
            fewest = ai;
        if (smallest < 0 || rss[ai] < rss[smallest])
            smallest = ai;
    }
    char a[32], b[32];
    fprintf(f, "  %d thread%s, %s (%s", cfg->threads_list[ti], plural(cfg->threads_list[ti]),
            ranges[ri].name,
            mc_alloc_size_name(lo, a, sizeof a));
    if (lo != hi)
        fprintf(f, "..%s", mc_alloc_size_name(hi, b, sizeof b));
    fprintf(f, "): ");
    if (nok < 2) {
        fprintf(f, "no comparison: %s\n",
                nok ? "only one allocator completed these sizes"
                    : "no allocator completed these sizes");
        return;
    }
    const char *name = mc_allocator_at((size_t)cfg->alloc[fastest])->name;
    fprintf(f, "fastest %s (%.3g s)", name, time[fastest]);
    for (int ai = 0; ai < cfg->nalloc; ai++)
        if (complete[ai] && ai != fastest)
            fprintf(f, ", %s %+.0f%%", mc_allocator_at((size_t)cfg->alloc[ai])->name,
                    100.0 * (time[ai] / time[fastest] - 1));
    fprintf(f, "; fewest minor faults %s; lowest max RSS %s; CPU use",
            mc_allocator_at((size_t)cfg->alloc[fewest])->name,
            mc_allocator_at((size_t)cfg->alloc[smallest])->name);
    for (int ai = 0; ai < cfg->nalloc; ai++)
        if (complete[ai])
            fprintf(f, " %s %.0f%%", mc_allocator_at((size_t)cfg->alloc[ai])->name,
                    100 * cpu[ai]);
    fputc('\n', f);
}

int mc_alloc_render_text(const mc_alloc_run_t *r, FILE *f)
{
    const mc_alloc_cfg_t *cfg = r->cfg;
    const mc_alloc_env_t *env = r->env;
    fprintf(f, "mencal alloc: allocator comparison\n");
    fprintf(f, "mode: %s\n", cfg->harness_only ? "harness only (no malloc/free/memcpy)"
                             : cfg->nofree ? "nofree (blocks kept and refilled; page faults "
                                             "only on first use)"
                                           : "free (a full slot is freed, an empty one "
                                             "allocated and filled)");
    fprintf(f, "blocks per thread: %zu; steps per thread: ", cfg->blocks_per_thread);
    if (cfg->ops)
        fprintf(f, "%zu", cfg->ops);
    else if (cfg->duration_s > 0)
        fprintf(f, "as many as fit in %g s", cfg->duration_s);
    else
        fprintf(f, "auto (2 GiB of copies per thread, %d..%d)", MC_ALLOC_AUTO_MIN_OPS,
                MC_ALLOC_AUTO_MAX_OPS);
    fprintf(f, "; reps: %lld (medians); random state %lld\n", cfg->reps, cfg->random_state);
    fprintf(f, "CPUs: %d allowed, %d online; THP: %s; GLIBC_TUNABLES: %s\n", env->cpus_allowed,
            env->cpus_online, env->thp, env->glibc_tunables[0] ? env->glibc_tunables : "(unset)");
    fprintf(f, "jemalloc conf: %s%s%s%s\n", env->conf_source ? env->conf : "(none)",
            env->conf_source ? " (from " : "", env->conf_source ? env->conf_source : "",
            env->conf_source ? ")" : "");
    fprintf(f, "allocators:");
    for (int ai = 0; ai < cfg->nalloc; ai++) {
        const mc_cell_t *c = NULL;
        for (size_t i = 0; i < r->ncells && !c; i++)
            if (r->cell[i].alloc == cfg->alloc[ai] && r->cell[i].detected[0])
                c = &r->cell[i];
        const mc_allocator_t *a = mc_allocator_at((size_t)cfg->alloc[ai]);
        fprintf(f, "%s %s", ai ? "," : "", a->name);
        if (c)
            fprintf(f, " [%s%s%s]", c->detected, c->library[0] ? " via " : "", c->library);
    }
    fputc('\n', f);

    for (int ti = 0; ti < cfg->nthreads; ti++) {
        int t = cfg->threads_list[ti];
        fprintf(f, "\n== %d thread%s", t, t == 1 ? "" : "s");
        if (t > env->cpus_allowed)
            fprintf(f, " (more than the %d allowed CPUs: threads share CPUs)", env->cpus_allowed);
        fprintf(f, " ==\n");
        for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
            if (!views[v].overhead_only || cfg->overhead)
                table_text(f, r, ti, &views[v]);
    }
    fprintf(f, "verdicts (totals over each range; * marks the best cell above):\n");
    for (int ti = 0; ti < cfg->nthreads; ti++)
        for (size_t ri = 0; ri < sizeof ranges / sizeof ranges[0]; ri++)
            verdict(f, r, ti, ri);
    bool any = false;
    for (size_t i = 0; i < r->ncells; i++) {
        const mc_cell_t *c = &r->cell[i];
        if (c->state == MC_CELL_OK)
            continue;
        /* one line per allocator when every cell says the same */
        bool repeat = false;
        for (size_t k = 0; k < i && !repeat; k++)
            repeat = r->cell[k].alloc == c->alloc && r->cell[k].state == c->state &&
                     strcmp(r->cell[k].why, c->why) == 0;
        if (repeat)
            continue;
        size_t same = 0, cells = 0;
        for (size_t k = 0; k < r->ncells; k++)
            if (r->cell[k].alloc == c->alloc) {
                cells++;
                same += r->cell[k].state == c->state && strcmp(r->cell[k].why, c->why) == 0;
            }
        if (!any)
            fprintf(f, "\nnot measured:\n");
        any = true;
        char bname[32];
        const char *what = c->state == MC_CELL_SKIPPED ? "skipped" : "FAILED";
        if (same == cells && cells > 1)
            fprintf(f, "  %s %s (all %zu cells): %s\n", alloc_name(c), what, cells, c->why);
        else
            fprintf(f, "  %s %s (%d thread%s, %s): %s\n", alloc_name(c), what, c->threads,
                    plural(c->threads),
                    mc_alloc_size_name(c->block_bytes, bname, sizeof bname), c->why);
    }
    if (r->nnotes)
        fprintf(f, "\nnotes:\n");
    for (size_t i = 0; i < r->nnotes; i++)
        fprintf(f, "  %s\n", r->notes[i]);
    if (!r->complete)
        fprintf(f, "\nINCOMPLETE: interrupted; the figures above are partial\n");
    return ferror(f) ? -EIO : 0;
}

/* ---- the common result model -------------------------------------------- */

typedef struct {
    const mc_alloc_run_t *run;
    const mc_cell_t *cell;
} rec_ctx_t;

static const char *const state_names[] = { "ok", "skipped", "failed" };

static void json_numbers(mb_json_t *j, const char *key, const double *v, size_t n)
{
    mb_json_array_begin(j, key);
    for (size_t i = 0; i < n; i++)
        mb_json_number(j, NULL, v[i]);
    mb_json_array_end(j);
}

static void rec_extra(mb_json_t *j, const void *p)
{
    const rec_ctx_t *x = p;
    const mc_cell_t *c = x->cell;
    const mc_alloc_cfg_t *cfg = x->run->cfg;
    mb_json_string(j, "allocator", alloc_name(c));
    mb_json_string(j, "status", state_names[c->state]);
    if (c->state != MC_CELL_OK)
        mb_json_string(j, "why", c->why);
    if (c->detected[0])
        mb_json_string(j, "allocator_detected", c->detected);
    else
        mb_json_unavailable(j, "allocator_detected", "no child reported (skipped or failed)");
    if (c->library[0])
        mb_json_string(j, "library", c->library);
    else
        mb_json_unavailable(j, "library", c->alloc == mc_allocator_index("glibc")
                                              ? "the C library itself: nothing preloaded"
                                              : "not found");
    mb_json_int(j, "threads", c->threads);
    mb_json_uint(j, "block_bytes", c->block_bytes);
    mb_json_uint(j, "blocks_per_thread", cfg->blocks_per_thread);
    mb_json_uint(j, "ops_per_thread", c->ops);
    mb_json_bool(j, "nofree", cfg->nofree);
    mb_json_bool(j, "harness_only", cfg->harness_only);
    mb_json_int(j, "reps_done", c->nreps);
    if (c->err_note[0])
        mb_json_string(j, "child_stderr", c->err_note);
    mb_json_object_begin(j, "rss_series");
    mb_json_string(j, "source", "VmRSS of /proc/<child>/status, last repetition");
    json_numbers(j, "t_s", c->rss_t_s, c->nrss);
    json_numbers(j, "rss_kib", c->rss_kib, c->nrss);
    mb_json_object_end(j);
}

static void config_json(mb_json_t *j, const void *p)
{
    const mc_alloc_run_t *r = p;
    const mc_alloc_cfg_t *cfg = r->cfg;
    const mc_alloc_env_t *env = r->env;
    mb_json_string(j, "scenario", "alloc");
    mb_json_array_begin(j, "allocators");
    for (int ai = 0; ai < cfg->nalloc; ai++)
        mb_json_string(j, NULL, mc_allocator_at((size_t)cfg->alloc[ai])->name);
    mb_json_array_end(j);
    mc_json_ints(j, "threads", cfg->threads_list, cfg->nthreads);
    mb_json_array_begin(j, "block_bytes");
    for (int i = 0; i < cfg->nblocks; i++)
        mb_json_uint(j, NULL, cfg->block_list[i]);
    mb_json_array_end(j);
    mb_json_uint(j, "blocks_per_thread", cfg->blocks_per_thread);
    if (cfg->ops)
        mb_json_uint(j, "ops_per_thread", cfg->ops);
    else
        mb_json_unavailable(j, "ops_per_thread", cfg->duration_s > 0
                                                     ? "time-bound: see duration_s"
                                                     : "automatic per block size: see records");
    if (cfg->duration_s > 0)
        mb_json_number(j, "duration_s", cfg->duration_s);
    mb_json_bool(j, "nofree", cfg->nofree);
    mb_json_bool(j, "harness_only", cfg->harness_only);
    mb_json_bool(j, "overhead", cfg->overhead);
    mb_json_int(j, "reps", cfg->reps);
    mb_json_int(j, "random_state", cfg->random_state);
    mb_json_number(j, "rss_interval_s", cfg->rss_interval_s);
    mb_json_int(j, "cpus_allowed", env->cpus_allowed);
    mb_json_int(j, "cpus_online", env->cpus_online);
    mb_json_int(j, "cpus_configured", env->cpus_configured);
    if (env->conf_source) {
        mb_json_string(j, "jemalloc_conf", env->conf);
        mb_json_string(j, "jemalloc_conf_source", env->conf_source);
    } else {
        mb_json_unavailable(j, "jemalloc_conf", "not set (--jemalloc-conf, JEMALLOC_CONF, "
                                                "MALLOC_CONF)");
    }
    mb_json_bool(j, "jemalloc_percpu_pitfall", env->percpu_pitfall);
    if (env->percpu_pitfall)
        mb_json_string(j, "jemalloc_percpu_pitfall_why", env->pitfall);
    mb_json_string(j, "glibc_tunables", env->glibc_tunables);
    if (strncmp(env->thp, "unavailable", 11) == 0)
        mb_json_unavailable(j, "thp_enabled", env->thp);
    else
        mb_json_string(j, "thp_enabled", env->thp);
}

/* A metric of the record from a cell's samples (median, stats, samples);
 * returns it (NULL when the record is full). */
static mb_metric_t *add_metric_why(mb_record_t *rec, const mc_cell_t *c, const char *name,
                                   const char *unit, const mb_stats_t *st, const double *samples,
                                   double scale, double *store, const char *why_none)
{
    if (c->state != MC_CELL_OK)
        return mb_record_add_unavailable(rec, name, unit, c->state == MC_CELL_SKIPPED
                                                              ? "skipped: see the record's why"
                                                              : "failed: see the record's why");
    if (!isfinite(st->median) || c->nreps == 0)
        return mb_record_add_unavailable(rec, name, unit, why_none);
    mb_metric_t *m = mb_record_add(rec, name, unit, st->median * scale);
    if (!m)
        return NULL;
    if (scale == 1) {
        m->stats = st;
        m->samples = samples;
        m->nsamples = (size_t)c->nreps;
    } else if (store) {
        for (int i = 0; i < c->nreps; i++)
            store[i] = samples[i] * scale;
        m->samples = store;
        m->nsamples = (size_t)c->nreps;
    }
    return m;
}

static mb_metric_t *add_metric(mb_record_t *rec, const mc_cell_t *c, const char *name,
                               const char *unit, const mb_stats_t *st, const double *samples,
                               double scale, double *store)
{
    return add_metric_why(rec, c, name, unit, st, samples, scale, store, "not measured (no samples)");
}

int mc_alloc_render_model(const mc_alloc_run_t *r, const mb_sysinfo_t *si, int argc, char **argv,
                          mb_format_t fmt, FILE *f)
{
    const mc_alloc_cfg_t *cfg = r->cfg;
    mb_result_t *res = calloc(1, sizeof *res);
    mb_record_t *recs = calloc(r->ncells ? r->ncells : 1, sizeof *recs);
    rec_ctx_t *ctx = calloc(r->ncells ? r->ncells : 1, sizeof *ctx);
    char (*names)[96] = calloc(r->ncells ? r->ncells : 1, sizeof *names);
    double *scaled = calloc((r->ncells ? r->ncells : 1) * 4 * (size_t)cfg->reps, sizeof *scaled);
    int rc = -ENOMEM;
    if (!res || !recs || !ctx || !names || !scaled)
        goto out;
    res->tool = "mencal";
    res->label = cfg->harness_only ? "not-standard" : "standard";
    if (cfg->harness_only)
        mb_result_add_label_reason(res, "--harness-only: no allocation was measured");
    res->argc = argc;
    res->argv = argv;
    res->complete = r->complete;
    res->config = config_json;
    res->config_ctx = r;
    res->sysinfo = si;
    for (size_t i = 0; i < r->nnotes; i++)
        mb_result_warn(res, "%s", r->notes[i]);
    for (size_t i = 0; i < r->ncells; i++) {
        const mc_cell_t *c = &r->cell[i];
        mb_record_t *rec = &recs[i];
        char bname[32];
        snprintf(names[i], sizeof names[i], "%s/t%d/%s", alloc_name(c), c->threads,
                 mc_alloc_size_name(c->block_bytes, bname, sizeof bname));
        rec->name = names[i];
        rec->headline = "ops_per_s";   /* allocations and frees per second */
        ctx[i].run = r;
        ctx[i].cell = c;
        rec->extra = rec_extra;
        rec->extra_ctx = &ctx[i];
        double *s0 = scaled + i * 4 * (size_t)cfg->reps, *s1 = s0 + cfg->reps;
        double *s2 = s1 + cfg->reps, *s3 = s2 + cfg->reps;
        add_metric(rec, c, "wall_time", "s", &c->st_wall, c->wall_s, 1, NULL);
        mb_metric_better(add_metric(rec, c, "ops_per_s", "1/s", &c->st_ops, c->ops_per_s, 1, NULL),
                         MB_BETTER_HIGHER);
        add_metric(rec, c, "cpu_util", "ratio", &c->st_cpu, c->cpu_util, 1, NULL);
        add_metric(rec, c, "user_time", "s", &c->st_user, c->user_s, 1, NULL);
        add_metric(rec, c, "sys_time", "s", &c->st_sys, c->sys_s, 1, NULL);
        add_metric(rec, c, "minflt", "faults", &c->st_minflt, c->minflt, 1, NULL);
        add_metric(rec, c, "majflt", "faults", &c->st_majflt, c->majflt, 1, NULL);
        /* the same faults from a second source: the threads' own perf events */
        add_metric_why(rec, c, "minflt_perf", "faults", &c->st_perf_minflt, c->perf_minflt, 1,
                       NULL, c->perf_why[0] ? c->perf_why : "unavailable: not counted");
        if (c->state == MC_CELL_OK && isfinite(c->minflt_per_op)) {
            mb_metric_better(mb_record_add(rec, "minflt_per_op", "faults/op", c->minflt_per_op),
                             MB_BETTER_LOWER);
            mb_metric_better(mb_record_add(rec, "majflt_per_op", "faults/op", c->majflt_per_op),
                             MB_BETTER_LOWER);
        } else {
            const char *why = c->state == MC_CELL_OK ? "no steps were counted"
                                                     : "not measured: see the record's why";
            mb_record_add_unavailable(rec, "minflt_per_op", "faults/op", why);
            mb_record_add_unavailable(rec, "majflt_per_op", "faults/op", why);
        }
        add_metric(rec, c, "maxrss", "bytes", &c->st_rss, c->maxrss_kib, 1024, s0);
        add_metric(rec, c, "maxrss_wait4", "bytes", &c->st_wait4_rss, c->wait4_rss_kib, 1024, s3);
        add_metric(rec, c, "rss_end", "bytes", &c->st_rss_end, c->rss_end_kib, 1024, s1);
        add_metric_why(rec, c, "rss_peak_sampled", "bytes", &c->st_rss_peak, c->rss_peak_kib,
                       1024, s2, "the child ended before the first VmRSS sample (see "
                                 "--rss-interval)");
        add_metric_why(rec, c, "latency_p50", "ns", &c->st_p50, c->p50_ns, 1, NULL,
                       "no timed allocation (too few steps)");
        add_metric_why(rec, c, "latency_p99", "ns", &c->st_p99, c->p99_ns, 1, NULL,
                       "no timed allocation (too few steps)");
        if (cfg->overhead)
            add_metric_why(rec, c, "harness_overhead", "%", &c->st_harness, c->harness_pct, 1,
                           NULL, "no share in (0, 100] %: the harness-only pass read slower per "
                           "step than the measured step (noise at this --ops), or did not run; "
                           "use more --ops or --reps");
    }
    res->records = recs;
    res->nrecords = r->ncells;
    rc = mb_report_render(res, fmt, f);
out:
    free(res);
    free(recs);
    free(ctx);
    free(names);
    free(scaled);
    return rc;
}
