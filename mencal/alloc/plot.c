/* alloc/plot: --plot FILE.png, a gnuplot chart of the allocator
 * comparison: wall time and minor faults against block size, one line
 * per allocator (and thread count).
 *
 * gnuplot never sees a path: its script (data inline, as datablocks) comes
 * on stdin from an unnamed tmpfile(), the PNG goes to its stdout, which is
 * the caller's output file (common/outfile.h: a temporary renamed into
 * place, or a device written in place), and its messages go to another
 * unnamed tmpfile().  Nothing is left behind on any exit. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plot.h"

extern char **environ;

static bool find_gnuplot(char *path, size_t pathlen)
{
    const char *env = getenv("PATH");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", env ? env : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, pathlen, "%s/gnuplot", *d ? d : ".");
        if (access(path, X_OK) == 0)
            return true;
    }
    return false;
}

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

/* gnuplot's first message line, or "no message". */
static void first_line(FILE *log, char *buf, size_t len)
{
    snprintf(buf, len, "no message");
    if (log && fseek(log, 0, SEEK_SET) == 0 && fgets(buf, (int)len, log))
        buf[strcspn(buf, "\n")] = '\0';
}

int mc_alloc_plot(const mc_alloc_run_t *r, mb_out_t *png, char *why, size_t whylen)
{
    char gp[4096];
    if (!find_gnuplot(gp, sizeof gp)) {
        snprintf(why, whylen, "gnuplot not found on PATH; install gnuplot-nox");
        return -ENOENT;
    }
    int out = mb_out_fd(png);
    if (out < 0) {
        snprintf(why, whylen, "internal: the plot file is not open");
        return -EBADF;
    }
    char titles[MC_ALLOC_MAX_LIST * MC_ALLOC_MAX_ALLOCATORS][64];
    FILE *script = tmpfile(), *log = tmpfile();
    int rc = 0;
    if (!script || !log) {
        snprintf(why, whylen, "cannot create a temporary file: %s; set TMPDIR to a writable "
                 "directory", strerror(errno));
        rc = -errno;
    } else {
        int n = write_data(r, script, titles, (int)(sizeof titles / sizeof titles[0]));
        write_script(script, titles, n, r->cfg);
        if (fflush(script) != 0 || ferror(script) || fseek(script, 0, SEEK_SET) != 0) {
            snprintf(why, whylen, "cannot write the gnuplot script: %s", strerror(errno));
            rc = -EIO;
        } else if (n == 0) {
            snprintf(why, whylen, "no allocator completed a cell: nothing to plot");
            rc = -ENODATA;
        }
    }
    if (!rc) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fileno(script), 0);
        posix_spawn_file_actions_adddup2(&fa, out, 1);
        posix_spawn_file_actions_adddup2(&fa, fileno(log), 2);
        char *argv[] = { gp, NULL };
        pid_t pid;
        int e = posix_spawn(&pid, gp, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        int status = 0;
        if (e) {
            snprintf(why, whylen, "cannot run %s: %s", gp, strerror(e));
            rc = -e;
        } else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
                   WEXITSTATUS(status) != 0) {
            char first[256];
            first_line(log, first, sizeof first);
            snprintf(why, whylen, "gnuplot failed: %s", first);
            rc = -EIO;
        } else {
            struct stat st;
            if (fstat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0) {
                char first[256];
                first_line(log, first, sizeof first);
                snprintf(why, whylen, "gnuplot wrote no image: %s", first);
                rc = -EIO;
            }
        }
    }
    if (script)
        fclose(script);
    if (log)
        fclose(log);
    return rc;
}
