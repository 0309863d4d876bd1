/* threads: OpenMP environment checks and a guarded first team start. */
#include "threads.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <omp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "log.h"

#define SHOWN_MAX 40             /* characters of a bad value quoted back */

/* value, quoted for a message (log.h): at most SHOWN_MAX characters. */
static void quote_value(const char *v, char *out, size_t outlen)
{
    mb_shown(v, SHOWN_MAX, out, outlen);
}

/* A decimal integer with optional blanks around it, between s and e.
 * 0 with *v (any value above cap is stored as cap + 1: no wrap-around),
 * or -EINVAL. */
static int parse_count(const char *s, const char *e, unsigned long long cap,
                       unsigned long long *v)
{
    while (s < e && isspace((unsigned char)*s))
        s++;
    while (e > s && isspace((unsigned char)e[-1]))
        e--;
    if (s == e)
        return -EINVAL;
    unsigned long long x = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9')
            return -EINVAL;
        const unsigned long long d = (unsigned long long)(*s - '0');
        /* stays above the cap once there, never wraps (cap < ULLONG_MAX / 2) */
        x = x > cap || x > (cap - d) / 10 ? cap + 1 : x * 10 + d;
    }
    *v = x;
    return 0;
}

static int check_num_threads(const char *v, char *msg, size_t msglen)
{
    char shown[4 * SHOWN_MAX + 8];
    const char *p = v;
    for (;;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        unsigned long long n;
        if (parse_count(p, end, MB_MAX_THREADS, &n) != 0 || n == 0) {
            quote_value(v, shown, sizeof shown);
            snprintf(msg, msglen, "OMP_NUM_THREADS='%s': not a thread count; set it to a "
                     "number in 1..%d (or a comma-separated list, one per nesting level), "
                     "or unset it", shown, MB_MAX_THREADS);
            return 2;
        }
        if (n > MB_MAX_THREADS) {
            quote_value(v, shown, sizeof shown);
            snprintf(msg, msglen, "OMP_NUM_THREADS='%s': more than %d threads, the limit of "
                     "every memsuite tool; set it to a number in 1..%d, or unset it",
                     shown, MB_MAX_THREADS, MB_MAX_THREADS);
            return 2;
        }
        if (*end == '\0')
            return 0;
        p = end + 1;
    }
}

/* Blank: NULL, empty or only white space (libgomp ignores it like unset). */
static bool blank(const char *v)
{
    for (; v && *v; v++)
        if (!isspace((unsigned char)*v))
            return false;
    return true;
}

/* OMP_PROC_BIND's first item is "false" (any case, blanks around). */
static bool bind_is_false(const char *v)
{
    while (isspace((unsigned char)*v))
        v++;
    size_t n = strcspn(v, ",");
    while (n && isspace((unsigned char)v[n - 1]))
        n--;
    return n == 5 && strncasecmp(v, "false", 5) == 0;
}

int mb_threads_omp_verdict(const char *bind_env, const char *places_env, int runtime_bind,
                           int runtime_places, char *msg, size_t msglen)
{
    const bool bind_set = !blank(bind_env), places_set = !blank(places_env);
    const bool bind_false = bind_set && bind_is_false(bind_env);
    const struct {
        const char *name, *value;
        bool ignored;
        const char *what, *form;
    } rule[] = {
        { "OMP_PROC_BIND", bind_env, bind_set && !bind_false && runtime_bind == 0,
          "libgomp ignored it (not a binding it knows), so no thread would be bound as recorded",
          "true, false, close, spread or primary (a comma-separated list, one per nesting "
          "level)" },
        { "OMP_PLACES", places_env, places_set && !bind_false && runtime_places <= 0,
          "libgomp made no places of it and ignored it",
          "threads, cores, sockets, ll_caches or numa_domains (with an optional count, as "
          "cores(4)) or to CPU sets of this machine such as {0,1},{2,3}" },
    };
    for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
        if (!rule[i].ignored)
            continue;
        char shown[4 * SHOWN_MAX + 8];
        quote_value(rule[i].value, shown, sizeof shown);
        snprintf(msg, msglen, "%s='%s': %s; set it to %s, or unset it", rule[i].name, shown,
                 rule[i].what, rule[i].form);
        return 2;
    }
    return 0;
}

int mb_threads_env_check(char *msg, size_t msglen)
{
    const char *v = getenv("OMP_NUM_THREADS");
    if (v && *v && check_num_threads(v, msg, msglen) != 0)
        return 2;
    v = getenv("OMP_THREAD_LIMIT");
    if (v && *v) {
        unsigned long long n;
        char shown[4 * SHOWN_MAX + 8];
        if (parse_count(v, v + strlen(v), LONG_MAX, &n) != 0 || n == 0) {
            quote_value(v, shown, sizeof shown);
            snprintf(msg, msglen, "OMP_THREAD_LIMIT='%s': not a thread count; set it to a "
                     "positive integer, or unset it", shown);
            return 2;
        }
        if (n > LONG_MAX) {   /* libgomp: "Invalid value", and no limit at all */
            quote_value(v, shown, sizeof shown);
            snprintf(msg, msglen, "OMP_THREAD_LIMIT='%s': over %ld, which libgomp rejects "
                     "(and then applies no limit); set it to a positive integer up to %ld, or "
                     "unset it", shown, LONG_MAX, LONG_MAX);
            return 2;
        }
    }
    return mb_threads_omp_verdict(getenv("OMP_PROC_BIND"), getenv("OMP_PLACES"),
                                  (int)omp_get_proc_bind(), omp_get_num_places(), msg, msglen);
}

/* ---- the guarded first team --------------------------------------------- */

/* The process-wide state of the guard: set only around the first parallel
 * region, read by the exit handler libgomp's exit(1) runs. */
static volatile sig_atomic_t guard_on;
static int guard_threads, guard_status;
static void (*guard_cleanup)(void *);
static void *guard_ctx;

static void guard_at_exit(void)
{
    if (!guard_on)
        return;
    guard_on = 0;
    if (guard_cleanup)
        guard_cleanup(guard_ctx);
    mb_error("cannot start %d OpenMP threads (see the libgomp line above): a resource limit "
             "was reached (ulimit -u, ulimit -v with OMP_STACKSIZE, kernel.threads-max); "
             "use fewer threads or raise the limit", guard_threads);
    _exit(guard_status);
}

int mb_threads_start(int n, int status, void (*cleanup)(void *ctx), void *ctx)
{
    static bool registered;
    if (!registered)
        registered = atexit(guard_at_exit) == 0;
    guard_threads = n > 0 ? n : omp_get_max_threads();
    guard_status = status;
    guard_cleanup = cleanup;
    guard_ctx = ctx;
    guard_on = registered;

    int got = 0;
    const int want = guard_threads;
#pragma omp parallel num_threads(want)
    {
#pragma omp single
        got = omp_get_num_threads();
    }
    guard_on = 0;
    guard_cleanup = NULL;
    guard_ctx = NULL;
    return got;
}

const char *mb_threads_shortfall(int requested, int got, char *buf, size_t buflen)
{
    if (got >= requested || buflen == 0)
        return NULL;
    const char *limit = getenv("OMP_THREAD_LIMIT");
    const char *dyn = getenv("OMP_DYNAMIC");
    char why[160];
    if (limit && *limit)
        snprintf(why, sizeof why, "OMP_THREAD_LIMIT=%.40s caps the team", limit);
    else if (dyn && (strcasecmp(dyn, "true") == 0 || strcmp(dyn, "1") == 0))
        snprintf(why, sizeof why, "OMP_DYNAMIC=%.10s let the runtime shrink the team", dyn);
    else
        snprintf(why, sizeof why, "the OpenMP runtime gave fewer threads");
    snprintf(buf, buflen, "%d threads requested but %d ran: %s; the result is for %d "
             "thread%s", requested, got, why, got, got == 1 ? "" : "s");
    return buf;
}
