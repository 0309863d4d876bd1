/* label: what the resolved configuration makes of a run's label, before
 * anything runs: a working set under the 4x LLC rule (or the LLC
 * unknown) and oversubscribed threads are not-standard; --hugepages
 * never|madvise and --interleave-weights are tuned; a scenario's own
 * not_standard() reason counts for each scenario that runs.  render.c
 * adds what the scenarios find while running; --plan shows this part. */
#ifndef MC_LABEL_H
#define MC_LABEL_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "scenario.h"

typedef struct {
    bool not_standard, tuned;
    size_t n;
    const char *reasons[16];   /* point into cfg, the scenarios' texts, or weights below */
    char weights[300];
} mc_label_t;

/* sc[0..nsc): the scenarios of the run; counts[i] false for one that
 * will not run (skipped), whose reason then does not count. */
void mc_label_config(const mc_config_t *cfg, const mc_scenario_t *const *sc, const bool *counts,
                     size_t nsc, mc_label_t *l);
/* "not-standard", "tuned" or "standard", in that precedence. */
const char *mc_label_word(const mc_label_t *l);

#endif
