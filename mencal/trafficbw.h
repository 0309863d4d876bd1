/* trafficbw: the bandwidth of one traffic kernel (traffic.h) at one size
 * on a thread team, every sample long enough to trust.
 *
 * Each thread runs the kernel over its own slice of the buffer (first
 * touched by that thread).  The uncounted warm-up times single passes
 * (doubling until ~1 ms) to size a sample: enough passes for at least
 * MC_TBW_MIN_SAMPLE_NS and 20 ticks of the clock.  Every sample is then
 * checked: one shorter than that is thrown away and the passes doubled,
 * so a figure never comes from a sample the clock cannot resolve.
 * Bytes are STREAM counting (traffic.h); the figure with the
 * write-allocate reads added comes beside it. */
#ifndef MC_TRAFFICBW_H
#define MC_TRAFFICBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "result.h"
#include "traffic.h"

#define MC_TBW_MIN_SAMPLE_NS 10e6   /* 10 ms */

typedef struct {
    int samples;              /* kept samples (each >= the minimum) */
    int short_samples;        /* thrown away as too short */
    uint64_t passes;          /* per sample, of the last kept one */
    double median, min, max, cv;   /* GB/s, STREAM counting, over the kept samples */
    double median_rfo;        /* GB/s with the write-allocate reads (bytes written) added */
    double shortest_ns;       /* the shortest kept sample */
    bool interrupted;
} mc_tbw_t;

/* reps samples of spec on cfg1's team (cfg1->nthreads threads on
 * cfg1->cpu[]) over bytes of buf (64-byte aligned; each thread a slice on
 * its own pages).  0, or an exit code with res failed. */
int mc_traffic_bandwidth(const mc_config_t *cfg1, const mc_traffic_spec_t *spec, void *buf,
                         size_t bytes, int reps, mc_result_t *res, mc_tbw_t *out);

#endif
