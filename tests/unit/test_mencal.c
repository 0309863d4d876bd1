/* test_mencal: mencal's pure logic, table-driven: the command line joined
 * from the common options and each scenario's table, the resolution of a
 * run's configuration (mc_config_resolve) against a fixture machine, the
 * scenarios' own checks and JSON config objects, and the cache-level
 * labels.  The fixture (tests/fixtures/llc-1socket) has L1d 48K, L2
 * 1280K, an 8 MiB L3, and MemFree + Cached = 4000000 kB. */
#include "check.h"
#include "config.h"
#include "exitcodes.h"
#include "json.h"
#include "readkern.h"
#include "scenario.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024ULL * 1024ULL)

static mc_cli_t cli;
static mc_config_t cfg;
static char *pos[64];

/* Parses a space-separated command line (after `mencal run`) and resolves
 * it as main does; the positionals select scenarios ("all" for all).
 * Returns the exit code; msg gets the error. */
static int resolve(const char *line, char *msg, size_t msglen)
{
    static char buf[512];
    char *argv[64] = { "run" };
    int argc = 1;
    snprintf(buf, sizeof buf, "%s", line);
    for (char *w = strtok(buf, " "); w && argc < 63; w = strtok(NULL, " "))
        argv[argc++] = w;
    mc_cli_free(&cli);
    memset(&cfg, 0, sizeof cfg);
    msg[0] = '\0';
    if (mc_cli_init(&cli) != 0)
        return MB_EXIT_RESOURCE;
    int npos = 0;
    int rc = mc_cli_parse(&cli, argc, argv, pos, &npos, msg, msglen);
    if (rc)
        return rc;
    static const mc_scenario_t *sel[16];
    size_t nsel = 0;
    for (size_t s = 0; s < mc_scenario_count(); s++)
        for (int i = 0; i < npos; i++)
            if (strcmp(pos[i], "all") == 0 || strcmp(pos[i], mc_scenario_at(s)->name) == 0) {
                sel[nsel++] = mc_scenario_at(s);
                break;
            }
    cfg.cli = &cli;
    cfg.o = mc_cli_opts(&cli);
    cfg.sel = sel;
    cfg.nsel = nsel;
    cfg.running_all = npos > 0 && strcmp(pos[0], "all") == 0;
    return mc_config_resolve(&cfg, msg, msglen);
}

/* The JSON config object of one scenario, as text. */
static const char *scenario_json(const char *name)
{
    static char out[2048];
    const mc_scenario_t *sc = mc_scenario_find(name);
    FILE *f = fmemopen(out, sizeof out, "w");
    if (!sc || !sc->config_json || !f) {
        if (f)
            fclose(f);
        return "";
    }
    mb_json_t j;
    mb_json_init(&j, f, false);
    mb_json_object_begin(&j, NULL);
    sc->config_json(&j, mc_cli_conf(&cli, sc));
    mb_json_object_end(&j);
    mb_json_finish(&j);
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    return out;
}

typedef struct {
    const char *line;        /* after `mencal run` */
    int rc;                  /* expected exit code */
    const char *msg;         /* substring of the error, or NULL */
    const char *scenario;    /* then: this scenario's JSON config contains ... */
    const char *json;
} case_t;

static const case_t cases[] = {
    /* common options */
    { "seqread --threads 1 --size 64M", 0, NULL, NULL, NULL },
    { "seqread --threads 1 --size 16M --strict", MB_EXIT_USAGE, "--size 32MiB or more", NULL,
      NULL },
    { "seqread --threads 8 --size 16K", MB_EXIT_USAGE, "too small for 8 threads", NULL, NULL },
    { "seqread --threads 1 --size 12Q", MB_EXIT_USAGE, "--size", NULL, NULL },
    { "seqread --threads 1 --format yaml", MB_EXIT_USAGE, "--format", NULL, NULL },
    { "seqread --threads 1 --llc 0", MB_EXIT_USAGE, "--llc", NULL, NULL },
    /* randread's own option and check */
    { "randread --threads 1 --size 64M --chains 4 --stride 512", 0, NULL, "randread",
      "\"chains\":4,\"tlb_locality_pages\":64,\"stride_bytes\":512" },
    { "randread --threads 1 --size 64M --stride 12", MB_EXIT_USAGE, "multiple of 8", NULL, NULL },
    { "randread --threads 1 --size 64M --chains 17", MB_EXIT_USAGE, "--chains", NULL, NULL },
    { "randread --threads 1 --size 64M --tlb-locality 0", 0, NULL, "randread",
      "\"tlb_locality_pages\":null" },
    /* --read-pct: one entry, shared by mixed and concurrent */
    { "mixed concurrent --threads 1 --size 64M --read-pct 40 --pattern sequential --procs 2", 0,
      NULL, "mixed", "\"read_pct\":40,\"pattern\":\"sequential\"" },
    { "mixed concurrent --threads 1 --size 64M --read-pct 40 --procs 2", 0, NULL, "concurrent",
      "\"procs\":2,\"duration_s\":10,\"read_pct\":40" },
    { "mixed --threads 1 --size 64M", 0, NULL, "mixed", "\"read_pct\":70,\"pattern\":\"random\"" },
    { "mixed --threads 1 --size 64M --read-pct 101", MB_EXIT_USAGE, "--read-pct", NULL, NULL },
    { "concurrent --threads 1 --size 64K --procs 32", MB_EXIT_USAGE, "at least 4 KiB", NULL,
      NULL },
    /* stability: its length from --iterations, --duration / --interval,
     * or the short profile under 'run all' */
    { "stability --threads 1 --size 64M --duration 3 --interval 1", 0, NULL, "stability",
      "\"iterations\":3,\"interval_s\":1,\"short_profile\":false" },
    { "stability --threads 1 --size 64M --interval 5 --duration 2", MB_EXIT_USAGE,
      "longer than the run", NULL, NULL },
    { "stability --threads 1 --size 64M --duration 3 --iterations 2", MB_EXIT_USAGE,
      "both set the run length", NULL, NULL },
    { "stability concurrent --threads 1 --size 64M --duration 3 --iterations 2 --interval 1 "
      "--procs 1", 0, NULL, "stability", "\"iterations\":2,\"interval_s\":1," },
    { "stability concurrent --threads 1 --size 64M --duration 3 --iterations 2 --procs 1",
      MB_EXIT_USAGE, "--interval 10 is longer than the run (--duration 3)", NULL, NULL },
    { "all --threads 1 --size 64M", 0, NULL, "stability",
      "\"iterations\":10,\"interval_s\":1,\"short_profile\":true" },
    { "all --threads 1 --size 64M --iterations 4", 0, NULL, "stability",
      "\"iterations\":4,\"interval_s\":10,\"short_profile\":false" },
};

static void test_cases(void)
{
    char msg[1024];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const case_t *c = &cases[i];
        int rc = resolve(c->line, msg, sizeof msg);
        CHECK(rc == c->rc, "'%s' exits %d (got %d: %s)", c->line, c->rc, rc, msg);
        if (c->msg)
            CHECK(strstr(msg, c->msg) != NULL, "'%s' says '%s' (got: %s)", c->line, c->msg, msg);
        if (c->scenario && rc == 0) {
            const char *js = scenario_json(c->scenario);
            CHECK(strstr(js, c->json) != NULL, "'%s': %s config has %s (got %s)", c->line,
                  c->scenario, c->json, js);
        }
    }
}

/* The resolved common configuration on the fixture machine. */
static void test_resolved(void)
{
    char msg[1024];
    int rc = resolve("seqread --threads 1", msg, sizeof msg);
    CHECK(rc == 0, "default size resolves (%s)", msg);
    CHECK(cfg.size_default && cfg.size_bytes == 1953 * MIB,
          "default 8 GiB clamped to MemAvailable/2 in whole MiB: %zu", cfg.size_bytes);
    CHECK_EQ_STR(cfg.size_how, "default 8 GiB, clamped to MemAvailable/2", "size_how");
    CHECK(cfg.caches.l1d_bytes == 48 * 1024 && strcmp(cfg.caches.l1d_source, "sysfs") == 0,
          "L1d 48 KiB from sysfs");
    CHECK(cfg.caches.l2_bytes == 1280 * 1024 && strcmp(cfg.caches.l2_source, "sysfs") == 0,
          "L2 1280 KiB from sysfs");
    CHECK(cfg.caches.llc.total_bytes == 8 * MIB, "LLC 8 MiB");
    CHECK(!cfg.cache_resident, "1953 MiB is over 4x the LLC");
    CHECK(cfg.nthreads == 1 && cfg.reps == 5 && cfg.random_state == 1, "threads 1, reps 5, random_state 1");

    rc = resolve("seqread --threads 1 --size 16M --reps 3 --random-state 9", msg, sizeof msg);
    CHECK(rc == 0 && cfg.cache_resident && cfg.nwarn >= 1 &&
          strstr(cfg.size_reason, "under 4x the last-level cache") != NULL,
          "16 MiB under 4x the 8 MiB LLC: labelled, with a warning");
    CHECK(cfg.reps == 3 && cfg.random_state == 9, "--reps 3 --random-state 9");
    rc = resolve("all --threads 1 --size 64M", msg, sizeof msg);
    CHECK(rc == 0 && cfg.nrecord == 1 && strstr(cfg.record[0], "stability: short profile"),
          "the short profile is recorded for the result");
}

/* The joined table: each name once; every scenario option reachable. */
static void test_joined_table(void)
{
    char msg[256];
    resolve("seqread --threads 1 --size 64M", msg, sizeof msg);
    size_t dups = 0;
    for (size_t i = 0; i < cli.n; i++)
        for (size_t k = i + 1; k < cli.n; k++)
            dups += cli.table[i].long_name && cli.table[k].long_name &&
                    strcmp(cli.table[i].long_name, cli.table[k].long_name) == 0;
    CHECK(dups == 0, "no long name twice in the joined table");
    for (size_t s = 0; s < mc_scenario_count(); s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        for (size_t k = 0; k < sc->nopts; k++)
            CHECK(mb_opts_index(cli.table, cli.n, sc->opts[k].long_name) >= 0 &&
                      mc_scenario_accepts(sc, sc->opts[k].long_name),
                  "%s: --%s is in the joined table", sc->name, sc->opts[k].long_name);
    }
    /* one alias per option a later scenario declares again (--read-pct,
     * --duration; loaded's --stride, --tlb-locality; sweep's --plot) */
    size_t shared = 0;
    for (size_t s = 0; s < mc_scenario_count(); s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        for (size_t k = 0; k < sc->nopts; k++) {
            bool before = false;
            for (size_t e = 0; e < s && !before; e++)
                before = mc_scenario_accepts(mc_scenario_at(e), sc->opts[k].long_name);
            shared += before;
        }
    }
    CHECK(shared >= 2 && cli.nalias == shared, "one alias per shared name: %zu of %zu",
          cli.nalias, shared);
}

static void test_cache_level(void)
{
    mc_caches_t c = { .l1d_bytes = 32 << 10, .l2_bytes = 1 << 20 };
    c.llc.total_bytes = 32 << 20;
    c.llc.level = 3;
    static const struct {
        size_t per_thread, total;
        const char *want;
    } t[] = {
        { 16 << 10, 16 << 10, "L1" }, { 32 << 10, 64 << 10, "L1" }, { 512 << 10, 4 << 20, "L2" },
        { 4 << 20, 8 << 20, "L3" },   { 8 << 20, 32 << 20, "L3" },  { 8 << 20, 64 << 20, "DRAM" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        CHECK_EQ_STR(mc_cache_level(&c, t[i].per_thread, t[i].total), t[i].want, t[i].want);
    c.llc.level = 2;
    CHECK_EQ_STR(mc_cache_level(&c, 4 << 20, 8 << 20), "L2", "an L2 LLC is named L2");
    c.llc.total_bytes = 0;
    CHECK_EQ_STR(mc_cache_level(&c, 4 << 20, 8 << 20), "unknown", "no LLC: unknown");
    CHECK(mc_slice_bytes(1000000, 3, 4096) == 331776, "slice: 1000000 / 3 down to 4 KiB");
    CHECK(mc_slice_bytes(64, 2, 64) == 0, "slice: under the alignment is 0");
}

int main(void)
{
    const char *root = getenv("MEMSUITE_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/llc-1socket/sys", root ? root : ".");
    setenv("MEMSUITE_SYSFS", path, 1);
    snprintf(path, sizeof path, "%s/tests/fixtures/llc-1socket/proc", root ? root : ".");
    setenv("MEMSUITE_PROCFS", path, 1);
    unsetenv("MEMSUITE_LLC");
    test_cases();
    test_resolved();
    test_joined_table();
    test_cache_level();
    mc_cli_free(&cli);
    /* every read kernel sums a buffer exactly (odd lengths included), and
     * its multi-pass form adds the same words `passes` times */
    {
        static uint64_t w[1031] __attribute__((aligned(64)));
        for (size_t i = 0; i < 1031; i++)
            w[i] = 3 * i + 1;
        for (size_t k = 0; k < mc_nreadkerns; k++) {
            for (size_t n = 0; n <= 1031; n += 103) {
                uint64_t want = 0, acc[MC_READKERN_ACC_WORDS] = { 0 }, got = 0;
                for (size_t i = 0; i < n; i++)
                    want += w[i];
                CHECK(mc_readkerns[k].fn(w, n) == want, "kernel %s sums %zu words",
                      mc_readkerns[k].v.name, n);
                mc_readkerns[k].passes(w, n, 3, acc);
                mc_readkerns[k].passes(w, n, 2, acc);
                for (size_t i = 0; i < MC_READKERN_ACC_WORDS; i++)
                    got += acc[i];
                CHECK(got == 5 * want, "kernel %s: 3 + 2 passes over %zu words sum 5x", 
                      mc_readkerns[k].v.name, n);
            }
        }
        CHECK(strcmp(mc_readkerns[MC_READKERN_DEFAULT].v.name, "v32x4") == 0, "the default is v32x4");
        CHECK(strcmp(mc_readkerns[MC_READKERN_TRAFFIC].v.name, "v64x8") == 0,
              "the traffic's default is v64x8");
    }
    return check_done();
}
