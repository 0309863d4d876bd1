/* test_mbw: mbw's own pure logic, table-driven: the plain-decimal parser
 * of its short options, the defaults of both option tables, and whole
 * command lines through mbw_cli_parse (getopt front end calling the long
 * table entry by entry). */
#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"

static void test_parse_u64(void)
{
    static const struct { const char *in; int rc; unsigned long long v; } t[] = {
        { "0", 0, 0 }, { "7", 0, 7 }, { "262144", 0, 262144 }, { "007", 0, 7 },
        { "18446744073709551615", 0, 18446744073709551615ull },
        { "18446744073709551616", -ERANGE, 0 }, { "99999999999999999999999", -ERANGE, 0 },
        { "", -EINVAL, 0 }, { "+1", -EINVAL, 0 }, { "-1", -EINVAL, 0 }, { " 1", -EINVAL, 0 },
        { "1 ", -EINVAL, 0 }, { "1e3", -EINVAL, 0 }, { "1K", -EINVAL, 0 }, { "0x10", -EINVAL, 0 },
        { "1.0", -EINVAL, 0 },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        unsigned long long v = 12345;
        int rc = mbw_parse_u64(t[i].in, &v);
        CHECK(rc == t[i].rc && v == (rc == 0 ? t[i].v : 12345),
              "'%s': rc %d value %llu (got %d, %llu)", t[i].in, t[i].rc, t[i].v, rc, v);
    }
    unsigned long long v;
    CHECK(mbw_parse_u64(NULL, &v) == -EINVAL, "NULL is -EINVAL");
}

static void test_defaults(void)
{
    mbw_cfg_t c;
    memset(&c, 0x5a, sizeof c);
    mbw_cfg_defaults(&c);
    CHECK(c.runs == 10 && c.block_bytes == 262144 && c.threads == 1 && c.numa_node == -1 &&
          c.hugepages == MBW_HP_DEFAULT && c.format == MB_FMT_TEXT && !c.output && !c.counters &&
          !c.strict && !c.quiet && !c.no_avg && c.ntests == 0,
          "both tables' defaults: -n 10, -b 262144 (MCBLOCK), one thread, no node, calloc, text");
}

/* mbw prints its own errors on stdout; keep them out of the TAP stream. */
static int parse_quiet(int argc, char **argv, mbw_cfg_t *c, int *code)
{
    fflush(stdout);
    int saved = dup(1), null = open("/dev/null", O_WRONLY);
    if (null >= 0)
        dup2(null, 1);
    int stderr_saved = dup(2);
    if (null >= 0)
        dup2(null, 2);
    mbw_cfg_defaults(c);
    int rc = mbw_cli_parse(argc, argv, c, code);
    fflush(stdout);
    fflush(stderr);
    dup2(saved, 1);
    dup2(stderr_saved, 2);
    close(saved);
    close(stderr_saved);
    if (null >= 0)
        close(null);
    return rc;
}

typedef struct {
    const char *argv[14];      /* without argv[0] */
    int stop;                  /* mbw_cli_parse's return */
    int code;                  /* exit code when stop */
    void (*verify)(const mbw_cfg_t *c, const char *name);
} cli_case_t;

static void v_classic(const mbw_cfg_t *c, const char *name)
{
    CHECK(c->size_mib == 64 && c->array_bytes == 64u << 20 && c->elements == (64u << 20) / sizeof(long)
          && c->ntests == MBW_NMETHODS && c->runs == 10, "%s: all tests, 64 MiB", name);
}
static void v_short(const mbw_cfg_t *c, const char *name)
{
    CHECK(c->quiet && c->no_avg && c->runs == 3 && c->ntests == 2 && !c->test[0] && c->test[1] &&
          c->test[2] && c->block_bytes == 4096, "%s: -qa -n3 -t1 -t 2 -b 4096", name);
}
static void v_long(const mbw_cfg_t *c, const char *name)
{
    CHECK(c->threads == 2 && c->format == MB_FMT_JSON && c->hugepages == MBW_HP_MADVISE &&
          c->numa_node == 0 && c->counters && strcmp(c->counter_list, "default") == 0 &&
          c->verify && c->output && strcmp(c->output, "r.json") == 0,
          "%s: the long options through their table entries", name);
}
static void v_permuted(const mbw_cfg_t *c, const char *name)
{
    CHECK(c->size_mib == 8 && c->runs == 2 && c->format == MB_FMT_CSV, "%s: options after the size",
          name);
}
static void v_runs0(const mbw_cfg_t *c, const char *name)
{
    CHECK(c->runs == 0 && c->ntests == 1 && c->test[0], "%s: -n 0 with one test", name);
}

static const cli_case_t cases[] = {
    { { "64", NULL }, 0, 0, v_classic },
    { { "-qa", "-n3", "-t1", "-t", "2", "-b", "4096", "16", NULL }, 0, 0, v_short },
    { { "--threads", "2", "--format=json", "--hugepages", "madvise", "--numa-node", "0",
        "--counters", "--verify", "--output", "r.json", "4", NULL }, 0, 0, v_long },
    { { "8", "-n", "2", "--format", "csv", NULL }, 0, 0, v_permuted },
    { { "-n", "0", "-t0", "4", NULL }, 0, 0, v_runs0 },
    /* compatible mode: every error exits 1; --strict: memsuite's codes */
    { { NULL }, 1, MB_EXIT_FAIL, NULL },
    { { "--strict", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "0", NULL }, 1, MB_EXIT_FAIL, NULL },
    { { "--strict", "abc", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "-n", "1000001", "4", NULL }, 1, MB_EXIT_FAIL, NULL },
    { { "-t", "3", "4", NULL }, 1, MB_EXIT_FAIL, NULL },
    { { "-b", "0", "4", NULL }, 1, MB_EXIT_FAIL, NULL },
    { { "-b", "8388608", "4", NULL }, 1, MB_EXIT_FAIL, NULL },     /* block over the array */
    { { "-n", "0", "4", NULL }, 1, MB_EXIT_FAIL, NULL },           /* -n 0 needs one test */
    { { "--strict", "--threads", "0", "4", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "--format", "xml", "4", NULL }, 1, MB_EXIT_FAIL, NULL },
    { { "--strict", "--hugepages=always", "4", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "--strict", "--bogus", "4", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "--strict", "4", "5", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "--strict", "-z", "4", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "-z", "4", NULL }, 0, 0, NULL },                           /* mbw carries on */
    { { "--strict", "18446744073709551615", NULL }, 1, MB_EXIT_USAGE, NULL },
    { { "--help", NULL }, 1, MB_EXIT_OK, NULL },
    { { "-h", NULL }, 1, MB_EXIT_FAIL, NULL },                     /* as mbw */
};

static void test_cli(void)
{
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const cli_case_t *tc = &cases[k];
        char *argv[16] = { "mbw" };
        char name[256] = "mbw";
        int argc = 1;
        for (int i = 0; tc->argv[i]; i++) {
            argv[argc++] = (char *)tc->argv[i];
            strncat(name, " ", sizeof name - strlen(name) - 1);
            strncat(name, tc->argv[i], sizeof name - strlen(name) - 1);
        }
        argv[argc] = NULL;
        mbw_cfg_t c;
        int code = -1;
        int stop = parse_quiet(argc, argv, &c, &code);
        CHECK(stop == tc->stop && (!stop || code == tc->code), "%s: %s (got %d, exit %d)", name,
              tc->stop ? "stops" : "goes on", stop, code);
        if (!stop && tc->verify)
            tc->verify(&c, name);
    }
}

static void test_tuned_reasons(void)
{
    mbw_cfg_t c;
    const char *r[4];
    mbw_cfg_defaults(&c);
    CHECK(mbw_cli_tuned_reasons(&c, r, 4) == 0, "a classic run has no tuning");
    c.threads = 2;
    c.hugepages = MBW_HP_NEVER;
    size_t n = mbw_cli_tuned_reasons(&c, r, 4);
    CHECK(n == 2 && strstr(r[0], "--threads") && strstr(r[1], "--hugepages"),
          "threads and huge pages are tuning");
}

int main(void)
{
    test_parse_u64();
    test_defaults();
    test_cli();
    test_tuned_reasons();
    return check_done();
}
