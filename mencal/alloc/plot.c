/* alloc/plot: --plot FILE.png, a gnuplot chart of the allocator
 * comparison: wall time and minor faults against block size, one line
 * per allocator (and thread count).
 *
 * The script (data inline, as datablocks) goes to gnuplot through
 * mencal/plot.c's runner: no path reaches gnuplot, the PNG goes to the
 * caller's output file, nothing is left behind on any exit. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plot.h"      /* alloc/plot.h */
#include "../plot.h"   /* mencal/plot.h: the gnuplot runner */

/* Data: one datablock $dN per (threads, allocator) with a completed cell,
 * rows "block_bytes wall_s minflt".  Returns how many were written. */
static int write_data(const mc_alloc_run_t *r, FILE *f, char titles[][64], int max)
{
    const mc_alloc_cfg_t *cfg = r->cfg;
    int n = 0;
    for (int ti = 0; ti < cfg->nthreads; ti++)
        for (int ai = 0; ai < cfg->nalloc && n < max; ai++) {
            int rows = 0;
            for (int bi = 0; bi < cfg->nblocks; bi++) {
                const mc_cell_t *c = mc_alloc_cell(r, ti, bi, ai);
                if (c->state != MC_CELL_OK || !isfinite(c->st_wall.median))
                    continue;
                if (!rows++)
                    fprintf(f, "$d%d << EOD\n", n);
                fprintf(f, "%zu %.9g %.9g\n", c->block_bytes, c->st_wall.median,
                        c->st_minflt.median);
            }
            if (!rows)
                continue;
            fputs("EOD\n", f);
            snprintf(titles[n++], 64, "%s, %d thr", mc_allocator_at((size_t)cfg->alloc[ai])->name,
                     cfg->threads_list[ti]);
        }
    return n;
}

/* The commands after the data; "set output" with no name is stdout. */
static void write_script(FILE *f, char titles[][64], int n, const mc_alloc_cfg_t *cfg)
{
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size 1280,520\n} else {\n"
               "  set terminal png size 1280,520\n}\n");
    fprintf(f, "set output\n");
    fprintf(f, "set multiplot layout 1,2 title \"mencal alloc (%s, %zu blocks per thread)\"\n",
            cfg->nofree ? "--nofree" : "free", cfg->blocks_per_thread);
    fprintf(f, "set logscale x 2\nset xlabel \"block size\"\nset format y \"%%g\"\n"
               "set grid\nset key top left\nset xtics (");
    for (int i = 0; i < cfg->nblocks; i++) {
        char name[32];
        fprintf(f, "%s\"%s\" %zu", i ? ", " : "",
                mc_alloc_size_name(cfg->block_list[i], name, sizeof name), cfg->block_list[i]);
    }
    fprintf(f, ")\n");
    for (int panel = 0; panel < 2; panel++) {
        fprintf(f, panel ? "set ylabel \"minor page faults\"\nset logscale y\n"
                         : "set ylabel \"wall time (s)\"\nset logscale y\n");
        fprintf(f, "plot ");
        for (int i = 0; i < n; i++)
            fprintf(f, "%s$d%d using 1:%d with linespoints title \"%s\"",
                    i ? ", \\\n     " : "", i, panel ? 3 : 2, titles[i]);
        fputc('\n', f);
    }
    fprintf(f, "unset multiplot\n");
}

int mc_alloc_plot(const mc_alloc_run_t *r, FILE **img, char *why, size_t whylen)
{
    *img = NULL;
    char titles[MC_ALLOC_MAX_LIST * MC_ALLOC_MAX_ALLOCATORS][64];
    int rc;
    FILE *script = mc_plot_tmpfile(&rc, why, whylen);
    if (!script)
        return rc;
    int n = write_data(r, script, titles, (int)(sizeof titles / sizeof titles[0]));
    write_script(script, titles, n, r->cfg);
    if (n == 0) {
        snprintf(why, whylen, "no allocator completed a cell: nothing to plot");
        rc = -ENODATA;
    } else {
        rc = mc_gnuplot_run(script, img, why, whylen);
    }
    fclose(script);
    return rc;
}
