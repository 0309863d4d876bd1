/* measure: the timed repetitions of a scenario (see measure.h). */
#include <errno.h>
#include <stdlib.h>

#include "measure.h"
#include "timer.h"

int mc_measure_init(mc_measure_t *m, const mc_config_t *cfg, mc_result_t *res, int reps)
{
    *m = (mc_measure_t){ .cfg = cfg, .res = res, .nthreads = cfg->nthreads, .reps = reps,
                         .count = true };
    const size_t nr = (size_t)reps + 1;
    m->wall_ns = calloc(nr, sizeof *m->wall_ns);
    m->thr_ns = calloc(nr * (size_t)m->nthreads, sizeof *m->thr_ns);
    if (m->wall_ns && m->thr_ns)
        return 0;
    mc_measure_free(m);
    return -ENOMEM;
}

void mc_measure_free(mc_measure_t *m)
{
    free(m->wall_ns), free(m->thr_ns);
    m->wall_ns = m->thr_ns = NULL;
}

void mc_measure_run(mc_measure_t *m, int t, mc_body_fn body, void *arg)
{
    bool counting = false;   /* the master's: counters begun */
    bool joined = false;     /* this thread's event set joined */
#pragma omp master
    {
        m->next = 0;         /* r == 0: warm-up */
        m->redo = false;
    }
    for (;;) {
#pragma omp barrier
        const int r = m->next;   /* written by the master only after the next barrier */
        if (m->aborted || r > m->reps)
            break;
        if (r == 1 && m->count && !joined) {   /* the same on every thread */
            mc_counters_join(m->cfg, t);      /* each thread's own event set, before begin */
            joined = true;
#pragma omp barrier
        }
#pragma omp master
        {
            if (r == 1 && m->count && !counting) {
                mc_counters_begin(m->res, m->cfg);
                counting = true;
            }
            m->t0 = mb_now_ns();
        }
#pragma omp barrier
        uint64_t a = mb_now_ns();
        body(arg, t, r);
        MC_THR_NS(m, r, t) = (double)(mb_now_ns() - a);
#pragma omp barrier
#pragma omp master
        {
            m->wall_ns[r] = (double)(mb_now_ns() - m->t0);
            m->redo = false;
            if (m->on_rep)
                m->on_rep(m, r, m->on_rep_ctx);
            if (m->redo)
                m->redos++;
            else
                m->done = r;
            m->next = m->redo ? r : r + 1;
            if (*m->cfg->stop)
                m->aborted = 1;
        }
    }
#pragma omp master
    if (counting)
        mc_counters_end(m->res, m->cfg);
}

int mc_measure_finish(mc_measure_t *m)
{
    if (m->aborted && m->done < m->reps)
        m->res->complete = false;
    return m->done;
}

int mc_measure_rates(const mc_measure_t *m, double work, double *out)
{
    for (int r = 1; r <= m->done; r++)
        out[r - 1] = work / m->wall_ns[r];
    return m->done;
}
