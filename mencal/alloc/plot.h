/* alloc/plot: --plot FILE.png, the allocator comparison's chart (wall time
 * and minor faults against block size), drawn by memsuite's analyser. */
#ifndef MC_ALLOC_PLOT_H
#define MC_ALLOC_PLOT_H

#include <stddef.h>
#include <stdio.h>

#include "alloc.h"

/* The run's result document (render.c's JSON) handed to the analyser
 * (mencal/plot.h: mc_plot_analyse, kind alloc); the chart is drawn into
 * *img, which the caller hands to mc_plot_finish with the output file.
 * 0, or -errno with why (python3, the analyser or matplotlib missing:
 * -ENOENT; nothing completed: -ENODATA). */
int mc_alloc_plot(const mc_alloc_run_t *r, FILE **img, char *why, size_t whylen);

#endif
