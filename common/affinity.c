/* affinity: one OpenMP parallel region that records where each thread
 * ran, plus the OpenMP environment and the process's CPU mask. */
#include "affinity.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Copy an environment variable, "" when unset. */
static void copy_env(char *dst, size_t dstlen, const char *name)
{
    const char *v = getenv(name);
    snprintf(dst, dstlen, "%s", v ? v : "");
}

int mb_affinity_allowed_cpus(void)
{
    long conf = sysconf(_SC_NPROCESSORS_CONF);
    int ncpu = conf > 0 ? (int)conf : 1;
    /* The mask must cover the kernel's CPU numbering, which can exceed
     * the configured count; grow until sched_getaffinity accepts it. */
    for (int cap = ncpu < 1024 ? 1024 : ncpu; cap <= (1 << 20); cap *= 2) {
        cpu_set_t *set = CPU_ALLOC((size_t)cap);
        if (!set)
            return -1;
        size_t sz = CPU_ALLOC_SIZE((size_t)cap);
        CPU_ZERO_S(sz, set);
        if (sched_getaffinity(0, sz, set) == 0) {
            int n = CPU_COUNT_S(sz, set);
            CPU_FREE(set);
            return n;
        }
        CPU_FREE(set);
    }
    return -1;
}

void mb_affinity_record(mb_affinity_t *out)
{
    memset(out, 0, sizeof *out);
    for (int t = 0; t < MB_MAX_THREADS; t++)
        out->cpu[t] = -1;
    out->requested = omp_get_max_threads();
    copy_env(out->omp_num_threads, sizeof out->omp_num_threads, "OMP_NUM_THREADS");
    copy_env(out->omp_proc_bind, sizeof out->omp_proc_bind, "OMP_PROC_BIND");
    copy_env(out->omp_places, sizeof out->omp_places, "OMP_PLACES");
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    out->online_cpus = online > 0 ? (int)online : -1;
    out->allowed_cpus = mb_affinity_allowed_cpus();

    int counted = 0;
    int *cpu = out->cpu;
#pragma omp parallel
    {
        int t = omp_get_thread_num();
        if (t < MB_MAX_THREADS)
            cpu[t] = sched_getcpu();
#pragma omp single
        counted = omp_get_num_threads();
    }
    out->counted = counted;
}
