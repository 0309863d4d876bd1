/* alloc/plot: --plot FILE.png through memsuite's analyser (contract in
 * alloc/plot.h): the run's JSON result into an unnamed tmpfile, the chart
 * from `memsuite-analyse plot --kind alloc` (mencal/plot.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"      /* alloc/plot.h */
#include "render.h"    /* alloc/render.h */
#include "../plot.h"   /* mencal/plot.h: the analyser runner */

int mc_alloc_plot(const mc_alloc_run_t *r, FILE **img, char *why, size_t whylen)
{
    *img = NULL;
    const mc_alloc_cfg_t *cfg = r->cfg;
    int ok = 0;
    for (int ti = 0; ti < cfg->nthreads; ti++)
        for (int bi = 0; bi < cfg->nblocks; bi++)
            for (int ai = 0; ai < cfg->nalloc; ai++) {
                const mc_cell_t *c = mc_alloc_cell(r, ti, bi, ai);
                ok += c->state == MC_CELL_OK && isfinite(c->st_wall.median);
            }
    if (!ok) {
        snprintf(why, whylen, "no allocator completed a cell: nothing to plot");
        return -ENODATA;
    }
    int rc;
    FILE *doc = mc_plot_tmpfile(&rc, why, whylen);
    if (!doc)
        return rc;
    rc = mc_alloc_render_model(r, NULL, 0, NULL, MB_FMT_JSON, doc);
    if (rc) {
        snprintf(why, whylen, "cannot write the result document for the chart: %s",
                 strerror(rc < 0 ? -rc : rc));
        rc = -EIO;
    } else {
        rc = mc_plot_analyse(doc, "alloc", img, why, whylen);
    }
    fclose(doc);
    return rc;
}
