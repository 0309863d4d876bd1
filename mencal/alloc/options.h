/* alloc/options: the options of `mencal run alloc` and their validation. */
#ifndef MC_ALLOC_OPTIONS_H
#define MC_ALLOC_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libs.h"
#include "report.h"

#define MC_ALLOC_MAX_LIST 16          /* entries of --threads / --block-sizes */
#define MC_ALLOC_MAX_REPS 100

typedef struct {
    /* raw, from the option table */
    const char *allocators, *threads, *block_sizes, *jemalloc_conf;
    int format;                               /* CHOICE: the mb_format_t */
    const char *output, *plot;
    size_t blocks_per_thread, ops;
    double duration_s, rss_interval_s;
    long long reps, random_state;
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

#endif
