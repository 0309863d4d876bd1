/* test_affinity: the recorded OpenMP environment, thread count and CPUs.
 * A forked child restricted to one CPU checks that every thread reports
 * that CPU; the parent checks counts, CPU ranges and env capture. */
#include "affinity.h"
#include "check.h"

#include <omp.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The CPUs this process may run on. */
static int allowed_set(cpu_set_t *set)
{
    CPU_ZERO(set);
    return sched_getaffinity(0, sizeof *set, set);
}

/* Must run before the first parallel region: new OpenMP threads inherit
 * the mask the master has when the pool is created. */
static void test_one_cpu_child(void)
{
    const char *bind = getenv("OMP_PROC_BIND");
    if (bind && *bind && strcmp(bind, "false") != 0) {
        printf("ok %d - # skip one-CPU run: OMP_PROC_BIND=%s pins threads itself\n",
               ++check_count_, bind);
        return;
    }
    cpu_set_t set;
    if (allowed_set(&set) != 0) {
        CHECK(0, "sched_getaffinity works");
        return;
    }
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
        if (CPU_ISSET(c, &set))
            first = c;

    mb_affinity_t *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                                 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED, "shared result page");
    if (shared == MAP_FAILED)
        return;
    pid_t pid = fork();
    if (pid == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        if (sched_setaffinity(0, sizeof one, &one) != 0)
            _exit(2);
        omp_set_num_threads(2);
        mb_affinity_record(shared);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child recorded (status %d)",
          WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    CHECK(shared->allowed_cpus == 1, "child: allowed_cpus is 1 (got %d)", shared->allowed_cpus);
    CHECK(shared->requested == 2 && shared->counted == 2, "child: 2 threads asked and ran (%d/%d)",
          shared->requested, shared->counted);
    CHECK(shared->cpu[0] == first && shared->cpu[1] == first,
          "child: both threads ran on CPU %d (got %d, %d)", first, shared->cpu[0], shared->cpu[1]);
    CHECK(shared->cpu[2] == -1, "child: unused slots stay -1");
    munmap(shared, sizeof *shared);
}

typedef struct {
    const char *num_threads, *proc_bind, *places;   /* NULL: unset */
} env_case_t;

static const env_case_t env_cases[] = {
    { NULL, NULL, NULL },
    { "3", "close", "cores" },
    { "2,1", "spread,close", "{0},{1}" },
};

static void test_env(void)
{
    for (size_t i = 0; i < sizeof env_cases / sizeof env_cases[0]; i++) {
        const env_case_t *c = &env_cases[i];
        const char *names[3] = { "OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES" };
        const char *vals[3] = { c->num_threads, c->proc_bind, c->places };
        char saved[3][256];
        bool had[3];
        for (int k = 0; k < 3; k++) {
            const char *old = getenv(names[k]);
            had[k] = old != NULL;
            snprintf(saved[k], sizeof saved[k], "%s", old ? old : "");
            if (vals[k])
                setenv(names[k], vals[k], 1);
            else
                unsetenv(names[k]);
        }
        static mb_affinity_t a;
        mb_affinity_record(&a);
        const char *got[3] = { a.omp_num_threads, a.omp_proc_bind, a.omp_places };
        for (int k = 0; k < 3; k++) {
            char name[96];
            snprintf(name, sizeof name, "env case %zu: %s recorded", i, names[k]);
            CHECK_EQ_STR(got[k], vals[k] ? vals[k] : "", name);
        }
        for (int k = 0; k < 3; k++) {
            if (had[k])
                setenv(names[k], saved[k], 1);
            else
                unsetenv(names[k]);
        }
    }

    /* A long value is cut to the field, terminated. */
    char long_places[300];
    memset(long_places, 'x', sizeof long_places - 1);
    long_places[sizeof long_places - 1] = '\0';
    const char *old = getenv("OMP_PLACES");
    char saved[256];
    snprintf(saved, sizeof saved, "%s", old ? old : "");
    setenv("OMP_PLACES", long_places, 1);
    static mb_affinity_t a;
    mb_affinity_record(&a);
    CHECK(strlen(a.omp_places) == sizeof a.omp_places - 1, "a long OMP_PLACES is truncated to %zu",
          sizeof a.omp_places - 1);
    if (old)
        setenv("OMP_PLACES", saved, 1);
    else
        unsetenv("OMP_PLACES");
}

static void test_threads(void)
{
    static const int counts[] = { 1, 2, 3 };
    cpu_set_t set;
    allowed_set(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        static mb_affinity_t a;
        omp_set_num_threads(counts[i]);
        mb_affinity_record(&a);
        CHECK(a.requested == counts[i] && a.counted == counts[i],
              "%d threads requested and counted (got %d/%d)", counts[i], a.requested, a.counted);
        int in_mask = 0;
        for (int t = 0; t < a.counted; t++)
            in_mask += a.cpu[t] >= 0 && CPU_ISSET(a.cpu[t], &set);
        CHECK(in_mask == a.counted, "%d threads: every CPU is in the affinity mask (%d of %d)",
              counts[i], in_mask, a.counted);
        CHECK(a.cpu[a.counted] == -1, "%d threads: the slot after the last thread is -1", counts[i]);
        CHECK(a.online_cpus == online, "online CPUs %ld (got %d)", online, a.online_cpus);
        CHECK(a.allowed_cpus == CPU_COUNT(&set), "allowed CPUs %d (got %d)", CPU_COUNT(&set),
              a.allowed_cpus);
    }
    CHECK(mb_affinity_allowed_cpus() == CPU_COUNT(&set), "mb_affinity_allowed_cpus matches the mask");
}

int main(void)
{
    test_one_cpu_child();
    test_env();
    test_threads();
    return check_done();
}
