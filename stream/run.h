/* run: the measuring step.  Parallel first-touch initialisation (timed on
 * its own), STREAM's timed a = 2a calibration pass, then ntimes rounds of
 * the planned kernels, each timed on its own.  Nothing here prints; the
 * figures derived from the times (bytes, rates, statistics) are computed
 * in one place, st_run_summarize. */
#ifndef ST_RUN_H
#define ST_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "counters.h"
#include "kernels.h"
#include "ntpick.h"
#include "stats.h"

typedef struct {
    double *times_s;            /* nkernels x ntimes: kernel i's round k is times_s[i * ntimes + k] */
    double dot_last;            /* the last Dot sum */
    double init_s;              /* parallel initialisation */
    double calib_us;            /* the a = 2a pass, microseconds */
    uint64_t granularity_ns;    /* observed clock granularity (monotonic clock, ns) */
    int quantum_us;             /* STREAM's checktick(): what its text prints, whole us */
    double kernels_total_s;     /* wall time of all timed rounds */
    bool nt_used[ST_MAX_KERNELS];
    mb_counters_t *counters;    /* one per planned kernel; NULL when off */
    mb_counters_t total;        /* whole run: rusage and software events */
    const volatile sig_atomic_t *stop; /* optional (NULL: never): set by a signal
                                 * handler, the rounds stop after the current one */
    int rounds_done;            /* rounds completed (plan->ntimes unless stopped) */
    st_ntpick_t ntpick;         /* how the non-temporal variant was chosen */
} st_run_t;

/* Per-kernel figures, computed from the times and the descriptor weights. */
typedef struct {
    int id;                     /* st_kernel_id_t */
    double bytes;               /* words x elem_bytes x n (STREAM counting) */
    double bytes_wa;            /* including write-allocate traffic */
    mb_stats_t stats;           /* over rounds 2..ntimes */
    bool stats_ok;
    double best_rate_mbps;      /* 1e-6 * bytes / min time */
    double best_rate_wa_mbps;
    const double *samples;      /* all ntimes raw times (points into run->times_s) */
} st_summary_t;

/* Allocates the time table and, when plan->counters is set, the per-kernel
 * counter sets (before any measuring).  Returns 0, or 2 (bad counter list)
 * / 3 (no memory) with msg. */
int st_run_prepare(const st_plan_t *plan, st_run_t *run, char *msg, size_t msglen);
/* a=1, b=2, c=0 in parallel (first touch), timed into run->init_s. */
void st_run_init(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run);
/* Which planned kernels run their non-temporal form (again after
 * st_ntpick changed plan->nt_isa). */
void st_run_nt_used(const st_plan_t *plan, st_run_t *run);
/* Clock granularity and the timed a = 2a pass. */
void st_run_calibrate(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run);
/* The timed rounds; with run->stop set they end early (see rounds_done). */
void st_run_kernels(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run);

/* Synchronised rounds (stream_mpi 1.8's timing): each kernel is timed as
 *   t0 = now; sync(); kernel; tk = now; sync(); t1 = now
 * and times_s holds t1 - t0.  kernel_only_s (optional, nkernels x ntimes
 * like times_s) receives tk minus the time the first sync returned: the
 * kernel alone on this process, without waiting for the others. */
typedef struct {
    int (*sync)(void *ctx);     /* a barrier: 0, or nonzero to stop the run */
    void *ctx;
    double *kernel_only_s;      /* NULL: not recorded */
} st_run_sync_t;

/* Returns 0, or the first nonzero sync() result (the rounds stop there;
 * the times after it are left 0). */
int st_run_kernels_sync(const st_plan_t *plan, const st_arrays_t *x, st_run_t *run,
                        const st_run_sync_t *sync);
/* Fills sum[0..nkernels); the samples point into run. */
void st_run_summarize(const st_plan_t *plan, const st_run_t *run, st_summary_t *sum);
void st_run_free(const st_plan_t *plan, st_run_t *run);

#endif
