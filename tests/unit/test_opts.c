/* test_opts: the table-driven parser on valid and hostile command lines,
 * and the help generated from the same table. */
#include "check.h"
#include "opts.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bool quiet, all;
    long long ntimes, offset;
    double scale;
    size_t size, count;
    const char *out, *format, *json;
    unsigned tests;            /* bit mask from the -t callback */
    int cb_calls;
} cfg_t;

/* -t 0|1|2, repeatable (mbw style). */
static int add_test(void *cfg, const char *arg, char *msg, size_t msglen)
{
    cfg_t *c = cfg;
    c->cb_calls++;
    if (!arg || strlen(arg) != 1 || arg[0] < '0' || arg[0] > '2') {
        snprintf(msg, msglen, "invalid test '%s': must be 0, 1 or 2", arg ? arg : "(none)");
        return 1;
    }
    c->tests |= 1u << (arg[0] - '0');
    return 0;
}

static int silent_reject(void *cfg, const char *arg, char *msg, size_t msglen)
{
    (void)cfg; (void)arg; (void)msg; (void)msglen;
    return 1;
}

enum { O_QUIET, O_ALL, O_NTIMES, O_OFFSET, O_SCALE, O_SIZE, O_COUNT, O_OUT, O_FORMAT, O_JSON,
       O_TEST, O_REJECT, O_N };

static const mb_opt_t table[O_N] = {
    [O_QUIET] = {"quiet", 'q', MB_OPT_FLAG, offsetof(cfg_t, quiet), 0, 0, 0, 0, NULL, NULL, NULL,
                 "fewer lines", NULL, false},
    [O_ALL] = {NULL, 'a', MB_OPT_FLAG, offsetof(cfg_t, all), 0, 0, 0, 0, NULL, NULL, NULL,
               "short only", NULL, false},
    [O_NTIMES] = {"ntimes", 'n', MB_OPT_INT, offsetof(cfg_t, ntimes), 2, 1000000, 0, 0, NULL, "N",
                  "10", "runs per kernel", NULL, false},
    [O_OFFSET] = {"offset", 0, MB_OPT_INT, offsetof(cfg_t, offset), -64, 0, 0, 0, NULL, NULL, NULL,
                  "unbounded above", NULL, false},
    [O_SCALE] = {"scale", 0, MB_OPT_DOUBLE, offsetof(cfg_t, scale), 0, 0, 0.5, 4.0, NULL, "X",
                 "3.0", "scalar", NULL, false},
    [O_SIZE] = {"array-size", 's', MB_OPT_SIZE, offsetof(cfg_t, size), 4096, 1LL << 40, 0, 0,
                NULL, "SIZE", NULL, "bytes per array", NULL, false},
    [O_COUNT] = {"elements", 'e', MB_OPT_COUNT, offsetof(cfg_t, count), 1, 0, 0, 0, NULL, NULL,
                 NULL, "elements", NULL, false},
    [O_OUT] = {"output", 'o', MB_OPT_STRING, offsetof(cfg_t, out), 0, 0, 0, 0, NULL, "FILE", NULL,
               "result file", NULL, false},
    [O_FORMAT] = {"format", 'f', MB_OPT_CHOICE, offsetof(cfg_t, format), 0, 0, 0, 0,
                  "text|json|csv", NULL, "text", "output format", NULL, false},
    [O_JSON] = {"json", 0, MB_OPT_STRING, offsetof(cfg_t, json), 0, 0, 0, 0, NULL, "FILE", NULL,
                "JSON to FILE or stdout", NULL, true},
    [O_TEST] = {"test", 't', MB_OPT_CALLBACK, offsetof(cfg_t, tests), 0, 0, 0, 0, NULL, "0|1|2",
                NULL, "test to run", add_test, false},
    [O_REJECT] = {"reject", 0, MB_OPT_CALLBACK, 0, 0, 0, 0, 0, NULL, NULL, NULL, "always fails",
                  silent_reject, false},
};

#define MAXARG 12

typedef struct {
    const char *argv[MAXARG];  /* without argv[0]; NULL-terminated */
    int rc;
    const char *msg[3];        /* substrings the message must hold (rc 2) */
    void (*verify)(const cfg_t *c, const mb_opts_out_t *o, const char *name);
} opts_case_t;

#define SEEN(i) (o->seen[(i)])

static void v_defaults(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    bool any = false;
    for (int i = 0; i < O_N; i++)
        any |= o->seen[i];
    CHECK(!any && o->npos == 0 && c->ntimes == 10 && !c->quiet, "%s: nothing set", name);
}
static void v_short_forms(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->ntimes == 5 && c->quiet && c->all && c->size == 8192 && SEEN(O_NTIMES) &&
          SEEN(O_QUIET) && SEEN(O_ALL) && SEEN(O_SIZE) && !SEEN(O_SCALE), "%s: values and seen", name);
}
static void v_long_forms(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->ntimes == 7 && c->scale == 2.5 && c->size == 64 * 1024 * 1024 &&
          c->count == 2000000 && strcmp(c->out, "r.json") == 0 && strcmp(c->format, "csv") == 0 &&
          c->offset == -8, "%s: values", name);
    (void)o;
}
static void v_cluster(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->quiet && c->all && c->ntimes == 3 && o->npos == 1 && strcmp(o->pos[0], "64") == 0,
          "%s: -qan 3 64", name);
}
static void v_positionals(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(o->npos == 4 && strcmp(o->pos[0], "a") == 0 && strcmp(o->pos[1], "-") == 0 &&
          strcmp(o->pos[2], "-n") == 0 && strcmp(o->pos[3], "--") == 0 && c->ntimes == 4,
          "%s: order kept, '-' and everything after '--' are operands", name);
}
static void v_optional_absent(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(SEEN(O_JSON) && c->json == NULL && o->npos == 1 && strcmp(o->pos[0], "out.json") == 0,
          "%s: --json without '=' takes no value", name);
}
static void v_optional_given(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(SEEN(O_JSON) && c->json && strcmp(c->json, "out.json") == 0, "%s: --json=FILE", name);
    (void)o;
}
static void v_callback(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->tests == 5u && c->cb_calls == 2 && SEEN(O_TEST), "%s: -t0 -t 2 -> mask 5", name);
    (void)o;
}
static void v_last_wins(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->ntimes == 9, "%s: the last value wins", name);
    (void)o;
}
static void v_bounds(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->ntimes == 1000000 && c->scale == 0.5 && c->size == 4096, "%s: inclusive bounds", name);
    (void)o;
}
static void v_negative_value(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->offset == -64, "%s: a value may start with '-'", name);
    (void)o;
}

static const opts_case_t cases[] = {
    {{NULL}, 0, {NULL}, v_defaults},
    {{"-n", "5", "-q", "-a", "-s8K", NULL}, 0, {NULL}, v_short_forms},
    {{"--ntimes", "7", "--scale=2.5", "--array-size", "64MiB", "--elements=2M", "-o", "r.json",
      "--format", "csv", "--offset=-8", NULL}, 0, {NULL}, v_long_forms},
    {{"-qan", "3", "64", NULL}, 0, {NULL}, v_cluster},
    {{"a", "-", "-n4", "--", "-n", "--", NULL}, 0, {NULL}, v_positionals},
    {{"--json", "out.json", NULL}, 0, {NULL}, v_optional_absent},
    {{"--json=out.json", NULL}, 0, {NULL}, v_optional_given},
    {{"-t0", "--test", "2", NULL}, 0, {NULL}, v_callback},
    {{"-n", "3", "--ntimes=9", NULL}, 0, {NULL}, v_last_wins},
    {{"-n", "1000000", "--scale", "0.5", "-s", "4096", NULL}, 0, {NULL}, v_bounds},
    {{"--offset", "-64", NULL}, 0, {NULL}, v_negative_value},

    /* hostile */
    {{"-n", NULL}, 2, {"-n", "missing value", "N"}, NULL},
    {{"--ntimes", NULL}, 2, {"--ntimes", "missing value"}, NULL},
    {{"-s", NULL}, 2, {"-s", "missing value", "SIZE"}, NULL},
    {{"--bogus", NULL}, 2, {"unknown option '--bogus'", "--help"}, NULL},
    {{"--bogus=1", NULL}, 2, {"unknown option '--bogus'"}, NULL},
    {{"-z", NULL}, 2, {"unknown option '-z'"}, NULL},
    {{"-qz", NULL}, 2, {"unknown option '-z'"}, NULL},
    {{"-\xc3\xa9", NULL}, 2, {"unknown option '-\\xc3\\xa9'"}, NULL},
    {{"-q\xe2\x82\xac", NULL}, 2, {"unknown option '-\\xe2\\x82\\xac'"}, NULL},
    {{"-\x01", NULL}, 2, {"unknown option '-\\x01'"}, NULL},
    {{"-\xff\xfe", NULL}, 2, {"unknown option '-\\xff'"}, NULL},
    {{"--", NULL}, 0, {NULL}, v_defaults},
    {{"--=5", NULL}, 2, {"unknown option"}, NULL},
    {{"--ntime", "5", NULL}, 2, {"unknown option '--ntime'"}, NULL},
    {{"-n", "1", NULL}, 2, {"-n: invalid value '1'", "out of range", "2..1000000"}, NULL},
    {{"--ntimes=1000001", NULL}, 2, {"--ntimes: invalid value '1000001'", "2..1000000"}, NULL},
    {{"-n", "abc", NULL}, 2, {"-n: invalid value 'abc'", "not an integer", "2..1000000"}, NULL},
    {{"-n", "5x", NULL}, 2, {"invalid value '5x'", "not an integer"}, NULL},
    {{"-n", "1.5", NULL}, 2, {"invalid value '1.5'", "integer"}, NULL},
    {{"-n", " 5", NULL}, 2, {"invalid value ' 5'", "not an integer"}, NULL},
    {{"-n", "", NULL}, 2, {"-n: invalid value ''", "integer"}, NULL},
    {{"-n", "99999999999999999999", NULL}, 2,
     {"invalid value '99999999999999999999'", "out of range"}, NULL},
    {{"-n", "-99999999999999999999", NULL}, 2, {"out of range"}, NULL},
    {{"--offset", "-65", NULL}, 2, {"--offset", "'-65'", ">= -64"}, NULL},
    {{"--scale", "9", NULL}, 2, {"--scale: invalid value '9'", "0.5..4"}, NULL},
    {{"--scale=nan", NULL}, 2, {"'nan'", "finite"}, NULL},
    {{"--scale=inf", NULL}, 2, {"'inf'", "finite"}, NULL},
    {{"--scale=1e999", NULL}, 2, {"'1e999'", "out of range"}, NULL},
    {{"--scale=", NULL}, 2, {"--scale: invalid value ''", "not a number"}, NULL},
    {{"--scale=2x", NULL}, 2, {"'2x'", "not a number"}, NULL},
    {{"--scale=0x2", NULL}, 2, {"'0x2'", "not a decimal number"}, NULL},   /* strtod: 2 */
    {{"--scale=0X1p1", NULL}, 2, {"'0X1p1'", "not a decimal number"}, NULL},
    {{"-n", "\xd9\xa8", NULL}, 2, {"'\\xd9\\xa8'", "not an integer"}, NULL},
    {{"--scale=\x1b[31m2", NULL}, 2, {"'\\x1b[31m2'", "not a number"}, NULL},
    {{"-s", "1K", NULL}, 2, {"-s: invalid value '1K'", "4096..1099511627776 bytes"}, NULL},
    {{"-s", "2T", NULL}, 2, {"-s: invalid value '2T'", "out of range"}, NULL},
    {{"-s", "-5", NULL}, 2, {"-s: invalid size '-5'", "negative", "512MiB"}, NULL},
    {{"--array-size=", NULL}, 2, {"--array-size: invalid size ''", "empty"}, NULL},
    {{"-s", "99999999999999999999", NULL}, 2, {"-s", "'99999999999999999999'", "too large"}, NULL},
    {{"-s", "12abc", NULL}, 2, {"trailing garbage 'abc'"}, NULL},
    {{"-e", "0", NULL}, 2, {"-e: invalid value '0'", "count >= 1"}, NULL},
    {{"-e", "2MiB", NULL}, 2, {"-e: invalid count '2MiB'", "byte unit"}, NULL},
    {{"--format", "xml", NULL}, 2, {"--format: invalid value 'xml'", "text|json|csv"}, NULL},
    {{"--format=", NULL}, 2, {"invalid value ''", "text|json|csv"}, NULL},
    {{"--format", "tex", NULL}, 2, {"invalid value 'tex'"}, NULL},
    {{"--format", "text|json", NULL}, 2, {"invalid value 'text|json'"}, NULL},
    {{"--quiet=yes", NULL}, 2, {"--quiet", "takes no value", "'yes'"}, NULL},
    {{"-t", "3", NULL}, 2, {"-t: invalid test '3'", "0, 1 or 2"}, NULL},
    {{"--reject=x", NULL}, 2, {"--reject: invalid value 'x'"}, NULL},
    /* an empty STRING never silently means "not given" (--membind '') */
    {{"-o", "", NULL}, 2, {"-o/--output: invalid value ''", "empty", "FILE"}, NULL},
    {{"--output=", NULL}, 2, {"--output: invalid value ''", "empty"}, NULL},
    {{"--output", "", NULL}, 2, {"--output: invalid value ''", "leave the option out"}, NULL},
};

static void run_case(size_t k, const opts_case_t *tc)
{
    char *argv[MAXARG + 1];
    int argc = 0;
    argv[argc++] = "prog";
    for (int i = 0; tc->argv[i]; i++)
        argv[argc++] = (char *)tc->argv[i];
    argv[argc] = NULL;

    char name[160] = "";
    for (int i = 1; i < argc; i++) {
        strncat(name, i > 1 ? " " : "argv: ", sizeof name - strlen(name) - 1);
        strncat(name, argv[i] && argv[i][0] ? argv[i] : "''", sizeof name - strlen(name) - 1);
    }
    if (argc == 1)
        snprintf(name, sizeof name, "argv: (none) #%zu", k);

    cfg_t cfg = {.ntimes = 10};
    char *pos[MAXARG + 1];
    bool seen[O_N];
    memset(seen, 1, sizeof seen);   /* the parser must reset them */
    mb_opts_out_t out = {.npos = 99, .pos = pos, .seen = seen};
    char msg[512] = "untouched";
    int rc = mb_opts_parse(table, O_N, argc, argv, &cfg, &out, msg, sizeof msg);
    CHECK(rc == tc->rc, "%s: rc %d (got %d: %s)", name, tc->rc, rc, rc ? msg : "");
    if (tc->rc == 0 && rc == 0 && tc->verify)
        tc->verify(&cfg, &out, name);
    for (int i = 0; i < 3 && tc->msg[i]; i++)
        CHECK(strstr(msg, tc->msg[i]) != NULL, "%s: message has \"%s\": %s", name, tc->msg[i], msg);
}

static void test_no_positionals(void)
{
    char *argv[] = {"prog", "-q", "extra", NULL};
    cfg_t cfg = {0};
    char msg[256];
    int rc = mb_opts_parse(table, O_N, 3, argv, &cfg, NULL, msg, sizeof msg);
    CHECK(rc == 2 && strstr(msg, "unexpected argument 'extra'"), "no pos array: operand refused: %s",
          msg);
    char *argv2[] = {"prog", "-q", NULL};
    CHECK(mb_opts_parse(table, O_N, 2, argv2, &cfg, NULL, NULL, 0) == 0 && cfg.quiet,
          "out and msg may be NULL");
}

static void test_index(void)
{
    CHECK(mb_opts_index(table, O_N, "format") == O_FORMAT, "index of format");
    CHECK(mb_opts_index(table, O_N, "nope") == -1, "index of unknown is -1");
    CHECK(mb_opts_index(table, O_N, NULL) == -1, "index of NULL is -1");
}

static void test_help(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    mb_opts_help(f, "prog [options] SIZE", table, O_N);
    fclose(f);
    for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1)
        printf("# %.*s\n", (int)(nl - line), line);
    const char *head = "Usage: prog [options] SIZE\n\nOptions:\n";
    CHECK(strncmp(buf, head, strlen(head)) == 0, "help header");

    static const struct { const char *start; const char *rest; } lines[] = {
        {"  -q, --quiet ", "fewer lines"},
        {"  -a ", "short only"},
        {"  -n, --ntimes N ", "runs per kernel (default: 10)"},
        {"      --offset N ", "unbounded above"},
        {"  -s, --array-size SIZE ", "bytes per array"},
        {"  -f, --format text|json|csv ", "output format (default: text)"},
        {"      --json[=FILE] ", "JSON to FILE or stdout"},
        {"  -t, --test 0|1|2 ", "test to run"},
    };
    long col = -1;
    bool aligned = true;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char *at = strstr(buf, lines[i].start);
        CHECK(at && (at == buf || at[-1] == '\n'), "help line '%s'", lines[i].start);
        if (!at)
            continue;
        char *help = strstr(at, lines[i].rest);
        char *eol = strchr(at, '\n');
        CHECK(help && eol && help < eol && eol == help + strlen(lines[i].rest),
              "help text '%s' on that line", lines[i].rest);
        if (help) {
            if (col < 0)
                col = help - at;
            aligned &= (help - at) == col;
        }
    }
    CHECK(aligned, "help texts start in one column (%ld)", col);
    int count = 0;
    for (char *p = buf; (p = strchr(p, '\n')); p++)
        count++;
    CHECK(count == 3 + O_N, "one line per entry (%d lines)", count);
    free(buf);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(i, &cases[i]);
    test_no_positionals();
    test_index();
    test_help();
    return check_done();
}
