/* plan: every check that can refuse an mbw run, before anything is
 * allocated, in the run's order: the OpenMP environment, --numa-node
 * (checked and applied), --counters, the 4x LLC rule (mb_size_rule) and
 * the memory fit of the two arrays.  The run (main.c) reports what this
 * found; --plan renders it as a plan document (common/plandoc). */
#ifndef MBW_PLAN_H
#define MBW_PLAN_H

#include <stdio.h>

#include "cli.h"
#include "plandoc.h"
#include "session.h"

typedef struct {
    int code;                  /* the exit code of the first refusal (mbw_exit_code), or 0 */
    const char *refused_by;    /* NULL, "environment", "numa", "counters", "llc", "size_rule",
                                * "memory" */
    char msg[1024];            /* the refusal's message, as the run prints it */
    bool rule_checked;         /* s->llc and s->size_rule hold the rule's verdict */
    mb_fit_t fit;              /* the two arrays against MemAvailable */
    size_t need_bytes;         /* 2 x the array size */
    size_t available_bytes;    /* 0 when unknown */
    char fit_msg[512];         /* mb_fits_in_memory's text, or why MemAvailable is unknown */
} mbw_plan_t;

/* Runs the checks in order, stopping at the first refusal; the rule's
 * verdict goes to s->llc and s->size_rule.  Prints nothing.  Returns p->code. */
int mbw_plan_build(const mbw_cfg_t *cfg, mbw_session_t *s, mbw_plan_t *p);

/* The result's label: "tuned" with a tuning extension, "not-standard"
 * when the array size is under the rule (or it was unchecked), else
 * "standard". */
const char *mbw_plan_label(const mbw_cfg_t *cfg, const mb_rule_t *rule);

/* --plan: the document on f (cfg->format: text or json), a refusal's
 * message on stderr; returns p->code. */
int mbw_plan_report(const mbw_cfg_t *cfg, const mbw_session_t *s, const mbw_plan_t *p, FILE *f);

#endif
