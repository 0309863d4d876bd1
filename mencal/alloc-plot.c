/* alloc-plot: --plot FILE.png, a gnuplot chart of the allocator
 * comparison: wall time and minor faults against block size, one line
 * per allocator (and thread count).  The PNG is written beside the target
 * and renamed into place, like every result file. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc.h"

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

static void remove_dir(const char *dir, const char *const *files, size_t n)
{
    char p[4200];
    for (size_t i = 0; i < n; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* Data: one gnuplot index per (threads, allocator) with a completed cell:
 * block_bytes wall_s minflt.  Returns how many series were written. */
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
                fprintf(f, "%zu %.9g %.9g\n", c->block_bytes, c->st_wall.median,
                        c->st_minflt.median);
                rows++;
            }
            if (!rows)
                continue;
            fputs("\n\n", f);
            snprintf(titles[n++], 64, "%s, %d thr", mc_allocator_at((size_t)cfg->alloc[ai])->name,
                     cfg->threads_list[ti]);
        }
    return n;
}

static void write_script(FILE *f, const char *data, const char *png, char titles[][64], int n,
                         const mc_alloc_cfg_t *cfg)
{
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size 1280,520\n} else {\n"
               "  set terminal png size 1280,520\n}\n");
    fprintf(f, "set output \"%s\"\n", png);
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
            fprintf(f, "%s\"%s\" index %d using 1:%d with linespoints title \"%s\"",
                    i ? ", \\\n     " : "", data, i, panel ? 3 : 2, titles[i]);
        fputc('\n', f);
    }
    fprintf(f, "unset multiplot\n");
}

int mc_alloc_plot(const mc_alloc_run_t *r, const char *png, char *why, size_t whylen)
{
    char gp[4096];
    if (!find_gnuplot(gp, sizeof gp)) {
        snprintf(why, whylen, "gnuplot not found on PATH; install gnuplot-nox");
        return -ENOENT;
    }
    if (strpbrk(png, "\"\\\n")) {
        snprintf(why, whylen, "the file name holds a quote, backslash or newline; choose "
                 "another name");
        return -EINVAL;
    }
    const char *tmpdir = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/mencal-plot.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(dir)) {
        snprintf(why, whylen, "cannot create a temporary directory %s: %s", dir, strerror(errno));
        return -errno;
    }
    static const char *const files[] = { "data", "script.gp", "gnuplot.log" };
    char data[4200], script[4200], log[4200], tmp_png[4200];
    snprintf(data, sizeof data, "%s/data", dir);
    snprintf(script, sizeof script, "%s/script.gp", dir);
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    snprintf(tmp_png, sizeof tmp_png, "%s.tmp.%d", png, (int)getpid());
    char titles[MC_ALLOC_MAX_LIST * MC_ALLOC_MAX_ALLOCATORS][64];
    int rc = 0, n = 0;
    FILE *fd = fopen(data, "w"), *fs = fopen(script, "w");
    if (!fd || !fs) {
        snprintf(why, whylen, "cannot write in %s: %s", dir, strerror(errno));
        rc = -errno;
    } else {
        n = write_data(r, fd, titles, (int)(sizeof titles / sizeof titles[0]));
        write_script(fs, data, tmp_png, titles, n, r->cfg);
    }
    if (fd && fclose(fd) != 0 && !rc)
        rc = -EIO;
    if (fs && fclose(fs) != 0 && !rc)
        rc = -EIO;
    if (!rc && n == 0) {
        snprintf(why, whylen, "no allocator completed a cell: nothing to plot");
        rc = -ENODATA;
    }
    if (!rc) {
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
        char *argv[] = { gp, script, NULL };
        pid_t pid;
        int e = posix_spawn(&pid, gp, &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        int status = 0;
        if (e) {
            snprintf(why, whylen, "cannot run %s: %s", gp, strerror(e));
            rc = -e;
        } else if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
                   WEXITSTATUS(status) != 0 || access(tmp_png, F_OK) != 0) {
            char first[256] = "no message";
            FILE *l = fopen(log, "r");
            if (l) {
                if (fgets(first, sizeof first, l))
                    first[strcspn(first, "\n")] = '\0';
                fclose(l);
            }
            snprintf(why, whylen, "gnuplot failed: %s", first);
            rc = -EIO;
        } else if (rename(tmp_png, png) != 0) {
            snprintf(why, whylen, "cannot rename %s to %s: %s", tmp_png, png, strerror(errno));
            rc = -errno;
        }
    }
    if (rc)
        unlink(tmp_png);
    remove_dir(dir, files, sizeof files / sizeof files[0]);
    return rc;
}
