/* alloc/worker: the measured threads (run in the child). */
#ifndef MC_ALLOC_WORKER_H
#define MC_ALLOC_WORKER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MC_ALLOC_MAX_THREADS 1024
#define MC_ALLOC_LAT_CAP 4096         /* latency samples kept per thread */
#define MC_ALLOC_LAT_EVERY_BYTES (1u << 20)  /* one timed step per 2 x (this / block) steps */
#define MC_ALLOC_LAT_MAX_PERIOD 4096           /* ... but at least one per this many steps */

typedef struct {
    int threads;
    size_t block_bytes;
    size_t slots;                   /* blocks per thread */
    uint64_t ops;                   /* steps per thread; 0: run for duration_s */
    double duration_s;
    bool nofree;
    bool harness_only;              /* RNG, bookkeeping and timing, no malloc/memcpy */
    uint64_t random_state;          /* thread t uses stream t from this start */
} mc_alloc_work_t;

typedef struct {
    double wall_s;                  /* barrier release to the last thread's end */
    double user_s, sys_s;           /* getrusage(RUSAGE_SELF) over the same span */
    double cpu_s;                   /* sum of the threads' CPU clocks over their loops */
    long rss_end_kib;               /* VmRSS at the end of the loops (blocks still held), -1 */
    long hwm_kib;                   /* VmHWM then: the peak RSS of this image since exec, -1 */
    long minflt, majflt;
    long perf_minflt;               /* minor faults summed over the threads' own event
                                     * sets (perf minor-faults) over the same span;
                                     * -1: not counted, perf_why says why */
    char perf_why[200];
    uint64_t ops, allocs, frees;    /* all threads */
    size_t nlat;                    /* latency samples merged */
    double lat_p50_ns, lat_p99_ns;  /* allocate + memcpy, NaN without samples */
} mc_alloc_meas_t;

/* Runs the threads once.  0, or -errno with why (ENOMEM: an allocation
 * failed; EAGAIN: a thread could not be created). */
int mc_alloc_work_run(const mc_alloc_work_t *w, mc_alloc_meas_t *m, char *why, size_t whylen);
/* Nearest-rank percentile (p in (0,1]) of v[0..n), sorted in place. */
double mc_alloc_percentile(uint32_t *v, size_t n, double p);

#endif
