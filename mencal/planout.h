/* planout: mencal run SCENARIO... --plan.  The plan document
 * (common/plandoc) from the configuration mc_config_resolve built, the
 * same one a run uses; nothing is allocated and nothing is measured. */
#ifndef MC_PLANOUT_H
#define MC_PLANOUT_H

#include <stdio.h>

#include "config.h"
#include "scenario.h"

/* rc and msg: mc_config_resolve's answer for cfg (cfg->stage names the
 * check that refused).  Prints the document (--format text or json) on
 * f, a refusal's message on stderr; returns the exit code the run would
 * have from these checks. */
int mc_plan_report(const mc_config_t *cfg, const mc_scenario_t *const *sel, size_t nsel, int rc,
                   const char *msg, FILE *f);

#endif
