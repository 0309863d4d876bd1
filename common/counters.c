/* counters: per-thread event sets (PAPI or perf_event_open), the
 * process-wide perf software events and getrusage deltas.  The only file
 * that tests HAVE_PAPI. */
#include "counters.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <omp.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counter_names.h"
#include "log.h"
#include "sizing.h"

#if HAVE_PAPI
#include <papi.h>
#endif

#define NAME_MAX_LEN 64          /* sizeof mb_counter_t.name */
#define LIST_HINT "give comma-separated PAPI event names or perf-style names, e.g. " \
    MB_COUNTERS_DEFAULT " or cycles,dTLB-load-misses,dTLB-loads"

/* ---- the event list ---------------------------------------------------- */

static bool name_char_ok(char ch)
{
    return isalnum((unsigned char)ch) || strchr("_:.=+-/@", ch) != NULL;
}

/* Split `list` into names (blanks around each name trimmed).  0 or
 * -EINVAL with msg. */
static int parse_list(const char *list, char names[MB_COUNTERS_MAX][NAME_MAX_LEN],
                      int *count, char *msg, size_t msglen)
{
    int n = 0, pos = 0;
    const char *p = list;
    for (;;) {
        const char *end = strchr(p, ',');
        if (!end)
            end = p + strlen(p);
        const char *b = p, *e = end;
        while (b < e && (*b == ' ' || *b == '\t'))
            b++;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t'))
            e--;
        size_t len = (size_t)(e - b);
        pos++;
        if (len == 0) {
            char shown[96];
            snprintf(msg, msglen, "invalid counter list '%s': empty event name at "
                     "position %d; " LIST_HINT, mb_shown(list, 40, shown, sizeof shown), pos);
            return -EINVAL;
        }
        if (n == MB_COUNTERS_MAX) {
            int total = pos;
            for (const char *q = end; *q; q++)
                total += *q == ',';
            char shown[96];
            snprintf(msg, msglen, "invalid counter list '%s': %d event names, at most %d "
                     "fit in one event set; drop some", mb_shown(list, 40, shown, sizeof shown),
                     total, MB_COUNTERS_MAX);
            return -EINVAL;
        }
        if (len >= NAME_MAX_LEN) {
            char shown[128];
            snprintf(msg, msglen, "invalid counter list: event name '%s' is longer "
                     "than %d characters", mb_shown(b, 24, shown, sizeof shown), NAME_MAX_LEN - 1);
            return -EINVAL;
        }
        for (const char *q = b; q < e; q++) {
            if (name_char_ok(*q))
                continue;
            char shown[8];
            const char one[2] = { *q, '\0' };
            if (isprint((unsigned char)*q))
                snprintf(shown, sizeof shown, "'%c'", *q);
            else
                mb_shown(one, 0, shown, sizeof shown);
            char name[NAME_MAX_LEN], name_shown[4 * NAME_MAX_LEN + 8];
            memcpy(name, b, len);
            name[len] = '\0';
            snprintf(msg, msglen, "invalid counter list: event name '%s' contains %s; "
                     "names use letters, digits and _ : . = + - / @",
                     mb_shown(name, 0, name_shown, sizeof name_shown), shown);
            return -EINVAL;
        }
        memcpy(names[n], b, len);
        names[n][len] = '\0';
        for (int i = 0; i < n; i++) {
            if (strcmp(names[i], names[n]) == 0) {
                snprintf(msg, msglen, "invalid counter list: event name '%s' appears "
                         "twice; give each event once", names[n]);
                return -EINVAL;
            }
        }
        n++;
        if (*end == '\0')
            break;
        p = end + 1;
    }
    *count = n;
    return 0;
}

/* Every requested event unavailable, each with the set's reason. */
static void mark_all_unavailable(mb_counters_t *c)
{
    c->hw_available = false;
    for (int i = 0; i < c->n; i++) {
        c->ev[i].available = false;
        c->ev[i].value = 0;
        snprintf(c->ev[i].why, sizeof c->ev[i].why, "unavailable: %.180s", c->hw_why);
    }
}

/* ---- software events: perf_event_open(PERF_TYPE_SOFTWARE) -------------- */

static const unsigned long long sw_config[4] = {
    PERF_COUNT_SW_PAGE_FAULTS,
    PERF_COUNT_SW_CONTEXT_SWITCHES,
    PERF_COUNT_SW_CPU_MIGRATIONS,
    PERF_COUNT_SW_TASK_CLOCK,
};

/* perf_event_open(2) of one event for `pid` (0: the caller; a thread id
 * or a process id), on any CPU, disabled until enabled.  `timed`: reads
 * return {value, time_enabled, time_running} (multiplexing shows). */
static int perf_open(uint32_t type, uint64_t config, int pid, bool inherit, bool exclude_kernel,
                     bool timed)
{
#ifdef SYS_perf_event_open
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = type;
    attr.config = config;
    attr.disabled = 1;
    attr.inherit = inherit;
    attr.exclude_hv = 1;
    attr.exclude_kernel = exclude_kernel;
    if (timed)
        attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
#else
    (void)type, (void)config, (void)pid, (void)inherit, (void)exclude_kernel, (void)timed;
    errno = ENOSYS;
    return -1;
#endif
}

static int sw_open(unsigned long long config, bool exclude_kernel)
{
    return perf_open(PERF_TYPE_SOFTWARE, config, 0, true, exclude_kernel, false);
}

const char *mb_counters_perf_why(int err, bool hardware, bool kernel, char *buf, size_t buflen)
{
    char path[4096], paranoid[32];
    mb_procfs_path(path, sizeof path, "/sys/kernel/perf_event_paranoid");
    if (mb_read_line(path, paranoid, sizeof paranoid) < 0)
        snprintf(paranoid, sizeof paranoid, "unreadable");
    if (err == EACCES || err == EPERM) {
        long p = strtol(paranoid, NULL, 10);
        int need = kernel ? 1 : 2;   /* 2: user space of one's own processes; 1: kernel too */
        if (p > need)
            snprintf(buf, buflen, "%s: kernel.perf_event_paranoid=%s forbids it; %d allows it "
                     "(sysctl -w kernel.perf_event_paranoid=%d), or run with CAP_PERFMON",
                     strerror(err), paranoid, need, need);
        else
            snprintf(buf, buflen, "%s although kernel.perf_event_paranoid=%s allows it: a "
                     "seccomp or container policy blocks perf_event_open", strerror(err),
                     paranoid);
    } else if (hardware && (err == ENOENT || err == EOPNOTSUPP || err == ENODEV ||
                            err == EINVAL)) {
        snprintf(buf, buflen, "%s: the kernel exposes no hardware PMU event for it here (a VM "
                 "without a virtual PMU, or a CPU without that event)", strerror(err));
    } else {
        snprintf(buf, buflen, "%s (kernel.perf_event_paranoid=%s)", strerror(err), paranoid);
    }
    return buf;
}

static void sw_close(mb_counters_t *c)
{
    for (int i = 0; i < 4; i++) {
        if (c->sw_fd[i] >= 0)
            close(c->sw_fd[i]);
        c->sw_fd[i] = -1;
    }
}

static void sw_setup(mb_counters_t *c)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        bool exclude_kernel = attempt == 1;   /* what paranoid >= 2 allows */
        int e = 0;
        for (int i = 0; i < 4; i++) {
            c->sw_fd[i] = sw_open(sw_config[i], exclude_kernel);
            if (c->sw_fd[i] < 0) {
                e = errno;
                break;
            }
        }
        if (!e) {
            c->sw_available = true;
            c->sw_why[0] = '\0';
            return;
        }
        sw_close(c);
        char path[4096], paranoid[32];
        mb_procfs_path(path, sizeof path, "/sys/kernel/perf_event_paranoid");
        if (mb_read_line(path, paranoid, sizeof paranoid) < 0)
            snprintf(paranoid, sizeof paranoid, "unreadable");
        snprintf(c->sw_why, sizeof c->sw_why, "perf_event_open(PERF_TYPE_SOFTWARE): %s "
                 "(kernel.perf_event_paranoid=%s)", strerror(e), paranoid);
        if (e != EACCES && e != EPERM)
            return;
    }
}

static void sw_enable(mb_counters_t *c, bool on)
{
    if (!c->sw_available)
        return;
    for (int i = 0; i < 4; i++)
        ioctl(c->sw_fd[i], on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0);
}

/* The counters are never reset, so each read is the total over every
 * start/stop period so far. */
static void sw_read(mb_counters_t *c)
{
    unsigned long long v[4];
    if (!c->sw_available)
        return;
    for (int i = 0; i < 4; i++) {
        if (read(c->sw_fd[i], &v[i], sizeof v[i]) != (ssize_t)sizeof v[i]) {
            int e = errno;
            snprintf(c->sw_why, sizeof c->sw_why, "reading a perf event failed: %s",
                     strerror(e));
            c->sw_available = false;
            sw_close(c);
            return;
        }
    }
    c->sw_page_faults = (long long)v[0];
    c->sw_context_switches = (long long)v[1];
    c->sw_cpu_migrations = (long long)v[2];
    c->sw_task_clock_ns = v[3];
}

/* ---- per-thread state -------------------------------------------------- */

struct mb_counters_live {
    int fd[MB_COUNTERS_THREADS][MB_COUNTERS_MAX];   /* perf descriptors, -1: none */
    uint64_t base[MB_COUNTERS_THREADS][MB_COUNTERS_MAX][3];  /* value, enabled, running
                                                             * read at start */
    int papi_set[MB_COUNTERS_THREADS];              /* -1 (PAPI_NULL): none */
    bool opened[MB_COUNTERS_THREADS];
    bool started[MB_COUNTERS_THREADS];
    int probe_set;                                  /* PAPI: init's trial set */
};

static int gettid_now(void)
{
    return (int)syscall(SYS_gettid);
}

/* Appends ";"-separated text to an event's reason. */
static void why_add(mb_counter_t *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why_add(mb_counter_t *ev, const char *fmt, ...)
{
    size_t len = strlen(ev->why);
    if (len + 3 >= sizeof ev->why)
        return;
    if (len > strlen("unavailable:"))
        ev->why[len++] = ';';
    ev->why[len++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->why + len, sizeof ev->why - len, fmt, ap);
    va_end(ap);
}

/* ---- PAPI --------------------------------------------------------------- */

#if HAVE_PAPI

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

/* hw_why = "<step>: <PAPI error>[; component <name> disabled: <reason>]" */
static void papi_reason(char *buf, size_t buflen, const char *step, int rc)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    const char *err = rc < 0 ? PAPI_strerror(rc) : NULL;
    int len = snprintf(buf, buflen, "%s: %s", step, err ? err : "PAPI library version mismatch");
    if (ci && ci->disabled && len > 0 && (size_t)len < buflen)
        snprintf(buf + len, buflen - (size_t)len, "; PAPI component %.32s is disabled: %.160s",
                 ci->name, ci->disabled_reason);
}

/* Library, threads and init's trial event set.  false: hw_why says why. */
static bool papi_begin(mb_counters_t *c, mb_counters_live_t *lv)
{
    int rc;
    lv->probe_set = PAPI_NULL;
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        rc = PAPI_library_init(PAPI_VER_CURRENT);
        if (rc != PAPI_VER_CURRENT) {
            papi_reason(c->hw_why, sizeof c->hw_why, "PAPI_library_init", rc);
            return false;
        }
        rc = PAPI_thread_init(thread_id);
        if (rc != PAPI_OK) {
            papi_reason(c->hw_why, sizeof c->hw_why, "PAPI_thread_init", rc);
            return false;
        }
    }
    /* The trial set is attached to this thread as each slot's set is to
     * its thread (papi_open): a PAPI that cannot attach here (seen on a
     * Zen 3 KVM guest: PAPI_attach "Event does not exist") would count
     * no thread, so its events go to perf instead. */
    const char *step = "PAPI_create_eventset(perf_event)";
    if ((rc = PAPI_create_eventset(&lv->probe_set)) != PAPI_OK ||
        (rc = PAPI_assign_eventset_component(lv->probe_set, 0)) != PAPI_OK ||
        (step = "PAPI_attach(this thread)",
         rc = PAPI_attach(lv->probe_set, (unsigned long)gettid_now())) != PAPI_OK) {
        papi_reason(c->hw_why, sizeof c->hw_why, step, rc);
        if (lv->probe_set != PAPI_NULL) {
            PAPI_cleanup_eventset(lv->probe_set);
            PAPI_destroy_eventset(&lv->probe_set);
        }
        lv->probe_set = PAPI_NULL;
        return false;
    }
    return true;
}

/* Adds `ev` to the trial set through its preset, else its native event,
 * else its own name: true when one was added (the set then holds every
 * PAPI event so far, so a combination the PMU cannot count together is
 * refused here, naming the limit). */
static bool papi_try(mb_counters_t *c, mb_counters_live_t *lv, mb_counter_t *ev)
{
    if (lv->probe_set == PAPI_NULL) {
        why_add(ev, "PAPI: %.200s", c->hw_why);
        return false;
    }
    const mb_counter_alias_t *a = mb_counter_alias_of(ev->name);
    const char *cand[2] = { a ? a->preset : ev->name, a ? a->native : NULL };
    if (a && strcmp(a->alias, ev->name) != 0 && (!a->preset || strcmp(a->preset, ev->name) != 0))
        cand[0] = ev->name, cand[1] = NULL;   /* a native name given as such */
    for (int k = 0; k < 2; k++) {
        if (!cand[k])
            continue;
        int code = 0;
        const char *step = "PAPI_event_name_to_code";
        int rc = PAPI_event_name_to_code(cand[k], &code);
        if (rc == PAPI_OK) {
            step = "PAPI_add_event";
            rc = PAPI_add_event(lv->probe_set, code);
        }
        if (rc == PAPI_OK) {
            ev->backend = MB_CTR_PAPI;
            ev->papi_code = code;
            snprintf(ev->event, sizeof ev->event, "%s", cand[k]);
            return true;
        }
        if (rc == PAPI_ECNFLCT)
            why_add(ev, "%s(%s): %s: the PMU counts %d events at once and the list asks for "
                    "more; give fewer events", step, cand[k], PAPI_strerror(rc),
                    PAPI_num_cmp_hwctrs(0));
        else
            why_add(ev, "%s(%s): %s", step, cand[k], PAPI_strerror(rc));
    }
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    if (ci && ci->disabled)
        why_add(ev, "PAPI component %.32s is disabled: %.120s", ci->name, ci->disabled_reason);
    return false;
}

static void papi_end(mb_counters_live_t *lv)
{
    if (lv->probe_set != PAPI_NULL) {
        PAPI_cleanup_eventset(lv->probe_set);
        PAPI_destroy_eventset(&lv->probe_set);
    }
}

static void papi_close(mb_counters_live_t *lv, int t)
{
    if (lv->papi_set[t] != PAPI_NULL) {
        PAPI_cleanup_eventset(lv->papi_set[t]);
        PAPI_destroy_eventset(&lv->papi_set[t]);
        lv->papi_set[t] = PAPI_NULL;
    }
}

/* Slot t's own event set, attached to its thread or process `id`.
 * 0, or -1 with why. */
static int papi_open(const mb_counters_t *c, mb_counters_live_t *lv, int t, int id, char *why,
                     size_t whylen)
{
    int rc, set = PAPI_NULL, npapi = 0;
    for (int i = 0; i < c->n; i++)
        npapi += c->ev[i].backend == MB_CTR_PAPI;
    if (!npapi)
        return 0;
    const char *step = "PAPI_create_eventset";
    if ((rc = PAPI_create_eventset(&set)) == PAPI_OK &&
        (step = "PAPI_assign_eventset_component",
         rc = PAPI_assign_eventset_component(set, 0)) == PAPI_OK &&
        (step = "PAPI_attach", rc = PAPI_attach(set, (unsigned long)id)) == PAPI_OK) {
        for (int i = 0; i < c->n && rc == PAPI_OK; i++)
            if (c->ev[i].backend == MB_CTR_PAPI)
                step = "PAPI_add_event", rc = PAPI_add_event(set, c->ev[i].papi_code);
    }
    lv->papi_set[t] = set;
    if (rc == PAPI_OK)
        return 0;
    snprintf(why, whylen, "%s for id %d: %s", step, id, PAPI_strerror(rc));
    papi_close(lv, t);
    return -1;
}

static int papi_start(mb_counters_live_t *lv, int t, char *why, size_t whylen)
{
    if (lv->papi_set[t] == PAPI_NULL)
        return 0;
    int rc = PAPI_start(lv->papi_set[t]);
    if (rc == PAPI_OK)
        return 0;
    snprintf(why, whylen, "PAPI_start: %s", PAPI_strerror(rc));
    return -1;
}

/* v[k]: the k-th PAPI event's count since start. */
static int papi_stop(mb_counters_live_t *lv, int t, long long *v, char *why, size_t whylen)
{
    if (lv->papi_set[t] == PAPI_NULL)
        return 0;
    int rc = PAPI_stop(lv->papi_set[t], v);
    if (rc == PAPI_OK)
        return 0;
    snprintf(why, whylen, "PAPI_stop: %s", PAPI_strerror(rc));
    return -1;
}

bool mb_counters_papi_built(void)
{
    return true;
}

const char *mb_counters_papi_version(char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%d.%d.%d.%d", PAPI_VERSION_MAJOR(PAPI_VERSION),
             PAPI_VERSION_MINOR(PAPI_VERSION), PAPI_VERSION_REVISION(PAPI_VERSION),
             PAPI_VERSION_INCREMENT(PAPI_VERSION));
    return buf;
}

#else /* !HAVE_PAPI */

#define NO_PAPI_WHY "built without PAPI; install libpapi-dev and rebuild"

static bool papi_begin(mb_counters_t *c, mb_counters_live_t *lv)
{
    lv->probe_set = -1;
    snprintf(c->hw_why, sizeof c->hw_why, NO_PAPI_WHY);
    return false;
}

static bool papi_try(mb_counters_t *c, mb_counters_live_t *lv, mb_counter_t *ev)
{
    (void)c, (void)lv;
    why_add(ev, "PAPI: " NO_PAPI_WHY);
    return false;
}

static void papi_end(mb_counters_live_t *lv) { (void)lv; }
static void papi_close(mb_counters_live_t *lv, int t) { (void)lv, (void)t; }

static int papi_open(const mb_counters_t *c, mb_counters_live_t *lv, int t, int id, char *why,
                     size_t whylen)
{
    (void)c, (void)lv, (void)t, (void)id, (void)why, (void)whylen;
    return 0;
}

static int papi_start(mb_counters_live_t *lv, int t, char *why, size_t whylen)
{
    (void)lv, (void)t, (void)why, (void)whylen;
    return 0;
}

static int papi_stop(mb_counters_live_t *lv, int t, long long *v, char *why, size_t whylen)
{
    (void)lv, (void)t, (void)v, (void)why, (void)whylen;
    return 0;
}

bool mb_counters_papi_built(void)
{
    return false;
}

const char *mb_counters_papi_version(char *buf, size_t buflen)
{
    snprintf(buf, buflen, "not built");
    return buf;
}

#endif

/* ---- perf_event_open, one descriptor per event and thread ---------------- */

/* The perf generic event of `ev`'s alias, tried on the caller: true when
 * it counts here (the event then counts through perf on every thread). */
static bool perf_try(mb_counter_t *ev)
{
    const mb_counter_alias_t *a = mb_counter_alias_of(ev->name);
    if (!a)
        return false;
    const char *what = a->native && strncmp(a->native, "perf::", 6) == 0 ? a->native + 6 : a->alias;
    bool sw = a->perf_type == PERF_TYPE_SOFTWARE;
    /* hardware events count user space (PAPI's default domain); software
     * events count the kernel side too where allowed, else user space
     * unless the event happens in the kernel only */
    bool excl = !sw;
    int fd = perf_open(a->perf_type, a->perf_config, 0, false, excl, true);
    if (fd < 0 && sw && (errno == EACCES || errno == EPERM) && !a->kernel_side) {
        excl = true;
        fd = perf_open(a->perf_type, a->perf_config, 0, false, excl, true);
    }
    if (fd >= 0) {
        close(fd);
        ev->backend = MB_CTR_PERF;
        ev->perf_type = a->perf_type;
        ev->perf_config = a->perf_config;
        ev->perf_exclude_kernel = excl;
        snprintf(ev->event, sizeof ev->event, "perf_event_open:%.47s", what);
        return true;
    }
    char buf[240];
    why_add(ev, "perf_event_open(%s): %s", what,
            mb_counters_perf_why(errno, !sw, a->kernel_side, buf, sizeof buf));
    return false;
}

static void perf_close(mb_counters_live_t *lv, int t)
{
    for (int i = 0; i < MB_COUNTERS_MAX; i++) {
        if (lv->fd[t][i] >= 0)
            close(lv->fd[t][i]);
        lv->fd[t][i] = -1;
    }
}

/* One descriptor per event and thread: a large team needs more than the
 * usual soft limit of 1024 (128 threads x 8 events), so on EMFILE the soft
 * limit is raised to the hard one, once.  true when it was raised. */
static bool raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= rl.rlim_max)
        return false;
    rl.rlim_cur = rl.rlim_max;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

static int perf_slot_open(const mb_counters_t *c, mb_counters_live_t *lv, int t, int id,
                          char *why, size_t whylen)
{
    for (int i = 0; i < c->n; i++) {
        const mb_counter_t *ev = &c->ev[i];
        if (ev->backend != MB_CTR_PERF)
            continue;
        lv->fd[t][i] = perf_open(ev->perf_type, ev->perf_config, id, c->processes,
                                 ev->perf_exclude_kernel, true);
        if (lv->fd[t][i] < 0 && errno == EMFILE && raise_nofile())
            lv->fd[t][i] = perf_open(ev->perf_type, ev->perf_config, id, c->processes,
                                     ev->perf_exclude_kernel, true);
        if (lv->fd[t][i] < 0) {
            char buf[200];
            struct rlimit rl = { 0, 0 };
            int e = errno;
            getrlimit(RLIMIT_NOFILE, &rl);
            if (e == EMFILE)
                snprintf(buf, sizeof buf, "EMFILE: RLIMIT_NOFILE %llu is too few for one "
                         "descriptor per event and thread; raise ulimit -n",
                         (unsigned long long)rl.rlim_cur);
            else
                mb_counters_perf_why(e, ev->perf_type != PERF_TYPE_SOFTWARE, false, buf,
                                     sizeof buf);
            snprintf(why, whylen, "perf_event_open(%s) for id %d: %.100s", ev->name, id, buf);
            perf_close(lv, t);
            return -1;
        }
    }
    return 0;
}

long long mb_counters_mux_scale(uint64_t value, uint64_t enabled, uint64_t running, double *frac)
{
    *frac = 1.0;
    if (enabled > 0 && running == 0)
        return -1;
    if (running >= enabled)
        return (long long)value;
    *frac = (double)running / (double)enabled;
    return (long long)((double)value / *frac + 0.5);
}

static int perf_read3(int fd, uint64_t v[3])
{
    return read(fd, v, 3 * sizeof v[0]) == (ssize_t)(3 * sizeof v[0]) ? 0 : -1;
}

/* ---- the team ----------------------------------------------------------- */

static void slot_missing(mb_counters_t *c, int t, const char *why)
{
    mb_counter_thread_t *s = &c->thr[t];
    if (s->missing)
        return;
    s->missing = true;
    snprintf(s->why, sizeof s->why, "%.159s", why);
}

static void sums(mb_counters_t *c)
{
    int counted = mb_counters_threads_counted(c);
    c->hw_available = false;
    for (int i = 0; i < c->n; i++) {
        mb_counter_t *ev = &c->ev[i];
        ev->value = 0;
        for (int t = 0; t < c->nthreads; t++)
            if (c->thr[t].counted && !c->thr[t].missing)
                ev->value += c->thr[t].value[i];
        if (ev->available && counted == 0)
            snprintf(ev->why, sizeof ev->why, "unavailable: no thread's counts are usable "
                     "(see per_thread)");
        else if (ev->available)
            ev->why[0] = '\0';
        c->hw_available |= ev->available && counted > 0;
    }
    if (!c->hw_available && !c->hw_why[0] && c->n > 0)
        snprintf(c->hw_why, sizeof c->hw_why, "%s", counted == 0
                 ? "no thread's counts are usable (see per_thread)"
                 : "no requested event could be counted");
}

void mb_counters_join(mb_counters_t *c, int t, int n)
{
    if (!c->live || t < 0)
        return;
    int cap = n < MB_COUNTERS_THREADS ? n : MB_COUNTERS_THREADS;
    __atomic_store_n(&c->threads_uncounted, n - cap, __ATOMIC_RELAXED);
    if (t >= MB_COUNTERS_THREADS)
        return;
    __atomic_store_n(&c->nthreads, cap, __ATOMIC_RELAXED);
    int id = gettid_now();
    mb_counter_thread_t *s = &c->thr[t];
    if (s->id == 0) {
        s->id = id;
    } else if (s->id != id) {
        char why[96];
        snprintf(why, sizeof why, "its OS thread changed (tid %d, then %d): counts would mix "
                 "threads", s->id, id);
        slot_missing(c, t, why);
    }
}

void mb_counters_join_team(mb_counters_t *c, int n)
{
    if (!c->live)
        return;
#pragma omp parallel num_threads(n)
    mb_counters_join(c, omp_get_thread_num(), omp_get_num_threads());
}

void mb_counters_join_pid(mb_counters_t *c, int slot, int pid, int n)
{
    if (!c->live || slot < 0)
        return;
    c->processes = true;
    int cap = n < MB_COUNTERS_THREADS ? n : MB_COUNTERS_THREADS;
    c->threads_uncounted = n - cap;
    c->nthreads = cap;
    if (slot >= MB_COUNTERS_THREADS)
        return;
    mb_counters_live_t *lv = c->live_state;
    if (c->thr[slot].id != pid && lv && lv->opened[slot]) {   /* a new worker in the slot */
        perf_close(lv, slot);
        papi_close(lv, slot);
        lv->opened[slot] = false;
    }
    c->thr[slot].id = pid;
}

void mb_counters_mark_missing(mb_counters_t *c, int slot, const char *why)
{
    if (!c->live || slot < 0 || slot >= c->nthreads)
        return;
    slot_missing(c, slot, why);
    sums(c);
}

int mb_counters_threads_counted(const mb_counters_t *c)
{
    int k = 0;
    for (int t = 0; t < c->nthreads && t < MB_COUNTERS_THREADS; t++)
        k += c->thr[t].id != 0 && c->thr[t].counted && !c->thr[t].missing;
    return k;
}

static void team_start(mb_counters_t *c)
{
    mb_counters_live_t *lv = c->live_state;
    if (!lv || !c->hw_requested)
        return;
    if (c->nthreads == 0)
        mb_counters_join(c, 0, 1);     /* nothing joined: the caller */
    char why[160];
    for (int t = 0; t < c->nthreads; t++) {
        mb_counter_thread_t *s = &c->thr[t];
        lv->started[t] = false;
        if (s->missing)
            continue;
        if (s->id == 0) {
            slot_missing(c, t, "never joined the counters");
            continue;
        }
        if (!lv->opened[t]) {
            if (perf_slot_open(c, lv, t, s->id, why, sizeof why) != 0 ||
                papi_open(c, lv, t, s->id, why, sizeof why) != 0) {
                perf_close(lv, t);
                slot_missing(c, t, why);
                continue;
            }
            lv->opened[t] = true;
        }
        for (int i = 0; i < c->n; i++)
            if (lv->fd[t][i] >= 0 && perf_read3(lv->fd[t][i], lv->base[t][i]) != 0)
                memset(lv->base[t][i], 0, sizeof lv->base[t][i]);
        if (papi_start(lv, t, why, sizeof why) != 0) {
            slot_missing(c, t, why);
            continue;
        }
        for (int i = 0; i < c->n; i++)
            if (lv->fd[t][i] >= 0)
                ioctl(lv->fd[t][i], PERF_EVENT_IOC_ENABLE, 0);
        lv->started[t] = true;
        s->counted = true;
    }
}

static void team_stop(mb_counters_t *c)
{
    mb_counters_live_t *lv = c->live_state;
    if (!lv || !c->hw_requested)
        return;
    char why[160];
    for (int t = 0; t < c->nthreads; t++) {
        if (!lv->started[t])
            continue;
        lv->started[t] = false;
        for (int i = 0; i < c->n; i++)
            if (lv->fd[t][i] >= 0)
                ioctl(lv->fd[t][i], PERF_EVENT_IOC_DISABLE, 0);
        long long pv[MB_COUNTERS_MAX] = { 0 };
        if (papi_stop(lv, t, pv, why, sizeof why) != 0) {
            slot_missing(c, t, why);
            continue;
        }
        mb_counter_thread_t *s = &c->thr[t];
        for (int i = 0, k = 0; i < c->n; i++) {
            mb_counter_t *ev = &c->ev[i];
            if (ev->backend == MB_CTR_PAPI) {
                s->value[i] += pv[k++];
                continue;
            }
            if (lv->fd[t][i] < 0)
                continue;
            uint64_t now[3];
            if (perf_read3(lv->fd[t][i], now) != 0) {
                snprintf(why, sizeof why, "reading %s failed: %s", ev->name, strerror(errno));
                slot_missing(c, t, why);
                break;
            }
            uint64_t de = now[1] - lv->base[t][i][1];
            double f;
            long long v = mb_counters_mux_scale(now[0] - lv->base[t][i][0], de,
                                                now[2] - lv->base[t][i][2], &f);
            if (v < 0) {
                /* enabled but never on the PMU: too many events at once */
                ev->available = false;
                snprintf(ev->why, sizeof ev->why, "unavailable: the PMU never scheduled it "
                         "(time_running 0 of %llu ns enabled): more events than the PMU "
                         "counts at once; give fewer events", (unsigned long long)de);
                continue;
            }
            if (f < ev->running_frac)
                ev->running_frac = f;
            s->value[i] += v;
        }
    }
    sums(c);
}

static void team_finish(mb_counters_t *c)
{
    mb_counters_live_t *lv = c->live_state;
    if (!lv)
        return;
    for (int t = 0; t < MB_COUNTERS_THREADS; t++) {
        perf_close(lv, t);
        papi_close(lv, t);
    }
    munmap(lv, sizeof *lv);
    c->live_state = NULL;
}

/* Chooses each event's backend: PAPI, else the perf generic event. */
static void resolve_events(mb_counters_t *c)
{
    /* mmap, not malloc: an allocator under test (mencal alloc) sees none of it */
    mb_counters_live_t *lv = mmap(NULL, sizeof *lv, PROT_READ | PROT_WRITE,
                                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (lv == MAP_FAILED) {
        snprintf(c->hw_why, sizeof c->hw_why, "out of memory for the per-thread event sets");
        mark_all_unavailable(c);
        return;
    }
    for (int t = 0; t < MB_COUNTERS_THREADS; t++) {
        lv->papi_set[t] = -1;
        for (int i = 0; i < MB_COUNTERS_MAX; i++)
            lv->fd[t][i] = -1;
    }
    c->live_state = lv;
    char papi_why[256];
    bool papi_ok = papi_begin(c, lv);
    snprintf(papi_why, sizeof papi_why, "%s", c->hw_why);
    int counted = 0;
    for (int i = 0; i < c->n; i++) {
        mb_counter_t *ev = &c->ev[i];
        snprintf(ev->why, sizeof ev->why, "unavailable:");
        ev->running_frac = 1.0;
        if (papi_try(c, lv, ev) || perf_try(ev)) {
            ev->available = true;
            ev->why[0] = '\0';
            counted++;
            continue;
        }
        if (!mb_counter_alias_of(ev->name)) {
            char near[160];
            why_add(ev, "'%s' is neither a PAPI event here nor a perf-style name; closest "
                    "known: %s", ev->name, mb_counter_closest(ev->name, near, sizeof near));
        }
    }
    papi_end(lv);
    if (counted == 0 && !papi_ok)
        snprintf(c->hw_why, sizeof c->hw_why, "no requested event could be counted; PAPI: %.200s",
                 papi_why);
    else if (counted == 0)   /* the first event's reasons stand for the set */
        snprintf(c->hw_why, sizeof c->hw_why, "no requested event could be counted; %s: %.150s",
                 c->ev[0].name, c->ev[0].why + strlen("unavailable: "));
    else
        c->hw_why[0] = '\0';
    c->hw_available = counted > 0;
}

/* ---- copies of the counts ------------------------------------------------ */

void mb_counters_copy_zeroed(mb_counters_t *dst, const mb_counters_t *src)
{
    *dst = *src;
    dst->live = dst->running = false;     /* a copy owns no descriptor */
    dst->live_state = NULL;
    for (int i = 0; i < 4; i++)
        dst->sw_fd[i] = -1;
    for (int i = 0; i < MB_COUNTERS_MAX; i++) {
        dst->ev[i].value = 0;
        dst->ev[i].running_frac = 1.0;
    }
    for (int t = 0; t < MB_COUNTERS_THREADS; t++) {
        memset(dst->thr[t].value, 0, sizeof dst->thr[t].value);
        dst->thr[t].counted = false;
        dst->thr[t].missing = false;
        dst->thr[t].why[0] = '\0';
    }
    dst->bytes_moved = 0;
    dst->sw_page_faults = dst->sw_context_switches = dst->sw_cpu_migrations = 0;
    dst->sw_task_clock_ns = 0;
    dst->minflt = dst->majflt = 0;
}

void mb_counters_add_delta(mb_counters_t *acc, const mb_counters_t *now, const mb_counters_t *base)
{
    static const mb_counters_t zero;
    if (!base)
        base = &zero;
    for (int i = 0; i < MB_COUNTERS_MAX; i++) {
        mb_counter_t *a = &acc->ev[i];
        const mb_counter_t *e = &now->ev[i];
        a->available = e->available;
        if (!e->available)
            memcpy(a->why, e->why, sizeof a->why);
        if (e->available && e->running_frac > 0 && e->running_frac < a->running_frac)
            a->running_frac = e->running_frac;
    }
    if (now->nthreads > acc->nthreads)
        acc->nthreads = now->nthreads;
    if (now->threads_uncounted > acc->threads_uncounted)
        acc->threads_uncounted = now->threads_uncounted;
    acc->processes = now->processes;
    for (int t = 0; t < now->nthreads && t < MB_COUNTERS_THREADS; t++) {
        mb_counter_thread_t *a = &acc->thr[t];
        const mb_counter_thread_t *s = &now->thr[t], *b = &base->thr[t];
        a->id = s->id;
        a->counted |= s->counted;
        if (s->missing && !a->missing) {
            a->missing = true;
            memcpy(a->why, s->why, sizeof a->why);
        }
        for (int i = 0; i < MB_COUNTERS_MAX; i++)
            a->value[i] += s->value[i] - (t < base->nthreads ? b->value[i] : 0);
    }
    sums(acc);
    acc->hw_requested = now->hw_requested;
    acc->sw_available = now->sw_available;
    acc->sw_page_faults += now->sw_page_faults - base->sw_page_faults;
    acc->sw_context_switches += now->sw_context_switches - base->sw_context_switches;
    acc->sw_cpu_migrations += now->sw_cpu_migrations - base->sw_cpu_migrations;
    acc->sw_task_clock_ns += now->sw_task_clock_ns - base->sw_task_clock_ns;
    acc->minflt += now->minflt - base->minflt;
    acc->majflt += now->majflt - base->majflt;
    acc->maxrss_kib = now->maxrss_kib;
    acc->bytes_moved += now->bytes_moved - base->bytes_moved;
}

/* ---- the public sequence ------------------------------------------------ */

/* NULL: no names; "default": MB_COUNTERS_DEFAULT; "": refused. */
static int resolve_list(const char *list, char names[MB_COUNTERS_MAX][NAME_MAX_LEN],
                        int *count, char *msg, size_t msglen)
{
    *count = 0;
    if (!list)
        return 0;
    if (!*list) {
        snprintf(msg, msglen, "%s", MB_COUNTERS_EMPTY_WHY);
        return -EINVAL;
    }
    const char *l = strcmp(list, "default") == 0 ? MB_COUNTERS_DEFAULT : list;
    return parse_list(l, names, count, msg, msglen);
}

int mb_counters_check_list(const char *list, char *msg, size_t msglen)
{
    char names[MB_COUNTERS_MAX][NAME_MAX_LEN];
    int n;
    return resolve_list(list, names, &n, msg, msglen);
}

int mb_counters_init(mb_counters_t *c, const char *list, char *msg, size_t msglen)
{
    char names[MB_COUNTERS_MAX][NAME_MAX_LEN];
    int n = 0;
    memset(c, 0, sizeof *c);
    for (int i = 0; i < 4; i++)
        c->sw_fd[i] = -1;
    int rc = resolve_list(list, names, &n, msg, msglen);
    if (rc < 0)
        return rc;
    c->live = true;
    c->hw_requested = list != NULL;
    c->n = n;
    for (int i = 0; i < n; i++) {
        const mb_counter_alias_t *a = mb_counter_alias(names[i]);
        memcpy(c->ev[i].name, names[i], sizeof c->ev[i].name);
        snprintf(c->ev[i].event, sizeof c->ev[i].event, "%.63s",
                 a ? (a->preset ? a->preset : a->native) : names[i]);
    }
    if (c->hw_requested)
        resolve_events(c);
    else
        snprintf(c->hw_why, sizeof c->hw_why, "not requested");
    sw_setup(c);
    return 0;
}

void mb_counters_start(mb_counters_t *c)
{
    struct rusage ru;
    if (!c->live || c->running)
        return;
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        c->ru_minflt0 = ru.ru_minflt;
        c->ru_majflt0 = ru.ru_majflt;
    }
    sw_enable(c, true);
    team_start(c);
    c->running = true;
}

void mb_counters_stop(mb_counters_t *c)
{
    struct rusage ru;
    if (!c->live || !c->running)
        return;
    team_stop(c);
    sw_enable(c, false);
    sw_read(c);
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        c->minflt += ru.ru_minflt - c->ru_minflt0;
        c->majflt += ru.ru_majflt - c->ru_majflt0;
        c->maxrss_kib = ru.ru_maxrss;
    }
    c->running = false;
}

void mb_counters_finish(mb_counters_t *c)
{
    if (!c->live)
        return;
    if (c->running)
        mb_counters_stop(c);
    team_finish(c);
    sw_close(c);
    c->live = false;
}
