/* plot: a scenario's chart drawn by memsuite's analyser (contract in plot.h). */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "exitcodes.h"
#include "log.h"
#include "plot.h"
#include "render.h"
#include "result.h"
#include "scenario.h"

extern char **environ;

/* The interpreter: MEMSUITE_PYTHON, else /usr/bin/python3, else python3
 * on PATH (scripts/lib/analysis.sh's ms_python). */
static bool find_python(char *path, size_t pathlen)
{
    const char *env = getenv("MEMSUITE_PYTHON");
    if (env && *env) {
        snprintf(path, pathlen, "%s", env);
        if (strchr(env, '/'))
            return access(path, X_OK) == 0;
    } else if (access("/usr/bin/python3", X_OK) == 0) {
        snprintf(path, pathlen, "/usr/bin/python3");
        return true;
    }
    const char *name = env && *env ? env : "python3";
    const char *p = getenv("PATH");
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", p ? p : "/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(path, pathlen, "%s/%s", *d ? d : ".", name);
        if (access(path, X_OK) == 0)
            return true;
    }
    return false;
}

/* memsuite-analyse: MEMSUITE_ANALYSE, else beside the binary: the source
 * tree's bin/, a build tree's BUILD/bin/ inside the source tree
 * (build-arm64/bin, build-sanitize/bin), then installed. */
static bool find_analyser(char *path, size_t pathlen)
{
    const char *env = getenv("MEMSUITE_ANALYSE");
    if (env && *env) {
        snprintf(path, pathlen, "%s", env);
        return access(path, R_OK) == 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return false;
    exe[n] = '\0';
    const char *dir = dirname(exe);
    static const char *const rel[] = { "../scripts/analysis/memsuite-analyse",
                                       "../../scripts/analysis/memsuite-analyse",
                                       "../share/memsuite/analysis/memsuite-analyse" };
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        snprintf(path, pathlen, "%s/%s", dir, rel[i]);
        if (access(path, R_OK) == 0)
            return true;
    }
    return false;
}

static void first_line(FILE *log, char *buf, size_t len)
{
    snprintf(buf, len, "no message");
    if (log && fseek(log, 0, SEEK_SET) == 0 && fgets(buf, (int)len, log))
        buf[strcspn(buf, "\n")] = '\0';
    const char *pre = "memsuite-analyse plot: ";   /* the reason, without the program */
    if (strncmp(buf, pre, strlen(pre)) == 0)
        memmove(buf, buf + strlen(pre), strlen(buf + strlen(pre)) + 1);
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

/* python analyser plot --result - --out - [--kind K] < doc > img 2> log */
static int spawn_analyser(const char *py, const char *an, const char *kind, FILE *doc, FILE *img,
                          FILE *log, char *why, size_t whylen)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fileno(doc), 0);
    posix_spawn_file_actions_adddup2(&fa, fileno(img), 1);
    posix_spawn_file_actions_adddup2(&fa, fileno(log), 2);
    char *argv[] = { (char *)py, (char *)an, "plot", "--result", "-", "--out", "-",
                     kind ? "--kind" : NULL, (char *)kind, NULL };
    pid_t pid;
    int e = posix_spawn(&pid, py, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        snprintf(why, whylen, "cannot run %s: %s", py, strerror(e));
        return -ENOENT;
    }
    int status = 0, w;
    char first[256];
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;   /* a stop signal: the analyser still finishes the chart */
    if (w < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        first_line(log, first, sizeof first);
        int code = w >= 0 && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        snprintf(why, whylen, "%s%s", code == MB_EXIT_UNBUILT ? "" : "the analyser failed: ",
                 first);
        return code == MB_EXIT_UNBUILT ? -ENOENT : code == MB_EXIT_FAIL ? -ENODATA : -EIO;
    }
    static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    unsigned char head[8];
    if (fseek(img, 0, SEEK_SET) != 0 || fread(head, 1, sizeof head, img) != sizeof head ||
        memcmp(head, magic, sizeof magic) != 0) {
        first_line(log, first, sizeof first);
        snprintf(why, whylen, "the analyser wrote no PNG image: %s", first);
        return -EIO;
    }
    return 0;
}

int mc_plot_analyse(FILE *doc, const char *kind, FILE **img, char *why, size_t whylen)
{
    char py[4096], an[PATH_MAX + 64];
    *img = NULL;
    if (!find_python(py, sizeof py)) {
        snprintf(why, whylen, "python3 not found (MEMSUITE_PYTHON, /usr/bin/python3, PATH); "
                 "install python3 and python3-matplotlib");
        return -ENOENT;
    }
    if (!find_analyser(an, sizeof an)) {
        snprintf(why, whylen, "memsuite-analyse not found beside the binary "
                 "(../scripts/analysis, ../../scripts/analysis or ../share/memsuite/analysis); "
                 "set MEMSUITE_ANALYSE");
        return -ENOENT;
    }
    if (fflush(doc) != 0 || ferror(doc) || fseek(doc, 0, SEEK_SET) != 0) {
        snprintf(why, whylen, "cannot write the result document for the chart: %s",
                 strerror(errno));
        return -EIO;
    }
    int e;
    FILE *log = mc_plot_tmpfile(&e, why, whylen);
    if (!log)
        return e;
    FILE *out = mc_plot_tmpfile(&e, why, whylen);
    int rc = out ? spawn_analyser(py, an, kind, doc, out, log, why, whylen) : e;
    fclose(log);
    if (rc == 0)
        *img = out;
    else if (out)
        fclose(out);
    return rc;
}

int mc_plot_result(const mc_config_t *cfg, mc_result_t *res, const char *kind, FILE **img,
                   char *why, size_t whylen)
{
    int e = -ENOMEM;
    *img = NULL;
    mc_config_t *json = malloc(sizeof *json);
    mb_result_t *r = calloc(1, sizeof *r);
    FILE *doc = json && r ? mc_plot_tmpfile(&e, why, whylen) : NULL;
    if (!json || !r) {
        e = -ENOMEM;
        snprintf(why, whylen, "out of memory for the chart's result document");
    }
    if (doc) {
        *json = *cfg;
        json->format = MB_FMT_JSON;
        const char *name = res->sc ? res->sc->name : "?";
        mc_run_t run = { .cfg = json, .res = res, .nres = 1, .subcommand = "run",
                         .scenarios = &name, .nscenarios = 1 };
        r->tool = "mencal";
        e = mc_render(&run, r, doc);
        if (e) {
            snprintf(why, whylen, "cannot write the result document for the chart: %s",
                     strerror(-e));
            e = -EIO;
        } else {
            e = mc_plot_analyse(doc, kind, img, why, whylen);
        }
        fclose(doc);
    }
    free(json);
    free(r);
    return e;
}

/* The image into the output stream; 0 or -errno with why. */
static int copy_image(FILE *img, mb_out_t *png, char *why, size_t whylen)
{
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

mc_plot_outcome_t mc_plot_finish(int draw_rc, FILE *img, mb_out_t *png, char *why, size_t whylen)
{
    if (draw_rc != 0 || !img) {
        if (img)
            fclose(img);
        mb_out_abort(png);
        return MC_PLOT_NOT_DRAWN;
    }
    int rc = copy_image(img, png, why, whylen);
    fclose(img);
    if (rc == 0 && mb_out_commit(png, why, whylen) == 0)
        return MC_PLOT_WRITTEN;
    mb_out_abort(png);
    return MC_PLOT_LOST;
}

int mc_plot_scenario(const mc_config_t *cfg, mc_result_t *res, const char *path,
                     const char *kind, mb_out_t *png)
{
    char why[512] = "", draw_why[512] = "";
    FILE *img;
    int draw_rc = mc_plot_result(cfg, res, kind, &img, draw_why, sizeof draw_why);
    switch (mc_plot_finish(draw_rc, img, png, why, sizeof why)) {
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
    }
    return res->status;
}
