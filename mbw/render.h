/* render: mbw's text lines, counters on stderr, and the memsuite
 * JSON/CSV result (common/report.h). */
#ifndef MBW_RENDER_H
#define MBW_RENDER_H

#include <stdio.h>

#include "report.h"
#include "session.h"

/* "Long uses %d bytes. Allocating 2*%lld elements = %lld bytes of memory." */
void mbw_text_alloc_line(FILE *f, const mbw_cfg_t *cfg);
/* The block line (only when test 2 runs) and "Getting down to business". */
void mbw_text_start_lines(FILE *f, const mbw_cfg_t *cfg);
/* "<index>\tMethod: <name>\tElapsed: %.5f\tMiB: %.5f\tCopy: %.3f MiB/s";
 * index is a run number or "AVG". */
void mbw_text_result_line(FILE *f, const char *index, const char *name,
                          double time_s, double mib);
/* One stderr line with a method's counters. */
void mbw_text_counters(FILE *f, const char *name, const mb_counters_t *c);

/* Render the whole session as a memsuite result document. */
int mbw_render_doc(mbw_session_t *s, mb_format_t fmt, FILE *f);

#endif
