/* alloc/plot: --plot FILE.png, a gnuplot chart of the allocator comparison. */
#ifndef MC_ALLOC_PLOT_H
#define MC_ALLOC_PLOT_H

#include <stddef.h>

#include "alloc.h"
#include "outfile.h"

/* gnuplot chart of time and minor faults against block size, written by
 * gnuplot straight into png (opened by the caller with mb_out_open_as();
 * the caller commits or aborts it).  0, or -errno with why (gnuplot
 * missing: -ENOENT). */
int mc_alloc_plot(const mc_alloc_run_t *r, mb_out_t *png, char *why, size_t whylen);


#endif
