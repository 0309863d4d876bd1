/* test_sizing: the size/count parser (a table of valid and hostile
 * inputs), LLC discovery over fixture sysfs trees, meminfo, the memory
 * check and the 4x rule. */
#include "check.h"
#include "sizing.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KiB ((size_t)1 << 10)
#define MiB ((size_t)1 << 20)
#define GiB ((size_t)1 << 30)
#define TiB ((size_t)1 << 40)

typedef struct {
    const char *text;
    int rc;                    /* 0, -EINVAL or -ERANGE */
    size_t want;               /* when rc == 0 */
    const char *in_msg;        /* when rc != 0: a word the message must hold */
} parse_case_t;

static const parse_case_t size_cases[] = {
    {"0", 0, 0, NULL},
    {"1", 0, 1, NULL},
    {"1000", 0, 1000, NULL},
    {"17B", 0, 17, NULL},
    {"17b", 0, 17, NULL},
    {"4K", 0, 4 * KiB, NULL},
    {"4k", 0, 4 * KiB, NULL},
    {"4KiB", 0, 4 * KiB, NULL},
    {"4kib", 0, 4 * KiB, NULL},
    {"4KB", 0, 4000, NULL},
    {"4kb", 0, 4000, NULL},
    {"512MiB", 0, 512 * MiB, NULL},
    {"512M", 0, 512 * MiB, NULL},
    {"512MB", 0, 512000000, NULL},
    {"2G", 0, 2 * GiB, NULL},
    {"2GiB", 0, 2 * GiB, NULL},
    {"2gb", 0, 2000000000, NULL},
    {"3T", 0, 3 * TiB, NULL},
    {"3TiB", 0, 3 * TiB, NULL},
    {"3TB", 0, 3000000000000, NULL},
    {"1.5K", 0, 1536, NULL},
    {"0.5GiB", 0, 512 * MiB, NULL},
    {".5K", 0, 512, NULL},
    {"5.", 0, 5, NULL},
    {"1e9", 0, 1000000000, NULL},
    {"1E9", 0, 1000000000, NULL},
    {"2.5e3", 0, 2500, NULL},
    {"1e+3", 0, 1000, NULL},
    {"2000e-3", 0, 2, NULL},
    {"1e3K", 0, 1000 * KiB, NULL},
    {"+7", 0, 7, NULL},
    {"007", 0, 7, NULL},
    {"0e999999", 0, 0, NULL},
    {"000000000000000000000000000000000000000000000001", 0, 1, NULL},
    {"100000000000000000000e-20", 0, 1, NULL},
    {"18446744073709551615", 0, SIZE_MAX, NULL},
    {"18446744073709551615.000", 0, SIZE_MAX, NULL},
    {"16777215T", 0, (size_t)16777215 << 40, NULL},
    /* precision a double would lose */
    {"9007199254740993", 0, 9007199254740993ull, NULL},
    {"18446744073709551613", 0, 18446744073709551613ull, NULL},

    {"", -EINVAL, 0, "empty"},
    {"   ", -EINVAL, 0, "blank"},
    {"\t", -EINVAL, 0, "blank"},
    {" 5", -EINVAL, 0, "whitespace"},
    {"5 ", -EINVAL, 0, "whitespace"},
    {"512 MiB", -EINVAL, 0, "whitespace"},
    {"-5", -EINVAL, 0, "negative"},
    {"-0", -EINVAL, 0, "negative"},
    {"-1K", -EINVAL, 0, "negative"},
    {"nan", -EINVAL, 0, "finite"},
    {"NaN", -EINVAL, 0, "finite"},
    {"inf", -EINVAL, 0, "finite"},
    {"+Infinity", -EINVAL, 0, "finite"},
    {"abc", -EINVAL, 0, "not a number"},
    {".", -EINVAL, 0, "not a number"},
    {"K", -EINVAL, 0, "not a number"},
    {"+", -EINVAL, 0, "not a number"},
    {"12abc", -EINVAL, 0, "trailing garbage 'abc'"},
    {"12KiBx", -EINVAL, 0, "trailing garbage 'KiBx'"},
    {"0x10", -EINVAL, 0, "trailing garbage 'x10'"},
    {"1e", -EINVAL, 0, "trailing garbage 'e'"},
    {"1e+", -EINVAL, 0, "trailing garbage 'e+'"},
    {"1..2", -EINVAL, 0, "trailing garbage '.2'"},
    {"1,000", -EINVAL, 0, "trailing garbage ',000'"},
    {"5P", -EINVAL, 0, "trailing garbage 'P'"},
    {"5Ki", -EINVAL, 0, "trailing garbage 'Ki'"},
    /* non-ASCII and control bytes are named as \xHH, not hidden as '?' */
    {"\xd9\xa8", -EINVAL, 0, "'\\xd9\\xa8': not a number"},            /* ARABIC-INDIC 8 */
    {"\xef\xbc\x98", -EINVAL, 0, "'\\xef\\xbc\\x98': not a number"}, /* FULLWIDTH 8 */
    {"8\xc2\xa0", -EINVAL, 0, "trailing garbage '\\xc2\\xa0'"},         /* 8, NBSP */
    {"8\x01", -EINVAL, 0, "trailing garbage '^A'"},
    {"1.5", -EINVAL, 0, "whole number"},
    {"1.5B", -EINVAL, 0, "whole number"},
    {"2.5e0", -EINVAL, 0, "whole number"},
    {"1e-3", -EINVAL, 0, "whole number"},
    {"1e-99999", -EINVAL, 0, "whole number"},
    {"0.1KB", 0, 100, NULL},
    {"0.0001KB", -EINVAL, 0, "whole number"},
    {"18446744073709551616", -ERANGE, 0, "too large"},
    {"99999999999999999999", -ERANGE, 0, "too large"},
    {"16777216T", -ERANGE, 0, "too large"},
    {"1e20", -ERANGE, 0, "too large"},
    {"1e999999999999999999999", -ERANGE, 0, "too large"},
    {"99999999999999999999999999999999999999999999999999", -ERANGE, 0, "too large"},
    /* more than 38 significant digits: the dropped ones decide */
    {"1.0000000000000000000000000000000000000000001", -EINVAL, 0, "whole number"},
    {"1.0000000000000000000000000000000000000000001TiB", -EINVAL, 0, "whole number"},
    {"123456789012345678901e-10", -EINVAL, 0, "whole number"},
    {"18446744073709551615e-3KB", 0, 18446744073709551615u, NULL},
    {"18446744073709551616e-3KB", -ERANGE, 0, "too large"},
    {"4096.00000000000000000000000000000000000000000000", 0, 4096, NULL},
    {"1.00000000000000000000000000000000000000000000KiB", 0, 1024, NULL},
    {"12345678901234567890123456789012345678901", -ERANGE, 0, "too large"},
    {"12345678901234567890123456789012345678900.5", -ERANGE, 0, "too large"},
    {"0.00000000000000000000000000000000000000001234567890123456789012345678901234567890e80",
     -ERANGE, 0, "too large"},
    {"0.00000000000000000000000000000000000000001234567890123456789012345678901234567890e59",
     -EINVAL, 0, "whole number"},
    {"1.23456789012345678901234567890123456789e38", -ERANGE, 0, "too large"},
};

static const parse_case_t count_cases[] = {
    {"2000000", 0, 2000000, NULL},
    {"2M", 0, 2000000, NULL},
    {"2m", 0, 2000000, NULL},
    {"3K", 0, 3000, NULL},
    {"1G", 0, 1000000000, NULL},
    {"1T", 0, 1000000000000, NULL},
    {"1e9", 0, 1000000000, NULL},
    {"2.5e3", 0, 2500, NULL},
    {"1.5K", 0, 1500, NULL},
    {"", -EINVAL, 0, "empty"},
    {"-1", -EINVAL, 0, "negative"},
    {"2MiB", -EINVAL, 0, "byte unit"},
    {"2B", -EINVAL, 0, "byte unit"},
    {"2KB", -EINVAL, 0, "byte unit"},
    {"2x", -EINVAL, 0, "trailing garbage 'x'"},
    {"0.5", -EINVAL, 0, "whole number of elements"},
    {"inf", -EINVAL, 0, "finite"},
    {"99999999999999999999", -ERANGE, 0, "too large"},
    {"1.0000000000000000000000000000000000000000001", -EINVAL, 0, "whole number of elements"},
    {"2.00000000000000000000000000000000000000000000000M", 0, 2000000, NULL},
    {"1.0000000000000000000000000000000000000000001T", -EINVAL, 0, "whole number"},
};

static void run_parse_table(const char *what, const parse_case_t *c, size_t n,
                            int (*fn)(const char *, size_t *, char *, size_t),
                            const char *form_word)
{
    for (size_t i = 0; i < n; i++) {
        size_t got = 12345;
        char err[256] = "untouched";
        int rc = fn(c[i].text, &got, err, sizeof err);
        if (c[i].rc == 0) {
            CHECK(rc == 0 && got == c[i].want, "%s '%s' = %zu (got rc %d, %zu: %s)", what,
                  c[i].text, c[i].want, rc, got, rc ? err : "");
        } else {
            CHECK(rc == c[i].rc, "%s '%s' rejected with %d (got %d)", what, c[i].text, c[i].rc, rc);
            CHECK(strstr(err, c[i].in_msg) != NULL, "%s '%s' message says '%s': %s", what,
                  c[i].text, c[i].in_msg, err);
            /* the message names the bad text (printable part) and the accepted form */
            char quoted[96];
            snprintf(quoted, sizeof quoted, "'%s'", c[i].text);
            bool printable = true;
            for (const char *p = c[i].text; *p; p++)
                printable &= *p >= 0x20 && *p < 0x7f;
            if (printable && strlen(c[i].text) < 40)
                CHECK(strstr(err, quoted) != NULL, "%s '%s' message quotes the text", what, c[i].text);
            CHECK(strstr(err, form_word) != NULL, "%s '%s' message shows the accepted form", what,
                  c[i].text);
            CHECK(got == 12345, "%s '%s' leaves the output alone", what, c[i].text);
        }
    }
}

static void test_parse_misc(void)
{
    size_t v = 0;
    CHECK(mb_parse_size(NULL, &v, NULL, 0) == -EINVAL, "NULL text rejected, NULL err tolerated");
    CHECK(mb_parse_size("1K", &v, NULL, 0) == 0 && v == 1024, "NULL err buffer on success");
    char small[8];
    CHECK(mb_parse_size("zzz", &v, small, sizeof small) == -EINVAL && strlen(small) == 7,
          "error message truncated to the buffer");
    char err[256];
    char longtext[300];
    memset(longtext, '7', sizeof longtext - 2);
    longtext[sizeof longtext - 2] = 'x';
    longtext[sizeof longtext - 1] = '\0';
    CHECK(mb_parse_size(longtext, &v, err, sizeof err) == -EINVAL && strstr(err, "...") &&
          strlen(err) < sizeof err - 1, "very long text is shortened in the message: %s", err);
    CHECK(mb_parse_size("5\x01", &v, err, sizeof err) == -EINVAL && !strchr(err, '\x01'),
          "control characters are not echoed");
}

static void test_format_bytes(void)
{
    static const struct { size_t b; const char *want; } t[] = {
        {0, "0 B"}, {17, "17 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"},
        {512 * KiB, "512.0 KiB"}, {1536 * MiB, "1.5 GiB"}, {3 * TiB, "3.0 TiB"},
    };
    char buf[32];
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        CHECK_EQ_STR(mb_format_bytes(t[i].b, buf, sizeof buf), t[i].want, t[i].want);
}

/* tests/fixtures: $MEMSUITE_ROOT, else relative to this binary
 * (<root>/<build>/tests/test_sizing), else the current directory. */
static void fixture_root(char *buf, size_t len)
{
    const char *r = getenv("MEMSUITE_ROOT");
    if (r && *r) {
        snprintf(buf, len, "%s/tests/fixtures", r);
        return;
    }
    char exe[PATH_MAX - 64];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        for (int up = 0; up < 3; up++) {
            char *s = strrchr(exe, '/');
            if (s)
                *s = '\0';
        }
        snprintf(buf, len, "%s/tests/fixtures", exe);
        if (access(buf, R_OK) == 0)
            return;
    }
    snprintf(buf, len, "tests/fixtures");
}

static char fixtures[PATH_MAX];

static void use_fixture(const char *name)
{
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/%s/sys", fixtures, name);
    setenv("MEMSUITE_SYSFS", p, 1);
    snprintf(p, sizeof p, "%s/%s/proc", fixtures, name);
    setenv("MEMSUITE_PROCFS", p, 1);
}

/* tests/fixtures/sizes.tsv: the table the bash side is checked against
 * too (tests/bats/memsuite-size.bats), so the two grammars agree. */
static void test_shared_table(void)
{
    char path[PATH_MAX + 32], line[512];
    snprintf(path, sizeof path, "%s/sizes.tsv", fixtures);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL, "shared size table %s opens", path);
    if (!f)
        return;
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *tab = strchr(line, '\t');
        if (line[0] == '#' || !tab)
            continue;
        *tab = '\0';
        const char *want = tab + 1;
        size_t v = 0;
        char err[512] = "";
        int rc = mb_parse_size(line, &v, err, sizeof err);
        char got[32];
        snprintf(got, sizeof got, "%zu", v);
        if (strcmp(want, "error") == 0)
            CHECK(rc != 0 && strstr(err, "invalid size '"), "sizes.tsv '%s': refused (%s)", line,
                  rc ? err : got);
        else
            CHECK(rc == 0 && strcmp(got, want) == 0, "sizes.tsv '%s' = %s (got %s%s)", line, want,
                  rc ? "error: " : got, rc ? err : "");
        rows++;
    }
    fclose(f);
    CHECK(rows >= 50, "sizes.tsv has its rows (%d)", rows);
}

static void test_paths(void)
{
    char buf[64];
    unsetenv("MEMSUITE_SYSFS");
    unsetenv("MEMSUITE_PROCFS");
    CHECK_EQ_STR(mb_sysfs_path(buf, sizeof buf, "/devices/system/cpu"), "/sys/devices/system/cpu",
                 "sysfs default root");
    CHECK_EQ_STR(mb_procfs_path(buf, sizeof buf, "/meminfo"), "/proc/meminfo", "procfs default root");
    setenv("MEMSUITE_SYSFS", "/fx/sys", 1);
    setenv("MEMSUITE_PROCFS", "", 1);
    CHECK_EQ_STR(mb_sysfs_path(buf, sizeof buf, "/x"), "/fx/sys/x", "MEMSUITE_SYSFS prefixes");
    CHECK_EQ_STR(mb_procfs_path(buf, sizeof buf, "/x"), "/proc/x", "empty MEMSUITE_PROCFS = default");
    unsetenv("MEMSUITE_SYSFS");
    unsetenv("MEMSUITE_PROCFS");
    CHECK(mb_read_line("/nonexistent/memsuite", buf, sizeof buf) == -ENOENT, "read_line -ENOENT");
}

typedef struct {
    const char *fixture;
    mb_llc_source_t source;
    size_t total, instance;
    unsigned instances, level, sockets;
} llc_case_t;

static const llc_case_t llc_cases[] = {
    /* 2 sockets x 2 shared L3 of 16 MiB: four distinct instances */
    {"llc-2socket", MB_LLC_SYSFS, 4 * 16 * MiB, 16 * MiB, 4, 3, 2},
    {"llc-1socket", MB_LLC_SYSFS, 8 * MiB, 8 * MiB, 1, 3, 1},
    /* highest Data/Unified level is L2 (private); the L3 Instruction is ignored */
    {"llc-l2only", MB_LLC_SYSFS, 2 * MiB, 1 * MiB, 2, 2, 1},
};

static void test_llc_fixtures(void)
{
    unsetenv("MEMSUITE_LLC");
    for (size_t i = 0; i < sizeof llc_cases / sizeof llc_cases[0]; i++) {
        const llc_case_t *c = &llc_cases[i];
        use_fixture(c->fixture);
        mb_llc_t llc;
        char err[256] = "";
        int rc = mb_llc_detect(NULL, &llc, err, sizeof err);
        CHECK(rc == 0, "%s: detect returns 0 (%d %s)", c->fixture, rc, err);
        CHECK_EQ_STR(mb_llc_source_name(llc.source), mb_llc_source_name(c->source), c->fixture);
        CHECK(llc.total_bytes == c->total, "%s: total %zu (got %zu)", c->fixture, c->total,
              llc.total_bytes);
        CHECK(llc.instance_bytes == c->instance, "%s: instance %zu (got %zu)", c->fixture,
              c->instance, llc.instance_bytes);
        CHECK(llc.instances == c->instances, "%s: %u instances (got %u)", c->fixture,
              c->instances, llc.instances);
        CHECK(llc.level == c->level, "%s: level %u (got %u)", c->fixture, c->level, llc.level);
        CHECK(mb_socket_count() == c->sockets, "%s: %u sockets (got %u)", c->fixture, c->sockets,
              mb_socket_count());
        CHECK(mb_min_array_bytes(&llc) == MB_LLC_FACTOR * c->total, "%s: min array = 4 x LLC",
              c->fixture);
        CHECK(strstr(llc.note, "sysfs") != NULL, "%s: note names sysfs: %s", c->fixture, llc.note);
    }
}

static void test_llc_nocache(void)
{
    use_fixture("llc-nocache");
    unsetenv("MEMSUITE_LLC");
    mb_llc_t llc;
    char err[256] = "";
    int rc = mb_llc_detect(NULL, &llc, err, sizeof err);
    CHECK(rc == 0, "nocache: detect returns 0");
    CHECK(llc.source == MB_LLC_SYSCONF || llc.source == MB_LLC_NONE,
          "nocache: falls through to sysconf or none, not sysfs (got %s)",
          mb_llc_source_name(llc.source));
    CHECK(strstr(llc.note, "no sysfs cache directory") != NULL, "nocache: note says why: %s",
          llc.note);
    CHECK(mb_socket_count() == 2, "nocache: 2 packages in topology");
    if (llc.source == MB_LLC_SYSCONF) {
        CHECK(llc.instances == 2 && llc.total_bytes == 2 * llc.instance_bytes &&
              llc.instance_bytes > 0, "nocache: sysconf L3 x 2 sockets (%zu x %u = %zu)",
              llc.instance_bytes, llc.instances, llc.total_bytes);
        CHECK(strstr(llc.note, "host's cache") != NULL, "nocache: note warns about VMs");
        CHECK(mb_min_array_bytes(&llc) == 4 * llc.total_bytes, "nocache: 4x rule");
    } else {
        CHECK(llc.total_bytes == 0 && mb_min_array_bytes(&llc) == 0,
              "nocache: nothing known, no minimum");
        CHECK(strstr(llc.note, "--llc") != NULL, "nocache: note says what to pass");
    }

    /* a root with no cpu directory at all */
    setenv("MEMSUITE_SYSFS", "/nonexistent/memsuite-sys", 1);
    CHECK(mb_llc_detect(NULL, &llc, err, sizeof err) == 0 && llc.source != MB_LLC_SYSFS,
          "missing sysfs root is not an error and not sysfs");
    CHECK(mb_socket_count() == 1, "socket count is 1 when unknown");
}

static void test_llc_override(void)
{
    use_fixture("llc-2socket");
    mb_llc_t llc;
    char err[256];

    unsetenv("MEMSUITE_LLC");
    CHECK(mb_llc_detect("48M", &llc, err, sizeof err) == 0, "override parses");
    CHECK(llc.source == MB_LLC_OVERRIDE && llc.total_bytes == 48 * MiB,
          "override wins over sysfs (%s, %zu)", mb_llc_source_name(llc.source), llc.total_bytes);
    CHECK(strstr(llc.note, "--llc") && strstr(llc.note, "64.0 MiB"),
          "override note names the flag and what detection found: %s", llc.note);

    setenv("MEMSUITE_LLC", "96MiB", 1);
    CHECK(mb_llc_detect(NULL, &llc, err, sizeof err) == 0 && llc.source == MB_LLC_OVERRIDE &&
          llc.total_bytes == 96 * MiB, "MEMSUITE_LLC used when no --llc");
    CHECK(strstr(llc.note, "MEMSUITE_LLC") != NULL, "note names MEMSUITE_LLC: %s", llc.note);
    CHECK(mb_llc_detect("1M", &llc, err, sizeof err) == 0 && llc.total_bytes == MiB,
          "--llc beats MEMSUITE_LLC");
    CHECK(mb_min_array_bytes(&llc) == 4 * MiB, "4x rule on the override");

    setenv("MEMSUITE_LLC", "lots", 1);
    CHECK(mb_llc_detect(NULL, &llc, err, sizeof err) == -EINVAL, "bad MEMSUITE_LLC is -EINVAL");
    CHECK(strstr(err, "MEMSUITE_LLC") && strstr(err, "'lots'"), "error names the source: %s", err);
    unsetenv("MEMSUITE_LLC");

    CHECK(mb_llc_detect("-3M", &llc, err, sizeof err) == -EINVAL && strstr(err, "--llc") &&
          strstr(err, "negative"), "bad --llc: %s", err);
    CHECK(mb_llc_detect("0", &llc, err, sizeof err) == -EINVAL && strstr(err, "greater than 0"),
          "zero --llc rejected: %s", err);

    /* override on a tree where detection finds nothing in sysfs */
    use_fixture("llc-nocache");
    CHECK(mb_llc_detect("32MiB", &llc, err, sizeof err) == 0 && llc.source == MB_LLC_OVERRIDE &&
          llc.total_bytes == 32 * MiB, "override on a cacheless tree");
}

static void test_meminfo(void)
{
    size_t b = 0;
    use_fixture("llc-2socket");
    CHECK(mb_mem_available(&b) == 0 && b == (size_t)32768000 * 1024,
          "MemAvailable kB -> bytes (%zu)", b);
    CHECK(mb_mem_total(&b) == 0 && b == (size_t)65536000 * 1024, "MemTotal kB -> bytes (%zu)", b);

    use_fixture("llc-1socket");   /* old kernel: no MemAvailable */
    CHECK(mb_mem_available(&b) == 0 && b == (size_t)(1000000 + 3000000) * 1024,
          "no MemAvailable: MemFree + Cached (%zu)", b);

    use_fixture("llc-l2only");    /* no meminfo at all */
    b = 77;
    CHECK(mb_mem_available(&b) == -ENOENT && b == 77, "missing meminfo is -ENOENT");
    CHECK(mb_mem_total(&b) == -ENOENT, "missing meminfo (total) is -ENOENT");
    unsetenv("MEMSUITE_SYSFS");
    unsetenv("MEMSUITE_PROCFS");
}

static void test_fits(void)
{
    char msg[512];
    size_t avail = 10 * GiB;
    CHECK(mb_fits_in_memory(GiB, avail, msg, sizeof msg) && msg[0] == '\0', "1 GiB fits in 10");
    CHECK(mb_fits_in_memory(9 * GiB, avail, msg, sizeof msg), "9 GiB fits (90%%)");
    CHECK(!mb_fits_in_memory(9 * GiB + 1, avail, msg, sizeof msg), "9 GiB + 1 does not fit");
    CHECK(!mb_fits_in_memory(48 * GiB, avail, msg, sizeof msg), "48 GiB does not fit");
    CHECK(strstr(msg, "48.0 GiB") && strstr(msg, "10.0 GiB") && strstr(msg, "at most 9.0 GiB"),
          "message: asked, available, what to pass: %s", msg);
    CHECK(!mb_fits_in_memory(1, 0, msg, sizeof msg) && strstr(msg, "MemAvailable is 0 B"),
          "nothing available: %s", msg);
    CHECK(!mb_fits_in_memory(SIZE_MAX, SIZE_MAX, NULL, 0), "NULL msg tolerated");
}

static void test_min_array(void)
{
    mb_llc_t llc = {0};
    CHECK(mb_min_array_bytes(&llc) == 0, "unknown LLC: no minimum");
    CHECK(mb_min_array_bytes(NULL) == 0, "NULL LLC: no minimum");
    llc.source = MB_LLC_OVERRIDE;
    llc.total_bytes = SIZE_MAX / 2;
    CHECK(mb_min_array_bytes(&llc) == SIZE_MAX, "4x overflow saturates");
    static const struct { mb_llc_source_t s; const char *n; } names[] = {
        {MB_LLC_NONE, "none"}, {MB_LLC_SYSFS, "sysfs"}, {MB_LLC_SYSCONF, "sysconf"},
        {MB_LLC_OVERRIDE, "override"}, {(mb_llc_source_t)42, "none"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        CHECK_EQ_STR(mb_llc_source_name(names[i].s), names[i].n, names[i].n);
    size_t o;
    CHECK(!mb_mul_size(SIZE_MAX, 2, &o) && mb_mul_size(3, 4, &o) && o == 12, "mb_mul_size");
    CHECK(!mb_add_size(SIZE_MAX, 1, &o) && mb_add_size(3, 4, &o) && o == 7, "mb_add_size");
}

/* A VM: sysconf (CPUID) reports the host's 508 MiB L3; sysfs has no cache
 * directory (sysconf answers) or a 32 MiB L3 of its own (sysfs answers,
 * and the note names sysconf's larger figure). */
static void test_llc_vm_sysconf(void)
{
    mb_llc_t llc;
    char err[256];

    unsetenv("MEMSUITE_LLC");
    setenv("MEMSUITE_SYSCONF_L3", "508MiB", 1);
    use_fixture("llc-vm-nocache");
    CHECK(mb_llc_detect(NULL, &llc, err, sizeof err) == 0 && llc.source == MB_LLC_SYSCONF &&
          llc.total_bytes == 508 * MiB, "vm-nocache: sysconf's 508 MiB (got %s, %zu)",
          mb_llc_source_name(llc.source), llc.total_bytes);
    use_fixture("llc-vm-sysfs");
    CHECK(mb_llc_detect(NULL, &llc, err, sizeof err) == 0 && llc.source == MB_LLC_SYSFS &&
          llc.total_bytes == 32 * MiB, "vm-sysfs: sysfs's 32 MiB (got %s, %zu)",
          mb_llc_source_name(llc.source), llc.total_bytes);
    CHECK(strstr(llc.note, "sysconf reports a larger L3 of 508.0 MiB") != NULL,
          "vm-sysfs: the note names sysconf's larger L3: %s", llc.note);
    setenv("MEMSUITE_SYSCONF_L3", "0", 1);
    use_fixture("llc-vm-nocache");
    CHECK(mb_llc_detect(NULL, &llc, err, sizeof err) == 0 && llc.source == MB_LLC_NONE,
          "vm-nocache, sysconf says nothing: no LLC (got %s)", mb_llc_source_name(llc.source));
    unsetenv("MEMSUITE_SYSCONF_L3");
}

static void suggest_mib(size_t min_bytes, const void *ctx, char *buf, size_t buflen)
{
    snprintf(buf, buflen, "%s %zuMiB", (const char *)ctx, min_bytes / MiB);
}

/* mb_size_rule: one policy, four verdicts. */
static void test_size_rule(void)
{
    mb_llc_t llc = { .total_bytes = 8 * MiB, .instance_bytes = 8 * MiB, .instances = 1,
                     .level = 3, .source = MB_LLC_SYSCONF };
    mb_rule_t r;
    mb_rule_query_t q = { &llc, 32 * MiB, "the working set", "--size 32MiB", false, suggest_mib,
                          "--size" };

    CHECK(mb_size_rule(&q, &r) == MB_RULE_MET && r.message[0] == '\0' && r.min_bytes == 32 * MiB,
          "exactly 4x the LLC meets the rule");
    q.bytes = 32 * MiB - 1;
    CHECK(mb_size_rule(&q, &r) == MB_RULE_UNDER, "one byte under: runs, under the rule");
    CHECK(strstr(r.message, "8.0 MiB L3 from sysconf") && strstr(r.message, "--size 32MiB or more")
          && strstr(r.message, "--size 32MiB:") == r.message && strstr(r.message, "not-standard"),
          "the warning names the LLC, its source and the size that satisfies: %s", r.message);
    q.strict = true;
    CHECK(mb_size_rule(&q, &r) == MB_RULE_REFUSED && strstr(r.message, "use --size 32MiB or more"),
          "--strict refuses: %s", r.message);
    q.suggest = NULL;
    mb_size_rule(&q, &r);
    CHECK(strstr(r.message, "a size of 32.0 MiB (33554432 bytes)") != NULL,
          "without a suggest function the bytes are named: %s", r.message);

    /* 4 x 2^62 overflows: no size satisfies, and no bogus figure (0) */
    llc.total_bytes = llc.instance_bytes = (size_t)1 << 62;
    q.bytes = 4 * MiB;
    q.suggest = suggest_mib;
    CHECK(mb_size_rule(&q, &r) == MB_RULE_REFUSED && r.min_bytes == SIZE_MAX &&
          strstr(r.message, "no size can satisfy the rule") && !strstr(r.message, " 0MiB"),
          "an LLC whose 4x overflows: %s", r.message);
    q.strict = false;
    CHECK(mb_size_rule(&q, &r) == MB_RULE_UNDER, "... and without --strict it runs, labelled");

    /* unknown LLC: runs (even with --strict), labelled, says what to pass */
    memset(&llc, 0, sizeof llc);
    snprintf(llc.note, sizeof llc.note, "no sysfs cache directory");
    q.strict = true;
    CHECK(mb_size_rule(&q, &r) == MB_RULE_UNCHECKED && strstr(r.message, "--llc") &&
          strstr(r.message, "no sysfs cache directory"), "unknown LLC: unchecked: %s", r.message);
}

int main(void)
{
    fixture_root(fixtures, sizeof fixtures);
    printf("# fixtures: %s\n", fixtures);
    run_parse_table("size", size_cases, sizeof size_cases / sizeof size_cases[0], mb_parse_size,
                    "512MiB");
    run_parse_table("count", count_cases, sizeof count_cases / sizeof count_cases[0],
                    mb_parse_count, "2000000");
    test_parse_misc();
    test_shared_table();
    test_format_bytes();
    test_paths();
    test_llc_fixtures();
    test_llc_nocache();
    test_llc_override();
    test_meminfo();
    test_fits();
    test_min_array();
    test_llc_vm_sysconf();
    test_size_rule();
    return check_done();
}
