/* planout: stream --plan.  The plan document (common/plandoc) filled
 * from the st_plan_t that plan.c built, the same plan a run would use;
 * nothing is allocated and nothing is measured. */
#ifndef ST_PLANOUT_H
#define ST_PLANOUT_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* rc and msg: st_plan_build's answer for p.  When the plan was built
 * (rc 0) this applies the NUMA request and finishes the plan (threads,
 * label), as the run does.  Prints the document (o->format: text or
 * json) on f, a refusal's message on stderr, and returns the exit code
 * the run would have from these checks. */
int st_plan_report(const st_options_t *o, st_plan_t *p, int rc, const char *msg, FILE *f);

#endif
