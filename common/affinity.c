/* affinity: one OpenMP parallel region that records where each thread
 * ran, plus the OpenMP environment and the process's CPU mask. */
#include "affinity.h"

#include <errno.h>
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

int mb_affinity_process_mask(cpu_set_t *set)
{
    CPU_ZERO(set);
    if (sched_getaffinity(0, sizeof *set, set) != 0)
        return -errno;
    int nplaces = omp_get_num_places();
    if (omp_get_proc_bind() == omp_proc_bind_false || nplaces <= 0)
        return CPU_COUNT(set);
    /* OpenMP built its places from the process mask it saw at start-up;
     * their union is that mask, restricted to what OMP_PLACES named. */
    cpu_set_t places;
    CPU_ZERO(&places);
    for (int p = 0; p < nplaces; p++) {
        int n = omp_get_place_num_procs(p);
        if (n <= 0)
            continue;
        int *ids = calloc((size_t)n, sizeof *ids);
        if (!ids)
            return -ENOMEM;
        omp_get_place_proc_ids(p, ids);
        for (int i = 0; i < n; i++)
            if (ids[i] >= 0 && ids[i] < CPU_SETSIZE)
                CPU_SET(ids[i], &places);
        free(ids);
    }
    if (CPU_COUNT(&places) > 0)
        *set = places;
    return CPU_COUNT(set);
}

int mb_affinity_allowed_cpus(void)
{
    if (omp_get_proc_bind() != omp_proc_bind_false && omp_get_num_places() > 0) {
        cpu_set_t set;
        int n = mb_affinity_process_mask(&set);
        if (n > 0)
            return n;
    }
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
