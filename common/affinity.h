/* affinity: which CPU each OpenMP thread ran on, and the OpenMP
 * environment that decided it (OMP_NUM_THREADS, OMP_PROC_BIND, OMP_PLACES). */
#ifndef MB_AFFINITY_H
#define MB_AFFINITY_H

#include <sched.h>
#include <stddef.h>

#define MB_MAX_THREADS 1024

typedef struct {
    int requested;                 /* omp_get_max_threads() at record time */
    int counted;                   /* threads that actually ran the region */
    int cpu[MB_MAX_THREADS];       /* cpu[t] = sched_getcpu() of thread t, -1 unknown */
    char omp_num_threads[64];      /* env value or "" when unset */
    char omp_proc_bind[64];
    char omp_places[128];
    int online_cpus;               /* sysconf(_SC_NPROCESSORS_ONLN) */
    int allowed_cpus;              /* CPUs in this process's affinity mask */
} mb_affinity_t;

/* Runs one parallel region with the current OpenMP settings and records
 * each thread's CPU.  Call after omp_set_num_threads. */
void mb_affinity_record(mb_affinity_t *out);
/* Number of CPUs in the calling process's affinity mask. */
int mb_affinity_allowed_cpus(void);
/* The CPUs this process may use, into *set (cpu_set_t, CPU_SETSIZE CPUs).
 * With OMP_PROC_BIND set, libgomp binds the initial thread to the first
 * place before main() runs, so the calling thread's mask shows one place;
 * then the union of every OpenMP place is returned instead.  Returns the
 * CPU count, or -errno. */
int mb_affinity_process_mask(cpu_set_t *set);

#endif
