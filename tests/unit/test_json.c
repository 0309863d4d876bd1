/* test_json: the streaming writer, output compared byte for byte, and
 * every document fed to jq (when installed) to prove it parses. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "json.h"

/* ---- writers for the table ------------------------------------------ */

static void w_empty_object(mb_json_t *j) { mb_json_object_begin(j, NULL); mb_json_object_end(j); }
static void w_empty_array(mb_json_t *j) { mb_json_array_begin(j, NULL); mb_json_array_end(j); }

static void w_scalars(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_string(j, "s", "x");
    mb_json_number(j, "d", 0.1);
    mb_json_number(j, "third", 1.0 / 3.0);
    mb_json_number(j, "big", 1e300);
    mb_json_number(j, "negzero", -0.0);
    mb_json_int(j, "i", -42);
    mb_json_uint(j, "u", 18446744073709551615ULL);
    mb_json_bool(j, "t", true);
    mb_json_bool(j, "f", false);
    mb_json_string(j, "n", NULL);
    mb_json_object_end(j);
}

static void w_nested(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_array_begin(j, "a");
    mb_json_int(j, NULL, 1);
    mb_json_object_begin(j, NULL);
    mb_json_int(j, "k", 2);
    mb_json_object_end(j);
    mb_json_array_begin(j, NULL);
    mb_json_array_end(j);
    mb_json_array_end(j);
    mb_json_object_begin(j, "o");
    mb_json_object_end(j);
    mb_json_object_end(j);
}

static void w_nonfinite_object(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_number(j, "a", INFINITY);
    mb_json_number(j, "b", -INFINITY);
    mb_json_number(j, "c", NAN);
    mb_json_number(j, "d", 1.5);
    mb_json_object_end(j);
}

static void w_nonfinite_array(mb_json_t *j)
{
    mb_json_array_begin(j, NULL);
    mb_json_number(j, NULL, 1);
    mb_json_number(j, NULL, INFINITY);
    mb_json_number(j, NULL, NAN);
    mb_json_unavailable(j, NULL, "ignored in arrays");
    mb_json_array_end(j);
}

static void w_unavailable(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_unavailable(j, "governor", "no cpufreq directory");
    mb_json_unavailable(j, "bare", NULL);
    mb_json_object_end(j);
}

static void w_hostile_keys(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_string(j, "a\"b\\c\n", "v");
    mb_json_number(j, "q\"", INFINITY);   /* escaped key in the sibling too */
    mb_json_object_end(j);
}

static void w_key_in_array_ignored(mb_json_t *j)
{
    mb_json_array_begin(j, "ignored-at-top");
    mb_json_int(j, "ignored", 7);
    mb_json_array_end(j);
}

/* Nest 40 arrays; the writer must stop at its limit and stay valid. */
static void w_too_deep(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_array_begin(j, "deep");
    for (int i = 0; i < 40; i++)
        mb_json_array_begin(j, NULL);
    mb_json_int(j, NULL, 1);
    for (int i = 0; i < 40; i++)
        mb_json_array_end(j);
    mb_json_array_end(j);
    mb_json_int(j, "after", 2);
    mb_json_object_end(j);
}

static void w_too_deep_key(mb_json_t *j)
{
    for (int i = 0; i < MB_JSON_MAX_DEPTH - 1; i++)
        mb_json_object_begin(j, "k");
    mb_json_object_begin(j, "x");          /* one too many, inside an object */
    mb_json_int(j, "dropped", 1);
    mb_json_object_end(j);
    for (int i = 0; i < MB_JSON_MAX_DEPTH - 1; i++)
        mb_json_object_end(j);
}

static void w_unbalanced(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_array_end(j);                  /* wrong kind: closes the object */
    mb_json_object_end(j);                 /* nothing open: ignored */
}

static void w_null_key_in_object(mb_json_t *j)
{
    mb_json_object_begin(j, NULL);
    mb_json_int(j, NULL, 1);
    mb_json_object_end(j);
}

/* ---- the table ------------------------------------------------------ */

/* Deep-nesting expectations are built at run time. */
static char deep_want[4096];
static char deep_key_want[4096];

static const struct json_case {
    const char *name;
    void (*write)(mb_json_t *);
    bool pretty;
    const char *want;       /* whole document including the final newline */
    int want_err;
} cases[] = {
    { "empty object", w_empty_object, false, "{}\n", 0 },
    { "empty object pretty", w_empty_object, true, "{}\n", 0 },
    { "empty array", w_empty_array, false, "[]\n", 0 },
    { "scalars compact", w_scalars, false,
      "{\"s\":\"x\",\"d\":0.10000000000000001,\"third\":0.33333333333333331,"
      "\"big\":1.0000000000000001e+300,\"negzero\":-0,\"i\":-42,"
      "\"u\":18446744073709551615,\"t\":true,\"f\":false,\"n\":null}\n", 0 },
    { "scalars pretty", w_scalars, true,
      "{\n  \"s\": \"x\",\n  \"d\": 0.10000000000000001,\n  \"third\": 0.33333333333333331,\n"
      "  \"big\": 1.0000000000000001e+300,\n  \"negzero\": -0,\n  \"i\": -42,\n"
      "  \"u\": 18446744073709551615,\n  \"t\": true,\n  \"f\": false,\n  \"n\": null\n}\n", 0 },
    { "nested compact", w_nested, false, "{\"a\":[1,{\"k\":2},[]],\"o\":{}}\n", 0 },
    { "nested pretty", w_nested, true,
      "{\n  \"a\": [\n    1,\n    {\n      \"k\": 2\n    },\n    []\n  ],\n  \"o\": {}\n}\n", 0 },
    { "non-finite in object", w_nonfinite_object, false,
      "{\"a\":null,\"a_unavailable\":\"non-finite value (inf)\","
      "\"b\":null,\"b_unavailable\":\"non-finite value (-inf)\","
      "\"c\":null,\"c_unavailable\":\"non-finite value (nan)\",\"d\":1.5}\n", 0 },
    { "non-finite in array", w_nonfinite_array, false, "[1,null,null,null]\n", 0 },
    { "non-finite pretty", w_nonfinite_array, true, "[\n  1,\n  null,\n  null,\n  null\n]\n", 0 },
    { "unavailable", w_unavailable, true,
      "{\n  \"governor\": null,\n  \"governor_unavailable\": \"no cpufreq directory\",\n"
      "  \"bare\": null\n}\n", 0 },
    { "hostile keys", w_hostile_keys, false,
      "{\"a\\\"b\\\\c\\n\":\"v\",\"q\\\"\":null,\"q\\\"_unavailable\":\"non-finite value (inf)\"}\n", 0 },
    { "key ignored outside objects", w_key_in_array_ignored, false, "[7]\n", 0 },
    { "too deep (array)", w_too_deep, false, deep_want, -E2BIG },
    { "too deep (object key)", w_too_deep_key, false, deep_key_want, -E2BIG },
    { "unbalanced ends", w_unbalanced, false, "{}\n", -EINVAL },
    { "NULL key in object", w_null_key_in_object, false, "{\"\":1}\n", -EINVAL },
};

static void build_deep_expectations(void)
{
    /* depth 1 = outer object, 2 = "deep"; nested arrays fill 3..MAX-1,
     * the next one becomes null and the rest is dropped. */
    char *p = deep_want + sprintf(deep_want, "{\"deep\":");
    int arrays = MB_JSON_MAX_DEPTH - 2;   /* "deep" itself and the nested ones */
    for (int i = 0; i < arrays; i++)
        *p++ = '[';
    p += sprintf(p, "null");
    for (int i = 0; i < arrays; i++)
        *p++ = ']';
    sprintf(p, ",\"after\":2}\n");

    p = deep_key_want;
    for (int i = 0; i < MB_JSON_MAX_DEPTH - 1; i++)
        p += sprintf(p, i == 0 ? "{" : "\"k\":{");
    p += sprintf(p, "\"x\":null,\"x_unavailable\":\"nesting too deep for the JSON writer\"");
    for (int i = 0; i < MB_JSON_MAX_DEPTH - 1; i++)
        *p++ = '}';
    sprintf(p, "\n");
}

/* ---- helpers -------------------------------------------------------- */

static char *render(void (*write)(mb_json_t *), bool pretty, int *err)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    mb_json_t j;
    mb_json_init(&j, f, pretty);
    write(&j);
    mb_json_finish(&j);
    *err = mb_json_error(&j);
    fclose(f);
    return buf;
}

static bool have_jq(void)
{
    return system("command -v jq >/dev/null 2>&1") == 0;
}

/* Writes text to a temp file; returns its path (static buffer). */
static const char *to_tempfile(const char *text, size_t len)
{
    static char path[64];
    strcpy(path, "/tmp/test_json.XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    ssize_t w = write(fd, text, len);
    close(fd);
    return w == (ssize_t)len ? path : NULL;
}

/* Runs `jq <filter>` on text; returns jq's exit status, its stdout in out. */
static int jq_run(const char *filter, const char *text, char *out, size_t outlen)
{
    const char *path = to_tempfile(text, strlen(text));
    if (!path)
        return -1;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "jq -j '%s' %s 2>/dev/null", filter, path);
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    if (p) {
        n = fread(out, 1, outlen - 1, p);
        out[n] = '\0';
    }
    int st = p ? pclose(p) : -1;
    unlink(path);
    return st;
}

/* ---- escaping table ------------------------------------------------- */

static const struct esc_case {
    const char *name;
    const char *in;
    const char *want;      /* escaped, quoted */
    const char *decoded;   /* what a JSON parser must give back */
} esc_cases[] = {
    { "plain", "hello", "\"hello\"", "hello" },
    { "empty", "", "\"\"", "" },
    { "quote and backslash", "a\"b\\c", "\"a\\\"b\\\\c\"", "a\"b\\c" },
    { "short escapes", "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"", "\b\f\n\r\t" },
    { "other controls", "\x01\x1f\x0b", "\"\\u0001\\u001f\\u000b\"", "\x01\x1f\x0b" },
    { "DEL passes", "a\x7f" "b", "\"a\x7f" "b\"", "a\x7f" "b" },
    { "slash passes", "a/b", "\"a/b\"", "a/b" },
    { "valid UTF-8", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
      "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80" },
    { "lone continuation", "a\x80" "b", "\"a\\ufffdb\"", "a\xef\xbf\xbd" "b" },
    { "invalid lead bytes", "\xc0\xc1\xf5\xff", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
    { "overlong 3-byte", "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
    { "surrogate", "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
    { "above U+10FFFF", "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
      "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
    { "truncated 3-byte then ASCII", "\xe2\x82" "A", "\"\\ufffdA\"", "\xef\xbf\xbd" "A" },
    { "truncated 4-byte at end", "x\xf0\x9f\x98", "\"x\\ufffd\"", "x\xef\xbf\xbd" },
    { "mixed hostile", "\"}\n{\\\x02\xfe",
      "\"\\\"}\\n{\\\\\\u0002\\ufffd\"", "\"}\n{\\\x02\xef\xbf\xbd" },
};

int main(void)
{
    build_deep_expectations();
    bool jq = have_jq();
    if (!jq)
        printf("# jq not installed: parse checks skipped\n");

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int err = 99;
        char *got = render(cases[i].write, cases[i].pretty, &err);
        CHECK_EQ_STR(got, cases[i].want, cases[i].name);
        CHECK(err == cases[i].want_err, "%s: error %d (want %d)", cases[i].name, err,
              cases[i].want_err);
        if (jq && got) {
            char out[64];
            CHECK(jq_run(".", got, out, sizeof out) == 0, "%s: jq parses it", cases[i].name);
        }
        free(got);
    }

    for (size_t i = 0; i < sizeof esc_cases / sizeof esc_cases[0]; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        mb_json_write_escaped(f, esc_cases[i].in);
        fclose(f);
        CHECK_EQ_STR(buf, esc_cases[i].want, esc_cases[i].name);
        if (jq && buf) {
            char out[256];
            int st = jq_run(".", buf, out, sizeof out);
            CHECK(st == 0 && strcmp(out, esc_cases[i].decoded) == 0,
                  "%s: jq decodes it to the expected text", esc_cases[i].name);
        }
        free(buf);
    }

    /* NULL string is null. */
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        mb_json_write_escaped(f, NULL);
        fclose(f);
        CHECK_EQ_STR(buf, "null", "NULL string writes null");
        free(buf);
    }

    /* %.17g round-trips: parse back what was printed. */
    {
        static const double vals[] = { 0.1, 1.0 / 3.0, 6.02214076e23, 5e-324, 1.7976931348623157e308,
                                       123456.789, -2.5 };
        for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
            char *buf = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&buf, &len);
            mb_json_t j;
            mb_json_init(&j, f, false);
            mb_json_number(&j, NULL, vals[i]);
            fclose(f);
            CHECK(buf && strtod(buf, NULL) == vals[i], "number %s round-trips", buf ? buf : "?");
            free(buf);
        }
    }

    /* A write error on the stream is reported. */
    {
        FILE *f = fopen("/dev/full", "w");
        if (f) {
            mb_json_t j;
            mb_json_init(&j, f, false);
            mb_json_object_begin(&j, NULL);
            mb_json_string(&j, "k", "v");
            mb_json_object_end(&j);
            mb_json_finish(&j);
            CHECK(mb_json_error(&j) == -ENOSPC,
                  "write to /dev/full reports -ENOSPC, the real errno (got %d)", mb_json_error(&j));
            fclose(f);
        }
    }
    return check_done();
}
