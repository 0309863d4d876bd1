/* config: mencal's common options and the resolved configuration of a
 * run (size rule, threads on physical cores, caches, NUMA binding).
 *
 * The command line is one option table, joined from the common entries
 * here and each scenario's own table (scenario.h), in registry order; a
 * name two scenarios share (--read-pct, --duration) appears once, at its
 * first scenario, and its value is copied to the others.  The parsed
 * values live in one block: mc_opts_t first, then each scenario's conf
 * struct. */
#ifndef MC_CONFIG_H
#define MC_CONFIG_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "affinity.h"
#include "counters.h"
#include "numa.h"
#include "opts.h"
#include "plandoc.h"
#include "report.h"
#include "sizing.h"
#include "weighted.h"

#define MC_LINE_BYTES 64                 /* one cache line */
#define MC_DEFAULT_SIZE_BYTES (8ULL << 30)
#define MC_SIZE_RULE_FACTOR 8            /* default size raised to >= 8x LLC */

struct mc_scenario;

/* --hugepages; MC_HUGEPAGES_CHOICES names them in this order */
#define MC_HUGEPAGES_CHOICES "thp|never|madvise"
typedef enum {
    MC_HP_THP = 0,     /* no advice (the default): the system's THP policy decides, as for any
                        * program (enabled=always: huge pages; madvise: only if the allocator
                        * asks, e.g. glibc.malloc.hugetlb=1 with --buffer malloc) */
    MC_HP_NEVER,       /* madvise(MADV_NOHUGEPAGE): 4 KiB pages whatever the system says */
    MC_HP_MADVISE,     /* madvise(MADV_HUGEPAGE): THP for this buffer when enabled != never */
} mc_hugepages_t;

/* --buffer: where the measured buffer comes from; MC_BUFFER_CHOICES names
 * them in this order */
#define MC_BUFFER_CHOICES "mmap|malloc"
typedef enum {
    MC_BUF_MMAP = 0,   /* an anonymous mmap of its own, 2 MiB aligned: the allocator plays no part */
    MC_BUF_MALLOC,     /* malloc() of the process's allocator (glibc and its GLIBC_TUNABLES, or a
                        * preloaded jemalloc/tcmalloc/mimalloc), aligned to a cache line inside */
} mc_buffer_kind_t;

/* Raw values of the common options, filled by the option table. */
typedef struct {
    size_t size_bytes;
    long long threads;
    long long reps;
    int hugepages;              /* CHOICE: the mc_hugepages_t */
    int buffer;                 /* CHOICE: the mc_buffer_kind_t */
    const char *cpunodebind, *membind, *interleave;
    const char *interleave_weights;   /* --interleave-weights NODE:W,... */
    const char *counters;       /* --counters[=LIST]; NULL with seen: default list */
    int format;                 /* mb_format_t */
    const char *output;
    long long random_state;
    bool allow_cache;           /* accepted, no effect: an explicit size always runs */
    bool strict;                /* refuse a size under the 4x LLC rule (exit 2) */
    const char *llc;            /* --llc SIZE override */
    bool dry_run, plan, quiet, help, version;
} mc_opts_t;

/* Cache sizes used to label a latency curve, with their origin. */
typedef struct {
    size_t l1d_bytes, l2_bytes;          /* 0 when unknown */
    const char *l1d_source, *l2_source;  /* "sysfs", "sysconf", "unknown" */
    mb_llc_t llc;
} mc_caches_t;

/* The parsed command line: the joined option table and the block its
 * values went to.  mc_cli_init builds it; mc_cli_free releases it. */
typedef struct {
    mb_opt_t *table;
    size_t n;
    bool *seen;                  /* per table entry */
    unsigned char *store;        /* mc_opts_t, then each scenario's conf */
    size_t *conf_off;            /* per registered scenario: offset of its conf, 0: none */
    /* shared names: after parsing, entry alias_from[k] is copied to alias_to[k] */
    size_t nalias;
    size_t alias_from[16], alias_to[16];
} mc_cli_t;

/* The resolved configuration: one per run, passed as const *. */
typedef struct mc_config {
    const mc_opts_t *o;
    const mc_cli_t *cli;
    /* the run: the selected scenarios, and whether they came from 'all' */
    const struct mc_scenario *const *sel;
    size_t nsel;
    bool running_all;
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
    cpu_set_t orig_mask;         /* the process's mask after NUMA binding */
    /* placement */
    mb_numa_request_t numa;
    char numa_desc[256];
    mc_hugepages_t hugepages;
    mc_buffer_kind_t buffer;
    /* the measured buffer bound to one memory node (mbind), whatever the
     * NUMA options say: set only by a scenario that runs another on a
     * copy of cfg per node (matrix); false everywhere else */
    bool bind_node_on;
    int bind_node;
    /* --interleave-weights, or set by a scenario on a copy of cfg (weights) */
    bool weights_on;
    mb_weights_t weights;
    /* counters */
    bool counters_on;
    const char *counters_list;   /* for mb_counters_init */
    uint64_t random_state;
    int reps;
    mb_format_t format;
    /* warnings found while resolving (main prints them and records them) */
    size_t nwarn;
    char warn[8][512];
    /* notes recorded among the result's warnings only, not printed */
    size_t nrecord;
    char record[4][256];
    /* process-wide counters, initialised before the first parallel region;
     * scenarios take per-region deltas (mc_counters_begin/end) */
    mb_counters_t *counters;
    /* the signal flag (main.c) */
    const volatile sig_atomic_t *stop;
    /* what resolution found, for --plan (docs/plan.schema.json) */
    const char *stage;           /* the check under way; after a refusal, the one that refused */
    bool rule_checked;           /* the 4x LLC rule ran */
    mb_rule_t rule;              /* its verdict */
    mb_fit_t fit;                /* the working set against MemAvailable */
    char fit_msg[512];           /* mb_fits_in_memory's refusal text */
} mc_config_t;

/* Builds the joined option table and the value block with every default
 * in place (mb_opts_defaults over each table).  0, -ENOMEM, or -EINVAL
 * when a table's default does not convert (a table bug). */
int mc_cli_init(mc_cli_t *cli);
void mc_cli_free(mc_cli_t *cli);
/* Parses argv[1..argc) (after the subcommand) into cli; positionals into
 * pos (argc entries).  0, or MB_EXIT_USAGE with msg. */
int mc_cli_parse(mc_cli_t *cli, int argc, char **argv, char **pos, int *npos, char *msg,
                 size_t msglen);
/* The common options' values. */
const mc_opts_t *mc_cli_opts(const mc_cli_t *cli);
/* The values of a scenario's options (its conf struct), or NULL. */
void *mc_cli_conf(const mc_cli_t *cli, const struct mc_scenario *sc);
bool mc_cli_seen(const mc_cli_t *cli, const char *long_name);
static inline bool mc_opt_seen(const mc_config_t *cfg, const char *long_name)
{
    return mc_cli_seen(cfg->cli, long_name);
}
/* Whether the run selected the scenario of this name. */
bool mc_run_selects(const mc_config_t *cfg, const char *name);

/* Resolve and validate the configuration: size rule, threads, NUMA
 * binding (applied here, before any thread or allocation), then each
 * scenario's resolve() on its conf.  cfg->o, cli, sel, nsel, running_all
 * set by the caller.  0, or an MB_EXIT_* code (usage, resource, unbuilt) with
 * msg filled. */
int mc_config_resolve(mc_config_t *cfg, char *msg, size_t msglen);
/* A warning found while resolving (printed and recorded by main). */
void mc_config_warn(mc_config_t *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line for the result's warnings only (not printed on stderr). */
void mc_config_record(mc_config_t *cfg, const char *line);

/* Cache sizes: L1d and L2 from sysfs, else sysconf; LLC via mb_llc_detect. */
int mc_caches_detect(const char *llc_override, mc_caches_t *c, char *err, size_t errlen);
/* "L1", "L2", "L3", "DRAM" for a working set of `per_thread` bytes per
 * thread (held against the private L1d/L2) and `total` bytes in all
 * (held against the shared LLC). */
const char *mc_cache_level(const mc_caches_t *c, size_t per_thread, size_t total);

/* Fits n threads: each gets a slice of `bytes` rounded down to `align`. */
static inline size_t mc_slice_bytes(size_t bytes, int parts, size_t align)
{
    size_t s = bytes / (size_t)parts;
    return s - s % align;
}

#endif
