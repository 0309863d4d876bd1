/* test_counters: the event-list grammar (a table of good and malformed
 * lists), unknown events, the reasons recorded when hardware counters are
 * missing, and the rusage/perf software figures over regions that touch a
 * known number of fresh pages (in this thread and in a child thread). */
#include "check.h"
#include "counters.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *list;
    int rc;
    int n;                     /* rc == 0: names kept */
    const char *first;         /* rc == 0: ev[0].name */
    const char *in_msg;        /* rc != 0: the message holds this */
} list_case_t;

static const list_case_t list_cases[] = {
    { "", -EINVAL, 0, NULL, MB_COUNTERS_EMPTY_WHY },   /* --counters= (defect 22) */
    { "default", 0, 5, "PAPI_TOT_CYC", NULL },
    { "PAPI_TOT_INS", 0, 1, "PAPI_TOT_INS", NULL },
    { " PAPI_TOT_CYC , PAPI_L3_TCM ", 0, 2, "PAPI_TOT_CYC", NULL },
    { "perf::CYCLES:u=1,rapl:::PACKAGE_ENERGY:PACKAGE0", 0, 2, "perf::CYCLES:u=1", NULL },
    { "A,B,C,D,E,F,G,H", 0, 8, "A", NULL },
    { "A,,B", -EINVAL, 0, NULL, "empty event name at position 2" },
    { ",A", -EINVAL, 0, NULL, "empty event name at position 1" },
    { "A,", -EINVAL, 0, NULL, "empty event name at position 2" },
    { " ", -EINVAL, 0, NULL, "empty event name" },
    { "A,B,C,D,E,F,G,H,I", -EINVAL, 0, NULL, "9 event names, at most 8" },
    { "A,B,C,D,E,F,G,H,I,J", -EINVAL, 0, NULL, "10 event names" },
    { "PAPI TOT_CYC", -EINVAL, 0, NULL, "contains ' '" },
    { "PAPI_TOT_CYC;rm", -EINVAL, 0, NULL, "contains ';'" },
    { "EV\"IL", -EINVAL, 0, NULL, "contains '\"'" },
    { "A\tB", -EINVAL, 0, NULL, "contains ^I" },
    { "PAPI_TOT_CYC,PAPI_TOT_CYC", -EINVAL, 0, NULL, "appears twice" },
    { "X123456789012345678901234567890123456789012345678901234567890123", -EINVAL, 0, NULL,
      "longer than 63 characters" },
};

static void test_lists(void)
{
    for (size_t i = 0; i < sizeof list_cases / sizeof list_cases[0]; i++) {
        const list_case_t *c = &list_cases[i];
        mb_counters_t k;
        char msg[512] = "";
        char cmsg[512] = "";
        int crc = mb_counters_check_list(c->list, cmsg, sizeof cmsg);
        CHECK(crc == c->rc && (c->rc == 0 ? cmsg[0] == '\0' : strstr(cmsg, c->in_msg) != NULL),
              "check_list '%s' agrees with init (rc %d: %s)", c->list, crc, cmsg);
        int rc = mb_counters_init(&k, c->list, msg, sizeof msg);
        if (c->rc == 0) {
            CHECK(rc == 0 && k.hw_requested && k.n == c->n && strcmp(k.ev[0].name, c->first) == 0,
                  "list '%s' -> %d names, first %s (rc %d, n %d, first '%s')", c->list, c->n,
                  c->first, rc, k.n, k.ev[0].name);
            mb_counters_finish(&k);
        } else {
            CHECK(rc == c->rc && strstr(msg, c->in_msg) != NULL,
                  "list '%s' rejected: %s (rc %d: %s)", c->list, c->in_msg, rc, msg);
        }
    }
    mb_counters_t k;
    char msg[64];
    CHECK(mb_counters_init(&k, " PAPI_TOT_CYC , PAPI_L3_TCM ", msg, sizeof msg) == 0 &&
          strcmp(k.ev[1].name, "PAPI_L3_TCM") == 0, "blanks around names are trimmed");
    mb_counters_finish(&k);
    CHECK(mb_counters_init(&k, NULL, msg, sizeof msg) == 0 && !k.hw_requested && k.n == 0 &&
          !k.hw_available, "NULL list: no hardware counters requested");
    mb_counters_finish(&k);
}

/* Hardware counters: available with values, or every event unavailable
 * with the reason. */
static void test_hw(void)
{
    mb_counters_t k;
    char msg[256] = "";
    CHECK(mb_counters_init(&k, "default", msg, sizeof msg) == 0, "default set initialises");
    mb_counters_start(&k);
    volatile double x = 1;
    for (int i = 0; i < 1000000; i++)
        x = x * 1.0000001 + 1e-9;
    mb_counters_stop(&k);
    if (!mb_counters_papi_built()) {
        CHECK(!k.hw_available && strstr(k.hw_why, "built without PAPI; install libpapi-dev"),
              "without PAPI: the reason says how to get it: %s", k.hw_why);
    } else if (!k.hw_available) {
        CHECK(strstr(k.hw_why, "PAPI_") != NULL, "PAPI's reason names the failing call: %s",
              k.hw_why);
    } else {
        int counted = 0;
        for (int i = 0; i < k.n; i++)
            counted += k.ev[i].available;
        CHECK(counted > 0, "hardware counters: %d of %d counted", counted, k.n);
    }
    for (int i = 0; i < k.n; i++) {
        if (k.ev[i].available)
            CHECK(k.ev[i].value > 0, "%s counted %lld", k.ev[i].name, k.ev[i].value);
        else
            CHECK(strncmp(k.ev[i].why, "unavailable: ", 13) == 0 && strlen(k.ev[i].why) > 13,
                  "%s unavailable with a reason: %s", k.ev[i].name, k.ev[i].why);
    }
    mb_counters_finish(&k);

    /* An unknown name is that counter's problem, not the run's. */
    CHECK(mb_counters_init(&k, "PAPI_TOT_INS,NO_SUCH_EVENT_XYZ", msg, sizeof msg) == 0,
          "an unknown event name is not fatal");
    CHECK(!k.ev[1].available && strncmp(k.ev[1].why, "unavailable: ", 13) == 0,
          "the unknown event is unavailable: %s", k.ev[1].why);
    if (mb_counters_papi_built() && k.hw_available)
        CHECK(strstr(k.ev[1].why, "NO_SUCH_EVENT_XYZ") != NULL, "the reason names the event");
    mb_counters_finish(&k);

    char ver[64];
    mb_counters_papi_version(ver, sizeof ver);
    if (mb_counters_papi_built()) {
        int a, b, c, d;
        CHECK(sscanf(ver, "%d.%d.%d.%d", &a, &b, &c, &d) == 4, "PAPI version %s", ver);
    } else {
        CHECK_EQ_STR(ver, "not built", "PAPI version without PAPI");
    }
}

/* ---- software figures ------------------------------------------------ */

#define PAGES 1024

/* Touch `pages` fresh small pages: exactly that many minor faults. */
static void touch_fresh(size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char *b = mmap(NULL, pages * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b == MAP_FAILED)
        return;
    madvise(b, pages * page, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < pages; i++)
        ((volatile char *)b)[i * page] = 1;
    munmap(b, pages * page);
}

static void *thread_touch(void *arg)
{
    touch_fresh((size_t)arg);
    return NULL;
}

static void test_sw(void)
{
    mb_counters_t k;
    char msg[64];
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    CHECK(mb_counters_init(&k, NULL, msg, sizeof msg) == 0, "init without hardware counters");

    mb_counters_stop(&k);
    CHECK(k.minflt == 0, "stop without start changes nothing");

    mb_counters_start(&k);
    touch_fresh(PAGES);
    mb_counters_stop(&k);
    CHECK(k.minflt >= PAGES && k.minflt < 4 * PAGES, "rusage: %d fresh pages -> %ld minor faults",
          PAGES, k.minflt);
    CHECK(k.maxrss_kib >= (long)(PAGES * page / 1024), "maxrss %ld KiB covers the %zu KiB touched",
          k.maxrss_kib, PAGES * page / 1024);
    long first = k.minflt;

    /* A second region accumulates; a child thread is counted too. */
    mb_counters_start(&k);
    mb_counters_start(&k);              /* a repeated start is ignored */
    pthread_t th;
    pthread_create(&th, NULL, thread_touch, (void *)(size_t)PAGES);
    pthread_join(th, NULL);
    mb_counters_stop(&k);
    CHECK(k.minflt - first >= PAGES, "second region adds the child thread's %d faults (+%ld)",
          PAGES, k.minflt - first);
    CHECK(k.majflt >= 0, "major faults recorded (%ld)", k.majflt);

    if (k.sw_available) {
        CHECK(k.sw_page_faults >= 2 * PAGES, "perf page-faults %lld >= %d (both regions, inherit)",
              k.sw_page_faults, 2 * PAGES);
        CHECK(k.sw_task_clock_ns > 0, "perf task-clock %llu ns",
              (unsigned long long)k.sw_task_clock_ns);
        CHECK(k.sw_context_switches >= 0 && k.sw_cpu_migrations >= 0,
              "perf context switches %lld, migrations %lld", k.sw_context_switches,
              k.sw_cpu_migrations);
        long long before = k.sw_page_faults;
        touch_fresh(PAGES);             /* outside a region: not counted */
        mb_counters_start(&k);
        mb_counters_stop(&k);
        CHECK(k.sw_page_faults - before < PAGES / 2, "faults outside start/stop are not counted "
              "(+%lld)", k.sw_page_faults - before);
    } else {
        CHECK(strstr(k.sw_why, "perf_event_open") && strstr(k.sw_why, "perf_event_paranoid="),
              "no perf software events, with the reason: %s", k.sw_why);
    }
    mb_counters_finish(&k);
    CHECK(k.sw_fd[0] == -1 && k.sw_fd[3] == -1, "finish closes the perf descriptors");
}

/* ---- every thread counted ------------------------------------------- */

static void *spin_joined(void *arg)
{
    mb_counters_t *k = *(mb_counters_t **)arg;
    int t = ((int *)arg)[2];
    mb_counters_join(k, t, 2);
    volatile unsigned long x = 0;
    uint64_t until = 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    until = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + 200000000ULL;
    for (;;) {
        for (int i = 0; i < 100000; i++)
            x++;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        if ((uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec >= until)
            break;
    }
    return NULL;
}

/* Two pthreads join, the master starts and stops: each has its own
 * count, the sum is theirs, and a dead slot is left out, never zero. */
static void test_team(void)
{
    static mb_counters_t k;
    char msg[256];
    CHECK(mb_counters_init(&k, "task-clock,cycles", msg, sizeof msg) == 0, "init: %s", msg);
    if (!k.ev[0].available) {
        CHECK(strncmp(k.ev[0].why, "unavailable: ", 13) == 0, "no task-clock here: %s",
              k.ev[0].why);
        mb_counters_finish(&k);
        return;
    }
    CHECK(strcmp(k.ev[0].event, "perf_event_open:TASK-CLOCK") == 0 ||
          strcmp(k.ev[0].event, "perf::TASK-CLOCK") == 0, "task-clock counted as %s",
          k.ev[0].event);
    struct { mb_counters_t *k; int t; } arg[2] = { { &k, 0 }, { &k, 1 } };
    pthread_t th[2];
    /* the master starts once both have joined */
    for (int t = 0; t < 2; t++)
        pthread_create(&th[t], NULL, spin_joined, &arg[t]);
    while (__atomic_load_n(&k.thr[0].id, __ATOMIC_RELAXED) == 0 ||
           __atomic_load_n(&k.thr[1].id, __ATOMIC_RELAXED) == 0)
        usleep(1000);
    mb_counters_start(&k);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    mb_counters_stop(&k);
    CHECK(k.nthreads == 2 && mb_counters_threads_counted(&k) == 2, "2 threads counted (%d)",
          mb_counters_threads_counted(&k));
    /* 200 ms of spinning: at least 1 ms on a CPU, even on a loaded VM */
    CHECK(k.thr[0].value[0] > 1000000 && k.thr[1].value[0] > 1000000,
          "each thread has its own task clock (%lld, %lld ns)", k.thr[0].value[0],
          k.thr[1].value[0]);
    CHECK(k.ev[0].value == k.thr[0].value[0] + k.thr[1].value[0], "the sum is theirs");
    CHECK(!k.ev[1].available || k.thr[0].value[1] > 0, "cycles: counted, or %s", k.ev[1].why);

    /* a copy: the counts over two regions, one slot dead */
    static mb_counters_t acc, base;
    mb_counters_copy_zeroed(&acc, &k);
    CHECK(!acc.live && acc.live_state == NULL && acc.ev[0].value == 0 && acc.thr[1].value[0] == 0,
          "a zeroed copy owns nothing and counts nothing");
    base = k;
    k.thr[1].value[0] += 7;        /* as if the next region added 7 ns on thread 1 */
    k.thr[0].value[0] += 5;
    mb_counters_add_delta(&acc, &k, &base);
    CHECK(acc.ev[0].value == 12 && acc.thr[0].value[0] == 5, "a delta: %lld", acc.ev[0].value);
    mb_counters_mark_missing(&k, 1, "worker 1 (pid 9): killed by signal 9");
    CHECK(mb_counters_threads_counted(&k) == 1 && k.ev[0].value == k.thr[0].value[0] &&
          strstr(k.thr[1].why, "signal 9"), "a missing slot leaves the sum, with its reason");
    mb_counters_add_delta(&acc, &k, &base);
    CHECK(acc.thr[1].missing && mb_counters_threads_counted(&acc) == 1,
          "the copy takes over the missing slot");

    /* a thread that joins after the counted regions has no counts: it is
     * not counted, and its zeros are not in the sums */
    mb_counters_join(&k, 2, 3);
    k.thr[2].id = 4242;            /* as if another thread had joined slot 2 */
    CHECK(k.nthreads == 3 && !k.thr[2].counted && mb_counters_threads_counted(&k) == 1,
          "a slot that never ran a counted region is not counted (%d)",
          mb_counters_threads_counted(&k));
    mb_counters_finish(&k);
}

/* Multiplexing: a count seen for part of the enabled time is scaled up,
 * and the share is reported; never scheduled is no count at all. */
static void test_mux(void)
{
    static const struct {
        uint64_t value, enabled, running;
        long long want;
        double frac;
    } cases[] = {
        { 1000, 100, 100, 1000, 1.0 },      /* counted all the time */
        { 1000, 100, 50, 2000, 0.5 },       /* half the time: x2 */
        { 300, 400, 100, 1200, 0.25 },
        { 0, 0, 0, 0, 1.0 },                /* never enabled: nothing happened */
        { 0, 100, 0, -1, 1.0 },             /* enabled, never on the PMU */
        { 7, 100, 120, 7, 1.0 },            /* running > enabled (rounding): as is */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double f;
        long long v = mb_counters_mux_scale(cases[i].value, cases[i].enabled, cases[i].running, &f);
        CHECK(v == cases[i].want && fabs(f - cases[i].frac) < 1e-12,
              "value %llu enabled %llu running %llu -> %lld (share %g)",
              (unsigned long long)cases[i].value, (unsigned long long)cases[i].enabled,
              (unsigned long long)cases[i].running, v, f);
    }
}

/* The reason for a refused perf_event_open: the paranoid setting and the
 * value that would work, read from a fixture procfs. */
static void test_perf_why(void)
{
    char dir[] = "/tmp/ctr-procfs.XXXXXX", path[256], buf[400];
    if (!mkdtemp(dir)) {
        CHECK(0, "mkdtemp failed");
        return;
    }
    snprintf(path, sizeof path, "%s/sys", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/sys/kernel", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/sys/kernel/perf_event_paranoid", dir);
    static const struct { const char *value; bool kernel; int err; const char *has; } cases[] = {
        { "3", false, EACCES, "kernel.perf_event_paranoid=3 forbids it; 2 allows it (sysctl -w "
                              "kernel.perf_event_paranoid=2)" },
        { "2", true, EACCES, "kernel.perf_event_paranoid=2 forbids it; 1 allows it" },
        { "2", false, EPERM, "although kernel.perf_event_paranoid=2 allows it: a seccomp" },
        { "-1", false, ENOENT, "(kernel.perf_event_paranoid=-1)" },
    };
    setenv("MEMSUITE_PROCFS", dir, 1);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%s\n", cases[i].value);
            fclose(f);
        }
        mb_counters_perf_why(cases[i].err, false, cases[i].kernel, buf, sizeof buf);
        CHECK(strstr(buf, cases[i].has) != NULL, "paranoid %s: %s", cases[i].value, buf);
    }
    mb_counters_perf_why(ENOENT, true, false, buf, sizeof buf);
    CHECK(strstr(buf, "no hardware PMU event"), "a missing hardware event: %s", buf);
    unsetenv("MEMSUITE_PROCFS");
    unlink(path);
    snprintf(path, sizeof path, "%s/sys/kernel", dir);
    rmdir(path);
    snprintf(path, sizeof path, "%s/sys", dir);
    rmdir(path);
    rmdir(dir);
}

/* The lifecycle: a set that was never initialised (zeroed, as calloc
 * leaves it), whose init failed, or that is already finished, releases
 * nothing: no PAPI call on event set 0, no close() of descriptor 0. */
static void test_lifecycle(void)
{
    mb_counters_t *z = calloc(1, sizeof *z);
    char msg[256];
    CHECK(z != NULL, "calloc a counter set");
    if (!z)
        return;
    mb_counters_start(z);
    mb_counters_stop(z);
    mb_counters_finish(z);
    CHECK(fcntl(0, F_GETFD) != -1, "finish on a zeroed set leaves descriptor 0 open");
    CHECK(!z->running && z->minflt == 0, "start/stop on a zeroed set do nothing");

    CHECK(mb_counters_init(z, "NOPE,NOPE", msg, sizeof msg) == -EINVAL, "a repeated name fails init");
    mb_counters_finish(z);
    CHECK(fcntl(0, F_GETFD) != -1, "finish after a failed init leaves descriptor 0 open");

    CHECK(mb_counters_init(z, "NOPE", msg, sizeof msg) == 0 && z->live, "an unknown name inits");
    mb_counters_finish(z);
    mb_counters_finish(z);
    CHECK(!z->live && fcntl(0, F_GETFD) != -1, "finish twice is harmless");
    CHECK(mb_counters_check_list(NULL, msg, sizeof msg) == 0, "check_list(NULL): nothing asked");
    free(z);
}

int main(void)
{
    test_lifecycle();
    test_lists();
    test_hw();
    test_sw();
    test_team();
    test_mux();
    test_perf_why();
    return check_done();
}
