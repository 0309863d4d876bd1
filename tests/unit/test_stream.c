/* test_stream: stream's own pure logic, table-driven: the option table's
 * defaults and typed entries, --array-size's grammar, --kernels lists and
 * the plan's size resolution (with --llc given, so no sysfs is read). */
#include "check.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "defaults.h"
#include "kernels.h"
#include "options.h"
#include "opts.h"
#include "plan.h"


/* ARGS("-s", "0"): the words after argv[0], NULL-terminated. */
#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static int parse(st_options_t *o, char *msg, size_t msglen, const char *const *args)
{
    char *argv[16] = { "stream" };
    int argc = 1;
    for (; argc < 15 && args[argc - 1]; argc++)
        argv[argc] = (char *)args[argc - 1];
    argv[argc] = NULL;
    return st_options_parse(argc, argv, o, msg, msglen);
}

static void test_defaults(void)
{
    st_options_t o;
    char msg[512] = "";
    CHECK(parse(&o, msg, sizeof msg, ARGS(NULL)) == 0, "no options parse: %s", msg);
    CHECK(o.array_size.kind == ST_SIZE_DEFAULT && o.ntimes == NTIMES && o.offset == OFFSET &&
          o.type == (sizeof(STREAM_TYPE) == 4 ? ST_FLOAT : ST_DOUBLE) && o.format == MB_FMT_TEXT &&
          o.nt_isa == 0 && o.hugepages == ST_HP_THP && o.threads == 0 && !o.output &&
          !o.counters && !o.inject && !o.nt_stores && strcmp(o.kernels, "copy,scale,add,triad") == 0,
          "the table's defaults are the build's (NTIMES %d, OFFSET %d)", NTIMES, OFFSET);
}

/* Each CHOICE stores the enum the plan uses. */
static void test_choices(void)
{
    st_options_t o;
    char msg[512] = "", name[16];
    /* portable is the last variant of every architecture's list */
    int portable = 0;
    while (mb_opts_choice_name(ST_NT_ISA_CHOICES, portable + 1, name, sizeof name))
        portable++;
    CHECK(strcmp(mb_opts_choice_name(ST_NT_ISA_CHOICES, portable, name, sizeof name), "portable") == 0,
          "nt-isa's last choice is portable (%s)", ST_NT_ISA_CHOICES);
    int rc = parse(&o, msg, sizeof msg, ARGS("--type", "float", "--format=json", "--hugepages",
                   "madvise", "--nt-isa", "portable"));
    CHECK(rc == 0 && o.type == ST_FLOAT && o.format == MB_FMT_JSON &&
          o.hugepages == ST_HP_MADVISE && o.nt_isa == portable && o.nt_stores,
          "choices as enums; --nt-isa implies --nt-stores: %s", msg);
    rc = parse(&o, msg, sizeof msg, ARGS("--format", "csv", "--hugepages", "never"));
    CHECK(rc == 0 && o.format == MB_FMT_CSV && o.hugepages == ST_HP_NEVER && !o.nt_stores,
          "csv, never");
    CHECK(strcmp(mb_opts_choice_name(ST_NT_ISA_CHOICES, 0, name, sizeof name), "auto") == 0,
          "nt-isa index 0 is auto");
}

static void test_array_size_grammar(void)
{
    static const struct {
        const char *in;
        int rc;
        st_size_source_t kind;
        size_t value;
        const char *msg;           /* rc 2: a substring of the message */
    } t[] = {
        { "auto", 0, ST_SIZE_AUTO, 0, NULL },
        { "20000000", 0, ST_SIZE_ELEMENTS, 20000000, NULL },
        { "2e7", 0, ST_SIZE_ELEMENTS, 20000000, NULL },
        { "20M", 0, ST_SIZE_ELEMENTS, 20000000, NULL },
        { "1", 0, ST_SIZE_ELEMENTS, 1, NULL },
        { "2GiB", 0, ST_SIZE_BYTES, 2147483648u, NULL },
        { "800MB", 0, ST_SIZE_BYTES, 800000000, NULL },
        { "64B", 0, ST_SIZE_BYTES, 64, NULL },
        { "2400000b", 0, ST_SIZE_BYTES, 2400000, NULL },
        { "0B", 0, ST_SIZE_BYTES, 0, NULL },      /* under one element: the plan refuses */
        { "0", 2, 0, 0, "invalid value '0': must be at least 1 element" },
        { "-5", 2, 0, 0, "'-5'" },
        { "abc", 2, 0, 0, "'abc'" },
        { "", 2, 0, 0, "''" },
        { "1.5", 2, 0, 0, "'1.5'" },
        { "12XB", 2, 0, 0, "'12XB'" },
        { "AUTO", 2, 0, 0, "'AUTO'" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        st_size_arg_t a = { ST_SIZE_DEFAULT, 7, NULL };
        char msg[512] = "";
        int rc = st_options_parse_size(t[i].in, &a, msg, sizeof msg);
        if (t[i].rc == 0)
            CHECK(rc == 0 && a.kind == t[i].kind && a.value == t[i].value && a.text == t[i].in,
                  "-s '%s': kind %d value %zu (got rc %d kind %d value %zu: %s)", t[i].in,
                  (int)t[i].kind, t[i].value, rc, (int)a.kind, a.value, msg);
        else
            CHECK(rc == 2 && strstr(msg, t[i].msg) && a.kind == ST_SIZE_DEFAULT,
                  "-s '%s' refused, output untouched: %s", t[i].in, msg);
    }
    /* through the table: the message names the option as spelt */
    st_options_t o;
    char msg[512] = "";
    CHECK(parse(&o, msg, sizeof msg, ARGS("-s", "0")) == 2 &&
          strncmp(msg, "-s/--array-size: invalid value '0'", 34) == 0, "-s 0: %s", msg);
    CHECK(parse(&o, msg, sizeof msg, ARGS("--array-size=x")) == 2 &&
          strncmp(msg, "--array-size: ", 14) == 0, "--array-size=x: %s", msg);
}

static void test_kernels_parse(void)
{
    static const struct {
        const char *in;
        int rc;
        size_t n;
        int ids[ST_MAX_KERNELS];
        const char *msg;
    } t[] = {
        { "copy,scale,add,triad", 0, 4, { ST_K_COPY, ST_K_SCALE, ST_K_ADD, ST_K_TRIAD }, NULL },
        { "triad", 0, 1, { ST_K_TRIAD }, NULL },
        { "Dot,NSTREAM", 0, 2, { ST_K_DOT, ST_K_NSTREAM }, NULL },
        { "nstream,dot,triad,add,scale,copy", 0, 6,
          { ST_K_NSTREAM, ST_K_DOT, ST_K_TRIAD, ST_K_ADD, ST_K_SCALE, ST_K_COPY }, NULL },
        { "", -EINVAL, 0, { 0 }, "empty list" },
        { "copy,,add", -EINVAL, 0, { 0 }, "empty or overlong entry" },
        { "copy,", -EINVAL, 0, { 0 }, NULL },
        { "copy,fma", -EINVAL, 0, { 0 }, "unknown kernel 'fma'" },
        { "copy,copy", -EINVAL, 0, { 0 }, "'copy' is listed twice" },
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        int ids[ST_MAX_KERNELS];
        size_t n = 99;
        char msg[512] = "";
        int rc = st_kernels_parse(t[i].in, ids, &n, msg, sizeof msg);
        bool same = rc == t[i].rc;
        if (rc == 0 && same)
            same = n == t[i].n && memcmp(ids, t[i].ids, n * sizeof ids[0]) == 0;
        if (rc != 0 && t[i].msg)
            same = same && strstr(msg, t[i].msg) != NULL;
        CHECK(same, "--kernels '%s': rc %d (got %d, %zu ids: %s)", t[i].in, t[i].rc, rc, n, msg);
    }
}

/* The plan turns the typed size into elements by the element type. */
static void test_plan_size(void)
{
    static const struct {
        const char *size, *type;
        int rc;
        size_t n;
        st_size_source_t source;
    } t[] = {
        { "2400000B", "double", 0, 300000, ST_SIZE_BYTES },
        { "1200000B", "float", 0, 300000, ST_SIZE_BYTES },
        { "2MiB", "double", 0, 262144, ST_SIZE_BYTES },
        { "300000", "float", 0, 300000, ST_SIZE_ELEMENTS },
        { "auto", "double", 0, 524288, ST_SIZE_AUTO },    /* 4 x 1 MiB / 8 */
        { "auto", "float", 0, 1048576, ST_SIZE_AUTO },
        { "7B", "double", 2, 0, 0 },                     /* under one element */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        st_options_t o;
        static st_plan_t p;
        char msg[1024] = "";
        int rc = parse(&o, msg, sizeof msg,
                       ARGS("--llc", "1MiB", "-n", "2", "-s", t[i].size, "--type", t[i].type));
        if (rc == 0)
            rc = st_plan_build(&o, &p, msg, sizeof msg);
        CHECK(rc == t[i].rc && (rc != 0 || (p.n == t[i].n && p.size_source == t[i].source)),
              "-s %s --type %s: rc %d, %zu elements (got rc %d, %zu: %s)", t[i].size, t[i].type,
              t[i].rc, t[i].n, rc, rc == 0 ? p.n : 0, msg);
    }
}

/* stream_mpi's entries go before quiet, help and version, in the help too. */
static int cb_none(void *cfg, const char *arg, char *msg, size_t msglen)
{
    (void)cfg; (void)arg; (void)msg; (void)msglen;
    return 0;
}

static void test_extra_entries(void)
{
    static const mb_opt_t extra[] = {
        { .long_name = "extra-one", .type = MB_OPT_CALLBACK, .cb = cb_none, .optional_arg = true,
          .help = "x" },
    };
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    st_options_help_ext(f, NULL, extra, 1);
    fclose(f);
    const char *e = buf ? strstr(buf, "--extra-one") : NULL;
    const char *k = buf ? strstr(buf, "--inject-error") : NULL;
    const char *q = buf ? strstr(buf, "--quiet") : NULL;
    const char *v = buf ? strstr(buf, "--version") : NULL;
    CHECK(e && k && q && v && k < e && e < q && q < v,
          "extra entries come after stream's own, before --quiet, --help, --version");
    free(buf);
    char *argv[] = { "stream_mpi", "--extra-one", "-q", NULL };
    st_options_t o;
    char msg[256] = "";
    CHECK(st_options_parse_ext(3, argv, &o, extra, 1, msg, sizeof msg) == 0 && o.quiet,
          "extra entries parse: %s", msg);
}

int main(void)
{
    test_defaults();
    test_choices();
    test_array_size_grammar();
    test_kernels_parse();
    test_plan_size();
    test_extra_entries();
    return check_done();
}
