/* alloc/spawn: the parent side of one allocator child.
 *
 * posix_spawn of /proc/self/exe with an environment made for the row
 * (LD_PRELOAD of the allocator only, the jemalloc configuration), stdout
 * and stderr captured, the result on fd 3.  While the child runs, VmRSS
 * is read from /proc/<pid>/status every interval; wait4() gives the
 * child's own rusage (max RSS, faults) and how it ended. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "spawn.h"
#include "timer.h"

extern char **environ;

#define RESULT_FD 3
#define RESULT_CAP 16384

/* The child's environment: ours without LD_PRELOAD (and without the
 * jemalloc variables when the run sets them), plus the row's own. */
static char **child_env(const mc_alloc_spawn_t *s)
{
    size_t n = 0;
    for (char **e = environ; e && *e; e++)
        n++;
    char **env = calloc(n + 4, sizeof *env);
    if (!env)
        return NULL;
    size_t k = 0;
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, "LD_PRELOAD=", 11) == 0)
            continue;
        if (s->jemalloc_conf &&
            (strncmp(*e, "MALLOC_CONF=", 12) == 0 || strncmp(*e, "JEMALLOC_CONF=", 14) == 0))
            continue;
        env[k++] = *e;
    }
    char *pre = NULL, *mc = NULL, *jc = NULL;
    if (s->preload && *s->preload && asprintf(&pre, "LD_PRELOAD=%s", s->preload) > 0)
        env[k++] = pre;
    /* unprefixed builds (Debian's) read MALLOC_CONF, prefixed ones JEMALLOC_CONF */
    if (s->jemalloc_conf && asprintf(&mc, "MALLOC_CONF=%s", s->jemalloc_conf) > 0)
        env[k++] = mc;
    if (s->jemalloc_conf && asprintf(&jc, "JEMALLOC_CONF=%s", s->jemalloc_conf) > 0)
        env[k++] = jc;
    env[k] = NULL;
    return env;
}

static void child_env_free(char **env)
{
    if (!env)
        return;
    for (char **e = env; *e; e++) {
        bool ours = true;
        for (char **o = environ; o && *o; o++)
            if (*o == *e)
                ours = false;
        if (ours)
            free(*e);
    }
    free(env);
}

/* VmRSS of pid in KiB, or -1. */
static long vmrss_kib(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    long kib = -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0) {
            kib = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kib;
}

static void rss_add(mc_child_t *c, double t_s, long kib, double *interval_s)
{
    if (kib < 0)
        return;
    if (c->nrss == MC_ALLOC_RSS_CAP) {   /* keep every other sample, sample half as often */
        for (size_t i = 0; i < MC_ALLOC_RSS_CAP / 2; i++) {
            c->rss_t_s[i] = c->rss_t_s[2 * i];
            c->rss_kib[i] = c->rss_kib[2 * i];
        }
        c->nrss = MC_ALLOC_RSS_CAP / 2;
        *interval_s *= 2;
    }
    c->rss_t_s[c->nrss] = t_s;
    c->rss_kib[c->nrss++] = (double)kib;
    if (isnan(c->rss_peak_kib) || (double)kib > c->rss_peak_kib)
        c->rss_peak_kib = (double)kib;
}

static const char *signal_text(int sig, char *buf, size_t buflen)
{
    const char *abbrev = sigabbrev_np(sig);
    snprintf(buf, buflen, "killed by signal %d (SIG%s%s)", sig, abbrev ? abbrev : "?",
             sig == SIGKILL ? ": the OOM killer or a memory limit if the kernel log says so" : "");
    return buf;
}

const char *mc_alloc_conf_error(const char *err, char *buf, size_t buflen)
{
    size_t used = 0;
    buf[0] = '\0';
    for (const char *p = err; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, "<jemalloc>: Invalid conf", 24) == 0 && used < buflen)
            used += (size_t)snprintf(buf + used, buflen - used, "%s%.*s", used ? "; " : "",
                                     (int)len, p);
        p += len + (p[len] == '\n');
    }
    return used ? buf : NULL;
}

static void parse_meas(mc_alloc_meas_t *m, const char *key, const char *val)
{
    static const struct {
        const char *key;
        size_t off;
        char type;   /* d double, l long, u uint64, z size_t, s text (perf_why) */
    } fields[] = {
        { "wall_s", offsetof(mc_alloc_meas_t, wall_s), 'd' },
        { "user_s", offsetof(mc_alloc_meas_t, user_s), 'd' },
        { "sys_s", offsetof(mc_alloc_meas_t, sys_s), 'd' },
        { "cpu_s", offsetof(mc_alloc_meas_t, cpu_s), 'd' },
        { "rss_end_kib", offsetof(mc_alloc_meas_t, rss_end_kib), 'l' },
        { "hwm_kib", offsetof(mc_alloc_meas_t, hwm_kib), 'l' },
        { "minflt", offsetof(mc_alloc_meas_t, minflt), 'l' },
        { "majflt", offsetof(mc_alloc_meas_t, majflt), 'l' },
        { "perf_minflt", offsetof(mc_alloc_meas_t, perf_minflt), 'l' },
        { "perf_why", offsetof(mc_alloc_meas_t, perf_why), 's' },
        { "ops", offsetof(mc_alloc_meas_t, ops), 'u' },
        { "allocs", offsetof(mc_alloc_meas_t, allocs), 'u' },
        { "frees", offsetof(mc_alloc_meas_t, frees), 'u' },
        { "nlat", offsetof(mc_alloc_meas_t, nlat), 'z' },
        { "p50_ns", offsetof(mc_alloc_meas_t, lat_p50_ns), 'd' },
        { "p99_ns", offsetof(mc_alloc_meas_t, lat_p99_ns), 'd' },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (strcmp(fields[i].key, key) != 0)
            continue;
        char *at = (char *)m + fields[i].off;
        double d = strtod(val, NULL);
        long l = strtol(val, NULL, 10);
        uint64_t u = strtoull(val, NULL, 10);
        size_t z = (size_t)u;
        if (fields[i].type == 's') {
            snprintf(at, sizeof m->perf_why, "%s", val);
            return;
        }
        switch (fields[i].type) {
        case 'd': memcpy(at, &d, sizeof d); break;
        case 'l': memcpy(at, &l, sizeof l); break;
        case 'u': memcpy(at, &u, sizeof u); break;
        default: memcpy(at, &z, sizeof z); break;
        }
        return;
    }
}

/* Reads the result lines; returns true when the report ended with "done". */
static bool parse_result(char *text, mc_child_t *c, char *error, size_t errorlen)
{
    bool done = false;
    error[0] = '\0';
    for (char *save = NULL, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save)) {
        char *sp = strchr(line, ' ');
        if (!sp)
            continue;
        *sp = '\0';
        const char *key = line, *val = sp + 1;
        if (strcmp(key, "allocator") == 0)
            snprintf(c->detected, sizeof c->detected, "%s", val);
        else if (strcmp(key, "allocator_full") == 0)
            snprintf(c->detected_full, sizeof c->detected_full, "%s", val);
        else if (strcmp(key, "error") == 0)
            snprintf(error, errorlen, "%s", val);
        else if (strcmp(key, "done") == 0)
            done = true;
        else if (strncmp(key, "h.", 2) == 0) {
            c->has_harness = true;
            parse_meas(&c->harness, key + 2, val);
        } else
            parse_meas(&c->m, key, val);
    }
    return done;
}

static int build_argv(const mc_alloc_spawn_t *s, char store[][48], char **argv, size_t max)
{
    size_t n = 0, k = 0;
#define ARG(x) do { if (n + 1 < max) argv[n++] = (char *)(x); } while (0)
#define NUM(fmt, v) do { snprintf(store[k], sizeof store[k], fmt, v); ARG(store[k]); k++; } while (0)
    ARG(s->expect);   /* argv[0]: shows the allocator in ps */
    ARG(MC_ALLOC_CHILD_ARG);
    ARG("--expect");
    ARG(s->expect);
    ARG("--result-fd");
    NUM("%d", RESULT_FD);
    if (s->probe)
        ARG("--probe");
    ARG("--threads");
    NUM("%d", s->work.threads);
    ARG("--block");
    NUM("%zu", s->work.block_bytes);
    ARG("--slots");
    NUM("%zu", s->work.slots);
    if (s->work.ops) {
        ARG("--ops");
        NUM("%llu", (unsigned long long)s->work.ops);
    } else {
        ARG("--duration");
        NUM("%.17g", s->work.duration_s);
    }
    ARG("--random-state");
    NUM("%llu", (unsigned long long)s->work.random_state);
    if (s->work.nofree)
        ARG("--nofree");
    if (s->work.harness_only)
        ARG("--harness-only");
    if (s->overhead)
        ARG("--overhead");
#undef NUM
#undef ARG
    argv[n] = NULL;
    return (int)n;
}

/* Moves fd to a number above the standard ones (and RESULT_FD), close-on-exec. */
static int high_fd(int fd)
{
    int h = fcntl(fd, F_DUPFD_CLOEXEC, 10);
    close(fd);
    return h;
}

int mc_alloc_spawn(const mc_alloc_spawn_t *s, const volatile sig_atomic_t *stop, mc_child_t *c,
                   char *why, size_t whylen)
{
    memset(c, 0, sizeof *c);
    c->rss_peak_kib = NAN;
    c->exit_status = -1;
    int res[2] = { -1, -1 }, err[2] = { -1, -1 };
    if (pipe2(res, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        if (res[0] >= 0)
            close(res[0]), close(res[1]);
        return -errno;
    }
    res[1] = high_fd(res[1]);
    err[1] = high_fd(err[1]);
    char store[16][48];
    char *argv[40];
    build_argv(s, store, argv, sizeof argv / sizeof argv[0]);
    char **env = child_env(s);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, err[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_adddup2(&fa, res[1], RESULT_FD);
    pid_t pid;
    int e = (res[1] < 0 || err[1] < 0 || !env)
                ? ENOMEM
                : posix_spawn(&pid, "/proc/self/exe", &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    child_env_free(env);
    close(res[1]);
    close(err[1]);
    if (e) {
        close(res[0]);
        close(err[0]);
        snprintf(why, whylen, "cannot start the %s child from /proc/self/exe: %s", s->expect,
                 strerror(e));
        return -e;
    }

    char *result = calloc(1, RESULT_CAP);
    size_t nres = 0, nerr = 0;
    bool err_truncated = false, killed = false;
    double interval_s = s->rss_interval_s > 0 ? s->rss_interval_s : 0.05;
    const uint64_t t0 = mb_now_ns();
    uint64_t next_sample = t0 + (uint64_t)(interval_s * 1e9);   /* not before exec */
    struct pollfd pfd[2] = { { res[0], POLLIN, 0 }, { err[0], POLLIN, 0 } };
    int open_fds = 2;
    while (open_fds > 0) {
        uint64_t now = mb_now_ns();
        if (now >= next_sample) {
            rss_add(c, (double)(now - t0) * 1e-9, vmrss_kib(pid), &interval_s);
            next_sample = now + (uint64_t)(interval_s * 1e9);
        }
        if (stop && *stop && !killed) {
            kill(pid, SIGTERM);
            killed = true;
        }
        int timeout_ms = (int)((next_sample - now) / 1000000) + 1;
        int r = poll(pfd, 2, timeout_ms);
        if (r < 0 && errno != EINTR)
            break;
        for (int i = 0; r > 0 && i < 2; i++) {
            if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            char buf[4096];
            ssize_t got = read(pfd[i].fd, buf, sizeof buf);
            if (got <= 0) {
                if (got < 0 && (errno == EINTR || errno == EAGAIN))
                    continue;
                pfd[i].fd = -1;   /* poll ignores negative fds */
                open_fds--;
                continue;
            }
            if (i == 0 && result) {
                size_t take = (size_t)got < RESULT_CAP - 1 - nres ? (size_t)got : RESULT_CAP - 1 - nres;
                memcpy(result + nres, buf, take);
                nres += take;
            } else if (i == 1) {
                size_t take = (size_t)got < sizeof c->err - 1 - nerr ? (size_t)got
                                                                     : sizeof c->err - 1 - nerr;
                memcpy(c->err + nerr, buf, take);
                nerr += take;
                err_truncated |= take < (size_t)got;
            }
        }
    }
    close(res[0]);
    close(err[0]);
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR)
        ;
    c->err[nerr] = '\0';
    if (err_truncated && nerr > 16)
        memcpy(c->err + nerr - 16, "\n[truncated]\n", 14);
    c->maxrss_kib = ru.ru_maxrss;
    c->child_minflt = ru.ru_minflt;
    c->child_majflt = ru.ru_majflt;

    char error[512] = "", conf[512];
    bool done = result ? parse_result(result, c, error, sizeof error) : false;
    free(result);
    c->state = MC_CHILD_FAILED;
    if (WIFSIGNALED(status)) {
        c->signal = WTERMSIG(status);
        signal_text(c->signal, c->why, sizeof c->why);
    } else if (WIFEXITED(status) && (c->exit_status = WEXITSTATUS(status)) != 0) {
        if (error[0])
            snprintf(c->why, sizeof c->why, "%s", error);
        else
            snprintf(c->why, sizeof c->why, "the child exited with status %d%s%.300s",
                     c->exit_status, nerr ? ": " : "", c->err);
    } else if (s->expect && strcmp(s->expect, "jemalloc") == 0 &&
               mc_alloc_conf_error(c->err, conf, sizeof conf)) {
        snprintf(c->why, sizeof c->why, "jemalloc rejected the configuration: %.440s", conf);
    } else if (!done) {
        snprintf(c->why, sizeof c->why, "the child's report is incomplete (no 'done' line)");
    } else {
        c->state = MC_CHILD_OK;
    }
    return 0;
}
