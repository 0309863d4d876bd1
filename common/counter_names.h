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
#include <stdio.h>

#include "counters.h"

typedef struct {
    const char *alias;     /* perf stat's name, e.g. "dTLB-load-misses" */
    const char *preset;    /* PAPI preset tried first, or NULL */
    const char *native;    /* perf native event tried next, or NULL */
    const char *meaning;   /* one line, units included */
} mb_counter_alias_t;

/* The alias named `name` (exact, case-sensitive as perf), or NULL. */
const mb_counter_alias_t *mb_counter_alias(const char *name);
/* The alias whose name or preset is `name` ("PAPI_TLB_DM" ->
 * dTLB-load-misses), or NULL. */
const mb_counter_alias_t *mb_counter_alias_of(const char *name);
/* The alias table, for help texts and tests; *n receives its length. */
const mb_counter_alias_t *mb_counter_aliases(int *n);

/* A rate derived from two counts: value = scale * numerator / denominator. */
typedef struct {
    const char *key;       /* JSON key, e.g. "dtlb_load_miss_pct" */
    const char *label;     /* text label, e.g. "dTLB miss rate" */
    const char *unit;      /* "% of dTLB loads" */
    bool ok;
    double value;
    char why[200];         /* "unavailable: ..." when !ok */
} mb_counter_rate_t;

#define MB_COUNTER_RATES_MAX 6

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
