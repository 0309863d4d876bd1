/* counters: hardware counters through PAPI, plus the figures every run
 * gets without PAPI: getrusage (minor/major faults, max RSS) and
 * perf_event_open software events where the kernel allows.
 * HAVE_PAPI is tested in counters.c only.
 *
 * Usage: mb_counters_init(&c, list) once; then per measured region
 * mb_counters_start(&c) ... mb_counters_stop(&c).  stop() accumulates,
 * so calling start/stop around each of many repetitions sums them.
 * With OpenMP, start/stop are called from the master thread and PAPI
 * counts the process (PAPI_DOM_USER, inherit where supported). */
#ifndef MB_COUNTERS_H
#define MB_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define MB_COUNTERS_MAX 8

/* The default hardware set: cycles, instructions, LLC misses, dTLB misses. */
#define MB_COUNTERS_DEFAULT "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,PAPI_TLB_DM"

typedef struct {
    char name[64];
    bool available;       /* counted */
    long long value;      /* summed over start/stop pairs */
    char why[200];        /* "unavailable: <reason>" text when !available */
} mb_counter_t;

typedef struct {
    /* hardware (PAPI) */
    bool hw_requested;
    bool hw_available;             /* the event set started */
    char hw_why[256];              /* PAPI's own reason when !hw_available */
    int n;
    mb_counter_t ev[MB_COUNTERS_MAX];
    /* software: perf_event_open(PERF_TYPE_SOFTWARE) */
    bool sw_available;
    char sw_why[200];
    long long sw_page_faults, sw_context_switches, sw_cpu_migrations;
    uint64_t sw_task_clock_ns;
    /* rusage deltas (always available) */
    long minflt, majflt;           /* faults during measured regions */
    long maxrss_kib;               /* process peak RSS at last stop, KiB */
    /* private */
    int papi_set;
    int sw_fd[4];
    long ru_minflt0, ru_majflt0;
} mb_counters_t;

/* list: NULL for no hardware counters; "" or "default" for
 * MB_COUNTERS_DEFAULT; otherwise comma-separated PAPI names.  Never fails
 * the run: unavailability is recorded with the reason.  Returns 0, or
 * -EINVAL for a malformed list (msg filled) so the caller exits 2. */
int mb_counters_init(mb_counters_t *c, const char *list, char *msg, size_t msglen);
void mb_counters_start(mb_counters_t *c);
void mb_counters_stop(mb_counters_t *c);
void mb_counters_finish(mb_counters_t *c);   /* releases PAPI/perf fds */
bool mb_counters_papi_built(void);
const char *mb_counters_papi_version(char *buf, size_t buflen); /* "7.0.0.0" or "not built" */

#endif
