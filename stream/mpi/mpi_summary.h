/* mpi_summary: what each rank reports about itself (st_mpi_rank_t, sent
 * to rank 0 as plain bytes: every rank runs the same binary), and rank
 * 0's view of the whole run built from those reports and all ranks' time
 * tables (st_mpi_summary_t).
 *
 * Aggregate figures follow stream_mpi 1.8: for each (round, kernel) the
 * minimum time over the ranks (each time spans barrier, kernel, barrier),
 * then min/avg/max over rounds 2..N; bytes count the aggregate array.
 * Per-rank rates use the kernel alone (before the closing barrier) over
 * the rank's own part, so a slow rank, socket or node stands out.
 * Validation: every rank checks its own part; an array fails when any
 * rank's check fails or the average of the ranks' AvgAbsErr (stream_mpi's
 * figure) exceeds epsilon. */
#ifndef ST_MPI_SUMMARY_H
#define ST_MPI_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "affinity.h"
#include "config.h"
#include "mpi_world.h"
#include "run.h"
#include "validate.h"

typedef struct {
    int32_t rank;
    char host[ST_MPI_HOST_MAX];
    char cpus[160];                       /* allowed CPUs as a list ("0-3,8"); "" unknown */
    int32_t allowed_cpus;
    int32_t online_cpus;                  /* of the host */
    int32_t threads;                      /* OpenMP threads that ran */
    uint64_t n;                           /* elements per array */
    double best_own_s[ST_MAX_KERNELS];    /* min kernel-only time, rounds 2..N (0: none) */
    double rate_mbps[ST_MAX_KERNELS];     /* words x elem x n / best_own_s x 1e-6; NaN: none */
    int32_t valid;                        /* every check of this rank passed */
    int32_t arr_ok[3];
    double expected[3];
    double avg_abs_err[3];
    uint64_t errors[3];
    uint64_t nonfinite[3];
    int32_t has_dot, dot_ok;
    double dot_value, dot_expected;
    int32_t nreasons;                     /* not-standard reasons on this rank */
    char reason[512];                     /* the first of them (st_plan_t.reasons) */
} st_mpi_rank_t;

/* Fills r from this rank's plan, validation, affinity and kernel-only
 * times (nkernels x ntimes). */
void st_mpi_rank_fill(st_mpi_rank_t *r, const st_mpi_world_t *w, const st_plan_t *p,
                      const st_validation_t *v, const mb_affinity_t *aff,
                      const double *kernel_only_s);

typedef struct {
    char host[ST_MPI_HOST_MAX];
    int nranks;
    int first_rank;                       /* lowest rank on the host */
    int cpus;                             /* CPUs its ranks may use (union of their masks) */
    int online_cpus;
    int threads;                          /* threads over its ranks */
    uint64_t n;                           /* elements per array over its ranks */
    double rate_mbps[ST_MAX_KERNELS];     /* sum of its ranks' rates */
    bool valid;
} st_mpi_host_t;

typedef struct {
    int ranks;
    bool star;
    st_plan_t agg;                        /* rank 0's plan, n = the aggregate */
    st_run_t agg_run;                     /* rank 0's run, times = min over ranks */
    double *agg_times_s;                  /* owned: nkernels x ntimes */
    st_summary_t sum[ST_MAX_KERNELS];     /* aggregate figures */
    st_validation_t val;                  /* aggregate validation */
    const st_mpi_rank_t *rank;            /* [ranks], borrowed */
    double rank_min_mbps[ST_MAX_KERNELS], rank_avg_mbps[ST_MAX_KERNELS],
           rank_max_mbps[ST_MAX_KERNELS];
    int rank_min_id[ST_MAX_KERNELS], rank_max_id[ST_MAX_KERNELS];
    st_mpi_host_t *host;                  /* owned, [nhosts], in order of first rank */
    int nhosts;
    int nfailed;                          /* ranks whose validation failed */
    bool split_even;                      /* n_total divides by ranks (or star) */
    size_t part_big, part_small;          /* the two part sizes (equal when even) */
    size_t nbig;                          /* ranks holding part_big */
    int inject_rank;                      /* --inject-error's rank; -1 none (set by the caller) */
} st_mpi_summary_t;

/* Builds the summary on rank 0.  times_all: ranks x (nkernels x ntimes),
 * rank-major.  0, or -ENOMEM. */
int st_mpi_summary_build(st_mpi_summary_t *s, const st_plan_t *plan, const st_run_t *run,
                         const double *times_all, const st_mpi_rank_t *ranks, int nranks);
void st_mpi_summary_free(st_mpi_summary_t *s);

/* "ranks 0-2 hold 333334 elements, ranks 3-3 hold 333333" when uneven. */
void st_mpi_split_text(const st_mpi_summary_t *s, char *buf, size_t len);

#endif
