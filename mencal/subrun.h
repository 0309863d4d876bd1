/* subrun: one scenario run inside another, on a copy of the configuration
 * (matrix: a buffer bound to each node; weights: a buffer placed by each
 * ratio), reduced to its headline figure and where its pages landed. */
#ifndef MC_SUBRUN_H
#define MC_SUBRUN_H

#include <stdbool.h>

#include "config.h"
#include "scenario.h"

typedef struct {
    double value;        /* the metric asked for, NAN when the run failed or lacks it */
    double on_node;      /* % of the sampled pages on the node asked about, NAN unknown */
    bool interrupted;    /* the run did not finish (the signal flag) */
    char why[256];       /* why it failed, "" when it did not */
    char kernel[32];     /* the kernel variant it ran (its note "kernel NAME ..."), "" none */
} mc_subrun_t;

/* Runs sc with its parsed options on cfg1 and returns `metric` of its
 * result; `node` is the node whose page share on_node reports (-1: none). */
mc_subrun_t mc_subrun(const mc_scenario_t *sc, const mc_config_t *cfg1, const char *metric, int node);
/* Share (%) of the sampled pages of a result's buffer on `node`, NAN unknown. */
double mc_result_node_share(const mc_result_t *r, int node);

#endif
