/* plot: a gnuplot PNG of one or more curves, written to an output file
 * (common/outfile.h: a temporary renamed into place, or a device).
 *
 * gnuplot never sees a path or user text: its script, with the data
 * inline as datablocks, comes on stdin from an unnamed tmpfile(); the
 * PNG goes to its stdout, which is the output file's descriptor; its
 * messages go to another unnamed tmpfile, whose first line becomes the
 * reason when it fails.  Titles are reduced to a safe character set. */
#ifndef MC_PLOT_H
#define MC_PLOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "outfile.h"

#define MC_PLOT_MAX_SERIES 16
#define MC_PLOT_MAX_MARKS 4

typedef struct {
    const char *title;
    size_t n;
    const double *x, *y;     /* n points; non-finite ones are left out */
    bool points;             /* points only, no line (a noisy companion series) */
} mc_plot_series_t;

typedef struct {
    const char *label;       /* "L1d 48 KiB" */
    double x;                /* a vertical line at x */
} mc_plot_mark_t;

typedef struct {
    const char *title, *xlabel, *ylabel;
    bool logx, logy;
    bool x_bytes;            /* x is a size in bytes: tics 16K, 1M, 1G */
    int nseries;
    mc_plot_series_t series[MC_PLOT_MAX_SERIES];
    int nmarks;
    mc_plot_mark_t marks[MC_PLOT_MAX_MARKS];
} mc_plot_t;

/* Writes the PNG.  0; -ENOENT gnuplot is not installed; -ENODATA no
 * finite point; -EIO gnuplot failed or wrote nothing; why says which. */
int mc_plot_png(const mc_plot_t *p, mb_out_t *png, char *why, size_t whylen);

/* The runner under mc_plot_png, for charts with scripts of their own
 * (alloc's two panels): gnuplot reads `script` (written, any position)
 * and writes the PNG to png's descriptor.  0, or -errno with why. */
int mc_gnuplot_run(FILE *script, mb_out_t *png, char *why, size_t whylen);
/* An unnamed temporary file for a script or a log; NULL with *err
 * (-errno) and why when none can be made. */
FILE *mc_plot_tmpfile(int *err, char *why, size_t whylen);

#endif
