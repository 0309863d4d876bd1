/* alloc: the allocator comparison (`mencal run alloc`).
 *
 * Each thread owns `slots` blocks of `block_bytes`.  Every step picks a
 * slot at random: a full slot is freed, an empty one is allocated and
 * filled with memcpy from a source buffer.  --nofree keeps the memory of
 * a slot once allocated and only refills it, which isolates the cost of
 * first-touch page faults.
 *
 * Every allocator runs in a child process: this binary re-executed from
 * /proc/self/exe with LD_PRELOAD of the allocator's library and the
 * hidden first argument MC_ALLOC_CHILD_ARG.  The child checks with
 * mb_allocator_detect() that the allocator in effect is the one asked
 * for before it measures anything, and reports its figures on a pipe as
 * "key value" lines.  The parent samples the child's VmRSS, captures its
 * stderr (jemalloc's "<jemalloc>: Invalid conf pair" ...) and gets
 * ru_maxrss from wait4().  That figure also counts the image the child
 * had before exec (the parent's), so the max RSS reported first is the
 * child's own VmHWM, read by the child at the end of its loops.
 *
 * Harness cost (--overhead): the child runs the same steps again without
 * malloc, free and memcpy (slot choice, bookkeeping, latency timing, the
 * deadline checks); its time per step over the measured time per step.
 * The branch that picks free() or malloc() from the random slot state
 * is not in that pass: any program running this workload has it.
 *
 * Files, each with its header: libs (allocator table, library search),
 * worker (the measured threads), child (child entry and its protocol),
 * spawn (parent side of one child), options (options and their
 * validation), env (jemalloc percpu_arena pitfall, THP, GLIBC_TUNABLES),
 * render (text table, verdicts, result model), plot (the chart, drawn by memsuite-analyse),
 * alloc (this header: the run's cells, the descriptor and mc_alloc_main,
 * reached through the descriptor's cli hook). */
#ifndef MC_ALLOC_H
#define MC_ALLOC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../scenario.h"
#include "env.h"
#include "options.h"
#include "spawn.h"
#include "stats.h"

typedef enum { MC_CELL_OK = 0, MC_CELL_SKIPPED, MC_CELL_FAILED } mc_cell_state_t;

/* Medians over the repetitions of one (allocator, threads, block). */
typedef struct {
    int alloc, threads, block_i;
    size_t block_bytes;
    mc_cell_state_t state;
    char why[640];
    char library[256];
    char detected[160];
    int nreps;
    double *wall_s, *ops_per_s, *cpu_util, *user_s, *sys_s, *minflt, *majflt, *maxrss_kib,
        *wait4_rss_kib, *rss_end_kib, *p50_ns, *p99_ns, *harness_pct, *rss_peak_kib, *perf_minflt;
    mb_stats_t st_wall, st_ops, st_cpu, st_user, st_sys, st_minflt, st_majflt, st_rss, st_wait4_rss,
        st_rss_end, st_p50, st_p99, st_harness, st_rss_peak, st_perf_minflt;
    char perf_why[200];                    /* why perf_minflt is missing (first rep) */
    uint64_t ops;                          /* per thread (last rep) */
    double minflt_per_op, majflt_per_op;   /* medians of the counts / ops */
    char err_note[MC_ALLOC_ERR_CAP];       /* child stderr worth showing */
    size_t nrss;                           /* VmRSS series of the last rep */
    double *rss_t_s, *rss_kib;
} mc_cell_t;

typedef struct {
    const mc_alloc_cfg_t *cfg;
    const mc_alloc_env_t *env;
    size_t ncells;
    mc_cell_t *cell;                  /* threads x blocks x allocators, that order */
    bool complete;
    size_t nnotes;
    char notes[16][1024];
} mc_alloc_run_t;

/* cell of (thread index, block index, allocator index) */
static inline mc_cell_t *mc_alloc_cell(const mc_alloc_run_t *r, int ti, int bi, int ai)
{
    return &r->cell[((size_t)ti * (size_t)r->cfg->nblocks + (size_t)bi) * (size_t)r->cfg->nalloc +
                    (size_t)ai];
}

/* alloc.c: the whole `mencal run alloc [options]` command line (recorded
 * as the result's command); the options follow cmd->argv[cmd->first].
 * Returns the exit code. */
int mc_alloc_main(const mc_cmdline_t *cmd, const volatile sig_atomic_t *stop);

#endif
