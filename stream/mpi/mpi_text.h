/* mpi_text: stream_mpi 1.8's text report, line for line: "Total Aggregate
 * Array size", "Data is distributed across %d MPI ranks" and the per-rank
 * size lines, the SCALAR line, the thread lines "for each MPI rank" /
 * "for rank 0", "timer" instead of "clock", rows printed with %11.1f.
 * Additions, each only when it applies: the "*** tuned run ***" line (as
 * stream), one line after the per-rank sizes when the ranks hold unequal
 * parts, the failing ranks after the validation lines.
 *
 * --star prints its own table: per kernel the minimum, average and
 * maximum rate over the ranks (each rank's kernel alone on its full-size
 * arrays) and the aggregate rate of all ranks. */
#ifndef ST_MPI_TEXT_H
#define ST_MPI_TEXT_H

#include <stdio.h>

#include "affinity.h"
#include "mpi_summary.h"

/* plan/run/aff: rank 0's. */
int st_mpi_text_render(const st_mpi_summary_t *s, const st_plan_t *plan, const st_run_t *run,
                       const mb_affinity_t *aff, FILE *f);

#endif
