/* trafficbw: one traffic kernel's bandwidth at one size (see trafficbw.h). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "exitcodes.h"
#include "team.h"
#include "timer.h"
#include "trafficbw.h"

#define CAL_NS 1e6          /* the warm-up doubles passes until this long */
#define MIN_TICKS 20        /* a sample lasts at least this many clock ticks */
#define MAX_TRIES_FACTOR 4  /* at most reps x this many samples in all */

typedef struct {
    mc_traffic_t *tr;       /* [threads] */
    double *pass_ns;        /* [threads]: one pass in the warm-up */
    uint64_t passes;        /* per sample (the master changes it between samples only) */
} team_t;

static uint64_t passes_for(double pass_ns, double min_ns)
{
    double p = pass_ns > 0 ? ceil(min_ns / pass_ns) : 1;
    return p < 1 ? 1 : p > 1e12 ? (uint64_t)1e12 : (uint64_t)p;
}

int mc_traffic_bandwidth(const mc_config_t *cfg1, const mc_traffic_spec_t *spec, void *buf,
                         size_t bytes, int reps, mc_result_t *res, mc_tbw_t *out)
{
    const int th = cfg1->nthreads, tries = reps * MAX_TRIES_FACTOR;
    const size_t share = bytes / (size_t)th & ~(size_t)4095;   /* own pages per thread */
    double min_ns = MC_TBW_MIN_SAMPLE_NS, tick = (double)mb_timer_granularity_ns(20);
    if (MIN_TICKS * tick > min_ns)
        min_ns = MIN_TICKS * tick;
    memset(out, 0, sizeof *out);
    out->median = out->min = out->max = out->cv = out->median_rfo = out->shortest_ns = NAN;
    if (share < (size_t)spec->k->arrays * 2 * MC_LINE_BYTES)
        return mc_result_fail(res, MB_EXIT_USAGE, "%zu bytes over %d threads leave under two lines "
                              "per array for each; pass a larger --size", bytes, th);
    team_t T = { calloc((size_t)th, sizeof *T.tr), calloc((size_t)th, sizeof *T.pass_ns), 1 };
    double *gbps = calloc((size_t)tries, sizeof *gbps), *rfo = calloc((size_t)tries, sizeof *rfo);
    if (!T.tr || !T.pass_ns || !gbps || !rfo) {
        free(T.tr), free(T.pass_ns), free(gbps), free(rfo);
        return mc_result_fail(res, MB_EXIT_RESOURCE, "out of memory for the timing arrays");
    }
    uint64_t t0 = 0;
    volatile bool stop = false;
#pragma omp parallel num_threads(th)
    {
        const int t = omp_get_thread_num();
        mc_traffic_t *tr = &T.tr[t];
        mc_pin_self(cfg1->cpu[t]);
        mc_traffic_init(tr, spec, (char *)buf + (size_t)t * share, share, cfg1->random_state,
                        (uint64_t)t);
        /* warm-up: caches and TLB, then one pass timed */
        mc_traffic_passes(tr, 1);
        for (uint64_t n = 1;; n *= 2) {
            uint64_t a = mb_now_ns();
            mc_traffic_passes(tr, n);
            double dt = (double)(mb_now_ns() - a);
            if (dt >= CAL_NS || n >= (1ULL << 40)) {
                T.pass_ns[t] = dt / (double)n;
                break;
            }
        }
#pragma omp barrier
#pragma omp master
        {
            double slow = 0;
            for (int k = 0; k < th; k++)
                slow = fmax(slow, T.pass_ns[k]);
            T.passes = passes_for(slow, min_ns);
        }
        for (int s = 0; s < tries; s++) {
            uint64_t before_s = 0, before_w = 0;
#pragma omp barrier
            if (stop || out->samples >= reps)
                break;
            before_s = tr->stream_bytes, before_w = tr->written_bytes;
#pragma omp barrier
#pragma omp master
            t0 = mb_now_ns();
#pragma omp barrier
            mc_traffic_passes(tr, T.passes);
            tr->stream_bytes -= before_s;       /* this sample's bytes, summed by the master */
            tr->written_bytes -= before_w;
#pragma omp barrier
#pragma omp master
            {
                double ns = (double)(mb_now_ns() - t0), sb = 0, wb = 0;
                for (int k = 0; k < th; k++) {
                    sb += (double)T.tr[k].stream_bytes, wb += (double)T.tr[k].written_bytes;
                    T.tr[k].stream_bytes = T.tr[k].written_bytes = 0;
                }
                if (ns < min_ns) {               /* too short to trust: longer samples */
                    out->short_samples++;
                    T.passes *= 2;
                } else {
                    gbps[out->samples] = sb / ns;
                    rfo[out->samples] = (sb + wb) / ns;
                    out->shortest_ns = out->samples ? fmin(out->shortest_ns, ns) : ns;
                    out->passes = T.passes;
                    out->samples++;
                }
                stop = cfg1->stop && *cfg1->stop;
            }
        }
    }
    mc_restore_mask(cfg1);
    out->interrupted = stop && out->samples < reps;
    mb_stats_t st;
    if (out->samples > 0 && mb_stats_compute(gbps, (size_t)out->samples, 0, &st) == 0) {
        out->median = st.median, out->min = st.min, out->max = st.max;
        out->cv = out->samples >= 2 ? st.cv : NAN;
        out->median_rfo = mb_median(rfo, (size_t)out->samples);
    }
    free(T.tr), free(T.pass_ns), free(gbps), free(rfo);
    return 0;
}
