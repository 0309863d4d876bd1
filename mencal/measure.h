/* measure: the timed repetitions of a scenario, on the thread team.
 *
 * A scenario supplies only the kernel body; the driver owns the rest of
 * the loop every thread-team scenario shares:
 *
 *   for r in 0..reps:             (r == 0: the uncounted warm-up)
 *       barrier; stop if the run was interrupted
 *       first r == 1: each thread joins its counter set; barrier
 *       master: counters begin (at the first r == 1), t0
 *       barrier
 *       each thread: time its own body(r)          -> thr_ns[r][t]
 *       barrier
 *       master: wall_ns[r] = now - t0; on_rep hook; done = r (unless the
 *               hook asked for r again); read the signal flag
 *   master: counters end (when a counted repetition ran)
 *
 * Use, from a scenario's run():
 *
 *     mc_measure_t m;
 *     if (mc_measure_init(&m, cfg, res, reps) != 0) -> out of memory
 *     #pragma omp parallel num_threads(m.nthreads)
 *     {   ...per-thread setup (pin, first touch, build)...
 *         mc_measure_run(&m, omp_get_thread_num(), body, &my_state);
 *     }
 *     mc_measure_finish(&m);       marks res incomplete when interrupted
 *     ...samples: mc_measure_rates, m.wall_ns[1..m.done], MC_THR_NS...
 *     mc_measure_free(&m);
 *
 * mc_measure_run() holds barriers, so every thread of the team must call
 * it (OpenMP binds them to the enclosing parallel region).
 *
 * Extension point: different bodies on one team.  Each thread passes its
 * own body and argument to mc_measure_run(), so a scenario can give
 * thread 0 a latency body (a pointer chase) and the others a traffic body
 * (loads and stores); the driver times every thread and the scenario
 * reads the thread it cares about from thr_ns.  All threads run the same
 * number of repetitions in lock step.
 *
 * --reps: the driver's repetition count is the scenario's choice
 * (normally cfg->reps), so a scenario honours --reps by handing it here. */
#ifndef MC_MEASURE_H
#define MC_MEASURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "result.h"

/* The kernel body: one repetition of thread t (r == 0 is the warm-up).
 * Timed by the driver from its first to its last instruction. */
typedef void (*mc_body_fn)(void *arg, int t, int r);

typedef struct mc_measure {
    const mc_config_t *cfg;
    mc_result_t *res;
    int nthreads;
    int reps;              /* counted repetitions (1..reps); rep 0 is the warm-up */
    bool count;            /* counters around the counted repetitions (default true) */
    /* Optional, run by the master after each repetition, between the end
     * barrier and the next start barrier (e.g. sizing the repetitions
     * from the warm-up's wall_ns[0]). */
    void (*on_rep)(struct mc_measure *m, int r, void *ctx);
    void *on_rep_ctx;
    /* Set by on_rep to run repetition r again (a sample found too short
     * to trust, re-measured after the hook made it longer): wall_ns[r]
     * and thr_ns of r are overwritten, done stays r - 1.  The hook owns
     * the bound on how often it asks. */
    bool redo;
    int redos;             /* repetitions run again, over the driver's life */
    int next;              /* the driver's: the repetition the team runs next */
    /* filled by the driver */
    double *wall_ns;       /* [reps + 1]: start barrier to end barrier */
    double *thr_ns;        /* [(reps + 1) * nthreads]: each thread's own body time */
    int done;              /* last completed repetition: counted ones are 1..done */
    volatile int aborted;  /* the signal flag was seen */
    uint64_t t0;           /* master's start of the current repetition */
} mc_measure_t;

/* ns of repetition r on thread t */
#define MC_THR_NS(m, r, t) ((m)->thr_ns[(size_t)(r) * (size_t)(m)->nthreads + (size_t)(t)])

/* Prepares a driver for cfg->nthreads threads and `reps` counted
 * repetitions (reps >= 1).  0, or -ENOMEM. */
int mc_measure_init(mc_measure_t *m, const mc_config_t *cfg, mc_result_t *res, int reps);
/* The repetition loop; called by every thread of the team with its own
 * thread number t, body and arg. */
void mc_measure_run(mc_measure_t *m, int t, mc_body_fn body, void *arg);
/* After the parallel region: res->complete = false when the run was
 * interrupted before its last repetition.  Returns the counted
 * repetitions (m->done). */
int mc_measure_finish(mc_measure_t *m);
/* Rate samples of the counted repetitions: out[r - 1] = work / wall_ns[r]
 * for r = 1..done (bytes per ns is GB/s).  Returns done.  Statistics
 * (median, min, max, CV) come from mc_metric_samples on these. */
int mc_measure_rates(const mc_measure_t *m, double work, double *out);
void mc_measure_free(mc_measure_t *m);

#endif
