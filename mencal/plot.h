/* plot: a scenario's chart (mencal run loaded|sweep|alloc --plot FILE),
 * drawn by memsuite's analyser and written to an output file
 * (common/outfile.h: a temporary renamed into place, or a device).
 *
 * mencal draws nothing itself: the result document (JSON, the same one
 * -O writes, of the one scenario) goes on the stdin of
 *   PYTHON memsuite-analyse plot --result - --out - [--kind KIND]
 * from an unnamed tmpfile(); the PNG comes back on its stdout, another
 * unnamed tmpfile; its messages go to a third, whose first line becomes
 * the reason when it fails.  No path and no user text reach its command
 * line.  The analyser is MEMSUITE_ANALYSE when set, else found next to
 * the binary: BINDIR/../scripts/analysis/memsuite-analyse in the source
 * tree (BINDIR/../../scripts/... for a build tree's BUILD/bin there, as
 * build-arm64/bin), BINDIR/../share/memsuite/analysis/memsuite-analyse
 * installed;
 * PYTHON is MEMSUITE_PYTHON, else /usr/bin/python3, else python3 on PATH
 * (scripts/lib/analysis.sh's rule).
 *
 * Drawing and writing are two steps: mc_plot_finish() checks the image
 * is a PNG, copies it into the output file and commits it, and tells a
 * chart that could not be drawn (no python3, no matplotlib, no analyser:
 * a note, the result stands) from one that was drawn and could not be
 * written (data lost: the run fails with exit 3).  A FIFO target is
 * opened only when the chart is written, never before measuring. */
#ifndef MC_PLOT_H
#define MC_PLOT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "outfile.h"

struct mc_config;
struct mc_result;

/* The analyser draws the chart of the result document in `doc` (written,
 * any position) into *img (an unnamed tmpfile the caller hands to
 * mc_plot_finish); kind is the analyser's --kind or NULL.  0; -ENOENT
 * python3, the analyser or matplotlib is missing; -ENODATA no measured
 * point; -EIO the analyser failed or wrote no PNG; why says which (*img
 * is NULL then). */
int mc_plot_analyse(FILE *doc, const char *kind, FILE **img, char *why, size_t whylen);

/* mc_plot_analyse over one scenario's result as mencal renders it in
 * JSON (render.c), whatever --format says. */
int mc_plot_result(const struct mc_config *cfg, struct mc_result *res, const char *kind,
                   FILE **img, char *why, size_t whylen);

typedef enum {
    MC_PLOT_WRITTEN,     /* the chart is in the output file */
    MC_PLOT_NOT_DRAWN,   /* draw_rc != 0: no chart; the output file is left untouched */
    MC_PLOT_LOST,        /* drawn, but the output file could not be written */
} mc_plot_outcome_t;

/* After drawing (draw_rc and img from mc_plot_analyse or mc_plot_result):
 * copies the image into png and commits it, or aborts png.  Closes img.
 * why says what failed unless WRITTEN. */
mc_plot_outcome_t mc_plot_finish(int draw_rc, FILE *img, mb_out_t *png, char *why, size_t whylen);

/* A scenario's --plot: mc_plot_result, mc_plot_finish, then a chart not
 * drawn is a note and a warning (the result stands), a lost one fails res
 * (exit 3, the reason named).  Returns res->status. */
int mc_plot_scenario(const struct mc_config *cfg, struct mc_result *res, const char *path,
                     const char *kind, mb_out_t *png);
/* An unnamed temporary file for a document, an image or a log; NULL with
 * *err (-errno) and why when none can be made. */
FILE *mc_plot_tmpfile(int *err, char *why, size_t whylen);

#endif
