/* result: the run as a memsuite result (schema memsuite/result/2),
 * rendered as JSON or CSV through common/report.  One record per kernel:
 * best rate (STREAM counting and with write-allocate traffic), the time
 * statistics over rounds 2..N with every raw time, and the bytes moved.
 * config carries the sizes, kernels, tuning, huge-page share, page
 * placement per array, init_s and the kernels' total time. */
#ifndef ST_RESULT_H
#define ST_RESULT_H

#include <stdio.h>

#include "outcome.h"
#include "report.h"
#include "sysinfo.h"

/* Renders in plan->format (JSON or CSV) to f.  0 or negative on error. */
int st_result_render(const st_outcome_t *o, const mb_sysinfo_t *si, FILE *f);

#endif
