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
 * Files: libs.c (allocator table, library search), worker.c
 * (the measured threads), child.c (child entry and its protocol),
 * spawn.c (parent side of one child), opts.c (options and
 * their validation), env.c (jemalloc percpu_arena pitfall, THP,
 * GLIBC_TUNABLES), render.c (text table, verdicts, result model),
 * plot.c (gnuplot chart), alloc.c (the run, the descriptor and
 * mc_alloc_main, reached through the descriptor's cli hook). */
#ifndef MC_ALLOC_H
#define MC_ALLOC_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../scenario.h"
#include "outfile.h"
#include "report.h"

#define MC_ALLOC_CHILD_ARG "__mencal-alloc-child"  /* argv[1] of a child */
#define MC_ALLOC_MAX_ALLOCATORS 4
#define MC_ALLOC_MAX_LIST 16          /* entries of --threads / --block-sizes */
#define MC_ALLOC_MAX_THREADS 1024
#define MC_ALLOC_MAX_REPS 100
#define MC_ALLOC_LAT_CAP 4096         /* latency samples kept per thread */
#define MC_ALLOC_LAT_EVERY_BYTES (1u << 20)  /* one timed step per 2 x (this / block) steps */
#define MC_ALLOC_LAT_MAX_PERIOD 4096           /* ... but at least one per this many steps */
#define MC_ALLOC_RSS_CAP 512          /* VmRSS samples kept per child */
#define MC_ALLOC_ERR_CAP 2048         /* child stderr kept, bytes */
#define MC_ALLOC_LIBDIR_ENV "MEMSUITE_ALLOC_LIBDIR"

/* ---- libs.c: the allocators -------------------------------------- */

typedef struct {
    const char *name;               /* as mb_allocator_detect() names it */
    const char *const *sonames;     /* search order; NULL: the C library itself */
    const char *package;            /* Debian package that provides it */
} mc_allocator_t;

size_t mc_allocator_count(void);
const mc_allocator_t *mc_allocator_at(size_t i);
/* Index of the allocator called `name`, or -1. */
int mc_allocator_index(const char *name);
/* "glibc, jemalloc, tcmalloc, mimalloc" */
const char *mc_allocator_names(char *buf, size_t buflen);
/* The library to preload.  Searches the directories of $MEMSUITE_ALLOC_LIBDIR
 * (colon-separated) only, when set; otherwise `ldconfig -p`, then the usual
 * library directories.  A file whose ELF class or machine differs from
 * this binary's is passed over.  0 with path (glibc: path ""), or -ENOENT
 * with why naming what was searched and the package to install. */
int mc_allocator_locate(const mc_allocator_t *a, char *path, size_t pathlen, char *why,
                        size_t whylen);
/* Built with AddressSanitizer: no allocator can be preloaded (locate()
 * answers -ENOTSUP) and the glibc column measures ASan's malloc. */
bool mc_alloc_asan_build(void);

/* ---- worker.c: the measured threads (runs in the child) ---------- */

typedef struct {
    int threads;
    size_t block_bytes;
    size_t slots;                   /* blocks per thread */
    uint64_t ops;                   /* steps per thread; 0: run for duration_s */
    double duration_s;
    bool nofree;
    bool harness_only;              /* RNG, bookkeeping and timing, no malloc/memcpy */
    uint64_t seed;                  /* thread t uses stream t of this seed */
} mc_alloc_work_t;

typedef struct {
    double wall_s;                  /* barrier release to the last thread's end */
    double user_s, sys_s;           /* getrusage(RUSAGE_SELF) over the same span */
    double cpu_s;                   /* sum of the threads' CPU clocks over their loops */
    long rss_end_kib;               /* VmRSS at the end of the loops (blocks still held), -1 */
    long hwm_kib;                   /* VmHWM then: the peak RSS of this image since exec, -1 */
    long minflt, majflt;
    uint64_t ops, allocs, frees;    /* all threads */
    size_t nlat;                    /* latency samples merged */
    double lat_p50_ns, lat_p99_ns;  /* allocate + memcpy, NaN without samples */
} mc_alloc_meas_t;

/* Runs the threads once.  0, or -errno with why (ENOMEM: an allocation
 * failed; EAGAIN: a thread could not be created). */
int mc_alloc_work_run(const mc_alloc_work_t *w, mc_alloc_meas_t *m, char *why, size_t whylen);
/* Nearest-rank percentile (p in (0,1]) of v[0..n), sorted in place. */
double mc_alloc_percentile(uint32_t *v, size_t n, double p);

/* ---- child.c: the child process ----------------------------------- */

/* Entry of a child (argv[1] == MC_ALLOC_CHILD_ARG): verifies the allocator,
 * runs the work (twice with --overhead: real, then harness only) and
 * writes "key value" lines on --result-fd.  Returns the exit status.
 * Called from a constructor in child.c, before main(). */
int mc_alloc_child_main(int argc, char **argv);

/* ---- spawn.c: the parent side of one child ------------------------ */

typedef struct {
    const char *expect;             /* allocator name the child must detect */
    const char *preload;            /* library path; "" or NULL: no preload */
    const char *jemalloc_conf;      /* NULL: leave MALLOC_CONF/JEMALLOC_CONF alone */
    bool probe;                     /* verify and exit: no work */
    bool overhead;                  /* also run the harness-only pass */
    mc_alloc_work_t work;
    double rss_interval_s;          /* VmRSS sampling period */
} mc_alloc_spawn_t;

typedef enum { MC_CHILD_OK = 0, MC_CHILD_FAILED } mc_child_state_t;

typedef struct {
    mc_child_state_t state;
    char why[512];                  /* failure: what went wrong, in words */
    char detected[16];              /* allocator short name the child found */
    char detected_full[160];        /* "jemalloc 5.3.0-0-g54eaed1d..." */
    mc_alloc_meas_t m;
    bool has_harness;
    mc_alloc_meas_t harness;        /* --overhead: the harness-only pass */
    long maxrss_kib;                /* wait4 ru_maxrss: includes the parent's image (below) */
    long child_minflt, child_majflt;/* whole child, wait4 */
    int exit_status;                /* -1: killed */
    int signal;                     /* 0: not killed */
    char err[MC_ALLOC_ERR_CAP];     /* the child's stderr (truncated) */
    size_t nrss;
    double rss_t_s[MC_ALLOC_RSS_CAP];
    double rss_kib[MC_ALLOC_RSS_CAP];
    double rss_peak_kib;            /* largest VmRSS sampled, NaN when none */
} mc_child_t;

/* Starts the child, samples its VmRSS until it ends, collects its result.
 * Returns 0 when a child ran (out->state says whether it succeeded), or
 * -errno when it could not be started (why filled).  stop: the run's
 * signal flag; when it goes up the child is sent SIGTERM. */
int mc_alloc_spawn(const mc_alloc_spawn_t *s, const volatile sig_atomic_t *stop, mc_child_t *out,
                   char *why, size_t whylen);
/* Lines of the child's stderr that jemalloc wrote about a bad option
 * ("<jemalloc>: Invalid conf ..."), joined by "; ", or NULL. */
const char *mc_alloc_conf_error(const char *err, char *buf, size_t buflen);

/* ---- opts.c: options ---------------------------------------------- */

typedef struct {
    /* raw, from the option table */
    const char *allocators, *threads, *block_sizes, *jemalloc_conf;
    const char *format, *output, *plot;
    size_t blocks_per_thread, ops;
    double duration_s, rss_interval_s;
    long long reps, seed;
    bool nofree, harness_only, overhead, quiet, help;
    /* resolved */
    int nalloc;
    int alloc[MC_ALLOC_MAX_ALLOCATORS];       /* indexes into the allocator table */
    int nthreads;
    int threads_list[MC_ALLOC_MAX_LIST];
    int nblocks;
    size_t block_list[MC_ALLOC_MAX_LIST];     /* ascending order as given */
    bool ops_auto;                            /* neither --ops nor --duration */
    uint64_t auto_bytes, auto_min_ops;        /* the automatic step budget */
    mb_format_t fmt;
    int cpus_allowed, cpus_online;
} mc_alloc_cfg_t;

void mc_alloc_defaults(mc_alloc_cfg_t *c);
/* Parses argv[1..argc) (argv[0] is the scenario name) and validates
 * everything, including that the largest blocks fit in memory.  0, 2
 * (usage; msg) or 3 (does not fit; msg shows the arithmetic).
 * Help: mc_alloc_help(). */
int mc_alloc_parse(mc_alloc_cfg_t *c, int argc, char **argv, char *msg, size_t msglen);
void mc_alloc_help(FILE *f);
/* Steps per thread for a block size: --ops, or the automatic budget
 * (auto_bytes of copies per thread, auto_min_ops..MC_ALLOC_AUTO_MAX_OPS
 * steps), or 0 with --duration. */
uint64_t mc_alloc_ops_for(const mc_alloc_cfg_t *c, size_t block_bytes);
#define MC_ALLOC_AUTO_BYTES (2ULL << 30)
#define MC_ALLOC_AUTO_MIN_OPS 400
#define MC_ALLOC_AUTO_MAX_OPS 4000000
/* "4K", "256K", "32M" (exact binary units when they divide, else bytes). */
const char *mc_alloc_size_name(size_t bytes, char *buf, size_t buflen);

/* ---- env.c: the environment that changes the figures -------------- */

typedef struct {
    int cpus_allowed, cpus_online, cpus_configured;
    char conf[512];                 /* jemalloc configuration in effect for the run */
    const char *conf_source;        /* "--jemalloc-conf", "JEMALLOC_CONF", "MALLOC_CONF", NULL */
    bool percpu_requested;          /* conf asks for percpu_arena:percpu|phycpu */
    bool percpu_pitfall;            /* ... and jemalloc will disable it here */
    char pitfall[1024];             /* the reason and the fix, in words */
    char glibc_tunables[512];       /* "" when unset */
    char thp[128];                  /* "madvise" or "unavailable: why" */
    char ld_preload[256];           /* the user's LD_PRELOAD (dropped in the children) */
} mc_alloc_env_t;

/* Reads the CPU counts, the jemalloc configuration and the facts above;
 * detects the percpu_arena pitfall. */
void mc_alloc_env_collect(mc_alloc_env_t *e, const mc_alloc_cfg_t *c);

/* ---- alloc.c / render.c: results ------------------------------ */

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
        *wait4_rss_kib, *rss_end_kib, *p50_ns, *p99_ns, *harness_pct, *rss_peak_kib;
    mb_stats_t st_wall, st_ops, st_cpu, st_user, st_sys, st_minflt, st_majflt, st_rss, st_wait4_rss,
        st_rss_end, st_p50, st_p99, st_harness, st_rss_peak;
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

/* Seed-style text: one block per thread count, a column per allocator, a
 * row per block size for each metric, the best cell marked '*', then the
 * verdicts, skips, failures and notes. */
int mc_alloc_render_text(const mc_alloc_run_t *r, FILE *f);
/* JSON / CSV through the common result model: one record per cell. */
int mc_alloc_render_model(const mc_alloc_run_t *r, const mb_sysinfo_t *si, int argc, char **argv,
                          mb_format_t fmt, FILE *f);
/* gnuplot chart of time and minor faults against block size, written by
 * gnuplot straight into png (opened by the caller with mb_out_open_as();
 * the caller commits or aborts it).  0, or -errno with why (gnuplot
 * missing: -ENOENT). */
int mc_alloc_plot(const mc_alloc_run_t *r, mb_out_t *png, char *why, size_t whylen);

/* alloc.c: the whole `mencal run alloc [options]` command line (recorded
 * as the result's command); the options follow cmd->argv[cmd->first].
 * Returns the exit code. */
int mc_alloc_main(const mc_cmdline_t *cmd, const volatile sig_atomic_t *stop);

#endif
