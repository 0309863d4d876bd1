/* alloc/render: the allocator comparison as text, and as the common result
 * model (JSON, CSV). */
#ifndef MC_ALLOC_RENDER_H
#define MC_ALLOC_RENDER_H

#include <stdio.h>

#include "alloc.h"
#include "report.h"

/* Text: one block per thread count, a column per allocator, a
 * row per block size for each metric, the best cell marked '*', then the
 * verdicts, skips, failures and notes. */
int mc_alloc_render_text(const mc_alloc_run_t *r, FILE *f);
/* JSON / CSV through the common result model: one record per cell. */
int mc_alloc_render_model(const mc_alloc_run_t *r, const mb_sysinfo_t *si, int argc, char **argv,
                          mb_format_t fmt, FILE *f);

#endif
