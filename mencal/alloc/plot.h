/* alloc/plot: --plot FILE.png, a gnuplot chart of the allocator comparison. */
#ifndef MC_ALLOC_PLOT_H
#define MC_ALLOC_PLOT_H

#include <stddef.h>

#include "alloc.h"
#include "outfile.h"

/* gnuplot chart of time and minor faults against block size, drawn into
 * *img (mencal/plot.h: the caller hands it to mc_plot_finish with the
 * output file).  0, or -errno with why (gnuplot missing: -ENOENT). */
int mc_alloc_plot(const mc_alloc_run_t *r, FILE **img, char *why, size_t whylen);


#endif
