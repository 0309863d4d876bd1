/* test_counter_names: perf-style aliases map to PAPI presets (then
 * native events); the rates derived from a fake, hand-filled counter set
 * (the TLB miss rate as % of loads); every missing count gives
 * "unavailable: why"; the text block shows names, mapping, values, rates;
 * and a real init on this machine keeps the mapping and a reason. */
#include "check.h"
#include "counter_names.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    const char *preset;        /* NULL: not an alias */
    const char *native_has;    /* a piece of the native event */
} alias_case_t;

static const alias_case_t alias_cases[] = {
    { "cycles", "PAPI_TOT_CYC", "CPU_CYCLES" },
    { "instructions", "PAPI_TOT_INS", "INSTRUCTIONS" },
    { "cache-misses", "PAPI_L3_TCM", "CACHE_MISSES" },
    { "cache-references", "PAPI_L3_TCA", "CACHE_REFERENCES" },
    { "dTLB-load-misses", "PAPI_TLB_DM", "DTLB:READ:MISS" },
    { "dTLB-loads", "PAPI_LD_INS", "DTLB:READ:ACCESS" },
    { "LLC-load-misses", "PAPI_L3_LDM", "LL:READ:MISS" },
    { "LLC-loads", "PAPI_L3_DCR", "LL:READ:ACCESS" },
    { "branch-misses", "PAPI_BR_MSP", "BRANCH_MISSES" },
    { "task-clock", "", "TASK-CLOCK" },      /* "": software, no preset */
    { "page-faults", "", "PAGE-FAULTS" },
    { "minor-faults", "", "MINOR-FAULTS" },
    { "context-switches", "", "CONTEXT-SWITCHES" },
    { "DTLB-load-misses", NULL, NULL },      /* perf's names are case-sensitive */
    { "PAPI_TOT_CYC", NULL, NULL },          /* a preset is not an alias ... */
};

static void test_aliases(void)
{
    for (size_t i = 0; i < sizeof alias_cases / sizeof alias_cases[0]; i++) {
        const alias_case_t *c = &alias_cases[i];
        const mb_counter_alias_t *a = mb_counter_alias(c->name);
        if (!c->preset) {
            CHECK(a == NULL, "'%s' is not an alias", c->name);
            continue;
        }
        CHECK(a && strcmp(a->preset ? a->preset : "", c->preset) == 0 && a->native &&
              strncmp(a->native, "perf::", 6) == 0 && strstr(a->native, c->native_has),
              "%s -> %s, then %s", c->name, c->preset, a ? a->native : "(none)");
    }
    const mb_counter_alias_t *a = mb_counter_alias_of("PAPI_TLB_DM");
    CHECK(a && strcmp(a->alias, "dTLB-load-misses") == 0,
          "... but it is recognised as the alias it stands for (PAPI_TLB_DM)");
    CHECK(mb_counter_alias_of("NO_SUCH") == NULL, "an unknown name stands for no alias");
    int n;
    const mb_counter_alias_t *all = mb_counter_aliases(&n);
    for (int i = 0; i < n; i++)
        for (int k = i + 1; k < n; k++)
            CHECK(strcmp(all[i].alias, all[k].alias) != 0 &&
                  (!all[i].preset || !all[k].preset || strcmp(all[i].preset, all[k].preset) != 0) &&
                  strcmp(all[i].native, all[k].native) != 0,
                  "aliases %s and %s are distinct", all[i].alias, all[k].alias);
    a = mb_counter_alias_of("perf::TASK-CLOCK");
    CHECK(a && strcmp(a->alias, "task-clock") == 0, "a native name stands for its alias");
    /* every alias can be counted without PAPI: a perf generic event; the
     * kernel-side ones are only the context switches and migrations */
    for (int i = 0; i < n; i++)
        CHECK(all[i].perf_type <= 3 && all[i].kernel_side ==
                  (strcmp(all[i].alias, "context-switches") == 0 ||
                   strcmp(all[i].alias, "cpu-migrations") == 0),
              "%s: perf type %u, kernel side %d", all[i].alias, (unsigned)all[i].perf_type,
              all[i].kernel_side);
}

/* An unknown name: the closest known names, nearest first. */
static void test_closest(void)
{
    static const struct { const char *name, *first; } cases[] = {
        { "cylces", "cycles" },
        { "instrutions", "instructions" },
        { "PAPI_TOT_CYK", "PAPI_TOT_CYC" },
        { "dtlb-load-misses", "dTLB-load-misses" },   /* case is ignored for the distance */
        { "task_clock", "task-clock" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[160];
        mb_counter_closest(cases[i].name, buf, sizeof buf);
        CHECK(strncmp(buf, cases[i].first, strlen(cases[i].first)) == 0 &&
                  (buf[strlen(cases[i].first)] == ',' || !buf[strlen(cases[i].first)]),
              "closest to %s: %s", cases[i].name, buf);
    }
    char small[8];
    mb_counter_closest("cycles", small, sizeof small);
    CHECK(strlen(small) < sizeof small, "the list is cut to the buffer: '%s'", small);
}

/* A fake counter source: the set as PAPI would leave it. */
static void fake(mb_counters_t *c, int n, const char *const *names, const long long *values,
                 const bool *avail)
{
    memset(c, 0, sizeof *c);
    c->hw_requested = true;
    c->hw_available = true;
    c->n = n;
    c->nthreads = 1;           /* one thread holds every count */
    c->thr[0].id = 1;
    c->thr[0].counted = true;
    for (int i = 0; i < n; i++) {
        c->thr[0].value[i] = avail[i] ? values[i] : 0;
        snprintf(c->ev[i].name, sizeof c->ev[i].name, "%s", names[i]);
        snprintf(c->ev[i].event, sizeof c->ev[i].event, "%s", names[i]);
        c->ev[i].available = avail[i];
        c->ev[i].value = avail[i] ? values[i] : 0;
        if (!avail[i])
            snprintf(c->ev[i].why, sizeof c->ev[i].why, "unavailable: fake reason %d", i);
    }
}

static const mb_counter_rate_t *rate(const mb_counter_rate_t *r, int n, const char *key)
{
    for (int i = 0; i < n; i++)
        if (strcmp(r[i].key, key) == 0)
            return &r[i];
    return NULL;
}

static void test_rates(void)
{
    mb_counters_t c;
    mb_counter_rate_t r[MB_COUNTER_RATES_MAX];

    /* The study's figure: 14 misses in 1000 loads is 1.4% (preset and
     * alias names mixed). */
    const char *n1[] = { "PAPI_TLB_DM", "dTLB-loads", "cycles", "instructions" };
    const long long v1[] = { 14, 1000, 2000, 3000 };
    const bool a1[] = { true, true, true, true };
    fake(&c, 4, n1, v1, a1);
    int k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    const mb_counter_rate_t *t = rate(r, k, "dtlb_load_miss_pct");
    CHECK(t && t->ok && fabs(t->value - 1.4) < 1e-12 && strcmp(t->unit, "% of dTLB loads") == 0,
          "dTLB miss rate 14/1000 = 1.4%% (%g)", t ? t->value : -1);
    t = rate(r, k, "ipc");
    CHECK(t && t->ok && fabs(t->value - 1.5) < 1e-12, "IPC 3000/2000 = 1.5");
    CHECK(t && strcmp(t->formula, "instructions / cycles") == 0 && t->used[0] && t->used[1] &&
          strcmp(t->used[0], "instructions") == 0 && strcmp(t->used[1], "cycles") == 0,
          "IPC states its formula and the events used");
    t = rate(r, k, "dtlb_load_miss_pct");
    CHECK(t && strcmp(t->formula, "100 * dTLB-load-misses / dTLB-loads") == 0 &&
          strcmp(t->used[0], "PAPI_TLB_DM") == 0, "the dTLB rate names the event as given");
    t = rate(r, k, "bytes_per_cycle");
    CHECK(t && !t->ok && strstr(t->why, "did not state the bytes moved"),
          "bytes per cycle needs the bytes moved: %s", t ? t->why : "(none)");
    CHECK(k == 3 && !rate(r, k, "cache_miss_pct"), "no rate for pairs not asked about (%d)", k);
    c.bytes_moved = 8000;
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    t = rate(r, k, "bytes_per_cycle");
    CHECK(t && t->ok && fabs(t->value - 4.0) < 1e-12, "bytes per cycle 8000/2000 = 4");

    /* LLC misses per kB moved */
    const char *n5[] = { "PAPI_L3_TCM" };
    const long long v5[] = { 30 };
    fake(&c, 1, n5, v5, a1);
    c.bytes_moved = 6000;
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    t = rate(r, k, "llc_misses_per_kb");
    CHECK(t && t->ok && fabs(t->value - 5.0) < 1e-12 &&
          strcmp(t->formula, "1000 * cache-misses / bytes moved") == 0,
          "30 LLC misses over 6000 bytes = 5 per kB (%g)", t ? t->value : -1);

    /* no thread counted (every slot missing): no rate */
    fake(&c, 4, n1, v1, a1);
    c.thr[0].missing = true;
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    t = rate(r, k, "ipc");
    CHECK(t && !t->ok, "no counted thread: IPC unavailable (%s)", t ? t->why : "(none)");

    /* Half a pair: the rate is there, unavailable, saying what to add. */
    const char *n2[] = { "dTLB-load-misses" };
    const long long v2[] = { 5 };
    const bool a2[] = { true };
    fake(&c, 1, n2, v2, a2);
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    CHECK(k == 1 && !r[0].ok && strstr(r[0].why, "unavailable: dTLB-loads is not in the "
                                                 "--counters list"), "%s", r[0].why);

    /* An event that could not be counted. */
    const char *n3[] = { "dTLB-load-misses", "dTLB-loads" };
    const long long v3[] = { 5, 100 };
    const bool a3[] = { true, false };
    fake(&c, 2, n3, v3, a3);
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    CHECK(k == 1 && !r[0].ok && strstr(r[0].why, "dTLB-loads was not counted"), "%s", r[0].why);

    /* A zero denominator is not a rate of 0 or infinity. */
    const bool a4[] = { true, true };
    const long long v4[] = { 5, 0 };
    fake(&c, 2, n3, v4, a4);
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    CHECK(k == 1 && !r[0].ok && strstr(r[0].why, "dTLB-loads counted 0"), "%s", r[0].why);

    /* The whole set unavailable (PAPI's reason). */
    fake(&c, 2, n3, v3, a1);
    c.hw_available = false;
    snprintf(c.hw_why, sizeof c.hw_why, "PAPI component perf_event is disabled");
    k = mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX);
    CHECK(k == 1 && !r[0].ok && strstr(r[0].why, "unavailable: "), "%s", r[0].why);
    c.hw_requested = false;
    CHECK(mb_counter_rates(&c, r, MB_COUNTER_RATES_MAX) == 0, "no rates when nothing requested");
}

static void test_text(void)
{
    mb_counters_t c;
    const char *n1[] = { "dTLB-load-misses", "dTLB-loads", "cycles" };
    const long long v1[] = { 21, 1000, 0 };
    const bool a1[] = { true, true, false };
    fake(&c, 3, n1, v1, a1);
    snprintf(c.ev[0].event, sizeof c.ev[0].event, "PAPI_TLB_DM");
    snprintf(c.sw_why, sizeof c.sw_why, "perf_event_open: EACCES");
    c.minflt = 7;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mb_counters_text(f, "x: ", "randread", &c);
    fclose(f);
    CHECK(strstr(buf, "x: counters (randread):\n") == buf, "block title first");
    CHECK(strstr(buf, "x:   dTLB-load-misses (PAPI_TLB_DM)") && strstr(buf, "                  21\n"),
          "an event with its PAPI event and value");
    CHECK(strstr(buf, "x:   cycles ") && strstr(buf, "unavailable: fake reason 2\n"),
          "an uncounted event with its reason");
    CHECK(strstr(buf, "dTLB miss rate") &&
          strstr(buf, "2.10 % of dTLB loads (100 * dTLB-load-misses / dTLB-loads)\n"),
          "the TLB miss rate as a percentage of loads");
    CHECK(strstr(buf, "IPC") && strstr(buf, "unavailable: instructions is not in the --counters"),
          "IPC unavailable with why");
    CHECK(strstr(buf, "software: unavailable: perf_event_open: EACCES") &&
          strstr(buf, "rusage: minflt 7,"), "software and rusage lines");
    CHECK(strstr(buf, "x:   threads counted: 1 of 1\n") && !strstr(buf, "per thread"),
          "one thread: the count, no per-thread line");
    free(buf);

    /* two threads, one of them missing: the line says which */
    c.nthreads = 2;
    c.thr[0].value[0] = 12;
    c.thr[1].id = 2;
    c.thr[1].counted = true;
    c.thr[1].value[0] = 9;
    c.thr[1].missing = true;
    snprintf(c.thr[1].why, sizeof c.thr[1].why, "its OS thread changed");
    f = open_memstream(&buf, &len);
    mb_counters_text(f, "", "t", &c);
    fclose(f);
    CHECK(strstr(buf, "  threads counted: 1 of 2\n") &&
          strstr(buf, "  thread 1: missing: its OS thread changed\n") &&
          strstr(buf, "    per thread: 0=12 1=missing\n"), "per-thread counts and the missing one");
    free(buf);
}

/* The real counters on this machine: aliases keep their mapping; each is
 * counted or unavailable with a reason naming the preset tried. */
static void test_real(void)
{
    mb_counters_t k;
    char msg[256] = "";
    CHECK(mb_counters_init(&k, "cycles,dTLB-load-misses,dTLB-loads,PAPI_TOT_INS", msg,
                           sizeof msg) == 0, "aliases are a valid list: %s", msg);
    CHECK(strcmp(k.ev[0].event, "PAPI_TOT_CYC") == 0 && strcmp(k.ev[1].event, "PAPI_TLB_DM") == 0 &&
          strcmp(k.ev[3].event, "PAPI_TOT_INS") == 0, "init records the PAPI events (%s, %s, %s)",
          k.ev[0].event, k.ev[1].event, k.ev[3].event);
    mb_counters_start(&k);
    mb_counters_stop(&k);
    for (int i = 0; i < k.n; i++) {
        if (k.hw_available && k.ev[i].available)
            CHECK(strlen(k.ev[i].event) > 0, "%s counted as %s", k.ev[i].name, k.ev[i].event);
        else
            CHECK(strncmp(k.ev[i].why, "unavailable: ", 13) == 0 &&
                  (!mb_counters_papi_built() || !k.hw_available || strstr(k.ev[i].why, "PAPI_")),
                  "%s unavailable: why given: %s", k.ev[i].name, k.ev[i].why);
    }
    mb_counters_finish(&k);
}

int main(void)
{
    test_aliases();
    test_closest();
    test_rates();
    test_text();
    test_real();
    return check_done();
}
