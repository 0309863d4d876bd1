/* session: everything one mbw invocation measured, in one place, so that
 * measuring (main.c, measure.c) and rendering (render.c) stay apart. */
#ifndef MBW_SESSION_H
#define MBW_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "affinity.h"
#include "arrays.h"
#include "cli.h"
#include "counters.h"
#include "measure.h"
#include "methods.h"
#include "numa.h"
#include "sizing.h"
#include "stats.h"

typedef struct {
    const mbw_method_t *method;
    bool selected;              /* -t asked for it (or no -t) */
    bool ran;                   /* has at least one sample */
    mbw_series_t series;
    size_t block_bytes;         /* used by blocked methods */
    bool counters_on;
    mb_counters_t counters;
    bool verified;              /* --verify ran on it */
    bool verify_ok;
    mbw_verify_t verify;
    /* derived by the renderer */
    mb_stats_t stats;
    bool has_stats;
} mbw_method_run_t;

typedef struct {
    const mbw_cfg_t *cfg;
    int argc;
    char **argv;                  /* as given (before getopt permuted it) */
    mbw_method_run_t run[MBW_NMETHODS];
    mbw_arrays_t arrays;
    uint64_t granularity_ns;      /* observed clock step */
    uint64_t min_sample_ns;       /* shortest sample accepted */
    mb_affinity_t affinity;
    char numa_desc[160];
    bool has_placement;
    mb_numa_placement_t placement;
    bool complete;                /* false: SIGINT stopped a -n N run */
    mb_llc_t llc;                 /* for the 4x LLC rule and the document */
    mb_rule_t size_rule;          /* mb_size_rule's verdict on the array size */
} mbw_session_t;

#endif
