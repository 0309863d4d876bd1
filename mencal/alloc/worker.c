/* alloc/worker: the measured threads of the allocator comparison.
 *
 * Harness memory (slot tables, source buffers, latency arrays) comes
 * from mmap, so it is the same whatever malloc is preloaded; only the
 * blocks go through malloc/free.  Threads start together behind a gate;
 * the wall time runs from the first thread's start to the last thread's
 * end, and leftover blocks are freed after the rusage snapshot. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "worker.h"
#include "../rng.h"
#include "counters.h"
#include "timer.h"

/* A slot: its block (kept across --nofree "frees") and whether it is full.
 * `full` is a word so the harness can turn it into a mask. */
typedef struct {
    void *p;
    uintptr_t full;           /* 1 full, 0 empty */
} slot_t;

/* A gate threads wait at until the main thread opens it. */
typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;              /* threads that reached the gate */
    bool open, abort;
} gate_t;

typedef struct __attribute__((aligned(64))) {
    const mc_alloc_work_t *w;
    gate_t *start, *finish;
    int index;
    slot_t *slot;
    unsigned char *src;       /* the fill pattern, one block */
    uint32_t *lat;            /* MC_ALLOC_LAT_CAP samples, ns */
    size_t nlat;
    uint64_t period;          /* one timed step per `period` steps */
    uint64_t ops, allocs, frees;
    uint64_t t_start_ns, t_end_ns;
    uint64_t cpu_ns;          /* this thread's CPU clock over its loop */
    mb_counters_t *ctr;       /* every thread's own event set; NULL: none */
    int err;
} thr_t;

/* The second source of the minor faults: the sum of the threads' own
 * perf minor-faults events, or -1 with the reason. */
static void perf_minflt(const mb_counters_t *ctr, int created, mc_alloc_meas_t *m)
{
    m->perf_minflt = -1;
    if (!ctr)
        snprintf(m->perf_why, sizeof m->perf_why, "out of memory for the counters");
    else if (!ctr->ev[0].available)
        snprintf(m->perf_why, sizeof m->perf_why, "%.199s", ctr->ev[0].why);
    else if (mb_counters_threads_counted(ctr) != created)
        snprintf(m->perf_why, sizeof m->perf_why, "unavailable: %d of %d threads counted",
                 mb_counters_threads_counted(ctr), created);
    else
        m->perf_minflt = ctr->ev[0].value;
}

static void *map_zero(size_t bytes)
{
    void *p = mmap(NULL, bytes ? bytes : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void gate_arrive_and_wait(gate_t *g, bool *aborted)
{
    pthread_mutex_lock(&g->mu);
    g->arrived++;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    *aborted = g->abort;
    pthread_mutex_unlock(&g->mu);
}

static void gate_wait_arrivals(gate_t *g, int n)
{
    pthread_mutex_lock(&g->mu);
    while (g->arrived < n)
        pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}

static void gate_open(gate_t *g, bool abort)
{
    pthread_mutex_lock(&g->mu);
    g->open = true;
    g->abort = abort;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* Keep a uniform sample in a bounded array: when full, keep every other
 * sample and time half as often (down to one timed step per 64K steps,
 * since the --duration deadline is checked at timed steps). */
static void lat_record(thr_t *t, uint64_t ns)
{
    if (t->nlat == MC_ALLOC_LAT_CAP) {
        for (size_t i = 0; i < MC_ALLOC_LAT_CAP / 2; i++)
            t->lat[i] = t->lat[2 * i];
        t->nlat = MC_ALLOC_LAT_CAP / 2;
        if (t->period < MC_ALLOC_LAT_MAX_PERIOD * 16)   /* the deadline rides on it */
            t->period *= 2;
    }
    t->lat[t->nlat++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

/* Slot choice: for a power-of-two slot count, log2(n) bits per step cut
 * from one 64-bit draw (exact; the bits left over at the end of a stretch
 * are dropped); otherwise Lemire's multiply-shift on a draw per step
 * (bias < n / 2^64). */
typedef struct {
    uint64_t mask, n;
    unsigned shift, per_draw;     /* per_draw 0: not a power of two */
} pick_t;

static void pick_init(pick_t *p, uint64_t n)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    if (n && (n & (n - 1)) == 0) {
        p->shift = (unsigned)__builtin_ctzll(n);
        p->mask = n - 1;
        p->per_draw = p->shift ? 64 / p->shift : 64;
    }
}

/* The blocks live in the slot table, an mmap'ed array indexed by random
 * numbers, which gcc's analyzer cannot follow: it reports each malloc here
 * as leaked.  They are freed by thread_main() after the loop. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wanalyzer-malloc-leak"
#endif

/* One step on slot s.  Real: a full slot is freed (--nofree: kept), an
 * empty one malloc'ed on first use and filled.  Harness: the same state
 * and pointer bookkeeping without the allocator and without a branch on
 * the slot state (in the real step that branch chooses free() or
 * malloc(); it mispredicts half the time whoever writes the workload, so
 * it is counted as workload, not harness).  Returns false when malloc
 * failed.  `harness` and `nofree` are constants at every call site. */
static inline __attribute__((always_inline)) bool step(slot_t *s, const unsigned char *src,
                                                       size_t bytes, bool harness, bool nofree)
{
    if (harness) {
        /* masks instead of conditionals, so that no branch depends on
         * the random slot state */
        uintptr_t p = (uintptr_t)s->p;
        uintptr_t unused = -(uintptr_t)(p == 0);      /* all ones: no block yet */
        uintptr_t full = -s->full;                     /* all ones: slot full */
        uintptr_t kept = nofree ? p : 0;
        uintptr_t filled = p | ((uintptr_t)src & unused);
        s->p = (void *)((kept & full) | (filled & ~full));
        s->full ^= 1;
        return true;
    }
    if (s->full) {
        if (!nofree) {
            free(s->p);
            s->p = NULL;
        }
        s->full = 0;
        return true;
    }
    void *p = s->p;
    if (!p && !(p = malloc(bytes)))
        return false;
    memcpy(p, src, bytes);
    s->p = p;
    s->full = 1;
    return true;
}

/* Steps run in stretches of period - 1 plain steps and one timed step;
 * the timed step records the latency when it allocates, and its clock
 * reading also serves the --duration deadline.  Allocations are not
 * counted per step: allocs - frees = the slots full at the end. */
static inline __attribute__((always_inline)) void loop(thr_t *t, mc_rng_t *rng, bool harness,
                                                       bool nofree)
{
    const mc_alloc_work_t *w = t->w;
    const size_t bytes = w->block_bytes;
    const uint64_t limit = w->ops ? w->ops : UINT64_MAX;
    const uint64_t deadline = w->ops ? 0 : t->t_start_ns + (uint64_t)(w->duration_s * 1e9);
    slot_t *slot = t->slot;
    const unsigned char *src = t->src;
    uint64_t ops = 0;
    pick_t pick;
    pick_init(&pick, w->slots);

    while (ops < limit) {
        uint64_t n = t->period - 1;
        if (n > limit - ops)
            n = limit - ops;
        for (uint64_t k = 0; k < n;) {
            if (pick.per_draw) {
                /* one draw feeds per_draw steps */
                uint64_t bits = mc_rng_next(rng);
                uint64_t m = n - k < pick.per_draw ? n - k : pick.per_draw;
                for (uint64_t j = 0; j < m; j++, bits >>= pick.shift)
                    if (!step(&slot[bits & pick.mask], src, bytes, harness, nofree)) {
                        ops += k + j;
                        t->err = ENOMEM;
                        goto out;
                    }
                k += m;
            } else {
                if (!step(&slot[mc_rng_below(rng, pick.n)], src, bytes, harness, nofree)) {
                    ops += k;
                    t->err = ENOMEM;
                    goto out;
                }
                k++;
            }
        }
        ops += n;
        if (ops == limit)
            break;
        slot_t *s = &slot[mc_rng_below(rng, pick.n)];
        bool allocates = !s->full;
        uint64_t t0 = mb_now_ns();
        if (!step(s, src, bytes, harness, nofree)) {
            t->err = ENOMEM;
            goto out;
        }
        uint64_t t1 = mb_now_ns();
        ops++;
        if (allocates)
            lat_record(t, t1 - t0);
        if (deadline && t1 >= deadline)
            break;
    }
out:
    t->ops = ops;
    uint64_t full = 0;
    for (size_t i = 0; i < w->slots; i++)
        full += slot[i].full;
    /* ops = allocs + frees, full = allocs - frees */
    t->allocs = (ops + full) / 2;
    t->frees = ops - t->allocs;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

static void real_free(thr_t *t, mc_rng_t *rng) { loop(t, rng, false, false); }
static void real_nofree(thr_t *t, mc_rng_t *rng) { loop(t, rng, false, true); }
static void harness_free(thr_t *t, mc_rng_t *rng) { loop(t, rng, true, false); }
static void harness_nofree(thr_t *t, mc_rng_t *rng) { loop(t, rng, true, true); }

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* VmRSS and VmHWM of this process in KiB (-1 when unreadable). */
static void self_rss_kib(long *rss, long *hwm)
{
    char line[256];
    *rss = *hwm = -1;
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmRSS:", 6) == 0)
            *rss = strtol(line + 6, NULL, 10);
        else if (strncmp(line, "VmHWM:", 6) == 0)
            *hwm = strtol(line + 6, NULL, 10);
    }
    fclose(f);
}

static void *thread_main(void *arg)
{
    thr_t *t = arg;
    const mc_alloc_work_t *w = t->w;
    mc_rng_t rng;
    mc_rng_init(&rng, w->random_state, (uint64_t)t->index);
    bool aborted;
    if (t->ctr)
        mb_counters_join(t->ctr, t->index, w->threads);
    gate_arrive_and_wait(t->start, &aborted);
    if (!aborted) {
        /* the CPU span lies inside the wall span */
        t->t_start_ns = mb_now_ns();
        uint64_t cpu0 = thread_cpu_ns();
        void (*run)(thr_t *, mc_rng_t *) =
            w->harness_only ? (w->nofree ? harness_nofree : harness_free)
                            : (w->nofree ? real_nofree : real_free);
        run(t, &rng);
        t->cpu_ns = thread_cpu_ns() - cpu0;
        t->t_end_ns = mb_now_ns();
    }
    /* wait until the main thread has read rusage, then clean up */
    gate_arrive_and_wait(t->finish, &aborted);
    for (size_t i = 0; i < w->slots; i++) {
        if (!w->harness_only)
            free(t->slot[i].p);
        t->slot[i].p = NULL;
        t->slot[i].full = 0;
    }
    return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

double mc_alloc_percentile(uint32_t *v, size_t n, double p)
{
    if (n == 0)
        return NAN;
    qsort(v, n, sizeof *v, cmp_u32);
    double r = p * (double)n;
    size_t idx = (size_t)r;
    if ((double)idx < r)
        idx++;                 /* ceil(p n) */
    if (idx == 0)
        idx = 1;
    if (idx > n)
        idx = n;
    return (double)v[idx - 1];
}

static double tv_s(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

int mc_alloc_work_run(const mc_alloc_work_t *w, mc_alloc_meas_t *m, char *why, size_t whylen)
{
    memset(m, 0, sizeof *m);
    const int n = w->threads;
    if (n < 1 || n > MC_ALLOC_MAX_THREADS || w->slots == 0 || w->block_bytes == 0) {
        snprintf(why, whylen, "bad work parameters (threads %d, slots %zu, block %zu bytes)", n,
                 w->slots, w->block_bytes);
        return -EINVAL;
    }
    size_t thr_bytes = (size_t)n * sizeof(thr_t), per_slot = w->slots * sizeof(slot_t);
    size_t lat_bytes = MC_ALLOC_LAT_CAP * sizeof(uint32_t);
    thr_t *thr = map_zero(thr_bytes);
    pthread_t *tid = map_zero((size_t)n * sizeof *tid);
    if (!thr || !tid) {
        snprintf(why, whylen, "mmap of the thread table failed: %s", strerror(errno));
        return -ENOMEM;
    }
    /* mmap, not malloc: the allocator under test sees none of it */
    mb_counters_t *ctr = map_zero(sizeof *ctr);
    if (ctr && mb_counters_init(ctr, "minor-faults", why, whylen) != 0) {
        munmap(ctr, sizeof *ctr);
        ctr = NULL;
    }
    gate_t start = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, false };
    gate_t finish = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, false, false };
    int rc = 0, created = 0;
    /* about one timed step per 2 MiB of copies, at most every 4096 steps,
     * and at least 256 timed steps in a short fixed-length run */
    uint64_t period = 2 * (MC_ALLOC_LAT_EVERY_BYTES / w->block_bytes);
    if (period > MC_ALLOC_LAT_MAX_PERIOD)
        period = MC_ALLOC_LAT_MAX_PERIOD;
    if (w->ops && period > w->ops / 256)
        period = w->ops / 256;
    for (int i = 0; i < n; i++) {
        thr_t *t = &thr[i];
        t->w = w;
        t->start = &start;
        t->finish = &finish;
        t->index = i;
        t->ctr = ctr;
        t->period = period ? period : 1;
        t->slot = map_zero(per_slot);
        t->src = map_zero(w->block_bytes);
        t->lat = map_zero(lat_bytes);
        if (!t->slot || !t->src || !t->lat) {
            snprintf(why, whylen, "mmap of thread %d's harness memory (%zu bytes source) failed: %s",
                     i, w->block_bytes, strerror(errno));
            rc = -ENOMEM;
            break;
        }
        memset(t->src, 0x5a, w->block_bytes);   /* fault the source in before timing */
    }
    for (int i = 0; rc == 0 && i < n; i++) {
        int e = pthread_create(&tid[i], NULL, thread_main, &thr[i]);
        if (e) {
            snprintf(why, whylen, "cannot create thread %d of %d: %s; lower --threads", i + 1, n,
                     strerror(e));
            rc = -e;
            break;
        }
        created++;
    }
    struct rusage r0, r1;
    gate_wait_arrivals(&start, created);
    mb_counters_start(ctr);
    getrusage(RUSAGE_SELF, &r0);
    gate_open(&start, rc != 0);
    gate_wait_arrivals(&finish, created);
    getrusage(RUSAGE_SELF, &r1);
    mb_counters_stop(ctr);
    self_rss_kib(&m->rss_end_kib, &m->hwm_kib);   /* the blocks are still held */
    gate_open(&finish, false);
    for (int i = 0; i < created; i++)
        pthread_join(tid[i], NULL);

    if (rc == 0) {
        uint64_t t0 = UINT64_MAX, t1 = 0;
        size_t nlat = 0;
        for (int i = 0; i < n; i++) {
            thr_t *t = &thr[i];
            if (t->t_start_ns < t0)
                t0 = t->t_start_ns;
            if (t->t_end_ns > t1)
                t1 = t->t_end_ns;
            m->ops += t->ops;
            m->allocs += t->allocs;
            m->frees += t->frees;
            m->cpu_s += (double)t->cpu_ns * 1e-9;
            nlat += t->nlat;
            if (t->err && rc == 0) {
                snprintf(why, whylen,
                         "thread %d: malloc(%zu) returned NULL after %llu steps: out of memory",
                         i, w->block_bytes, (unsigned long long)t->ops);
                rc = -t->err;
            }
        }
        m->wall_s = (double)(t1 - t0) * 1e-9;
        m->user_s = tv_s(r1.ru_utime) - tv_s(r0.ru_utime);
        m->sys_s = tv_s(r1.ru_stime) - tv_s(r0.ru_stime);
        m->minflt = r1.ru_minflt - r0.ru_minflt;
        m->majflt = r1.ru_majflt - r0.ru_majflt;
        perf_minflt(ctr, created, m);
        uint32_t *all = nlat ? map_zero(nlat * sizeof *all) : NULL;
        m->lat_p50_ns = m->lat_p99_ns = NAN;
        if (all) {
            size_t k = 0;
            for (int i = 0; i < n; i++) {
                memcpy(all + k, thr[i].lat, thr[i].nlat * sizeof *all);
                k += thr[i].nlat;
            }
            m->nlat = k;
            m->lat_p50_ns = mc_alloc_percentile(all, k, 0.50);
            m->lat_p99_ns = mc_alloc_percentile(all, k, 0.99);
            munmap(all, nlat * sizeof *all);
        }
    }
    for (int i = 0; i < n; i++) {
        if (thr[i].slot)
            munmap(thr[i].slot, per_slot);
        if (thr[i].src)
            munmap(thr[i].src, w->block_bytes);
        if (thr[i].lat)
            munmap(thr[i].lat, lat_bytes);
    }
    munmap(thr, thr_bytes);
    munmap(tid, (size_t)n * sizeof *tid);
    if (ctr) {
        mb_counters_finish(ctr);
        munmap(ctr, sizeof *ctr);
    }
    return rc;
}
