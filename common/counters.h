/* counters: events counted on every thread of a team (or every worker
 * process), plus the figures every run gets: getrusage (minor/major
 * faults, max RSS) and process-wide perf software events.
 * HAVE_PAPI is tested in counters.c only.
 *
 * Each requested event is counted by one backend, chosen at init:
 *   - PAPI (a preset, else a native event), when PAPI is built and its
 *     perf_event component can add the event;
 *   - else perf_event_open(2) with the generic attribute the perf-style
 *     name stands for (counter_names.h): the software events (task-clock,
 *     page-faults, ...) count on any Linux, VMs included; the hardware
 *     ones need a PMU the kernel exposes.
 *
 * Every thread has its own event set (a PAPI event set attached to its
 * thread id, and one perf descriptor per event opened for that thread).
 * The master starts and stops all of them at the points where it starts
 * and stops the timed region, so per-thread counts cover the same region:
 *
 *   mb_counters_init(&c, list, ...)            once
 *   mb_counters_join_team(&c, nthreads)        outside a parallel region:
 *                                              registers the OpenMP team
 *     or, from inside the team's region,
 *   mb_counters_join(&c, omp_get_thread_num(), nthreads)   every thread
 *     or, for worker processes,
 *   mb_counters_join_pid(&c, slot, pid, nslots)
 *   mb_counters_start(&c) ... mb_counters_stop(&c)   master, repeatable:
 *                                              each pair adds its deltas
 *   mb_counters_finish(&c)
 *
 * A set on which nothing joined counts the thread that first starts it.
 * OpenMP keeps its pool threads between regions of the same size; a
 * later join that finds another OS thread in a slot marks that slot's
 * counts missing ("its OS thread changed") instead of mixing threads.
 * A slot marked missing (mb_counters_mark_missing: a worker that died)
 * is left out of the sums and says why; it never reads as zero.
 *
 * Without a usable event (a VM without PMU, perf_event disabled, a build
 * without PAPI) the event is unavailable with the reasons of every
 * backend tried. */
#ifndef MB_COUNTERS_H
#define MB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_COUNTERS_MAX 8
/* Threads (or worker processes) counted one by one; a larger team has
 * its first MB_COUNTERS_THREADS counted and says so (threads_uncounted). */
#define MB_COUNTERS_THREADS 256

/* The default hardware set: cycles, instructions, LLC misses, dTLB misses
 * and load instructions (so the dTLB miss rate, in % of loads, follows). */
#define MB_COUNTERS_DEFAULT "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,PAPI_TLB_DM,PAPI_LD_INS"

/* An empty list (--counters=) is refused by every tool with this text. */
#define MB_COUNTERS_EMPTY_WHY "invalid value '': empty; give a value (LIST), or leave " \
    "the option out for the default"

typedef enum { MB_CTR_NONE, MB_CTR_PAPI, MB_CTR_PERF } mb_counter_backend_t;

typedef struct {
    char name[64];        /* as given: a PAPI name or a perf-style alias */
    char event[64];       /* what is counted: the PAPI event, or
                           * "perf_event_open:<type>:<name>"; when nothing
                           * could count it, the first candidate tried */
    bool available;       /* counted on at least one thread */
    long long value;      /* sum over the counted threads and start/stop pairs */
    double running_frac;  /* perf: least time_running/time_enabled over threads
                           * (1: counted all the time; < 1: multiplexed and
                           * scaled by enabled/running) */
    char why[480];        /* "unavailable: <reasons>" when !available */
    /* private: the backend's handle */
    int backend;          /* mb_counter_backend_t */
    int papi_code;
    uint32_t perf_type;
    uint64_t perf_config;
    bool perf_exclude_kernel;
} mb_counter_t;

typedef struct {
    int id;               /* OS thread id, or worker process id; 0: never joined */
    bool counted;         /* its event set ran in at least one counted region */
    bool missing;         /* counts unusable: why */
    char why[160];
    long long value[MB_COUNTERS_MAX];   /* this thread's counts, summed over pairs */
} mb_counter_thread_t;

typedef struct mb_counters_live mb_counters_live_t;   /* descriptors, private */

typedef struct {
    /* the requested events */
    bool hw_requested;
    bool hw_available;             /* at least one event counted */
    char hw_why[256];              /* why none could be counted; when not
                                    * requested, an optional caller note (JSON) */
    int n;
    mb_counter_t ev[MB_COUNTERS_MAX];
    /* per thread (per worker process when `processes`) */
    bool processes;
    int nthreads;                  /* slots in use (threads joined) */
    int threads_uncounted;         /* team members beyond MB_COUNTERS_THREADS */
    mb_counter_thread_t thr[MB_COUNTERS_THREADS];
    double bytes_moved;            /* set by the tool for the per-byte rates; 0: unknown */
    /* software: perf_event_open(PERF_TYPE_SOFTWARE), the whole process */
    bool sw_available;
    char sw_why[200];
    long long sw_page_faults, sw_context_switches, sw_cpu_migrations;
    uint64_t sw_task_clock_ns;
    /* rusage deltas (always available) */
    long minflt, majflt;           /* faults during measured regions */
    long maxrss_kib;               /* process peak RSS at last stop, KiB */
    /* private */
    mb_counters_live_t *live_state;
    int sw_fd[4];
    long ru_minflt0, ru_majflt0;
    bool running;                  /* between start and stop */
    bool live;                     /* init succeeded and finish not yet called;
                                    * a zeroed struct is not live, so finish()
                                    * on it releases nothing */
} mb_counters_t;

/* list: NULL for no event counters; "default" for MB_COUNTERS_DEFAULT;
 * otherwise comma-separated PAPI names (preset or native) or perf-style
 * names (cycles, dTLB-load-misses, task-clock, ...: see counter_names.h);
 * blanks around names are ignored.  Never fails the run: unavailability
 * is recorded with the reason.  Returns 0, or -EINVAL for a malformed
 * list (msg filled) so the caller exits 2: an empty list or name, more
 * than MB_COUNTERS_MAX names, a name of 64+ characters, a repeated name,
 * or a character outside letters, digits and _ : . = + - / @. */
int mb_counters_init(mb_counters_t *c, const char *list, char *msg, size_t msglen);
/* The same check of `list` as mb_counters_init, without touching PAPI or
 * perf: every tool calls it while parsing its options, so a malformed list
 * is a usage error (exit 2) before anything runs.  NULL and "default"
 * are valid, "" is not (MB_COUNTERS_EMPTY_WHY).  0 or -EINVAL with msg. */
int mb_counters_check_list(const char *list, char *msg, size_t msglen);

/* Registers thread t of a team of n (0 <= t < n), called by that thread.
 * Call it from every thread, then a barrier, then the master's start. */
void mb_counters_join(mb_counters_t *c, int t, int n);
/* Runs an OpenMP parallel region of n threads in which every thread
 * joins; call it outside any parallel region, before start. */
void mb_counters_join_team(mb_counters_t *c, int n);
/* Registers worker process `pid` in slot `slot` of `n` (the set then
 * counts processes: the worker and the threads it creates). */
void mb_counters_join_pid(mb_counters_t *c, int slot, int pid, int n);
/* Slot `slot`'s counts are missing (why: "worker 2 killed by signal 9"). */
void mb_counters_mark_missing(mb_counters_t *c, int slot, const char *why);
/* Slots whose counts are in the sums. */
int mb_counters_threads_counted(const mb_counters_t *c);

/* Counts over several regions of one live set, or over several sets
 * (rounds): copy_zeroed makes `dst` a data copy of `src` (its events,
 * slots and reasons) with every count zero, owning no descriptor (never
 * start or finish it); add_delta adds now - base (base NULL: zero) to
 * every count of `acc` and takes over missing slots and reasons. */
void mb_counters_copy_zeroed(mb_counters_t *dst, const mb_counters_t *src);
void mb_counters_add_delta(mb_counters_t *acc, const mb_counters_t *now, const mb_counters_t *base);

/* start/stop/finish do nothing on a set that is not live (never
 * initialised, init failed, or already finished). */
void mb_counters_start(mb_counters_t *c);
void mb_counters_stop(mb_counters_t *c);
void mb_counters_finish(mb_counters_t *c);   /* releases PAPI/perf fds; idempotent */
bool mb_counters_papi_built(void);
/* A perf count over a period enabled `enabled` ns and on the PMU
 * `running` ns (multiplexed when less): the count scaled by
 * enabled/running, *frac = running/enabled (1 when not multiplexed);
 * -1 when the event was enabled but never ran (no share to scale). */
long long mb_counters_mux_scale(uint64_t value, uint64_t enabled, uint64_t running, double *frac);
/* Why perf_event_open failed with `err`, in words: for EACCES/EPERM the
 * kernel.perf_event_paranoid setting (read under MEMSUITE_PROCFS) and the
 * value that would allow the event (2 for user space, 1 for a `kernel`
 * side event such as a context switch); for a missing hardware event,
 * that the kernel exposes no PMU event for it. */
const char *mb_counters_perf_why(int err, bool hardware, bool kernel, char *buf, size_t buflen);
const char *mb_counters_papi_version(char *buf, size_t buflen); /* "7.0.0.0" or "not built" */

#endif
