/* alloc: the allocator comparison (see alloc.h).
 *
 * Two ways in:
 *   - mc_alloc_main(): the whole `mencal run alloc [alloc options]`
 *     command line, rendered as the comparison table, JSON
 *     (one record per allocator x threads x block) or CSV;
 *   - the descriptor's run(): `mencal run all` and runs naming several
 *     scenarios, with mencal's common options (threads, reps, --random-state) and a
 *     short profile; the cells land in the "cells" table of the result.
 * Both share alloc_execute(): find the libraries, probe each allocator
 * once, then every cell and repetition in its own child. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "alloc.h"
#include "child.h"
#include "plot.h"        /* alloc/plot.h */
#include "../plot.h"     /* mencal/plot.h: mc_plot_finish */
#include "render.h"
#include "log.h"
#include "../scenario.h"
#include "exitcodes.h"
#include "outfile.h"
#include "sysinfo.h"

enum { S_WALL, S_OPS, S_CPU, S_USER, S_SYS, S_MINFLT, S_MAJFLT, S_RSS, S_WAIT4_RSS, S_RSS_END,
       S_P50, S_P99, S_HARNESS, S_RSS_PEAK, S_MINFLT_OP, S_MAJFLT_OP, S_PERF_MINFLT, S_COUNT };

typedef struct {
    mc_alloc_run_t run;
    double *samples;             /* ncells x S_COUNT x reps */
    double *rss;                 /* ncells x 2 x MC_ALLOC_RSS_CAP */
    char libs[MC_ALLOC_MAX_ALLOCATORS][256];
    char skip[MC_ALLOC_MAX_ALLOCATORS][512];   /* "" when the allocator can run */
    char fail[MC_ALLOC_MAX_ALLOCATORS][640];   /* probe failure */
} exec_t;

__attribute__((format(printf, 2, 3))) static void run_note(mc_alloc_run_t *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_lines_add(r->notes[0], sizeof r->notes[0], sizeof r->notes / sizeof r->notes[0], &r->nnotes,
                 fmt, ap);
    va_end(ap);
}

static bool has_note(const mc_alloc_run_t *r, const char *needle)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (strstr(r->notes[i], needle))
            return true;
    return false;
}

/* jemalloc's own remarks on its configuration (the percpu_arena
 * pitfall), passed through once. */
static void note_jemalloc(mc_alloc_run_t *r, const char *err)
{
    for (const char *p = strstr(err, "<jemalloc>: "); p; p = strstr(p + 1, "<jemalloc>: ")) {
        int len = (int)strcspn(p, "\n");
        char line[300];
        snprintf(line, sizeof line, "%.*s", len, p);
        if (strncmp(line, "<jemalloc>: Invalid conf", 24) != 0 && !has_note(r, line))
            run_note(r, "jemalloc said: %s", line);
    }
}

static double *sample_row(const exec_t *x, size_t cell, int s)
{
    return x->samples + (cell * S_COUNT + (size_t)s) * (size_t)x->run.cfg->reps;
}

static void exec_free(exec_t *x)
{
    free(x->run.cell);
    free(x->samples);
    free(x->rss);
    x->run.cell = NULL;
    x->samples = x->rss = NULL;
}

static int exec_init(exec_t *x, const mc_alloc_cfg_t *cfg, const mc_alloc_env_t *env)
{
    memset(x, 0, sizeof *x);
    x->run.cfg = cfg;
    x->run.env = env;
    x->run.complete = true;
    size_t n = (size_t)cfg->nthreads * (size_t)cfg->nblocks * (size_t)cfg->nalloc;
    x->run.ncells = n;
    x->run.cell = calloc(n, sizeof *x->run.cell);
    x->samples = calloc(n * S_COUNT * (size_t)cfg->reps, sizeof *x->samples);
    x->rss = calloc(n * 2 * MC_ALLOC_RSS_CAP, sizeof *x->rss);
    if (!x->run.cell || !x->samples || !x->rss) {
        exec_free(x);
        return -ENOMEM;
    }
    for (int ti = 0; ti < cfg->nthreads; ti++)
        for (int bi = 0; bi < cfg->nblocks; bi++)
            for (int ai = 0; ai < cfg->nalloc; ai++) {
                mc_cell_t *c = mc_alloc_cell(&x->run, ti, bi, ai);
                size_t k = (size_t)(c - x->run.cell);
                c->alloc = cfg->alloc[ai];
                c->threads = cfg->threads_list[ti];
                c->block_i = bi;
                c->block_bytes = cfg->block_list[bi];
                c->wall_s = sample_row(x, k, S_WALL);
                c->ops_per_s = sample_row(x, k, S_OPS);
                c->cpu_util = sample_row(x, k, S_CPU);
                c->user_s = sample_row(x, k, S_USER);
                c->sys_s = sample_row(x, k, S_SYS);
                c->rss_end_kib = sample_row(x, k, S_RSS_END);
                c->minflt = sample_row(x, k, S_MINFLT);
                c->majflt = sample_row(x, k, S_MAJFLT);
                c->maxrss_kib = sample_row(x, k, S_RSS);
                c->wait4_rss_kib = sample_row(x, k, S_WAIT4_RSS);
                c->p50_ns = sample_row(x, k, S_P50);
                c->p99_ns = sample_row(x, k, S_P99);
                c->harness_pct = sample_row(x, k, S_HARNESS);
                c->rss_peak_kib = sample_row(x, k, S_RSS_PEAK);
                c->perf_minflt = sample_row(x, k, S_PERF_MINFLT);
                c->rss_t_s = x->rss + k * 2 * MC_ALLOC_RSS_CAP;
                c->rss_kib = c->rss_t_s + MC_ALLOC_RSS_CAP;
            }
    return 0;
}

/* Library search and one probe child per allocator: the preload takes,
 * the allocator is the one named, jemalloc accepts its configuration. */
static void exec_probe(exec_t *x, const volatile sig_atomic_t *stop)
{
    const mc_alloc_cfg_t *cfg = x->run.cfg;
    const mc_alloc_env_t *env = x->run.env;
    for (int ai = 0; ai < cfg->nalloc; ai++) {
        const mc_allocator_t *a = mc_allocator_at((size_t)cfg->alloc[ai]);
        if (mc_allocator_locate(a, x->libs[ai], sizeof x->libs[ai], x->skip[ai],
                                sizeof x->skip[ai]) != 0) {
            mb_warn("alloc: %s skipped: %s", a->name, x->skip[ai]);
            continue;
        }
        bool je = strcmp(a->name, "jemalloc") == 0;
        mc_alloc_spawn_t s = {
            .expect = a->name, .preload = x->libs[ai], .probe = true,
            .jemalloc_conf = je && env->conf_source ? env->conf : NULL,
            .work = { .threads = 1, .block_bytes = 4096, .slots = 1, .ops = 1, .random_state = 1 },
            .rss_interval_s = 1,
        };
        mc_child_t *ch = calloc(1, sizeof *ch);
        char why[512];
        if (!ch) {
            snprintf(x->fail[ai], sizeof x->fail[ai], "out of memory for the probe");
            continue;
        }
        if (mc_alloc_spawn(&s, stop, ch, why, sizeof why) != 0)
            snprintf(x->fail[ai], sizeof x->fail[ai], "%s", why);
        else if (ch->state != MC_CHILD_OK)
            snprintf(x->fail[ai], sizeof x->fail[ai], "%s", ch->why);
        if (x->fail[ai][0])
            mb_error("alloc: %s: %s", a->name, x->fail[ai]);
        note_jemalloc(&x->run, ch->err);
        free(ch);
    }
}

/* Stats over the finite samples (a repetition may lack one figure, e.g.
 * no VmRSS sample in a short child). */
static void cell_stats(const double *v, int n, mb_stats_t *st)
{
    double finite[MC_ALLOC_MAX_REPS];
    size_t k = 0;
    for (int i = 0; i < n && i < MC_ALLOC_MAX_REPS; i++)
        if (isfinite(v[i]))
            finite[k++] = v[i];
    if (k == 0 || mb_stats_compute(finite, k, 0, st) != 0) {
        memset(st, 0, sizeof *st);
        st->median = st->min = st->max = st->mean = NAN;
    }
}

static void cell_finish(exec_t *x, mc_cell_t *c)
{
    size_t k = (size_t)(c - x->run.cell);
    int n = c->nreps;
    cell_stats(c->wall_s, n, &c->st_wall);
    cell_stats(c->ops_per_s, n, &c->st_ops);
    cell_stats(c->cpu_util, n, &c->st_cpu);
    cell_stats(c->user_s, n, &c->st_user);
    cell_stats(c->sys_s, n, &c->st_sys);
    cell_stats(c->rss_end_kib, n, &c->st_rss_end);
    cell_stats(c->minflt, n, &c->st_minflt);
    cell_stats(c->majflt, n, &c->st_majflt);
    cell_stats(c->maxrss_kib, n, &c->st_rss);
    cell_stats(c->wait4_rss_kib, n, &c->st_wait4_rss);
    cell_stats(c->p50_ns, n, &c->st_p50);
    cell_stats(c->p99_ns, n, &c->st_p99);
    cell_stats(c->harness_pct, n, &c->st_harness);
    cell_stats(c->rss_peak_kib, n, &c->st_rss_peak);
    cell_stats(c->perf_minflt, n, &c->st_perf_minflt);
    c->minflt_per_op = n ? mb_median(sample_row(x, k, S_MINFLT_OP), (size_t)n) : NAN;
    c->majflt_per_op = n ? mb_median(sample_row(x, k, S_MAJFLT_OP), (size_t)n) : NAN;
}

/* One repetition of one cell. */
static void exec_rep(exec_t *x, mc_cell_t *c, int ai, const volatile sig_atomic_t *stop)
{
    const mc_alloc_cfg_t *cfg = x->run.cfg;
    const mc_allocator_t *a = mc_allocator_at((size_t)c->alloc);
    size_t k = (size_t)(c - x->run.cell);
    mc_alloc_spawn_t s = {
        .expect = a->name, .preload = x->libs[ai],
        .jemalloc_conf = strcmp(a->name, "jemalloc") == 0 && x->run.env->conf_source
                             ? x->run.env->conf : NULL,
        .overhead = cfg->overhead,
        .work = { .threads = c->threads, .block_bytes = c->block_bytes,
                  .slots = cfg->blocks_per_thread, .ops = mc_alloc_ops_for(cfg, c->block_bytes),
                  .duration_s = cfg->duration_s, .nofree = cfg->nofree,
                  .harness_only = cfg->harness_only, .random_state = (uint64_t)cfg->random_state },
        .rss_interval_s = cfg->rss_interval_s,
    };
    mc_child_t *ch = calloc(1, sizeof *ch);
    char why[512];
    if (!ch) {
        c->state = MC_CELL_FAILED;
        snprintf(c->why, sizeof c->why, "out of memory in the parent");
        return;
    }
    if (mc_alloc_spawn(&s, stop, ch, why, sizeof why) != 0) {
        c->state = MC_CELL_FAILED;
        snprintf(c->why, sizeof c->why, "%s", why);
    } else if (ch->state != MC_CHILD_OK) {
        c->state = MC_CELL_FAILED;
        if (stop && *stop)
            x->run.complete = false;
        snprintf(c->why, sizeof c->why, "repetition %d: %s", c->nreps + 1, ch->why);
        snprintf(c->err_note, sizeof c->err_note, "%s", ch->err);
    } else {
        const mc_alloc_meas_t *m = &ch->m;
        int r = c->nreps++;
        double ops = (double)m->ops;
        c->wall_s[r] = m->wall_s;
        c->ops_per_s[r] = m->wall_s > 0 ? ops / m->wall_s : NAN;
        /* (user+sys)/(wall x threads), user+sys from the threads' own CPU
         * clocks over exactly the measured span (rusage ticks are too
         * coarse for short cells) */
        c->cpu_util[r] = m->wall_s > 0 ? m->cpu_s / (m->wall_s * c->threads) : NAN;
        c->user_s[r] = m->user_s;
        c->sys_s[r] = m->sys_s;
        c->rss_end_kib[r] = m->rss_end_kib >= 0 ? (double)m->rss_end_kib : NAN;
        c->minflt[r] = (double)m->minflt;
        c->majflt[r] = (double)m->majflt;
        c->perf_minflt[r] = m->perf_minflt >= 0 ? (double)m->perf_minflt : NAN;
        if (m->perf_minflt < 0 && !c->perf_why[0])
            snprintf(c->perf_why, sizeof c->perf_why, "%s", m->perf_why);
        /* the peak of the child's own image: wait4's ru_maxrss also counts
         * the image the child had before exec, i.e. the parent's */
        c->maxrss_kib[r] = m->hwm_kib >= 0 ? (double)m->hwm_kib : NAN;
        c->wait4_rss_kib[r] = (double)ch->maxrss_kib;
        c->p50_ns[r] = m->lat_p50_ns;
        c->p99_ns[r] = m->lat_p99_ns;
        c->rss_peak_kib[r] = ch->rss_peak_kib;
        sample_row(x, k, S_MINFLT_OP)[r] = ops > 0 ? (double)m->minflt / ops : NAN;
        sample_row(x, k, S_MAJFLT_OP)[r] = ops > 0 ? (double)m->majflt / ops : NAN;
        /* harness share of the time per step: same steps, no malloc/memcpy.
         * A share outside (0, 100] % is no share (the harness alone read
         * slower per step than the step it is part of: noise on a short
         * run) and is left out, never reported. */
        double pct = ch->has_harness && ch->harness.ops && m->ops && m->wall_s > 0
                         ? 100.0 * (ch->harness.wall_s / (double)ch->harness.ops) /
                               (m->wall_s / ops)
                         : NAN;
        c->harness_pct[r] = pct > 0 && pct <= 100 ? pct : NAN;
        c->ops = m->ops / (uint64_t)c->threads;
        snprintf(c->detected, sizeof c->detected, "%s", ch->detected_full);
        c->nrss = ch->nrss;
        memcpy(c->rss_t_s, ch->rss_t_s, ch->nrss * sizeof *c->rss_t_s);
        memcpy(c->rss_kib, ch->rss_kib, ch->nrss * sizeof *c->rss_kib);
        snprintf(c->err_note, sizeof c->err_note, "%s", ch->err);
        note_jemalloc(&x->run, ch->err);
    }
    free(ch);
}

/* The matrix: for each thread count and block, the repetitions, each
 * going through every allocator in turn so drift spreads evenly. */
static void exec_matrix(exec_t *x, const volatile sig_atomic_t *stop, bool progress)
{
    const mc_alloc_cfg_t *cfg = x->run.cfg;
    for (int ti = 0; ti < cfg->nthreads; ti++)
        for (int bi = 0; bi < cfg->nblocks; bi++) {
            char bname[32];
            mc_alloc_size_name(cfg->block_list[bi], bname, sizeof bname);
            if (progress)
                mb_note("alloc: %d threads, %s blocks (%d/%d)", cfg->threads_list[ti], bname,
                        ti * cfg->nblocks + bi + 1, cfg->nthreads * cfg->nblocks);
            for (int rep = 0; rep < cfg->reps; rep++)
                for (int ai = 0; ai < cfg->nalloc; ai++) {
                    mc_cell_t *c = mc_alloc_cell(&x->run, ti, bi, ai);
                    snprintf(c->library, sizeof c->library, "%s", x->libs[ai]);
                    if (x->skip[ai][0]) {
                        c->state = MC_CELL_SKIPPED;
                        snprintf(c->why, sizeof c->why, "%s", x->skip[ai]);
                        continue;
                    }
                    if (x->fail[ai][0]) {
                        c->state = MC_CELL_FAILED;
                        snprintf(c->why, sizeof c->why, "%s", x->fail[ai]);
                        continue;
                    }
                    if (c->state != MC_CELL_OK)
                        continue;   /* failed on an earlier repetition */
                    if (stop && *stop) {
                        x->run.complete = false;
                        if (c->nreps == 0) {
                            c->state = MC_CELL_FAILED;
                            snprintf(c->why, sizeof c->why, "interrupted before it ran");
                        }
                        continue;
                    }
                    exec_rep(x, c, ai, stop);
                    if (c->state == MC_CELL_FAILED)
                        mb_error("alloc: %s, %d threads, %s blocks: %s",
                                 mc_allocator_at((size_t)c->alloc)->name, c->threads, bname,
                                 c->why);
                }
        }
    for (size_t i = 0; i < x->run.ncells; i++)
        cell_finish(x, &x->run.cell[i]);
}

static bool runs_jemalloc(const mc_alloc_cfg_t *cfg)
{
    for (int ai = 0; ai < cfg->nalloc; ai++)
        if (cfg->alloc[ai] == mc_allocator_index("jemalloc"))
            return true;
    return false;
}

static void exec_notes(exec_t *x)
{
    const mc_alloc_cfg_t *cfg = x->run.cfg;
    const mc_alloc_env_t *env = x->run.env;
    for (int ti = 0; ti < cfg->nthreads; ti++)
        if (cfg->threads_list[ti] > env->cpus_allowed)
            run_note(&x->run, "%d threads on %d allowed CPUs: threads share CPUs, so CPU "
                     "utilisation is at most %.0f%% and the times include waiting for a CPU",
                     cfg->threads_list[ti], env->cpus_allowed,
                     100.0 * env->cpus_allowed / cfg->threads_list[ti]);
    if (env->percpu_pitfall && runs_jemalloc(cfg))
        run_note(&x->run, "%s", env->pitfall);
    if (env->ld_preload[0])
        run_note(&x->run, "LD_PRELOAD=%s is not passed to the children; each gets only its "
                 "allocator", env->ld_preload);
    if (mc_alloc_asan_build())
        run_note(&x->run, "AddressSanitizer build: the glibc column measures ASan's allocator");
    if (cfg->harness_only)
        run_note(&x->run, "--harness-only: no malloc, free or memcpy was done; the figures are "
                 "the harness's own cost");
}

static int exec_all(exec_t *x, const volatile sig_atomic_t *stop, bool progress)
{
    exec_notes(x);
    exec_probe(x, stop);
    exec_matrix(x, stop, progress);
    int failed = 0, ok = 0;
    for (size_t i = 0; i < x->run.ncells; i++) {
        failed += x->run.cell[i].state == MC_CELL_FAILED;
        ok += x->run.cell[i].state == MC_CELL_OK;
    }
    if (!x->run.complete)
        return MB_EXIT_FAIL;
    return failed || !ok ? MB_EXIT_FAIL : MB_EXIT_OK;
}

/* ---- mencal run alloc [options] ---------------------------------------- */

int mc_alloc_main(const mc_cmdline_t *cmd, const volatile sig_atomic_t *stop)
{
    mc_alloc_cfg_t cfg;
    mc_alloc_defaults(&cfg);
    char msg[1536];
    /* the options follow "mencal run alloc" */
    int rc = mc_alloc_parse(&cfg, cmd->argc - cmd->first, cmd->argv + cmd->first, msg, sizeof msg);
    if (rc) {
        mb_error("run alloc: %s%s", msg, rc == 2 ? "; see 'mencal run alloc --help'" : "");
        return rc;
    }
    if (cfg.help) {
        mc_alloc_help(stdout);
        return 0;
    }
    if (cfg.quiet)
        mb_log_quiet(1);
    mc_alloc_env_t env;
    mc_alloc_env_collect(&env, &cfg);
    if (env.percpu_pitfall && runs_jemalloc(&cfg))
        mb_warn("alloc: %s", env.pitfall);

    /* Both output files are opened now: an unwritable path fails before
     * anything is measured. */
    mb_out_t out, plot = { 0 };
    if (mb_out_open(&out, cfg.output, msg, sizeof msg) != 0) {
        mb_error("run alloc: %s", msg);
        return MB_EXIT_RESOURCE;
    }
    if (cfg.plot && mb_out_open_as(&plot, cfg.plot, "--plot file", msg, sizeof msg) != 0) {
        mb_out_abort(&out);
        mb_error("run alloc: %s", msg);
        return MB_EXIT_RESOURCE;
    }
    exec_t *x = calloc(1, sizeof *x);
    if (!x || exec_init(x, &cfg, &env) != 0) {
        free(x);
        mb_out_abort(&out);
        mb_out_abort(&plot);
        mb_error("run alloc: out of memory for %d x %d x %d cells", cfg.nthreads, cfg.nblocks,
                 cfg.nalloc);
        return MB_EXIT_RESOURCE;
    }
    int code = exec_all(x, stop, !cfg.quiet);

    if (cfg.plot) {   /* not drawn: a note; drawn and not written: the run fails */
        char why[512], wwhy[512];
        FILE *img;
        int drc = mc_alloc_plot(&x->run, &img, why, sizeof why);
        mc_plot_outcome_t outcome = mc_plot_finish(drc, img, &plot, wwhy, sizeof wwhy);
        if (outcome == MC_PLOT_NOT_DRAWN) {
            mb_warn("alloc: --plot %s: chart not drawn: %s", cfg.plot, why);
            run_note(&x->run, "--plot %s: chart not drawn: %s", cfg.plot, why);
        } else if (outcome == MC_PLOT_LOST) {
            mb_error("run alloc: --plot %s: the chart was drawn but not written: %s", cfg.plot,
                     wwhy);
            run_note(&x->run, "--plot %s: the chart was drawn but not written: %s", cfg.plot,
                     wwhy);
            code = MB_EXIT_RESOURCE;
        }
    }
    if (cfg.fmt == MB_FMT_TEXT) {
        rc = mc_alloc_render_text(&x->run, out.f);
    } else {
        mb_sysinfo_t *si = calloc(1, sizeof *si);
        if (si)
            mb_sysinfo_collect(si);
        rc = mc_alloc_render_model(&x->run, si, cmd->argc, cmd->argv, cfg.fmt, out.f);
        free(si);
    }
    if (rc) {
        mb_error("run alloc: writing the result failed: %s", strerror(rc < 0 ? -rc : rc));
        mb_out_abort(&out);
        code = MB_EXIT_RESOURCE;
    } else if (mb_out_commit(&out, msg, sizeof msg) != 0) {
        mb_error("run alloc: %s", msg);
        code = MB_EXIT_RESOURCE;
    }
    if (!x->run.complete)
        mb_warn("interrupted: the result holds what was measured so far (complete: false)");
    exec_free(x);
    free(x);
    return code;
}

/* ---- the descriptor: run all / several scenarios ------------------------ */

/* The short profile: four block sizes, 256 MiB of copies per thread,
 * at most 3 repetitions (a second or two per repetition on 2 cores). */
#define SHORT_BLOCKS_N 4
static const size_t short_blocks[SHORT_BLOCKS_N] = { 4096, 64 << 10, 1 << 20, 16 << 20 };
#define SHORT_AUTO_BYTES (256ULL << 20)
#define SHORT_MIN_OPS 64
#define SHORT_MAX_REPS 3

static const mc_col_t cell_cols[] = {
    { "allocator", "", true }, { "threads", "", false }, { "block", "bytes", false },
    { "status", "", true }, { "wall", "s", false }, { "ops_per_s", "1/s", false },
    { "cpu_util", "", false }, { "minflt", "", false }, { "maxrss", "KiB", false },
    { "p99_latency", "ns", false },
};

static int alloc_supported(const mc_config_t *cfg, char *why, size_t whylen)
{
    (void)cfg;
    if (access("/proc/self/exe", X_OK) != 0) {
        snprintf(why, whylen, "/proc/self/exe is not available to re-execute the children "
                 "(no /proc?)");
        return MB_EXIT_RESOURCE;
    }
    if (whylen)
        why[0] = '\0';
    return 0;
}

static int alloc_run(const mc_config_t *mcfg, const void *conf, mc_result_t *res)
{
    (void)conf;
    mc_alloc_cfg_t cfg;
    mc_alloc_defaults(&cfg);
    char msg[1024];
    /* the short profile: every allocator, the configured threads, four
     * block sizes, the automatic step counts */
    char *args[] = { "alloc", NULL };
    int rc = mc_alloc_parse(&cfg, 1, args, msg, sizeof msg);
    if (rc)
        return mc_result_fail(res, rc, "%s", msg);
    cfg.threads_list[0] = mcfg->nthreads;
    cfg.nthreads = 1;
    cfg.nblocks = SHORT_BLOCKS_N;
    memcpy(cfg.block_list, short_blocks, sizeof short_blocks);
    cfg.reps = mcfg->reps < SHORT_MAX_REPS ? mcfg->reps : SHORT_MAX_REPS;
    cfg.auto_bytes = SHORT_AUTO_BYTES;
    cfg.auto_min_ops = SHORT_MIN_OPS;
    cfg.random_state = (long long)mcfg->random_state;
    mc_alloc_env_t env;
    mc_alloc_env_collect(&env, &cfg);
    exec_t *x = calloc(1, sizeof *x);
    if (!x || exec_init(x, &cfg, &env) != 0) {
        free(x);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the alloc cells");
    }
    int code = exec_all(x, mcfg->stop, false);
    res->complete = x->run.complete;
    mc_result_note(res, "short profile: blocks 4K, 64K, 1M, 16M, 256 MiB of copies per "
                        "thread, %d repetition(s); 'mencal run alloc --help' for the full "
                        "comparison", (int)cfg.reps);
    mc_table_t *t = mc_table_new(res, "cells", cell_cols,
                                 (int)(sizeof cell_cols / sizeof cell_cols[0]));
    double best = INFINITY;
    const char *best_name = NULL;
    for (size_t i = 0; i < x->run.ncells; i++) {
        const mc_cell_t *c = &x->run.cell[i];
        const char *name = mc_allocator_at((size_t)c->alloc)->name;
        long row = mc_table_row(t);
        static const char *const state_names[] = { "ok", "skipped", "failed" };
        mc_table_str(t, row, 0, name);
        mc_table_num(t, row, 1, c->threads);
        mc_table_num(t, row, 2, (double)c->block_bytes);
        mc_table_str(t, row, 3, state_names[c->state]);
        mc_table_num(t, row, 4, c->st_wall.median);
        mc_table_num(t, row, 5, c->st_ops.median);
        mc_table_num(t, row, 6, c->st_cpu.median);
        mc_table_num(t, row, 7, c->st_minflt.median);
        mc_table_num(t, row, 8, c->st_rss.median);
        mc_table_num(t, row, 9, c->st_p99.median);
        if (c->state != MC_CELL_OK)
            mc_result_note(res, "%s, %zu-byte blocks: %s: %.180s", name, c->block_bytes,
                           c->state == MC_CELL_SKIPPED ? "skipped" : "failed", c->why);
    }
    /* per allocator: total time over the blocks it completed */
    for (int ai = 0; ai < cfg.nalloc; ai++) {
        double sum = 0, flt = 0;
        int n = 0;
        for (int bi = 0; bi < cfg.nblocks; bi++) {
            const mc_cell_t *c = mc_alloc_cell(&x->run, 0, bi, ai);
            if (c->state == MC_CELL_OK && isfinite(c->st_wall.median)) {
                sum += c->st_wall.median;
                flt += c->st_minflt.median;
                n++;
            }
        }
        const char *name = mc_allocator_at((size_t)cfg.alloc[ai])->name;
        char key[64], why[160];
        snprintf(key, sizeof key, "%s.total_time", name);
        if (n == cfg.nblocks) {
            mc_metric(res, mc_result_keep(res, key), "s", sum);
            snprintf(key, sizeof key, "%s.total_minflt", name);
            mc_metric(res, mc_result_keep(res, key), "faults", flt);
            if (sum < best)
                best = sum, best_name = name;
        } else {
            snprintf(why, sizeof why, "%s did not complete every block size (see notes)", name);
            mc_metric_na(res, mc_result_keep(res, key), "s", mc_result_keep(res, why));
        }
    }
    for (size_t i = 0; i < x->run.nnotes; i++)
        mc_result_note(res, "%s", x->run.notes[i]);
    if (best_name)
        mc_result_note(res, "fastest over the short profile: %s", best_name);
    exec_free(x);
    free(x);
    if (code && !res->status)
        return mc_result_fail(res, MB_EXIT_FAIL, "some allocator cells failed (see notes)");
    return 0;
}

const mc_scenario_t mc_sc_alloc = {
    .name = "alloc",
    .summary = "allocator comparison, glibc/jemalloc/tcmalloc/mimalloc (wall time, faults, RSS, latency)",
    .supported = alloc_supported,
    .run = alloc_run,
    .cli = mc_alloc_main,
};
