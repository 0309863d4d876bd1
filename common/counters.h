/* counters: hardware counters through PAPI, plus the figures every run
 * gets without PAPI: getrusage (minor/major faults, max RSS) and
 * perf_event_open software events where the kernel allows.
 * HAVE_PAPI is tested in counters.c only.
 *
 * Usage: mb_counters_init(&c, list) once; then per measured region
 * mb_counters_start(&c) ... mb_counters_stop(&c).  stop() accumulates,
 * so calling start/stop around each of many repetitions sums them.
 * With OpenMP, start/stop are called from the master thread.  What is
 * counted: the calling thread, plus every thread it creates after
 * mb_counters_init when inheritance works (PAPI_INHERIT: hw_inherit true;
 * the software events always use perf's inherit=1).  Threads that already
 * existed are not counted, so call init before the first parallel region
 * (OpenMP keeps its worker threads for later regions).  PAPI counts the
 * component's default domain (user mode).
 *
 * Without hardware counters (a VM, perf_event disabled, a build without
 * PAPI) hw_available is false and hw_why carries PAPI's own reason (its
 * error text plus the component's disabled_reason).  An unknown event
 * name makes that one counter unavailable with the reason. */
#ifndef MB_COUNTERS_H
#define MB_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MB_COUNTERS_MAX 8

/* The default hardware set: cycles, instructions, LLC misses, dTLB misses
 * and load instructions (so the dTLB miss rate, in % of loads, follows). */
#define MB_COUNTERS_DEFAULT "PAPI_TOT_CYC,PAPI_TOT_INS,PAPI_L3_TCM,PAPI_TLB_DM,PAPI_LD_INS"

typedef struct {
    char name[64];        /* as given: a PAPI name or a perf-style alias */
    char event[64];       /* the PAPI event counted (or the first one tried):
                           * the alias's preset or native event, else name */
    bool available;       /* counted */
    long long value;      /* summed over start/stop pairs */
    char why[200];        /* "unavailable: <reason>" text when !available */
} mb_counter_t;

typedef struct {
    /* hardware (PAPI) */
    bool hw_requested;
    bool hw_available;             /* the event set started */
    bool hw_inherit;               /* PAPI_INHERIT accepted: child threads counted */
    char hw_why[256];              /* PAPI's own reason when !hw_available; when not
                                    * requested, an optional caller note (JSON) */
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
    bool running;                  /* between start and stop */
    bool live;                     /* init succeeded and finish not yet called;
                                    * a zeroed struct is not live, so finish()
                                    * on it releases nothing (no fd 0, no set 0) */
} mb_counters_t;

/* list: NULL for no hardware counters; "" or "default" for
 * MB_COUNTERS_DEFAULT; otherwise comma-separated PAPI names (preset or
 * native) or perf-style aliases (cycles, dTLB-load-misses, ...: see
 * counter_names.h; the alias's PAPI preset is tried, then its native
 * event); blanks around names are ignored.  Never fails the run:
 * unavailability is recorded with the reason.  Returns 0, or -EINVAL for a
 * malformed list (msg filled) so the caller exits 2: an empty name, more
 * than MB_COUNTERS_MAX names, a name of 64+ characters, a repeated name,
 * or a character outside letters, digits and _ : . = + - / @. */
int mb_counters_init(mb_counters_t *c, const char *list, char *msg, size_t msglen);
/* The same check of `list` as mb_counters_init, without touching PAPI or
 * perf: every tool calls it while parsing its options, so a malformed list
 * is a usage error (exit 2) before anything runs.  NULL, "" and "default"
 * are valid.  0 or -EINVAL with msg. */
int mb_counters_check_list(const char *list, char *msg, size_t msglen);
/* start/stop/finish do nothing on a set that is not live (never
 * initialised, init failed, or already finished). */
void mb_counters_start(mb_counters_t *c);
void mb_counters_stop(mb_counters_t *c);
void mb_counters_finish(mb_counters_t *c);   /* releases PAPI/perf fds; idempotent */
bool mb_counters_papi_built(void);
const char *mb_counters_papi_version(char *buf, size_t buflen); /* "7.0.0.0" or "not built" */

#endif
