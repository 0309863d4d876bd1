/* counter_names: perf-style counter names (`perf stat -e cycles,...`)
 * mapped onto PAPI events, the rates derived from pairs of counts (the TLB
 * miss rate as a percentage of loads, IPC, ...), and the counters block
 * that text output prints under --counters.
 *
 * An alias maps to a PAPI preset, tried first, and to a perf native event
 * (libpfm4's "perf::" PMU), tried when the preset does not exist or cannot
 * be added.  PAPI names given directly are kept as they are; a preset that
 * an alias maps to is recognised as that alias for the rates, so the
 * default list (PAPI_TLB_DM, PAPI_LD_INS, ...) yields the same rates as
 * the perf names. */
#ifndef MB_COUNTER_NAMES_H
#define MB_COUNTER_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "counters.h"

typedef struct {
    const char *alias;     /* perf stat's name, e.g. "dTLB-load-misses" */
    const char *preset;    /* PAPI preset tried first, or NULL */
    const char *native;    /* perf native event tried next, or NULL */
    const char *meaning;   /* one line, units included */
    /* perf_event_open's generic event, tried last (PAPI absent, or its
     * perf_event component disabled): the kernel maps it onto the CPU's
     * own event on Intel and AMD alike */
    uint32_t perf_type;    /* PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE */
    uint64_t perf_config;
    bool kernel_side;      /* counted in kernel mode only (a context switch):
                            * user-only counting would read 0, so it needs
                            * kernel.perf_event_paranoid <= 1 or CAP_PERFMON */
} mb_counter_alias_t;

/* The alias named `name` (exact, case-sensitive as perf), or NULL. */
const mb_counter_alias_t *mb_counter_alias(const char *name);
/* The alias whose name, preset or native event is `name` ("PAPI_TLB_DM"
 * -> dTLB-load-misses, "perf::TASK-CLOCK" -> task-clock), or NULL. */
const mb_counter_alias_t *mb_counter_alias_of(const char *name);
/* The alias table, for help texts and tests; *n receives its length. */
const mb_counter_alias_t *mb_counter_aliases(int *n);

/* The names closest to an unknown `name` (edit distance over the
 * aliases, their presets and native events), ", "-separated into buf. */
const char *mb_counter_closest(const char *name, char *buf, size_t buflen);

/* A rate derived from two figures: value = scale * numerator / denominator,
 * where a figure is an event's sum over the counted threads or the bytes
 * the tool moved in the counted regions (mb_counters_t.bytes_moved). */
typedef struct {
    const char *key;       /* JSON key, e.g. "dtlb_load_miss_pct" */
    const char *label;     /* text label, e.g. "dTLB miss rate" */
    const char *unit;      /* "% of dTLB loads" */
    const char *formula;   /* "100 * dTLB-load-misses / dTLB-loads" */
    const char *used[2];   /* the requested names used (NULL: bytes moved, or absent) */
    bool ok;
    double value;
    char why[200];         /* "unavailable: ..." when !ok */
} mb_counter_rate_t;

#define MB_COUNTER_RATES_MAX 10

/* The rates whose numerator or denominator was requested in `c`; each is
 * a value or unavailable with the reason (event not counted, not in the
 * list, zero denominator).  Returns how many were written. */
int mb_counter_rates(const mb_counters_t *c, mb_counter_rate_t *out, int max);

/* The counters block of text output: one line per event (value, or
 * "unavailable: why"), the counted PAPI event when it differs from the
 * name, then the rates, the software events and rusage.  Every line
 * starts with `prefix` (e.g. "" on stdout, "mencal: " on stderr). */
void mb_counters_text(FILE *f, const char *prefix, const char *title, const mb_counters_t *c);

#endif
