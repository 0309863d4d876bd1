/* outcome: everything a finished run produced, handed read-only to the
 * renderers (text.c for STREAM's text, result.c for JSON/CSV). */
#ifndef ST_OUTCOME_H
#define ST_OUTCOME_H

#include "affinity.h"
#include "arrays.h"
#include "config.h"
#include "numa.h"
#include "report.h"
#include "run.h"
#include "validate.h"

typedef struct {
    const st_plan_t *plan;
    const st_run_t *run;
    const st_summary_t *sum;          /* plan->nkernels entries */
    const st_validation_t *val;
    const mb_affinity_t *aff;
    const mb_thp_t *thp;
    const mb_numa_placement_t *placement;        /* the whole block */
    const mb_numa_placement_t *placement_arr;    /* [3]: a, b, c */
    const char *numa_policy;
    int argc;
    char **argv;
    const char *const *warnings;      /* stderr warnings, also in JSON */
    size_t nwarnings;
    /* Optional (zero for stream): stream_mpi's additions. */
    const char *tool;                 /* NULL: "stream" */
    void (*config_more)(mb_json_t *j, const void *ctx);        /* more "config" members */
    const void *config_more_ctx;
    void (*record_more)(mb_record_t *rec, size_t i, const void *ctx); /* more metrics for record i */
    const void *record_more_ctx;
} st_outcome_t;

#endif
