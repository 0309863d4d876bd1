/* mencal: memory compute efficiency.  Shared types of the tool.
 *
 * Pipeline (main.c): parse options -> resolve the configuration (size,
 * threads, CPUs, caches) -> for each requested scenario: supported()?
 * run() fills an mc_result_t -> render (text, JSON or CSV).  Scenarios
 * measure and fill results; they never print.
 *
 * A scenario is one file, mencal/sc-<name>.c, ending with a descriptor
 * `const mc_scenario_t mc_sc_<name>`, registered by one line in
 * scenarios.h. */
#ifndef MC_MENCAL_H
#define MC_MENCAL_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "affinity.h"
#include "counters.h"
#include "numa.h"
#include "opts.h"
#include "report.h"
#include "sizing.h"
#include "stats.h"

#define MC_LINE_BYTES 64                 /* one cache line */
#define MC_DEFAULT_STRIDE_BYTES 256      /* randread node spacing: multichase's default */
#define MC_DEFAULT_TLB_PAGES 64          /* randread TLB locality: multichase's default */
#define MC_DEFAULT_SIZE_BYTES (8ULL << 30)
#define MC_SIZE_RULE_FACTOR 8            /* default size raised to >= 8x LLC */
#define MC_MAX_CHAINS 16
#define MC_MAX_PROCS 4096
#define MC_PROCS_PER_CPU 64              /* --procs above 64 x CPUs is refused */
#define MC_MAX_TABLES 4
#define MC_MAX_NOTES 12

/* --hugepages */
typedef enum {
    MC_HP_NEVER = 0,   /* madvise(MADV_NOHUGEPAGE): 4 KiB pages whatever the system says */
    MC_HP_THP,         /* no advice: the system's THP policy decides (enabled=always) */
    MC_HP_MADVISE,     /* madvise(MADV_HUGEPAGE): THP for this buffer when enabled != never */
} mc_hugepages_t;

/* Raw option values, filled by the option table (config.c). */
typedef struct {
    size_t size_bytes;
    long long threads;
    long long reps;
    const char *hugepages;
    const char *cpunodebind, *membind, *interleave;
    const char *counters;       /* --counters[=LIST]; NULL with seen: default list */
    const char *format;
    const char *output;
    long long seed;
    bool allow_cache;           /* accepted, no effect: an explicit size always runs */
    bool strict;                /* refuse a size under the 4x LLC rule (exit 2) */
    const char *llc;            /* --llc SIZE override */
    bool dry_run, quiet, help, version;
    /* randread */
    long long chains;
    long long tlb_pages;
    long long stride_bytes;
    bool sweep;
    /* mixed, concurrent */
    long long read_pct;
    const char *pattern;
    /* concurrent */
    long long procs;
    double duration_s;
    /* stability */
    long long iterations;
    double interval_s;
} mc_opts_t;

/* Cache sizes used to label a latency curve, with their origin. */
typedef struct {
    size_t l1d_bytes, l2_bytes;          /* 0 when unknown */
    const char *l1d_source, *l2_source;  /* "sysfs", "sysconf", "unknown" */
    mb_llc_t llc;
} mc_caches_t;

/* The resolved configuration: one per run, passed as const *. */
typedef struct {
    mc_opts_t o;
    const bool *seen;            /* per option-table entry */
    /* sizing */
    size_t size_bytes;           /* working set per scenario */
    bool size_default;           /* --size not given */
    bool cache_resident;         /* under 4x LLC, or the LLC unknown: not-standard */
    char size_reason[512];       /* why (mb_rule_t.message), for the label */
    char size_how[256];          /* how the size was chosen */
    mc_caches_t caches;
    size_t mem_available_bytes;
    /* threads */
    int nthreads;
    int cpu[MB_MAX_THREADS];     /* CPU of each thread */
    int ncores;                  /* physical cores found among allowed CPUs */
    int ncpus_allowed;
    char threads_how[256];
    char oversub_threads[160];   /* label reason when nthreads > ncpus_allowed, else "" */
    char oversub_procs[160];     /* label reason when procs > ncpus_allowed (concurrent) */
    cpu_set_t orig_mask;         /* the process's mask after NUMA binding */
    /* placement */
    mb_numa_request_t numa;
    char numa_desc[256];
    mc_hugepages_t hugepages;
    /* counters */
    bool counters_on;
    const char *counters_list;   /* for mb_counters_init */
    uint64_t seed;
    int reps;
    /* scenario knobs (validated) */
    int chains;
    size_t tlb_pages;            /* 0: full random only */
    size_t stride_bytes;         /* randread: bytes between chase nodes */
    bool sweep;
    int read_pct;
    bool pattern_random;
    int procs;
    double duration_s;
    int iterations;
    double interval_s;
    bool stability_short;        /* `run all` short profile in effect */
    char stability_how[160];
    mb_format_t format;
    /* warnings found while resolving (main prints them and records them) */
    size_t nwarn;
    char warn[8][512];
    /* process-wide counters, initialised before the first parallel region;
     * scenarios take per-region deltas (mc_counters_begin/end) */
    mb_counters_t *counters;
    /* the signal flag (main.c) */
    const volatile sig_atomic_t *stop;
} mc_config_t;

/* A small table of extra results (per thread, per worker, samples, sweep).
 * Cells are numbers (NaN = unavailable, with the column's why) or text. */
typedef struct {
    const char *name;     /* "per_thread" */
    const char *unit;     /* column unit, "" for none */
    bool text;            /* cells are text */
} mc_col_t;

typedef struct {
    const char *name;
    int ncols;
    const mc_col_t *cols;
    size_t nrows, cap;
    double *num;          /* nrows x ncols */
    char (*str)[64];      /* nrows x ncols, text cells */
} mc_table_t;

struct mc_scenario;

/* What a scenario produces. */
typedef struct mc_result {
    const struct mc_scenario *sc;
    mb_record_t rec;                          /* name + metrics (+ counters, extra) */
    mb_stats_t stats[MB_REC_MAX_METRICS];     /* storage for metric stats */
    mb_counters_t counters;          /* deltas over the measured regions */
    mb_counters_t counters_base;     /* snapshot at mc_counters_begin */
    bool counters_used;
    int status;                               /* 0 ok, else exit code (1, 3, 4) */
    bool complete;                            /* false: interrupted */
    bool skipped;
    char why[256];                            /* failure/skip reason */
    size_t nnotes;
    char notes[MC_MAX_NOTES][1024];           /* warnings found while running (as long as alloc's) */
    size_t nlabels;
    char labels[4][160];                      /* reasons the figure is not standard */
    size_t ntables;
    mc_table_t tables[MC_MAX_TABLES];
    /* the measured buffer */
    size_t buffer_bytes;
    bool thp_known;
    double thp_share;                         /* AnonHugePages / Rss of the mapping */
    size_t thp_bytes, rss_bytes;
    char thp_why[160];
    mb_numa_placement_t placement;
    bool placement_done;
    /* owned allocations (freed by mc_result_free) */
    size_t nowned;
    void *owned[32];
} mc_result_t;

/* The descriptor each sc-<name>.c ends with. */
typedef struct mc_scenario {
    const char *name;
    const char *summary;
    const char *const *options;   /* scenario-specific long options, NULL-terminated */
    /* 0 when it can run here; otherwise an exit code (3 resource, 4 not
     * built) and why. */
    int (*supported)(const mc_config_t *cfg, char *why, size_t whylen);
    /* Measure; fill res; never print.  0, or an exit code with res->why. */
    int (*run)(const mc_config_t *cfg, mc_result_t *res);
    /* Optional: a scenario with its own command line.  When the first word
     * after `run` names it, main hands it argv from that word on (argv[0]
     * is the scenario name) with the signal flag installed, and exits with
     * what it returns.  NULL for scenarios driven by the common options. */
    int (*cli)(int argc, char **argv, const volatile sig_atomic_t *stop);
} mc_scenario_t;

/* registry.c */
size_t mc_scenario_count(void);
const mc_scenario_t *mc_scenario_at(size_t i);
const mc_scenario_t *mc_scenario_find(const char *name);
/* "seqread, randread, ..." */
const char *mc_scenario_names(char *buf, size_t buflen);
bool mc_scenario_accepts(const mc_scenario_t *sc, const char *opt);
/* Always ok: for scenarios without requirements. */
int mc_supported_always(const mc_config_t *cfg, char *why, size_t whylen);

/* result.c */
void mc_result_init(mc_result_t *res, const mc_scenario_t *sc);
void mc_result_free(mc_result_t *res);
void mc_result_note(mc_result_t *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void mc_result_label(mc_result_t *res, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int mc_result_fail(mc_result_t *res, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Metric whose value is the median of samples, with stats and a copy of
 * the samples.  n == 0 makes it unavailable with `why_empty`. */
mb_metric_t *mc_metric_samples(mc_result_t *res, const char *name, const char *unit,
                               const double *samples, size_t n, const char *why_empty);
mb_metric_t *mc_metric(mc_result_t *res, const char *name, const char *unit, double v);
mb_metric_t *mc_metric_na(mc_result_t *res, const char *name, const char *unit, const char *why);
/* A copy of s kept until mc_result_free (for metric reasons). */
const char *mc_result_keep(mc_result_t *res, const char *s);
void *mc_result_alloc(mc_result_t *res, size_t bytes);   /* zeroed, owned */
/* Tables. */
mc_table_t *mc_table_new(mc_result_t *res, const char *name, const mc_col_t *cols, int ncols);
/* Appends a row; returns its index or -1 (ENOMEM). */
long mc_table_row(mc_table_t *t);
void mc_table_num(mc_table_t *t, long row, int col, double v);
void mc_table_str(mc_table_t *t, long row, int col, const char *s);
/* Counters around a measured region: deltas of the process-wide set are
 * added to res->counters (and res->rec.counters points at them). */
void mc_counters_begin(mc_result_t *res, const mc_config_t *cfg);
void mc_counters_end(mc_result_t *res, const mc_config_t *cfg);
/* IPC, per-load ratios from the counters (or unavailable with the reason). */
void mc_result_counter_metrics(mc_result_t *res, double loads, const char *load_what);
/* JSON members written inside the record (rec.extra). */
void mc_result_json_extra(struct mb_json *j, const void *ctx);

/* team.c: threads and CPUs */
/* Physical cores among the allowed CPUs: one CPU per core, the lowest
 * numbered sibling, in CPU order.  Returns the count (>0) and fills
 * cpus[]; when the topology cannot be read, every allowed CPU is used and
 * why says so.  smt_extra receives the remaining siblings (may be NULL). */
int mc_physical_cpus(const cpu_set_t *allowed, int *cpus, int max, int *smt_extra, int *nextra,
                     char *why, size_t whylen);
int mc_pin_self(int cpu);             /* sched_setaffinity of the calling thread */
void mc_restore_mask(const mc_config_t *cfg);
/* Runs a pinned parallel region and records each thread's CPU. */
void mc_team_record(const mc_config_t *cfg, mb_affinity_t *aff);
/* NUMA node of a CPU: cpu < 0 asks getcpu(2) for the calling thread;
 * otherwise the cpuN/nodeM link in sysfs.  -1 when unknown. */
int mc_cpu_node(int cpu);

/* buffer.c */
/* mmap an anonymous buffer of `bytes` (rounded up to 2 MiB, 2 MiB
 * aligned) with the --hugepages advice.  Nothing is touched.  0 or -errno. */
int mc_buffer_alloc(size_t bytes, mc_hugepages_t hp, void **out, char *why, size_t whylen);
void mc_buffer_free(void *p, size_t bytes);
/* THP share of the mapping holding p, from /proc/self/smaps, into res. */
void mc_buffer_thp(mc_result_t *res, const void *p, size_t bytes);
/* Page placement sample into res. */
void mc_buffer_placement(mc_result_t *res, const void *p, size_t bytes);
/* The end of every measured scenario: the caller's CPU mask restored, the
 * THP share and page placement recorded into res, the buffer unmapped. */
void mc_buffer_finish(mc_result_t *res, const mc_config_t *cfg, void *p, size_t bytes);
const char *mc_hugepages_name(mc_hugepages_t hp);

/* rng.c: splitmix64-seeded xoshiro256** */
typedef struct { uint64_t s[4]; } mc_rng_t;
void mc_rng_seed(mc_rng_t *r, uint64_t seed, uint64_t stream);
static inline uint64_t mc_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t mc_rng_next(mc_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = mc_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = mc_rotl(s[3], 45);
    return result;
}
/* Uniform in [0, n) (Lemire's multiply-shift; bias < n / 2^64). */
static inline uint64_t mc_rng_below(mc_rng_t *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)mc_rng_next(r) * n) >> 64);
}

/* chase.c: pointer chasing */
typedef struct {
    size_t nodes;        /* nodes in the region */
    size_t stride;       /* bytes from one node's slot to the next (a multiple of 8) */
    int chains;          /* independent cycles (node i belongs to chain i % chains) */
    size_t group_nodes;  /* 0: whole region; else hops stay inside groups of this many nodes per chain */
} mc_chain_spec_t;
/* The address of node i: slot i (i * stride bytes from base), at a line
 * inside the slot chosen by a fixed hash of i when the slot spans two or
 * more lines (so nodes use every cache set, as multichase's mixer does). */
void *mc_chain_node(void *base, size_t stride, size_t i);
/* Builds `chains` random cycles over the nodes at base, each a
 * single cycle (Sattolo) through its members; start[k] = first node of
 * chain k.  Writes every node.  0, or -ENOMEM / -EINVAL. */
int mc_chain_build(void *base, const mc_chain_spec_t *spec, mc_rng_t *rng, void **start);
/* Follows the cycle of start to verify it has `members` nodes (slow:
 * one dependent load per node).  true when it does. */
bool mc_chain_verify(void *start, size_t members);
/* Advance every chain by rounds*8 hops (chains <= MC_MAX_CHAINS); start[]
 * is updated to the final positions.  One dependent load per hop. */
void mc_chase(void **start, int chains, size_t rounds);
/* The loop without the loads, for the overhead figure: ns for rounds. */
uint64_t mc_chase_overhead_ns(int chains, size_t rounds);
#define MC_CHASE_UNROLL 8

/* access.c: cache-line read/write mix shared by mixed and concurrent */
typedef struct {
    uint64_t *base;       /* lines of 8 words */
    size_t lines;
    unsigned read_pct;    /* 0..100 */
    bool random;
    mc_rng_t rng;
    size_t seq_pos;
    unsigned bres;        /* Bresenham accumulator: exact read share per 100 */
    uint64_t reads, writes, sink;
} mc_mix_t;
void mc_mix_init(mc_mix_t *m, uint64_t *base, size_t lines, unsigned read_pct, bool random,
                 uint64_t seed, uint64_t stream);
/* n accesses: exactly read_pct of every 100 consecutive accesses are loads. */
void mc_mix_run(mc_mix_t *m, size_t n);

/* vmstat.c: reclaim / THP indicators from <procfs>/vmstat */
#define MC_VMSTAT_KEYS 11
extern const char *const mc_vmstat_keys[MC_VMSTAT_KEYS];
/* Reads every key (summing per-zone variants); missing keys are -1.
 * 0, or -errno with why. */
int mc_vmstat_read(long long *vals, char *why, size_t whylen);

/* render.c */
typedef struct {
    const mc_config_t *cfg;
    mc_result_t *res;            /* scenario results */
    size_t nres;
    const char *subcommand;      /* "run" */
    const char *const *scenarios;
    size_t nscenarios;
} mc_run_t;
/* Build the mb_result_t view and render it in cfg->format. */
int mc_render(const mc_run_t *run, mb_result_t *r, FILE *f);
void mc_config_json(struct mb_json *j, const void *ctx);

/* config.c */
/* The option table and its size. */
const mb_opt_t *mc_options(size_t *n);
/* Parses argv (after the subcommand), fills cfg->o and positionals.  0 or 2. */
void mc_opts_defaults(mc_opts_t *o);
/* Resolve and validate the configuration: size rule, threads, NUMA
 * binding (applied here, before any thread or allocation), ranges that
 * depend on the machine.  running_all selects the short stability
 * profile; with_stability checks --interval against --duration.
 * 0, 2 (usage), 3 (resource), 4 (not built); msg filled. */
int mc_config_resolve(mc_config_t *cfg, bool running_all, bool with_stability, char *msg,
                      size_t msglen);
bool mc_opt_seen(const mc_config_t *cfg, const char *long_name);
/* Cache sizes: L1d and L2 from sysfs, else sysconf; LLC via mb_llc_detect. */
int mc_caches_detect(const char *llc_override, mc_caches_t *c, char *err, size_t errlen);
/* "L1", "L2", "L3", "DRAM" for a working set of `per_thread` bytes per
 * thread (held against the private L1d/L2) and `total` bytes in all
 * (held against the shared LLC). */
const char *mc_cache_level(const mc_caches_t *c, size_t per_thread, size_t total);

/* env.c: `mencal env` */
int mc_env_main(const mc_config_t *cfg, int argc, char **argv);

/* Fits n threads: each gets a slice of `bytes` rounded down to `align`. */
static inline size_t mc_slice_bytes(size_t bytes, int parts, size_t align)
{
    size_t s = bytes / (size_t)parts;
    return s - s % align;
}

#endif
