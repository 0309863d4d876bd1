/* mountain: the plan and the reading of `sweep`, the memory mountain
 * (bandwidth against working set).
 *
 * Sizes are total working sets: every array of the kernel, every thread
 * (so `sweep` at 128 MiB compares with `seqread --size 128MiB`).  A
 * thread's share is size / threads; the private caches (L1d, L2) hold a
 * thread's share, the LLC holds the total.
 *
 * Plateaus: each level's figure is the median bandwidth of the points
 * that sit well inside it, away from the edges where two levels mix:
 *   L1    L1d / 8 <= share <= L1d / 2 (below, a pass is too short at
 *         many threads: 16 KiB over 16 threads read half the rate)
 *   L2    2 x L1d <= share <= L2 / 2
 *   L3    share >= 2 x L2  and  total <= LLC / 2   (only when the LLC is
 *         a level above L2)
 *   DRAM  total >= 4 x LLC (the size rule)
 * A level with no such point, or whose cache size is unknown, has no
 * figure and says why. */
#ifndef MC_MOUNTAIN_H
#define MC_MOUNTAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define MC_MOUNTAIN_MIN_BYTES 16384   /* the first point: 16 KiB */
#define MC_MOUNTAIN_MAX_POINTS 128

/* The sizes from 16 KiB to top: each power of two and the midpoint
 * (1.5 x) before the next, then top itself when it is neither.  Returns
 * the count (0 when top < 16 KiB); at most cap are written. */
size_t mc_mountain_sizes(size_t top, size_t *sizes, size_t cap);
/* The default top: the smallest power of two >= 4 x LLC, doubled (so the
 * DRAM plateau has three points: 4x, 6x and 8x LLC at least), or 1 GiB
 * when the LLC is unknown; `how` says which. */
size_t mc_mountain_default_top(const mc_caches_t *c, char *how, size_t howlen);

/* Sample sizing.  A sample repeats whole passes and must last at least
 * min_ns (10 ms and 20 clock ticks in sweep); MC_MOUNTAIN_SIZE_MARGIN
 * over it so that timing jitter rarely forces a second try. */
#define MC_MOUNTAIN_SIZE_MARGIN 1.1
#define MC_MOUNTAIN_MAX_PASSES ((uint64_t)1e12)
/* The passes of a sample when one pass takes pass_ns (0: unknown, 1 pass). */
uint64_t mc_mountain_sample_passes(double pass_ns, double min_ns);
/* The check after a sample of `passes` passes that lasted ns: 0 when it
 * lasted at least min_ns (accepted), else the passes for the next try:
 * scaled by the shortfall (with the margin), at least doubled, at most
 * MC_MOUNTAIN_MAX_PASSES; 0 as well when passes is already that cap
 * (nothing longer to try: the caller sees the sample is still short). */
uint64_t mc_mountain_retry_passes(uint64_t passes, double ns, double min_ns);

typedef enum { MC_PL_L1, MC_PL_L2, MC_PL_L3, MC_PL_DRAM, MC_PLATEAUS } mc_plateau_id_t;

typedef struct {
    const char *name;       /* "L1", "L2", "L3", "DRAM" */
    bool ok;
    double gbps;            /* median of the points in the region */
    size_t from_bytes, to_bytes;   /* the smallest and largest size used */
    int points;
    char why[200];          /* when !ok */
} mc_plateau_t;

/* Reads the four plateaus of one curve: n points (sizes ascending,
 * bandwidth in GB/s, NaN for a point not measured) at `threads` threads. */
void mc_mountain_plateaus(const mc_caches_t *c, int threads, const size_t *sizes,
                          const double *gbps, size_t n, mc_plateau_t out[MC_PLATEAUS]);

#endif
