/* mpi_result: stream_mpi's memsuite result (tool "stream_mpi").  The
 * records are stream's, over the aggregate (stream_mpi 1.8 rules), each
 * with three more metrics: rank_min/avg/max_rate_mbps (every rank's
 * kernel alone over its own part).  config.mpi holds the layout and the
 * per-rank and per-host tables (host, ranks, CPUs, elements, validation,
 * best rate per kernel), so a slow rank, socket or node is visible. */
#ifndef ST_MPI_RESULT_H
#define ST_MPI_RESULT_H

#include "mpi_summary.h"
#include "outcome.h"

/* Fills the outcome's stream_mpi hooks (tool, config_more, record_more)
 * with s as their context. */
void st_mpi_result_hooks(st_outcome_t *o, const st_mpi_summary_t *s);

#endif
