/* counters: PAPI event sets, perf_event_open software events and
 * getrusage deltas.  The only file that tests HAVE_PAPI. */
#include "counters.h"

#include <ctype.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counter_names.h"
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
            snprintf(msg, msglen, "invalid counter list '%s': empty event name at "
                     "position %d; " LIST_HINT, list, pos);
            return -EINVAL;
        }
        if (n == MB_COUNTERS_MAX) {
            int total = pos;
            for (const char *q = end; *q; q++)
                total += *q == ',';
            snprintf(msg, msglen, "invalid counter list '%s': %d event names, at most %d "
                     "fit in one event set; drop some", list, total, MB_COUNTERS_MAX);
            return -EINVAL;
        }
        if (len >= NAME_MAX_LEN) {
            snprintf(msg, msglen, "invalid counter list: event name '%.*s...' is longer "
                     "than %d characters", 24, b, NAME_MAX_LEN - 1);
            return -EINVAL;
        }
        for (const char *q = b; q < e; q++) {
            if (name_char_ok(*q))
                continue;
            char shown[8];
            if (isprint((unsigned char)*q))
                snprintf(shown, sizeof shown, "'%c'", *q);
            else
                snprintf(shown, sizeof shown, "\\x%02x", (unsigned char)*q);
            snprintf(msg, msglen, "invalid counter list: event name '%.*s' contains %s; "
                     "names use letters, digits and _ : . = + - / @", (int)len, b, shown);
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

static int sw_open(unsigned long long config, bool exclude_kernel)
{
#ifdef SYS_perf_event_open
    struct perf_event_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = config;
    attr.disabled = 1;
    attr.inherit = 1;
    attr.exclude_hv = 1;
    attr.exclude_kernel = exclude_kernel;
    return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
#else
    (void)config;
    (void)exclude_kernel;
    errno = ENOSYS;
    return -1;
#endif
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

/* ---- hardware events: PAPI -------------------------------------------- */

#if HAVE_PAPI

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

/* hw_why = "<step>: <PAPI error>[; component <name> disabled: <reason>]" */
static void papi_reason(mb_counters_t *c, const char *step, int rc)
{
    const PAPI_component_info_t *ci = PAPI_get_component_info(0);
    const char *err = rc < 0 ? PAPI_strerror(rc) : NULL;
    int len = snprintf(c->hw_why, sizeof c->hw_why, "%s: %s", step,
                       err ? err : "PAPI library version mismatch");
    if (ci && ci->disabled && len > 0 && (size_t)len < sizeof c->hw_why)
        snprintf(c->hw_why + len, sizeof c->hw_why - (size_t)len,
                 "; PAPI component %.32s is disabled: %.160s", ci->name, ci->disabled_reason);
}

static void hw_fail(mb_counters_t *c, const char *step, int rc)
{
    papi_reason(c, step, rc);
    if (c->papi_set != PAPI_NULL) {
        PAPI_cleanup_eventset(c->papi_set);
        PAPI_destroy_eventset(&c->papi_set);
        c->papi_set = PAPI_NULL;
    }
    mark_all_unavailable(c);
}

static void hw_setup(mb_counters_t *c)
{
    int rc;
    if (PAPI_is_initialized() == PAPI_NOT_INITED) {
        rc = PAPI_library_init(PAPI_VER_CURRENT);
        if (rc != PAPI_VER_CURRENT) {
            hw_fail(c, "PAPI_library_init", rc);
            return;
        }
        rc = PAPI_thread_init(thread_id);
        if (rc != PAPI_OK) {
            hw_fail(c, "PAPI_thread_init", rc);
            return;
        }
    }
    c->papi_set = PAPI_NULL;
    if ((rc = PAPI_create_eventset(&c->papi_set)) != PAPI_OK) {
        c->papi_set = PAPI_NULL;
        hw_fail(c, "PAPI_create_eventset", rc);
        return;
    }
    /* Inheritance needs the component bound before any event is added. */
    if ((rc = PAPI_assign_eventset_component(c->papi_set, 0)) != PAPI_OK) {
        hw_fail(c, "PAPI_assign_eventset_component(perf_event)", rc);
        return;
    }
    PAPI_option_t opt;
    memset(&opt, 0, sizeof opt);
    opt.inherit.eventset = c->papi_set;
    opt.inherit.inherit = PAPI_INHERIT_ALL;
    c->hw_inherit = PAPI_set_opt(PAPI_INHERIT, &opt) == PAPI_OK;

    int added = 0, first_rc = PAPI_OK;
    const char *first_step = NULL;
    for (int i = 0; i < c->n; i++) {
        mb_counter_t *ev = &c->ev[i];
        const mb_counter_alias_t *a = mb_counter_alias(ev->name);
        const char *cand[2] = { a ? a->preset : ev->name, a ? a->native : NULL };
        char why[sizeof ev->why] = "unavailable:";
        size_t wl = strlen(why);
        for (int k = 0; k < 2 && !ev->available; k++) {
            if (!cand[k])
                continue;
            int code = 0;
            const char *step = "PAPI_event_name_to_code";
            rc = PAPI_event_name_to_code(cand[k], &code);
            if (rc == PAPI_OK) {
                step = "PAPI_add_event";
                rc = PAPI_add_event(c->papi_set, code);
            }
            if (rc == PAPI_OK) {
                snprintf(ev->event, sizeof ev->event, "%s", cand[k]);
                ev->available = true;
                break;
            }
            if (wl < sizeof why)
                wl += (size_t)snprintf(why + wl, sizeof why - wl, "%s %s(%s): %s",
                                       k ? ";" : "", step, cand[k], PAPI_strerror(rc));
            if (!first_step) {
                first_step = step;
                first_rc = rc;
            }
        }
        if (!ev->available) {
            memcpy(ev->why, why, sizeof why);
            continue;
        }
        ev->why[0] = '\0';
        added++;
    }
    if (added == 0) {
        char step[128];
        snprintf(step, sizeof step, "no requested event could be counted; %s",
                 first_step ? first_step : "PAPI_add_event");
        papi_reason(c, step, first_rc);
        PAPI_cleanup_eventset(c->papi_set);
        PAPI_destroy_eventset(&c->papi_set);
        c->papi_set = PAPI_NULL;
        c->hw_available = false;
        return;
    }
    c->hw_available = true;
}

static void hw_start(mb_counters_t *c)
{
    if (!c->hw_available)
        return;
    int rc = PAPI_start(c->papi_set);
    if (rc != PAPI_OK)
        hw_fail(c, "PAPI_start", rc);
}

static void hw_stop(mb_counters_t *c)
{
    long long v[MB_COUNTERS_MAX];
    if (!c->hw_available)
        return;
    int rc = PAPI_stop(c->papi_set, v);
    if (rc != PAPI_OK) {
        hw_fail(c, "PAPI_stop", rc);
        return;
    }
    for (int i = 0, k = 0; i < c->n; i++)
        if (c->ev[i].available)
            c->ev[i].value += v[k++];
}

static void hw_finish(mb_counters_t *c)
{
    if (c->papi_set != PAPI_NULL) {
        PAPI_cleanup_eventset(c->papi_set);
        PAPI_destroy_eventset(&c->papi_set);
        c->papi_set = PAPI_NULL;
    }
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

static void hw_setup(mb_counters_t *c)
{
    snprintf(c->hw_why, sizeof c->hw_why,
             "built without PAPI; install libpapi-dev and rebuild");
    mark_all_unavailable(c);
}

static void hw_start(mb_counters_t *c) { (void)c; }
static void hw_stop(mb_counters_t *c) { (void)c; }
static void hw_finish(mb_counters_t *c) { (void)c; }

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

/* ---- the public sequence ------------------------------------------------ */

/* NULL: no names; "" and "default": MB_COUNTERS_DEFAULT. */
static int resolve_list(const char *list, char names[MB_COUNTERS_MAX][NAME_MAX_LEN],
                        int *count, char *msg, size_t msglen)
{
    *count = 0;
    if (!list)
        return 0;
    const char *l = (!*list || strcmp(list, "default") == 0) ? MB_COUNTERS_DEFAULT : list;
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
    c->papi_set = -1;                       /* PAPI_NULL */
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
        hw_setup(c);
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
    hw_start(c);
    c->running = true;
}

void mb_counters_stop(mb_counters_t *c)
{
    struct rusage ru;
    if (!c->live || !c->running)
        return;
    hw_stop(c);
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
    hw_finish(c);
    sw_close(c);
    c->live = false;
}
