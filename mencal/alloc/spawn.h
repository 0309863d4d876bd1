/* alloc/spawn: the parent side of one allocator child. */
#ifndef MC_ALLOC_SPAWN_H
#define MC_ALLOC_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "worker.h"

#define MC_ALLOC_RSS_CAP 512          /* VmRSS samples kept per child */
#define MC_ALLOC_ERR_CAP 2048         /* child stderr kept, bytes */

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

#endif
