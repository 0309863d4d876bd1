/* counter_names: perf-style aliases, derived rates, the text block. */
#include "counter_names.h"

#include <ctype.h>
#include <linux/perf_event.h>
#include <string.h>

/* perf stat's generic names.  The preset is what PAPI calls the same
 * thing where it has one; the native event is the kernel's generic
 * event as libpfm4's perf PMU spells it; the perf attribute is that
 * generic event itself, which the kernel maps to the CPU's own event
 * (Intel and AMD alike; an event the CPU lacks gives ENOENT).  Where the
 * preset is broader than perf's event, `meaning` says so. */
#define HW(x) PERF_TYPE_HARDWARE, PERF_COUNT_HW_##x, false
#define SW(x) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##x, false
#define SWK(x) PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##x, true   /* kernel side only */
#define CACHE(id, op, res) PERF_TYPE_HW_CACHE, (PERF_COUNT_HW_CACHE_##id | \
    (PERF_COUNT_HW_CACHE_OP_##op << 8) | (PERF_COUNT_HW_CACHE_RESULT_##res << 16)), false
static const mb_counter_alias_t aliases[] = {
    { "cycles", "PAPI_TOT_CYC", "perf::PERF_COUNT_HW_CPU_CYCLES", "core cycles", HW(CPU_CYCLES) },
    { "instructions", "PAPI_TOT_INS", "perf::PERF_COUNT_HW_INSTRUCTIONS",
      "instructions retired", HW(INSTRUCTIONS) },
    { "cache-references", "PAPI_L3_TCA", "perf::PERF_COUNT_HW_CACHE_REFERENCES",
      "last-level cache accesses", HW(CACHE_REFERENCES) },
    { "cache-misses", "PAPI_L3_TCM", "perf::PERF_COUNT_HW_CACHE_MISSES",
      "last-level cache misses", HW(CACHE_MISSES) },
    { "LLC-loads", "PAPI_L3_DCR", "perf::PERF_COUNT_HW_CACHE_LL:READ:ACCESS",
      "last-level cache load accesses", CACHE(LL, READ, ACCESS) },
    { "LLC-load-misses", "PAPI_L3_LDM", "perf::PERF_COUNT_HW_CACHE_LL:READ:MISS",
      "last-level cache load misses", CACHE(LL, READ, MISS) },
    { "dTLB-loads", "PAPI_LD_INS", "perf::PERF_COUNT_HW_CACHE_DTLB:READ:ACCESS",
      "loads that look up the data TLB (PAPI_LD_INS: load instructions)",
      CACHE(DTLB, READ, ACCESS) },
    { "dTLB-load-misses", "PAPI_TLB_DM", "perf::PERF_COUNT_HW_CACHE_DTLB:READ:MISS",
      "data TLB misses (PAPI_TLB_DM counts loads and stores)", CACHE(DTLB, READ, MISS) },
    { "iTLB-load-misses", "PAPI_TLB_IM", "perf::PERF_COUNT_HW_CACHE_ITLB:READ:MISS",
      "instruction TLB misses", CACHE(ITLB, READ, MISS) },
    { "L1-dcache-loads", "PAPI_L1_DCA", "perf::PERF_COUNT_HW_CACHE_L1D:READ:ACCESS",
      "L1 data cache accesses", CACHE(L1D, READ, ACCESS) },
    { "L1-dcache-load-misses", "PAPI_L1_LDM", "perf::PERF_COUNT_HW_CACHE_L1D:READ:MISS",
      "L1 data cache load misses", CACHE(L1D, READ, MISS) },
    { "branches", "PAPI_BR_INS", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS",
      "branch instructions", HW(BRANCH_INSTRUCTIONS) },
    { "branch-misses", "PAPI_BR_MSP", "perf::PERF_COUNT_HW_BRANCH_MISSES",
      "mispredicted branches", HW(BRANCH_MISSES) },
    /* software events: the kernel counts them, no PMU needed */
    { "task-clock", NULL, "perf::TASK-CLOCK", "time on a CPU, ns", SW(TASK_CLOCK) },
    { "page-faults", NULL, "perf::PAGE-FAULTS", "page faults (minor and major)",
      SW(PAGE_FAULTS) },
    { "minor-faults", NULL, "perf::MINOR-FAULTS", "minor page faults (no I/O)",
      SW(PAGE_FAULTS_MIN) },
    { "major-faults", NULL, "perf::MAJOR-FAULTS", "major page faults (I/O)", SW(PAGE_FAULTS_MAJ) },
    { "context-switches", NULL, "perf::CONTEXT-SWITCHES", "context switches",
      SWK(CONTEXT_SWITCHES) },
    { "cpu-migrations", NULL, "perf::CPU-MIGRATIONS", "moves to another CPU", SWK(CPU_MIGRATIONS) },
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
            (aliases[i].preset && strcmp(aliases[i].preset, name) == 0) ||
            (aliases[i].native && strcmp(aliases[i].native, name) == 0))
            return &aliases[i];
    return NULL;
}

/* ---- closest names ------------------------------------------------------ */

/* Levenshtein distance, case-insensitive, of strings under 64 characters. */
static int distance(const char *a, const char *b)
{
    int la = (int)strlen(a), lb = (int)strlen(b), row[64];
    if (la > 63 || lb > 63)
        return 99;
    for (int j = 0; j <= lb; j++)
        row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int up = row[j];
            int sub = diag + (tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]));
            int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}

const char *mb_counter_closest(const char *name, char *buf, size_t buflen)
{
    enum { KEEP = 3 };
    const char *best[KEEP] = { NULL };
    int bestd[KEEP] = { 99, 99, 99 };
    for (int i = 0; i < NALIAS; i++) {
        const char *cand[3] = { aliases[i].alias, aliases[i].preset, aliases[i].native };
        for (int k = 0; k < 3; k++) {
            if (!cand[k])
                continue;
            int d = distance(name, cand[k]);
            for (int s = 0; s < KEEP; s++) {
                if (d >= bestd[s])
                    continue;
                for (int m = KEEP - 1; m > s; m--) {
                    best[m] = best[m - 1];
                    bestd[m] = bestd[m - 1];
                }
                best[s] = cand[k];
                bestd[s] = d;
                break;
            }
        }
    }
    size_t len = 0;
    buf[0] = '\0';
    for (int s = 0; s < KEEP && best[s] && len < buflen; s++)
        len += (size_t)snprintf(buf + len, buflen - len, "%s%s", s ? ", " : "", best[s]);
    return buf;
}

/* ---- rates ------------------------------------------------------------ */

/* An operand is an alias (its event's sum over the counted threads) or
 * BYTES, the bytes the tool moved in the counted regions. */
#define BYTES "@bytes"

typedef struct {
    const char *key, *label, *unit, *formula;
    const char *num, *den;     /* aliases, or BYTES */
    double scale;
} rate_desc_t;

static const rate_desc_t rates[] = {
    { "ipc", "IPC", "instructions per cycle", "instructions / cycles", "instructions", "cycles",
      1.0 },
    { "dtlb_load_miss_pct", "dTLB miss rate", "% of dTLB loads",
      "100 * dTLB-load-misses / dTLB-loads", "dTLB-load-misses", "dTLB-loads", 100.0 },
    { "cache_miss_pct", "cache miss rate", "% of cache references",
      "100 * cache-misses / cache-references", "cache-misses", "cache-references", 100.0 },
    { "llc_load_miss_pct", "LLC load miss rate", "% of LLC loads",
      "100 * LLC-load-misses / LLC-loads", "LLC-load-misses", "LLC-loads", 100.0 },
    { "l1d_load_miss_pct", "L1d load miss rate", "% of L1d loads",
      "100 * L1-dcache-load-misses / L1-dcache-loads", "L1-dcache-load-misses", "L1-dcache-loads",
      100.0 },
    { "branch_miss_pct", "branch miss rate", "% of branches", "100 * branch-misses / branches",
      "branch-misses", "branches", 100.0 },
    { "llc_misses_per_kb", "LLC misses per kB", "misses per 1000 bytes moved",
      "1000 * cache-misses / bytes moved", "cache-misses", BYTES, 1000.0 },
    { "llc_load_misses_per_kb", "LLC load misses per kB", "misses per 1000 bytes moved",
      "1000 * LLC-load-misses / bytes moved", "LLC-load-misses", BYTES, 1000.0 },
    { "bytes_per_cycle", "bytes per cycle", "bytes moved per core cycle (summed over threads)",
      "bytes moved / cycles", BYTES, "cycles", 1.0 },
};
#define NRATE ((int)(sizeof rates / sizeof rates[0]))

/* The requested event that stands for `alias` (by alias, preset or native name). */
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

/* One operand: its value, or why there is none (NULL return: ok). */
static const char *operand(const mb_counters_t *c, const char *what, double *v, const char **used,
                           char *buf, size_t buflen)
{
    *used = NULL;
    if (strcmp(what, BYTES) == 0) {
        if (!(c->bytes_moved > 0))
            return "the tool did not state the bytes moved in this region";
        *v = c->bytes_moved;
        return NULL;
    }
    const mb_counter_t *e = find(c, what);
    if (!e) {
        snprintf(buf, buflen, "%s is not in the --counters list; add it", what);
        return buf;
    }
    *used = e->name;
    if (!c->hw_available || !e->available || mb_counters_threads_counted(c) == 0) {
        snprintf(buf, buflen, "%.60s was not counted (its reason is given with it)", e->name);
        return buf;
    }
    *v = (double)e->value;
    return NULL;
}

int mb_counter_rates(const mb_counters_t *c, mb_counter_rate_t *out, int max)
{
    int k = 0;
    if (!c->hw_requested)
        return 0;
    for (int r = 0; r < NRATE && k < max; r++) {
        const rate_desc_t *d = &rates[r];
        bool nb = strcmp(d->num, BYTES) == 0, db = strcmp(d->den, BYTES) == 0;
        /* a rate is shown when one of its events was asked for */
        if (!(!nb && find(c, d->num)) && !(!db && find(c, d->den)))
            continue;
        mb_counter_rate_t *o = &out[k++];
        memset(o, 0, sizeof *o);
        o->key = d->key;
        o->label = d->label;
        o->unit = d->unit;
        o->formula = d->formula;
        char why[180];
        double nv = 0, dv = 0;
        char why2[180];
        const char *m = operand(c, d->num, &nv, &o->used[0], why, sizeof why);
        const char *m2 = operand(c, d->den, &dv, &o->used[1], why2, sizeof why2);
        if (!m)
            m = m2;
        if (m) {
            snprintf(o->why, sizeof o->why, "unavailable: %s", m);
            continue;
        }
        if (dv <= 0) {
            snprintf(o->why, sizeof o->why, "unavailable: %s counted 0",
                     o->used[1] ? o->used[1] : "bytes moved");
            continue;
        }
        o->ok = true;
        o->value = d->scale * nv / dv;
    }
    return k;
}

/* ---- the text block --------------------------------------------------- */

/* The per-thread counts of event i, on one line after the sum. */
static void per_thread_line(FILE *f, const char *prefix, const mb_counters_t *c, int i)
{
    fprintf(f, "%s    per %s:", prefix, c->processes ? "worker" : "thread");
    for (int t = 0; t < c->nthreads && t < MB_COUNTERS_THREADS; t++) {
        if (c->thr[t].missing || !c->thr[t].counted)
            fprintf(f, " %d=missing", t);
        else
            fprintf(f, " %d=%lld", t, c->thr[t].value[i]);
    }
    fputc('\n', f);
}

void mb_counters_text(FILE *f, const char *prefix, const char *title, const mb_counters_t *c)
{
    fprintf(f, "%scounters (%s):\n", prefix, title);
    if (!c->hw_requested) {
        fprintf(f, "%s  events: %s\n", prefix, c->hw_why[0] ? c->hw_why : "not requested");
    } else {
        if (!c->hw_available)
            fprintf(f, "%s  events: unavailable: %s\n", prefix,
                    c->hw_why[0] ? c->hw_why : "no reason given");
        else
            fprintf(f, "%s  %s counted: %d of %d\n", prefix,
                    c->processes ? "workers" : "threads", mb_counters_threads_counted(c),
                    c->nthreads + c->threads_uncounted);
        for (int t = 0; t < c->nthreads && t < MB_COUNTERS_THREADS; t++)
            if (c->thr[t].missing)
                fprintf(f, "%s  %s %d: missing: %s\n", prefix, c->processes ? "worker" : "thread",
                        t, c->thr[t].why);
        int n = c->n < MB_COUNTERS_MAX ? c->n : MB_COUNTERS_MAX;
        for (int i = 0; i < n; i++) {
            const mb_counter_t *e = &c->ev[i];
            char shown[140];
            if (e->event[0] && strcmp(e->event, e->name) != 0)
                snprintf(shown, sizeof shown, "%s (%s)", e->name, e->event);
            else
                snprintf(shown, sizeof shown, "%s", e->name);
            if (c->hw_available && e->available) {
                fprintf(f, "%s  %-32s %20lld\n", prefix, shown, e->value);
                if (e->running_frac > 0 && e->running_frac < 1.0)
                    fprintf(f, "%s    multiplexed: counted %.0f%% of the time, scaled\n", prefix,
                            100.0 * e->running_frac);
                if (c->nthreads > 1)
                    per_thread_line(f, prefix, c, i);
            } else {
                fprintf(f, "%s  %-32s %s\n", prefix, shown,
                        e->why[0] ? e->why : "unavailable: not counted");
            }
        }
        mb_counter_rate_t r[MB_COUNTER_RATES_MAX];
        int nr = mb_counter_rates(c, r, MB_COUNTER_RATES_MAX);
        for (int i = 0; i < nr; i++) {
            if (r[i].ok)
                fprintf(f, "%s  %-32s %20.2f %s (%s)\n", prefix, r[i].label, r[i].value,
                        r[i].unit, r[i].formula);
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
