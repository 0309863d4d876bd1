/* plot: gnuplot PNGs of curves (contract in plot.h). */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exitcodes.h"
#include "log.h"
#include "plot.h"
#include "result.h"

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

/* Title text gnuplot can take inside double quotes, nothing it expands. */
static const char *safe(const char *s, char *buf, size_t len)
{
    size_t j = 0;
    for (; s && *s && j + 1 < len; s++)
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
            strchr(" :.,_()/+=%-x", *s))
            buf[j++] = *s;
    buf[j] = '\0';
    return buf;
}

/* Data blocks $dK, then the commands; returns how many series had points. */
static int write_script(const mc_plot_t *p, FILE *f)
{
    char a[160], b[160];
    int used[MC_PLOT_MAX_SERIES], nused = 0;
    for (int k = 0; k < p->nseries && k < MC_PLOT_MAX_SERIES; k++) {
        const mc_plot_series_t *s = &p->series[k];
        int rows = 0;
        for (size_t i = 0; i < s->n; i++) {
            if (!isfinite(s->x[i]) || !isfinite(s->y[i]) || (p->logx && s->x[i] <= 0) ||
                (p->logy && s->y[i] <= 0))
                continue;
            if (!rows++)
                fprintf(f, "$d%d << EOD\n", k);
            fprintf(f, "%.9g %.9g\n", s->x[i], s->y[i]);
        }
        if (rows) {
            fputs("EOD\n", f);
            used[nused++] = k;
        }
    }
    fprintf(f, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
               "  set terminal pngcairo size 1100,640 noenhanced\n} else {\n"
               "  set terminal png size 1100,640 noenhanced\n}\nset output\n");
    fprintf(f, "set title \"%s\"\n", safe(p->title, a, sizeof a));
    fprintf(f, "set xlabel \"%s\"\nset ylabel \"%s\"\n", safe(p->xlabel, a, sizeof a),
            safe(p->ylabel, b, sizeof b));
    fprintf(f, "set grid\nset key outside right top\n");
    if (p->logx)
        fprintf(f, "set logscale x 2\n");
    if (p->logy)
        fprintf(f, "set logscale y\n");
    else
        fprintf(f, "set yrange [0:*]\n");
    if (p->x_bytes)
        fprintf(f, "set xtics (\"16K\" 16384, \"64K\" 65536, \"256K\" 262144, \"1M\" 1048576, "
                   "\"4M\" 4194304, \"16M\" 16777216, \"64M\" 67108864, \"256M\" 268435456, "
                   "\"1G\" 1073741824, \"4G\" 4294967296.0, \"16G\" 17179869184.0)\n");
    for (int m = 0; m < p->nmarks && m < MC_PLOT_MAX_MARKS; m++) {
        const mc_plot_mark_t *k = &p->marks[m];
        if (!(k->x > 0))
            continue;
        fprintf(f, "set arrow from %.9g, graph 0 to %.9g, graph 1 nohead dashtype 2 lc rgb "
                   "\"gray40\"\n", k->x, k->x);
        fprintf(f, "set label \"%s\" at %.9g, graph 0.97 right rotate by 90 offset -0.5,0 "
                   "tc rgb \"gray30\"\n", safe(k->label, a, sizeof a), k->x);
    }
    if (nused) {
        fprintf(f, "plot ");
        for (int i = 0; i < nused; i++)
            fprintf(f, "%s$d%d using 1:2 with %s title \"%s\"", i ? ", \\\n     " : "", used[i],
                    p->series[used[i]].points ? "points pt 6 ps 1" : "linespoints lw 2 pt 7 ps 0.8",
                    safe(p->series[used[i]].title, a, sizeof a));
        fputc('\n', f);
    }
    return nused;
}

static void first_line(FILE *log, char *buf, size_t len)
{
    snprintf(buf, len, "no message");
    if (log && fseek(log, 0, SEEK_SET) == 0 && fgets(buf, (int)len, log))
        buf[strcspn(buf, "\n")] = '\0';
}

/* gnuplot < script > img 2> log; 0 or -errno with why. */
static int spawn_gnuplot(const char *gp, FILE *script, FILE *img, FILE *log, char *why,
                         size_t whylen)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(script), 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(img), 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(log), 2);
    char *argv[] = { (char *)gp, NULL };
    pid_t pid;
    int e = posix_spawn(&pid, gp, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        snprintf(why, whylen, "cannot run %s: %s", gp, strerror(e));
        return -e;
    }
    int status = 0, w;
    char first[256];
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;   /* a stop signal: gnuplot still finishes the chart */
    if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        first_line(log, first, sizeof first);
        snprintf(why, whylen, "gnuplot failed: %s", first);
        return -EIO;
    }
    static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    unsigned char head[8];
    if (fseek(img, 0, SEEK_SET) != 0 || fread(head, 1, sizeof head, img) != sizeof head ||
        memcmp(head, magic, sizeof magic) != 0) {
        first_line(log, first, sizeof first);
        snprintf(why, whylen, "gnuplot wrote no PNG image: %s", first);
        return -EIO;
    }
    return 0;
}

FILE *mc_plot_tmpfile(int *err, char *why, size_t whylen)
{
    FILE *f = tmpfile();
    if (!f) {
        *err = -errno;
        snprintf(why, whylen, "cannot create a temporary file: %s; set TMPDIR to a writable "
                 "directory", strerror(-*err));
    }
    return f;
}

int mc_gnuplot_run(FILE *script, FILE **img, char *why, size_t whylen)
{
    char gp[4096];
    *img = NULL;
    if (!find_gnuplot(gp, sizeof gp)) {
        snprintf(why, whylen, "gnuplot not found on PATH; install gnuplot-nox");
        return -ENOENT;
    }
    if (fflush(script) != 0 || ferror(script) || fseek(script, 0, SEEK_SET) != 0) {
        snprintf(why, whylen, "cannot write the gnuplot script: %s", strerror(errno));
        return -EIO;
    }
    int e;
    FILE *log = mc_plot_tmpfile(&e, why, whylen);
    if (!log)
        return e;
    FILE *out = mc_plot_tmpfile(&e, why, whylen);
    int rc = out ? spawn_gnuplot(gp, script, out, log, why, whylen) : e;
    fclose(log);
    if (rc == 0)
        *img = out;
    else if (out)
        fclose(out);
    return rc;
}

int mc_plot_png(const mc_plot_t *p, FILE **img, char *why, size_t whylen)
{
    int e;
    *img = NULL;
    FILE *script = mc_plot_tmpfile(&e, why, whylen);
    if (!script)
        return e;
    int rc;
    if (write_script(p, script) == 0) {
        snprintf(why, whylen, "no measured point to plot");
        rc = -ENODATA;
    } else {
        rc = mc_gnuplot_run(script, img, why, whylen);
    }
    fclose(script);
    return rc;
}

/* The image into the output stream; 0 or -errno with why. */
static int copy_image(FILE *img, mb_out_t *png, const volatile sig_atomic_t *stop, char *why,
                      size_t whylen)
{
    if (png->deferred && stop && *stop)   /* stopped already: never wait for a reader */
        return -EINTR;
    FILE *out;
    int rc = mb_out_stream(png, &out, why, whylen);
    if (rc != 0)
        return rc;
    char buf[65536];
    size_t n;
    errno = 0;
    if (fseek(img, 0, SEEK_SET) != 0)
        return snprintf(why, whylen, "cannot read the drawn image back: %s", strerror(errno)),
               -EIO;
    while ((n = fread(buf, 1, sizeof buf, img)) > 0)
        if (fwrite(buf, 1, n, out) != n) {
            int e = errno ? errno : EIO;
            snprintf(why, whylen, "%s '%s': write failed: %s; check the disk, device or pipe",
                     png->what, png->path, strerror(e));
            return -e;
        }
    if (ferror(img))
        return snprintf(why, whylen, "cannot read the drawn image back"), -EIO;
    return 0;
}

mc_plot_outcome_t mc_plot_finish(int draw_rc, FILE *img, mb_out_t *png,
                                 const volatile sig_atomic_t *stop, char *why, size_t whylen)
{
    if (draw_rc != 0 || !img) {
        if (img)
            fclose(img);
        mb_out_abort(png);
        return MC_PLOT_NOT_DRAWN;
    }
    int rc = copy_image(img, png, stop, why, whylen);
    fclose(img);
    if (rc == 0 && mb_out_commit(png, why, whylen) == 0)
        return MC_PLOT_WRITTEN;
    mb_out_abort(png);
    return rc == -EINTR ? MC_PLOT_INTERRUPTED : MC_PLOT_LOST;
}

int mc_plot_conclude(mc_result_t *res, const char *path, int draw_rc, const char *draw_why,
                     FILE *img, mb_out_t *png, const volatile sig_atomic_t *stop)
{
    char why[512] = "";
    switch (mc_plot_finish(draw_rc, img, png, stop, why, sizeof why)) {
    case MC_PLOT_WRITTEN:
        break;
    case MC_PLOT_NOT_DRAWN:
        mc_result_note(res, "--plot %s: chart not drawn: %s", path, draw_why);
        mb_warn("%s: --plot %s: chart not drawn: %s", res->rec.name, path, draw_why);
        break;
    case MC_PLOT_LOST:
        mc_result_fail(res, MB_EXIT_RESOURCE, "--plot %s: the chart was drawn but not written: "
                       "%s", path, why);
        break;
    case MC_PLOT_INTERRUPTED:
        mc_result_note(res, "--plot %s: not written: interrupted while the FIFO waited for its "
                       "reader", path);
        res->complete = false;
        break;
    }
    return res->status;
}
