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
    const char *out, *json, *legacy;
    int format, mode;          /* CHOICE indexes */
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
       O_TEST, O_REJECT, O_LEGACY, O_MODE, O_N };

#define OFF(f) offsetof(cfg_t, f)
static const mb_opt_t table[O_N] = {
    [O_QUIET] = {.long_name = "quiet", .short_name = 'q', .type = MB_OPT_FLAG, .offset = OFF(quiet),
                 .help = "fewer lines"},
    [O_ALL] = {.short_name = 'a', .type = MB_OPT_FLAG, .offset = OFF(all), .help = "short only"},
    [O_NTIMES] = {.long_name = "ntimes", .short_name = 'n', .type = MB_OPT_INT, .offset = OFF(ntimes),
                  .min = 2, .max = 1000000, .metavar = "N", .def = "10", .help = "runs per kernel"},
    [O_OFFSET] = {.long_name = "offset", .type = MB_OPT_INT, .offset = OFF(offset), .min = -64,
                  .help = "unbounded above"},
    [O_SCALE] = {.long_name = "scale", .type = MB_OPT_DOUBLE, .offset = OFF(scale), .dmin = 0.5,
                 .dmax = 4.0, .metavar = "X", .def = "3.0", .help = "scalar"},
    [O_SIZE] = {.long_name = "array-size", .short_name = 's', .type = MB_OPT_SIZE, .offset = OFF(size),
                .min = 4096, .max = 1LL << 40, .metavar = "SIZE", .def = "1KiB",
                .def_text = "", .help = "bytes per array"},
    [O_COUNT] = {.long_name = "elements", .short_name = 'e', .type = MB_OPT_COUNT, .offset = OFF(count),
                 .min = 1, .help = "elements"},
    [O_OUT] = {.long_name = "output", .short_name = 'o', .type = MB_OPT_STRING, .offset = OFF(out),
               .metavar = "FILE", .def_text = "stdout", .help = "result file"},
    [O_FORMAT] = {.long_name = "format", .short_name = 'f', .type = MB_OPT_CHOICE,
                  .offset = OFF(format), .choices = "text|json|csv", .def = "text",
                  .help = "output format"},
    [O_JSON] = {.long_name = "json", .type = MB_OPT_STRING, .offset = OFF(json), .metavar = "FILE",
                .help = "JSON to FILE or stdout", .optional_arg = true},
    [O_TEST] = {.long_name = "test", .short_name = 't', .type = MB_OPT_CALLBACK, .offset = OFF(tests),
                .metavar = "0|1|2", .help = "test to run", .cb = add_test},
    [O_REJECT] = {.long_name = "reject", .type = MB_OPT_CALLBACK, .help = "always fails",
                  .cb = silent_reject},
    [O_LEGACY] = {.long_name = "legacy", .type = MB_OPT_CHOICE_STR, .offset = OFF(legacy),
                  .choices = "a|bb", .help = "stores the text"},
    [O_MODE] = {.long_name = "mode", .type = MB_OPT_CHOICE, .offset = OFF(mode),
                .choices = "x|y", .help = "no default"},
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
    CHECK(c->scale == 3.0 && c->format == 0 && c->mode == -1 && c->size == 1024 && !c->out &&
          !c->legacy, "%s: the table's defaults (a CHOICE without one is -1; a default may be "
          "outside the range)", name);
}
static void v_short_forms(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->ntimes == 5 && c->quiet && c->all && c->size == 8192 && SEEN(O_NTIMES) &&
          SEEN(O_QUIET) && SEEN(O_ALL) && SEEN(O_SIZE) && !SEEN(O_SCALE), "%s: values and seen", name);
}
static void v_long_forms(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->ntimes == 7 && c->scale == 2.5 && c->size == 64 * 1024 * 1024 &&
          c->count == 2000000 && strcmp(c->out, "r.json") == 0 && c->format == 2 &&
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

static void v_choices(const cfg_t *c, const mb_opts_out_t *o, const char *name)
{
    CHECK(c->legacy && strcmp(c->legacy, "bb") == 0 && c->mode == 1,
          "%s: CHOICE_STR keeps the text, CHOICE the index", name);
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
    {{"-\x01", NULL}, 2, {"unknown option '-^A'"}, NULL},
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
    {{"--scale=\x1b[31m2", NULL}, 2, {"'^[[31m2'", "not a number"}, NULL},
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
    {{"-t", "3", NULL}, 2, {"-t/--test: invalid test '3'", "0, 1 or 2"}, NULL},
    {{"--test", "3", NULL}, 2, {"--test: invalid test '3'"}, NULL},
    {{"--legacy", "bb", "--mode", "y", NULL}, 0, {NULL}, v_choices},
    {{"--legacy", "b", NULL}, 2, {"--legacy: invalid value 'b'", "a|bb"}, NULL},
    {{"--mode=", NULL}, 2, {"--mode: invalid value ''", "x|y"}, NULL},
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

    cfg_t cfg = {0};
    char dmsg[256] = "";
    CHECK(mb_opts_defaults(table, O_N, &cfg, dmsg, sizeof dmsg) == 0, "%s: defaults: %s", name,
          dmsg);
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

/* mb_opts_apply: one option, as a front end with its own scanner calls it. */
static void test_apply(void)
{
    cfg_t cfg = {0};
    char msg[256] = "";
    CHECK(mb_opts_apply(&table[O_NTIMES], NULL, "42", &cfg, msg, sizeof msg) == 0 &&
          cfg.ntimes == 42, "apply --ntimes 42");
    CHECK(mb_opts_apply(&table[O_NTIMES], NULL, "1", &cfg, msg, sizeof msg) == 2 &&
          strstr(msg, "--ntimes: invalid value '1'") && cfg.ntimes == 42,
          "apply names --long by default, checks the range, leaves the field: %s", msg);
    CHECK(mb_opts_apply(&table[O_NTIMES], "-n", "x", &cfg, msg, sizeof msg) == 2 &&
          strstr(msg, "-n: invalid value 'x'"), "apply names the option as given: %s", msg);
    CHECK(mb_opts_apply(&table[O_ALL], NULL, NULL, &cfg, msg, sizeof msg) == 0 && cfg.all,
          "apply a short-only flag");
    CHECK(mb_opts_apply(&table[O_FORMAT], NULL, "json", &cfg, msg, sizeof msg) == 0 &&
          cfg.format == 1, "apply a CHOICE stores its index");
    CHECK(mb_opts_apply(&table[O_JSON], NULL, NULL, &cfg, msg, sizeof msg) == 0 && !cfg.json,
          "an optional argument left out leaves the field");
}

/* A default that does not convert is a table bug, reported by name. */
static void test_bad_default(void)
{
    static const mb_opt_t bad[] = {
        {.long_name = "n", .type = MB_OPT_INT, .offset = offsetof(cfg_t, ntimes), .def = "ten"},
    };
    static const mb_opt_t flag[] = {
        {.long_name = "q", .type = MB_OPT_FLAG, .offset = offsetof(cfg_t, quiet), .def = "1"},
    };
    cfg_t cfg = {0};
    char msg[256] = "";
    CHECK(mb_opts_defaults(bad, 1, &cfg, msg, sizeof msg) == 2 &&
          strstr(msg, "default of --n") && strstr(msg, "'ten'"), "bad default: %s", msg);
    CHECK(mb_opts_defaults(flag, 1, &cfg, msg, sizeof msg) == 2 && strstr(msg, "flag"),
          "a flag has no default: %s", msg);
}

static void test_choice_name(void)
{
    static const struct { const char *choices; int idx; const char *want; } t[] = {
        {"text|json|csv", 0, "text"}, {"text|json|csv", 1, "json"}, {"text|json|csv", 2, "csv"},
        {"text|json|csv", 3, NULL}, {"text|json|csv", -1, NULL}, {"one", 0, "one"},
        {"", 0, ""}, {NULL, 0, ""}, {"a||b", 2, "b"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char buf[16];
        const char *got = mb_opts_choice_name(t[i].choices, t[i].idx, buf, sizeof buf);
        CHECK(t[i].want ? got && strcmp(got, t[i].want) == 0 : got == NULL,
              "choice %d of '%s' is '%s' (got '%s')", t[i].idx, t[i].choices ? t[i].choices : "NULL",
              t[i].want ? t[i].want : "NULL", got ? got : "NULL");
    }
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
        {"  -o, --output FILE ", "result file (default: stdout)"},
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
    test_apply();
    test_bad_default();
    test_choice_name();
    test_help();
    return check_done();
}
