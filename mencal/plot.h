/* plot: a gnuplot PNG of one or more curves, written to an output file
 * (common/outfile.h: a temporary renamed into place, or a device).
 *
 * gnuplot never sees a path or user text: its script, with the data
 * inline as datablocks, comes on stdin from an unnamed tmpfile(); the
 * PNG goes to its stdout, another unnamed tmpfile; its messages go to a
 * third, whose first line becomes the reason when it fails.  Titles are
 * reduced to a safe character set.
 *
 * Drawing and writing are two steps: gnuplot exits 0 when its own write
 * fails (ENOSPC on a full device), so it never writes the output itself.
 * mc_plot_finish() checks the image is a PNG, copies it into the output
 * file and commits it, and tells a chart that could not be drawn (no
 * gnuplot: a note, the result stands) from one that was drawn and could
 * not be written (data lost: the run fails with exit 3). */
#ifndef MC_PLOT_H
#define MC_PLOT_H

#include <signal.h>
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

/* Draws the PNG into *img (an unnamed tmpfile the caller hands to
 * mc_plot_finish).  0; -ENOENT gnuplot is not installed; -ENODATA no
 * finite point; -EIO gnuplot failed or wrote no PNG; why says which
 * (*img is NULL then). */
int mc_plot_png(const mc_plot_t *p, FILE **img, char *why, size_t whylen);

/* The runner under mc_plot_png, for charts with scripts of their own
 * (alloc's two panels): gnuplot reads `script` (written, any position)
 * and draws the PNG into *img.  0, or -errno with why. */
int mc_gnuplot_run(FILE *script, FILE **img, char *why, size_t whylen);

typedef enum {
    MC_PLOT_WRITTEN,     /* the chart is in the output file */
    MC_PLOT_NOT_DRAWN,   /* draw_rc != 0: no chart; the output file is left untouched */
    MC_PLOT_LOST,        /* drawn, but the output file could not be written */
    MC_PLOT_INTERRUPTED, /* a signal came while a FIFO waited for its reader */
} mc_plot_outcome_t;

/* After drawing (draw_rc and img from mc_plot_png or mc_gnuplot_run):
 * copies the image into png and commits it, or aborts png.  Closes img.
 * A deferred FIFO is not opened once *stop is set (the run's signal
 * flag, may be NULL), and a signal interrupts the wait for its reader.
 * why says what failed unless WRITTEN. */
mc_plot_outcome_t mc_plot_finish(int draw_rc, FILE *img, mb_out_t *png,
                                 const volatile sig_atomic_t *stop, char *why, size_t whylen);

struct mc_result;
/* A scenario's --plot after drawing (draw_rc, draw_why and img from
 * mc_plot_png): mc_plot_finish, then a chart not drawn is a note and a
 * warning (the result stands), a lost one fails res (exit 3, the reason
 * named), and one interrupted while its FIFO waited for a reader is a
 * note (the run ends as interrupted).  Returns res->status. */
int mc_plot_conclude(struct mc_result *res, const char *path, int draw_rc, const char *draw_why,
                     FILE *img, mb_out_t *png, const volatile sig_atomic_t *stop);
/* An unnamed temporary file for a script or a log; NULL with *err
 * (-errno) and why when none can be made. */
FILE *mc_plot_tmpfile(int *err, char *why, size_t whylen);

#endif
