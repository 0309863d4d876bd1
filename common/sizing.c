/* sizing: LLC discovery (override -> sysfs -> sysconf), the 4x LLC rule,
 * MemAvailable and the size/count string parser.
 *
 * Every path read goes through mb_sysfs_path/mb_procfs_path so tests can
 * point MEMSUITE_SYSFS / MEMSUITE_PROCFS at a fixture tree. */
#include "sizing.h"
#include "factfile.h"

#include "log.h"

#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MB_PATH_MAX 4096
#define MB_CPULIST_MAX 1024

/* ---- paths and small file reads ------------------------------------- */

static const char *root_from_env(const char *var, const char *dflt)
{
    const char *r = getenv(var);
    return (r && *r) ? r : dflt;
}

const char *mb_sysfs_path(char *buf, size_t buflen, const char *rel)
{
    snprintf(buf, buflen, "%s%s", root_from_env("MEMSUITE_SYSFS", "/sys"), rel ? rel : "");
    return buf;
}

const char *mb_procfs_path(char *buf, size_t buflen, const char *rel)
{
    snprintf(buf, buflen, "%s%s", root_from_env("MEMSUITE_PROCFS", "/proc"), rel ? rel : "");
    return buf;
}

int mb_read_line(const char *path, char *buf, size_t buflen)
{
    if (!buf || buflen == 0)
        return -EINVAL;
    buf[0] = '\0';
    FILE *f = mb_fact_fopen(path);
    if (!f)
        return -errno;
    int rc = 0;
    if (!fgets(buf, (int)(buflen > INT_MAX ? INT_MAX : buflen), f))
        rc = ferror(f) ? -EIO : -ENODATA;
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return rc;
}

int mb_read_fact(const char *path, char *buf, size_t buflen)
{
    if (!buf || buflen < 2)
        return -EINVAL;
    buf[0] = '\0';
    /* the one fact reader (factfile.h): non-blocking, regular files only,
     * capped; sysfs reports st_size 4096 for every attribute, so read */
    FILE *f = mb_fact_fopen(path);
    if (!f)
        return errno == MB_EFACT_NOTREG ? -EINVAL : -errno;
    size_t got = fread(buf, 1, buflen, f);
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (err) {
        buf[0] = '\0';
        return -err;
    }
    if (got >= buflen) {
        buf[0] = '\0';
        return -EFBIG;
    }
    buf[got] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* snprintf that reports truncation instead of warning about it: paths and
 * notes built from file contents cannot be bounded at compile time. */
static int __attribute__((format(printf, 3, 4)))
fmt_checked(char *buf, size_t buflen, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, buflen, fmt, ap);
    va_end(ap);
    return (n < 0 || (size_t)n >= buflen) ? -ENAMETOOLONG : 0;
}

/* "cpu17" -> true; "cpufreq", "cpu" -> false. */
static bool is_numbered(const char *name, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strncmp(name, prefix, n) != 0 || !name[n])
        return false;
    for (const char *p = name + n; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return true;
}

static int read_unsigned(const char *path, unsigned long *v)
{
    char line[64], *end;
    int rc = mb_read_line(path, line, sizeof line);
    if (rc)
        return rc;
    errno = 0;
    unsigned long x = strtoul(line, &end, 10);
    if (end == line || *end || errno || line[0] == '-')
        return -EINVAL;
    *v = x;
    return 0;
}

/* ---- the number grammar shared by sizes and counts ------------------ */

typedef unsigned __int128 mb_u128_t;

typedef struct {
    const char *name;          /* lower case */
    unsigned long long mult;
} unit_t;

static const unit_t size_units[] = {
    {"", 1}, {"b", 1},
    {"k", 1ull << 10}, {"kib", 1ull << 10}, {"kb", 1000ull},
    {"m", 1ull << 20}, {"mib", 1ull << 20}, {"mb", 1000000ull},
    {"g", 1ull << 30}, {"gib", 1ull << 30}, {"gb", 1000000000ull},
    {"t", 1ull << 40}, {"tib", 1ull << 40}, {"tb", 1000000000000ull},
};

static const unit_t count_units[] = {
    {"", 1}, {"k", 1000ull}, {"m", 1000000ull}, {"g", 1000000000ull},
    {"t", 1000000000000ull},
};

typedef struct {
    const char *what;          /* "size" | "count" */
    const char *whole;         /* what a fraction is not a whole number of */
    const char *hint;          /* accepted form */
    const unit_t *units;
    size_t nunits;
} grammar_t;

static const grammar_t size_grammar = {
    "size", "bytes", "use e.g. 512MiB, 2G, 64KB, 1e9 (K M G T = x1024, KB MB GB TB = x1000)",
    size_units, sizeof size_units / sizeof size_units[0],
};
static const grammar_t count_grammar = {
    "count", "elements", "use e.g. 2000000, 2M, 1e9 (K M G T = x1000)",
    count_units, sizeof count_units / sizeof count_units[0],
};

static const unit_t *find_unit(const unit_t *u, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcasecmp(u[i].name, s) == 0)
            return &u[i];
    return NULL;
}

/* Printable copy of hostile text for messages, its first 40 characters
 * (log.h): a non-ASCII digit shows as \xHH, so the user sees what was
 * actually passed. */
static const char *quote_text(const char *s, char *buf, size_t buflen)
{
    return mb_shown(s, 40, buf, buflen);
}

#define MB_EXP_CAP 100000L     /* exponents beyond this are clamped */

static int parse_scaled(const grammar_t *g, const char *text, size_t *out,
                        char *err, size_t errlen)
{
    char q[64], q2[64];
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = '\0';
#define FAIL(code, ...) do {                                                \
        char why_[160];                                                     \
        snprintf(why_, sizeof why_, __VA_ARGS__);                           \
        fmt_checked(err, errlen, "invalid %s '%s': %s; %s", g->what,           \
                 quote_text(text ? text : "", q, sizeof q), why_, g->hint); \
        return (code);                                                      \
    } while (0)

    if (!text || !*text)
        FAIL(-EINVAL, "empty");
    const char *p = text;
    while (*p && isspace((unsigned char)*p))
        p++;
    if (!*p)
        FAIL(-EINVAL, "blank");
    for (p = text; *p; p++)
        if (isspace((unsigned char)*p))
            FAIL(-EINVAL, "contains whitespace");

    p = text;
    if (*p == '-')
        FAIL(-EINVAL, "negative");
    if (*p == '+')
        p++;
    if (strncasecmp(p, "nan", 3) == 0 || strncasecmp(p, "inf", 3) == 0)
        FAIL(-EINVAL, "not a finite number");

    /* Mantissa as an exact integer M with decimal exponent E; trailing
     * zeros are deferred into E so M stays small.  Once M would overflow
     * 128 bits (more than 38 significant digits), later digits are
     * dropped: each integer digit scales E, fractional ones vanish, and
     * `tail` remembers a non-zero one.  M then exceeds 10^37, so a value
     * that still fits size_t has its dropped digits below the units place
     * even after the largest unit: a non-zero tail is never whole. */
    mb_u128_t m = 0;
    long e = 0, pending_zeros = 0;
    bool dropping = false, tail = false, any_digit = false, in_frac = false;
    for (;; p++) {
        if (*p == '.' && !in_frac) {
            in_frac = true;
            continue;
        }
        if (!isdigit((unsigned char)*p))
            break;
        any_digit = true;
        int d = *p - '0';
        if (dropping) {
            tail |= d != 0;
            if (!in_frac && e < LONG_MAX / 2)
                e++;
            continue;
        }
        if (in_frac)
            e--;
        if (d == 0) {
            if (pending_zeros < LONG_MAX / 2)
                pending_zeros++;
            continue;
        }
        mb_u128_t next = m;
        bool over = false;
        for (long z = 0; z <= pending_zeros && !over; z++)
            over = __builtin_mul_overflow(next, (mb_u128_t)10, &next);
        if (!over)
            over = __builtin_add_overflow(next, (mb_u128_t)d, &next);
        if (over) {
            /* drop this digit and the zeros before it: in the integer part
             * they scale the value, in the fraction their e-- is undone */
            dropping = true;
            tail = true;
            e += pending_zeros + 1;
        } else {
            m = next;
        }
        pending_zeros = 0;
    }
    if (!any_digit)
        FAIL(-EINVAL, "not a number");
    if (m == 0)
        pending_zeros = 0;     /* zero is zero, whatever its exponent */
    e += pending_zeros;

    if ((*p == 'e' || *p == 'E') &&
        (isdigit((unsigned char)p[1]) ||
         ((p[1] == '+' || p[1] == '-') && isdigit((unsigned char)p[2])))) {
        p++;
        int sign = 1;
        if (*p == '+' || *p == '-')
            sign = (*p++ == '-') ? -1 : 1;
        long x = 0;
        for (; isdigit((unsigned char)*p); p++)
            if (x < MB_EXP_CAP)
                x = x * 10 + (*p - '0');
        e += sign * (x < MB_EXP_CAP ? x : MB_EXP_CAP);
    }

    const unit_t *u = find_unit(g->units, g->nunits, p);
    if (!u) {
        if (g == &count_grammar && find_unit(size_units, sizeof size_units / sizeof size_units[0], p))
            FAIL(-EINVAL, "'%s' is a byte unit, not a count suffix",
                 quote_text(p, q2, sizeof q2));
        FAIL(-EINVAL, "trailing garbage '%s'", quote_text(p, q2, sizeof q2));
    }

    if (m == 0) {
        *out = 0;
        return 0;
    }
    mb_u128_t v;
    if (__builtin_mul_overflow(m, (mb_u128_t)u->mult, &v))
        FAIL(-ERANGE, "too large (the maximum is %zu %s)", (size_t)SIZE_MAX, g->whole);
    for (; e > 0; e--) {
        if (v > (mb_u128_t)SIZE_MAX)
            break;
        v *= 10;               /* v <= SIZE_MAX, so no 128-bit overflow */
    }
    if (e > 0 || (e == 0 && v > (mb_u128_t)SIZE_MAX))   /* e < 0: checked after dividing */
        FAIL(-ERANGE, "too large (the maximum is %zu %s)", (size_t)SIZE_MAX, g->whole);
    if (e < 0) {
        /* 10^39 exceeds every 128-bit value, so a non-zero v cannot be a
         * multiple of it. */
        if (e < -38)
            FAIL(-EINVAL, "not a whole number of %s", g->whole);
        mb_u128_t p10 = 1;
        for (long k = 0; k < -e; k++)
            p10 *= 10;
        if (v % p10)
            FAIL(-EINVAL, "not a whole number of %s", g->whole);
        v /= p10;
        if (v > (mb_u128_t)SIZE_MAX)
            FAIL(-ERANGE, "too large (the maximum is %zu %s)", (size_t)SIZE_MAX, g->whole);
    }
    if (tail)
        FAIL(-EINVAL, "not a whole number of %s", g->whole);
    *out = (size_t)v;
    return 0;
#undef FAIL
}

int mb_parse_size(const char *text, size_t *bytes, char *err, size_t errlen)
{
    return parse_scaled(&size_grammar, text, bytes, err, errlen);
}

int mb_parse_count(const char *text, size_t *count, char *err, size_t errlen)
{
    return parse_scaled(&count_grammar, text, count, err, errlen);
}

const char *mb_format_bytes(size_t bytes, char *buf, size_t buflen)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, buflen, "%zu B", bytes);
        return buf;
    }
    double v = (double)bytes;
    size_t i = 0;
    while (v >= 1024.0 && i + 1 < sizeof names / sizeof names[0]) {
        v /= 1024.0;
        i++;
    }
    snprintf(buf, buflen, "%.1f %s", v, names[i]);
    return buf;
}

/* ---- LLC discovery -------------------------------------------------- */

const char *mb_llc_source_name(mb_llc_source_t s)
{
    static const char *const names[] = {
        [MB_LLC_NONE] = "none", [MB_LLC_SYSFS] = "sysfs",
        [MB_LLC_SYSCONF] = "sysconf", [MB_LLC_OVERRIDE] = "override",
    };
    if ((unsigned)s < sizeof names / sizeof names[0] && names[s])
        return names[s];
    return "none";
}

typedef struct {
    unsigned level;
    size_t bytes;
    char *key;                 /* shared_cpu_list: one string per instance */
} cache_inst_t;

typedef struct {
    cache_inst_t *v;
    size_t n, cap;
} cache_set_t;

static void cache_set_free(cache_set_t *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].key);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

/* Adds (level, key) once; a repeat from another CPU is the same cache. */
static int cache_set_add(cache_set_t *s, unsigned level, size_t bytes, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].level == level && strcmp(s->v[i].key, key) == 0)
            return 0;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        cache_inst_t *nv = realloc(s->v, cap * sizeof *nv);
        if (!nv)
            return -ENOMEM;
        s->v = nv;
        s->cap = cap;
    }
    char *k = strdup(key);
    if (!k)
        return -ENOMEM;
    s->v[s->n++] = (cache_inst_t){level, bytes, k};
    return 0;
}

/* Reads one cache/indexN directory; adds it when it is Data or Unified. */
static int read_cache_index(const char *idxdir, const char *cpuname, cache_set_t *set,
                            unsigned *sizeless)
{
    char path[MB_PATH_MAX + 32], line[MB_CPULIST_MAX], type[32];
    unsigned long level;
    size_t bytes;

    if (fmt_checked(path, sizeof path, "%s/type", idxdir) || mb_read_line(path, type, sizeof type))
        return 0;
    if (strcmp(type, "Data") != 0 && strcmp(type, "Unified") != 0)
        return 0;
    if (fmt_checked(path, sizeof path, "%s/level", idxdir) || read_unsigned(path, &level) || level == 0 || level > 16)
        return 0;
    if (fmt_checked(path, sizeof path, "%s/size", idxdir) || mb_read_line(path, line, sizeof line) || mb_parse_size(line, &bytes, NULL, 0) || bytes == 0) {
        /* a cache the kernel knows (from CLIDR on aarch64) without a size:
         * a device tree without cache-size properties */
        if (sizeless)
            (*sizeless)++;
        return 0;
    }
    /* The instance key: shared_cpu_list, else shared_cpu_map, else the
     * CPU itself (a private cache). */
    if (fmt_checked(path, sizeof path, "%s/shared_cpu_list", idxdir) || mb_read_line(path, line, sizeof line) || !*line) {
        if (fmt_checked(path, sizeof path, "%s/shared_cpu_map", idxdir) || mb_read_line(path, line, sizeof line) || !*line)
            snprintf(line, sizeof line, "%s", cpuname);
        else {
            /* Prefix so a map never equals a list. */
            char tmp[MB_CPULIST_MAX];
            snprintf(tmp, sizeof tmp, "map:%.*s", (int)(sizeof tmp - 8), line);
            snprintf(line, sizeof line, "%s", tmp);
        }
    }
    return cache_set_add(set, (unsigned)level, bytes, line);
}

/* Walks <sysfs>/devices/system/cpu/cpuN/cache/indexM.  Returns 1 when it
 * answered (out filled), 0 when not (why filled), -errno on failure. */
static int llc_from_sysfs(mb_llc_t *out, char *why, size_t whylen)
{
    char cpudir[MB_PATH_MAX], path[MB_PATH_MAX + 64], idx[MB_PATH_MAX + 128];
    mb_sysfs_path(cpudir, sizeof cpudir, "/devices/system/cpu");
    DIR *d = opendir(cpudir);
    if (!d) {
        fmt_checked(why, whylen, "cannot read %s: %s", cpudir, strerror(errno));
        return 0;
    }
    cache_set_t set = {0};
    unsigned sizeless = 0;
    bool any_cache_dir = false;
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (de = readdir(d))) {
        if (!is_numbered(de->d_name, "cpu"))
            continue;
        if (fmt_checked(path, sizeof path, "%s/%s/cache", cpudir, de->d_name))
            continue;
        DIR *cd = opendir(path);
        if (!cd)
            continue;
        any_cache_dir = true;
        struct dirent *ce;
        while (rc == 0 && (ce = readdir(cd))) {
            if (!is_numbered(ce->d_name, "index"))
                continue;
            if (fmt_checked(idx, sizeof idx, "%s/%s", path, ce->d_name) == 0)
                rc = read_cache_index(idx, de->d_name, &set, &sizeless);
        }
        closedir(cd);
    }
    closedir(d);
    if (rc) {
        cache_set_free(&set);
        return rc;
    }
    if (!any_cache_dir) {
        fmt_checked(why, whylen, "no sysfs cache directory");
        return 0;
    }
    if (set.n == 0 && sizeless) {
        fmt_checked(why, whylen, "the caches have no sizes in sysfs (a device tree without "
                    "cache sizes?)");
        return 0;
    }
    if (set.n == 0) {
        fmt_checked(why, whylen, "sysfs lists no readable Data/Unified cache");
        return 0;
    }

    unsigned top = 0;
    for (size_t i = 0; i < set.n; i++)
        if (set.v[i].level > top)
            top = set.v[i].level;
    size_t total = 0, largest = 0, smallest = SIZE_MAX;
    unsigned count = 0;
    bool overflow = false;
    for (size_t i = 0; i < set.n; i++) {
        if (set.v[i].level != top)
            continue;
        count++;
        overflow |= !mb_add_size(total, set.v[i].bytes, &total);
        if (set.v[i].bytes > largest)
            largest = set.v[i].bytes;
        if (set.v[i].bytes < smallest)
            smallest = set.v[i].bytes;
    }
    cache_set_free(&set);
    if (overflow) {
        fmt_checked(why, whylen, "sysfs cache sizes overflow when summed");
        return 0;
    }
    out->total_bytes = total;
    out->instance_bytes = largest;
    out->instances = count;
    out->level = top;
    out->source = MB_LLC_SYSFS;
    char a[32], b[32];
    fmt_checked(out->note, sizeof out->note,
             "sysfs: %u distinct L%u instance%s (by shared_cpu_list) of %s, total %s%s",
             count, top, count == 1 ? "" : "s", mb_format_bytes(largest, a, sizeof a),
             mb_format_bytes(total, b, sizeof b),
             smallest != largest ? "; instances differ in size, the largest is shown" : "");
    return 1;
}

int mb_cache_bytes(unsigned level, size_t *bytes)
{
    char dir[MB_PATH_MAX], idx[MB_PATH_MAX + 32];
    mb_sysfs_path(dir, sizeof dir, "/devices/system/cpu/cpu0/cache");
    cache_set_t set = {0};
    int rc = 0;
    for (int i = 0; i < 16 && rc == 0; i++)
        if (fmt_checked(idx, sizeof idx, "%s/index%d", dir, i) == 0)
            rc = read_cache_index(idx, "cpu0", &set, NULL);
    *bytes = 0;
    for (size_t i = 0; rc == 0 && i < set.n; i++)
        if (set.v[i].level == level)
            *bytes = set.v[i].bytes;
    cache_set_free(&set);
    return rc ? rc : *bytes ? 0 : -ENOENT;
}

/* sysconf's L3 in bytes (<= 0: none), or MEMSUITE_SYSCONF_L3 when set. */
static long sysconf_l3(void)
{
    const char *fake = getenv("MEMSUITE_SYSCONF_L3");
    size_t bytes;

    if (fake && *fake)
        return mb_parse_size(fake, &bytes, NULL, 0) == 0 && bytes <= LONG_MAX ? (long)bytes : 0;
    return sysconf(_SC_LEVEL3_CACHE_SIZE);
}

static int llc_from_sysconf(mb_llc_t *out, const char *sysfs_why)
{
    long l3 = sysconf_l3();
    if (l3 <= 0) {
        fmt_checked(out->note, sizeof out->note,
                 "unavailable: %s; sysconf reports no L3 size (aarch64 glibc always answers 0); "
                 "pass --llc SIZE or set MEMSUITE_LLC",
                 sysfs_why);
        return 0;
    }
    unsigned sockets = mb_socket_count();
    size_t total;
    if (!mb_mul_size((size_t)l3, sockets, &total))
        return 0;
    out->total_bytes = total;
    out->instance_bytes = (size_t)l3;
    out->instances = sockets;
    out->level = 3;
    out->source = MB_LLC_SYSCONF;
    fmt_checked(out->note, sizeof out->note,
             "%s; sysconf reports L3 (on a VM this is the host's cache); x %u socket%s",
             sysfs_why, sockets, sockets == 1 ? "" : "s");
    return 1;
}

/* A VM may show its guest a small L3 in sysfs while sysconf (CPUID)
 * reports the host's larger one, and arrays sized by the small figure can
 * then run from the host's cache.  Keep the sysfs answer (the documented
 * order) but say so in the note, with the flag that settles it. */
static void llc_note_sysconf_disagrees(mb_llc_t *out)
{
    long l3 = sysconf_l3();
    if (out->level != 3 || l3 <= 0 || (size_t)l3 <= out->instance_bytes)
        return;
    char a[32];
    size_t used = strlen(out->note);
    snprintf(out->note + used, sizeof out->note - used,
             "; sysconf reports a larger L3 of %s per instance (a VM's host cache?): "
             "if that is real, pass --llc or set MEMSUITE_LLC",
             mb_format_bytes((size_t)l3, a, sizeof a));
}

static void llc_detect_auto(mb_llc_t *out)
{
    char why[192] = "";
    memset(out, 0, sizeof *out);
    int rc = llc_from_sysfs(out, why, sizeof why);
    if (rc > 0) {
        llc_note_sysconf_disagrees(out);
        return;
    }
    if (rc < 0)
        snprintf(why, sizeof why, "reading sysfs caches failed: %s", mb_fact_strerror(rc));
    llc_from_sysconf(out, why);
}

int mb_llc_detect(const char *override, mb_llc_t *out, char *err, size_t errlen)
{
    const char *origin = "--llc";
    if (!override) {
        const char *env = getenv("MEMSUITE_LLC");
        if (env && *env) {
            override = env;
            origin = "MEMSUITE_LLC";
        }
    }
    if (err && errlen)
        err[0] = '\0';
    llc_detect_auto(out);
    if (!override)
        return 0;

    size_t bytes;
    char perr[256];
    if (mb_parse_size(override, &bytes, perr, sizeof perr) != 0) {
        if (err && errlen)
            fmt_checked(err, errlen, "%s: %s", origin, perr);
        return -EINVAL;
    }
    if (bytes == 0) {
        if (err && errlen)
            fmt_checked(err, errlen, "%s: invalid size '0': the LLC size must be greater than 0; "
                     "use e.g. 32MiB", origin);
        return -EINVAL;
    }
    char a[32], b[32], detected[160];
    if (out->source != MB_LLC_NONE)
        snprintf(detected, sizeof detected, "%s found %s",
                 mb_llc_source_name(out->source), mb_format_bytes(out->total_bytes, b, sizeof b));
    else
        snprintf(detected, sizeof detected, "detection found nothing");
    unsigned level = out->level;
    memset(out, 0, sizeof *out);
    out->total_bytes = bytes;
    out->instance_bytes = bytes;
    out->instances = 1;
    out->level = level;
    out->source = MB_LLC_OVERRIDE;
    fmt_checked(out->note, sizeof out->note, "given by %s as %s (%s)", origin,
             mb_format_bytes(bytes, a, sizeof a), detected);
    return 0;
}

unsigned mb_socket_count(void)
{
    char cpudir[MB_PATH_MAX], path[MB_PATH_MAX + 64];
    mb_sysfs_path(cpudir, sizeof cpudir, "/devices/system/cpu");
    DIR *d = opendir(cpudir);
    if (!d)
        return 1;
    unsigned long ids[256];
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!is_numbered(de->d_name, "cpu"))
            continue;
        unsigned long id;
        if (fmt_checked(path, sizeof path, "%s/%s/topology/physical_package_id", cpudir, de->d_name) ||
            read_unsigned(path, &id))
            continue;
        bool known = false;
        for (unsigned i = 0; i < n && !known; i++)
            known = ids[i] == id;
        if (!known && n < sizeof ids / sizeof ids[0])
            ids[n++] = id;
    }
    closedir(d);
    return n ? n : 1;
}

size_t mb_min_array_bytes(const mb_llc_t *llc)
{
    if (!llc || llc->source == MB_LLC_NONE || llc->total_bytes == 0)
        return 0;
    size_t need;
    return mb_mul_size(llc->total_bytes, MB_LLC_FACTOR, &need) ? need : SIZE_MAX;
}

/* ---- the size policy ------------------------------------------------ */

/* "508.0 MiB L3 from sysconf", "2 x 32.0 MiB L3 = 64.0 MiB from sysfs". */
static void llc_phrase(const mb_llc_t *llc, char *buf, size_t buflen)
{
    char one[32], all[32], level[16] = "";
    if (llc->level)
        snprintf(level, sizeof level, " L%u", llc->level);
    mb_format_bytes(llc->instance_bytes, one, sizeof one);
    mb_format_bytes(llc->total_bytes, all, sizeof all);
    if (llc->instances > 1)
        fmt_checked(buf, buflen, "%u x %s%s = %s from %s", llc->instances, one, level, all,
                    mb_llc_source_name(llc->source));
    else
        fmt_checked(buf, buflen, "%s%s from %s", all, level, mb_llc_source_name(llc->source));
}

mb_rule_verdict_t mb_size_rule(const mb_rule_query_t *q, mb_rule_t *out)
{
    char have[32], need[32], llc[128], ask[160];
    const char *given = q->given ? q->given : "the size";

    memset(out, 0, sizeof *out);
    out->min_bytes = mb_min_array_bytes(q->llc);
    if (out->min_bytes == 0) {
        const char *note = q->llc && q->llc->note[0] ? q->llc->note : "no source answered";
        fmt_checked(out->reason, sizeof out->reason,
                    "last-level cache size unknown (%s): the 4x LLC rule was not checked "
                    "and the size is used as given", note);
        fmt_checked(out->message, sizeof out->message, "%s; pass --llc SIZE or set MEMSUITE_LLC",
                    out->reason);
        return out->verdict = MB_RULE_UNCHECKED;
    }
    if (q->bytes >= out->min_bytes)
        return out->verdict = MB_RULE_MET;

    mb_format_bytes(q->bytes, have, sizeof have);
    llc_phrase(q->llc, llc, sizeof llc);
    out->verdict = q->strict ? MB_RULE_REFUSED : MB_RULE_UNDER;
    if (out->min_bytes == SIZE_MAX) {
        /* 4 x LLC does not fit in a size_t: no size can satisfy the rule,
         * and there is no figure to suggest. */
        fmt_checked(out->reason, sizeof out->reason,
                    "%s (%s) is under 4x the last-level cache (%s), which exceeds the largest "
                    "size there is (16 EiB): no size can satisfy the rule", q->subject, have, llc);
        fmt_checked(out->message, sizeof out->message,
                    "%s: %s; check the LLC (--llc or MEMSUITE_LLC)%s", given, out->reason,
                    q->strict ? ", or run without --strict to measure it labelled not-standard"
                              : "; the result is labelled not-standard");
        return out->verdict;
    }
    mb_format_bytes(out->min_bytes, need, sizeof need);
    if (q->suggest)
        q->suggest(out->min_bytes, q->ctx, ask, sizeof ask);
    else
        fmt_checked(ask, sizeof ask, "a size of %s (%zu bytes)", need, out->min_bytes);
    fmt_checked(out->reason, sizeof out->reason,
                "%s (%s) is under 4x the last-level cache (%s) = %s: caches inflate the result",
                q->subject, have, llc, need);
    if (q->strict)
        fmt_checked(out->message, sizeof out->message,
                    "%s: %s; use %s or more, or run without --strict to measure it labelled "
                    "not-standard", given, out->reason, ask);
    else
        fmt_checked(out->message, sizeof out->message,
                    "%s: %s; the rule needs %s or more; the result is labelled not-standard "
                    "(--strict refuses such a size)", given, out->reason, ask);
    return out->verdict;
}

/* ---- memory --------------------------------------------------------- */

typedef struct {
    const char *key;           /* "MemAvailable" */
    unsigned long long kib;
    bool found;
} meminfo_field_t;

static int meminfo_read(meminfo_field_t *f, size_t n)
{
    char path[MB_PATH_MAX], line[256];
    mb_procfs_path(path, sizeof path, "/meminfo");
    FILE *fp = mb_fact_fopen(path);
    if (!fp)
        return -errno;
    while (fgets(line, sizeof line, fp)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        for (size_t i = 0; i < n; i++) {
            if (strcmp(line, f[i].key) != 0)
                continue;
            char *end;
            errno = 0;
            unsigned long long v = strtoull(colon + 1, &end, 10);
            while (*end == ' ' || *end == '\t')
                end++;
            if (end != colon + 1 && !errno && strncmp(end, "kB", 2) == 0) {
                f[i].kib = v;
                f[i].found = true;
            }
        }
    }
    fclose(fp);
    return 0;
}

static int kib_to_bytes(unsigned long long kib, size_t *bytes)
{
    if (kib > SIZE_MAX / 1024)
        return -ERANGE;
    *bytes = (size_t)kib * 1024;
    return 0;
}

int mb_mem_available(size_t *bytes)
{
    meminfo_field_t f[] = {{"MemAvailable", 0, false}, {"MemFree", 0, false}, {"Cached", 0, false}};
    int rc = meminfo_read(f, 3);
    if (rc)
        return rc;
    if (f[0].found)
        return kib_to_bytes(f[0].kib, bytes);
    if (f[1].found && f[2].found)
        return kib_to_bytes(f[1].kib + f[2].kib, bytes);
    return -ENODATA;
}

int mb_mem_total(size_t *bytes)
{
    meminfo_field_t f[] = {{"MemTotal", 0, false}};
    int rc = meminfo_read(f, 1);
    if (rc)
        return rc;
    return f[0].found ? kib_to_bytes(f[0].kib, bytes) : -ENODATA;
}

bool mb_fits_in_memory(size_t need, size_t available, char *msg, size_t msglen)
{
    size_t usable = available - available / 10;   /* keep 10% for the OS */
    if (msg && msglen)
        msg[0] = '\0';
    if (need <= usable)
        return true;
    if (msg && msglen) {
        char a[32], b[32], c[32];
        if (usable == 0)
            fmt_checked(msg, msglen, "needs %s (%zu bytes) but MemAvailable is %s; "
                     "free memory or run on a machine with more", mb_format_bytes(need, a, sizeof a),
                     need, mb_format_bytes(available, b, sizeof b));
        else
            fmt_checked(msg, msglen, "needs %s (%zu bytes) but MemAvailable is %s and 10%% is kept "
                     "for the OS; pass sizes totalling at most %s (%zu bytes) instead",
                     mb_format_bytes(need, a, sizeof a), need,
                     mb_format_bytes(available, b, sizeof b),
                     mb_format_bytes(usable, c, sizeof c), usable);
    }
    return false;
}
