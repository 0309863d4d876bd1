/* alloc/env: environment facts that change the allocator figures. */
#ifndef MC_ALLOC_ENV_H
#define MC_ALLOC_ENV_H

#include <stdbool.h>

#include "options.h"

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

#endif
