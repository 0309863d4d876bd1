/* counter_names: perf-style aliases, derived rates, the text block. */
#include "counter_names.h"

#include <string.h>

/* perf stat's generic names.  The preset is what PAPI calls the same
 * thing where it has one; the native event is the kernel's generic
 * event as libpfm4's perf PMU spells it.  Where the preset is broader
 * than perf's event, `meaning` says so. */
static const mb_counter_alias_t aliases[] = {
    { "cycles", "PAPI_TOT_CYC", "perf::PERF_COUNT_HW_CPU_CYCLES", "core cycles" },
    { "instructions", "PAPI_TOT_INS", "perf::PERF_COUNT_HW_INSTRUCTIONS",
      "instructions retired" },
    { "cache-references", "PAPI_L3_TCA", "perf::PERF_COUNT_HW_CACHE_REFERENCES",
      "last-level cache accesses" },
    { "cache-misses", "PAPI_L3_TCM", "perf::PERF_COUNT_HW_CACHE_MISSES",
      "last-level cache misses" },
    { "LLC-loads", "PAPI_L3_DCR", "perf::PERF_COUNT_HW_CACHE_LL:READ:ACCESS",
      "last-level cache load accesses" },
    { "LLC-load-misses", "PAPI_L3_LDM", "perf::PERF_COUNT_HW_CACHE_LL:READ:MISS",
      "last-level cache load misses" },
    { "dTLB-loads", "PAPI_LD_INS", "perf::PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS",
      "loads that look up the data TLB (PAPI_LD_INS: load instructions)" },
    { "dTLB-load-misses", "PAPI_TLB_DM", "perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS",
      "data TLB misses (PAPI_TLB_DM counts loads and stores)" },
    { "iTLB-load-misses", "PAPI_TLB_IM", "perf::PERF_COUNT_HW_CACHE_ITLB:READ:MISS",
      "instruction TLB misses" },
    { "L1-dcache-loads", "PAPI_L1_DCA", "perf::PERF_COUNT_HW_CACHE_L1D:READ:ACCESS",
      "L1 data cache accesses" },
    { "L1-dcache-load-misses", "PAPI_L1_LDM", "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS",
      "L1 data cache load misses" },
    { "branches", "PAPI_BR_INS", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
      "branch instructions" },
    { "branch-misses", "PAPI_BR_MSP", "perf::PERF_COUNT_HW_BRANCH_MISSES",
      "mispredicted branches" },
};
#define NALIAS ((int)(sizeof aliases / sizeof aliases[0]))

const mb_counter_alias_t *mb_counter_aliases(int *n)
{
    *n = NALIAS;
    return aliases;
}

const mb_counter_alias_t *mb_counter_alias(const char *name)
{
    for (int i = 0; i < NALIAS; i++)
        if (strcmp(aliases[i].alias, name) == 0)
            return &aliases[i];
    return NULL;
}

const mb_counter_alias_t *mb_counter_alias_of(const char *name)
{
    for (int i = 0; i < NALIAS; i++)
        if (strcmp(aliases[i].alias, name) == 0 ||
            (aliases[i].preset && strcmp(aliases[i].preset, name) == 0))
            return &aliases[i];
    return NULL;
}

/* ---- rates ------------------------------------------------------------ */

typedef struct {
    const char *key, *label, *unit;
    const char *num, *den;     /* aliases */
    double scale;
} rate_desc_t;

static const rate_desc_t rates[] = {
    { "ipc", "IPC", "instructions per cycle", "instructions", "cycles", 1.0 },
    { "dtlb_load_miss_pct", "dTLB miss rate", "% of dTLB loads", "dTLB-load-misses",
      "dTLB-loads", 100.0 },
    { "cache_miss_pct", "cache miss rate", "% of cache references", "cache-misses",
      "cache-references", 100.0 },
    { "llc_load_miss_pct", "LLC load miss rate", "% of LLC loads", "LLC-load-misses",
      "LLC-loads", 100.0 },
    { "l1d_load_miss_pct", "L1d load miss rate", "% of L1d loads", "L1-dcache-load-misses",
      "L1-dcache-loads", 100.0 },
    { "branch_miss_pct", "branch miss rate", "% of branches", "branch-misses", "branches",
      100.0 },
};
#define NRATE ((int)(sizeof rates / sizeof rates[0]))

/* The requested event that stands for `alias` (by alias or preset name). */
static const mb_counter_t *find(const mb_counters_t *c, const char *alias)
{
    int n = c->n < MB_COUNTERS_MAX ? c->n : MB_COUNTERS_MAX;
    for (int i = 0; i < n; i++) {
        const mb_counter_alias_t *a = mb_counter_alias_of(c->ev[i].name);
        if (a && strcmp(a->alias, alias) == 0)
            return &c->ev[i];
    }
    return NULL;
}

/* Why `e` (standing for `alias`) gives no count, or NULL when it does. */
static const char *missing(const mb_counters_t *c, const mb_counter_t *e, const char *alias,
                           char *buf, size_t buflen)
{
    if (!e) {
        snprintf(buf, buflen, "%s is not in the --counters list; add it", alias);
        return buf;
    }
    if (!c->hw_available || !e->available) {
        snprintf(buf, buflen, "%.60s was not counted (its reason is given with it)", e->name);
        return buf;
    }
    return NULL;
}

int mb_counter_rates(const mb_counters_t *c, mb_counter_rate_t *out, int max)
{
    int k = 0;
    if (!c->hw_requested)
        return 0;
    for (int r = 0; r < NRATE && k < max; r++) {
        const mb_counter_t *num = find(c, rates[r].num), *den = find(c, rates[r].den);
        if (!num && !den)
            continue;
        mb_counter_rate_t *o = &out[k++];
        memset(o, 0, sizeof *o);
        o->key = rates[r].key;
        o->label = rates[r].label;
        o->unit = rates[r].unit;
        char why[180];
        const char *m = missing(c, num, rates[r].num, why, sizeof why);
        if (!m)
            m = missing(c, den, rates[r].den, why, sizeof why);
        if (m) {
            snprintf(o->why, sizeof o->why, "unavailable: %s", m);
            continue;
        }
        if (den->value <= 0) {
            snprintf(o->why, sizeof o->why, "unavailable: %s counted 0", den->name);
            continue;
        }
        o->ok = true;
        o->value = rates[r].scale * (double)num->value / (double)den->value;
    }
    return k;
}

/* ---- the text block --------------------------------------------------- */

void mb_counters_text(FILE *f, const char *prefix, const char *title, const mb_counters_t *c)
{
    fprintf(f, "%scounters (%s):\n", prefix, title);
    if (!c->hw_requested) {
        fprintf(f, "%s  hardware: %s\n", prefix, c->hw_why[0] ? c->hw_why : "not requested");
    } else {
        if (!c->hw_available)
            fprintf(f, "%s  hardware: unavailable: %s\n", prefix,
                    c->hw_why[0] ? c->hw_why : "no reason given");
        int n = c->n < MB_COUNTERS_MAX ? c->n : MB_COUNTERS_MAX;
        for (int i = 0; i < n; i++) {
            const mb_counter_t *e = &c->ev[i];
            char shown[140];
            if (e->event[0] && strcmp(e->event, e->name) != 0)
                snprintf(shown, sizeof shown, "%s (%s)", e->name, e->event);
            else
                snprintf(shown, sizeof shown, "%s", e->name);
            if (c->hw_available && e->available)
                fprintf(f, "%s  %-32s %20lld\n", prefix, shown, e->value);
            else
                fprintf(f, "%s  %-32s %s\n", prefix, shown,
                        e->why[0] ? e->why : "unavailable: not counted");
        }
        mb_counter_rate_t r[MB_COUNTER_RATES_MAX];
        int nr = mb_counter_rates(c, r, MB_COUNTER_RATES_MAX);
        for (int i = 0; i < nr; i++) {
            if (r[i].ok)
                fprintf(f, "%s  %-32s %20.2f %s\n", prefix, r[i].label, r[i].value, r[i].unit);
            else
                fprintf(f, "%s  %-32s %s\n", prefix, r[i].label, r[i].why);
        }
    }
    if (c->sw_available)
        fprintf(f, "%s  software: page_faults %lld, context_switches %lld, cpu_migrations %lld\n",
                prefix, c->sw_page_faults, c->sw_context_switches, c->sw_cpu_migrations);
    else
        fprintf(f, "%s  software: unavailable: %s\n", prefix,
                c->sw_why[0] ? c->sw_why : "not counted");
    fprintf(f, "%s  rusage: minflt %ld, majflt %ld, maxrss %ld KiB\n", prefix, c->minflt,
            c->majflt, c->maxrss_kib);
}
