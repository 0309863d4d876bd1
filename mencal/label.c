/* label: the configuration's part of a run's label. */
#include "label.h"

#include <stdio.h>
#include <string.h>

#include "weighted.h"

static void add(mc_label_t *l, const char *why)
{
    if (why && why[0] && l->n < sizeof l->reasons / sizeof l->reasons[0])
        l->reasons[l->n++] = why;
}

void mc_label_config(const mc_config_t *cfg, const mc_scenario_t *const *sc, const bool *counts,
                     size_t nsc, mc_label_t *l)
{
    memset(l, 0, sizeof *l);
    /* The default follows the system's THP policy, as any program does;
     * advice either way is a deliberate tuning. */
    l->not_standard = cfg->cache_resident;
    l->tuned = cfg->hugepages != MC_HP_THP;
    if (cfg->cache_resident)
        add(l, cfg->size_reason);
    if (l->tuned)
        add(l, cfg->hugepages == MC_HP_NEVER ? "--hugepages never (MADV_NOHUGEPAGE)"
                                             : "--hugepages madvise (MADV_HUGEPAGE)");
    if (cfg->weights_on) {   /* a placement chosen for the figure: tuned */
        char w[256];
        snprintf(l->weights, sizeof l->weights, "--interleave-weights %s",
                 mb_weights_format(&cfg->weights, w, sizeof w));
        add(l, l->weights);
        l->tuned = true;
    }
    /* Oversubscription (reason worded in config.c), then the reasons of
     * the scenarios that run (concurrent's --procs). */
    if (cfg->oversub_threads[0]) {
        add(l, cfg->oversub_threads);
        l->not_standard = true;
    }
    for (size_t i = 0; i < nsc; i++) {
        const char *why = sc[i] && sc[i]->not_standard && counts[i]
                              ? sc[i]->not_standard(mc_cli_conf(cfg->cli, sc[i])) : NULL;
        if (why) {
            add(l, why);
            l->not_standard = true;
        }
    }
}

const char *mc_label_word(const mc_label_t *l)
{
    return l->not_standard ? "not-standard" : l->tuned ? "tuned" : "standard";
}
