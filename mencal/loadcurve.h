/* loadcurve: the reading of `loaded`'s curve (what mountain.h is to
 * sweep): how loaded one point was, from the traffic bandwidth of each of
 * its windows, and the point the headline metrics are read at.
 *
 * A traffic point is loaded when its traffic threads moved bytes.  Under
 * CPU contention (more threads than CPUs) they may not run at all while
 * the latency thread chases, and a delay longer than a window leaves
 * windows without a batch: a point whose median bandwidth is 0 is
 * unloaded, its latency no loaded latency, and the headline skips it. */
#ifndef MC_LOADCURVE_H
#define MC_LOADCURVE_H

#include <stddef.h>

typedef enum {
    MC_LOAD_TRAFFIC,    /* every window moved bytes */
    MC_LOAD_PARTIAL,    /* some windows moved none, the median is > 0 */
    MC_LOAD_NONE,       /* the median window moved none: unloaded */
} mc_load_t;

/* The load of a traffic point from its n windows' bandwidths (MB/s);
 * *none gets the windows that moved nothing (0, or not finite). */
mc_load_t mc_load_of(const double *bw, int n, int *none);
/* Its words for the curve's `load` column (under 64 bytes):
 * "traffic", "traffic in K of N windows", "none: no traffic in K of N
 * windows". */
const char *mc_load_text(mc_load_t load, int none, int n, char *buf, size_t len);
/* The busiest point of a curve: rows 0..n-1 of a table of `stride`
 * doubles per row, whose delay column is NaN at the idle point; returns
 * the row with the highest bandwidth > 0 among the traffic points, or -1.
 * *unloaded counts the traffic points whose bandwidth is not > 0. */
long mc_load_busiest(const double *rows, size_t n, size_t stride, int delay_col, int bw_col,
                     int *unloaded);

#endif
