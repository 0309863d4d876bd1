/* sizing: last-level-cache discovery, the >= 4x LLC rule, memory
 * availability and the size-string parser.
 *
 * Root overrides for tests: MEMSUITE_SYSFS (default "/sys") and
 * MEMSUITE_PROCFS (default "/proc") are prefixed to every path read;
 * MEMSUITE_SYSCONF_L3 (a size, "0" for none) stands in for
 * sysconf(_SC_LEVEL3_CACHE_SIZE), which reads the CPU itself, so a test
 * can play a VM whose CPUID reports the host's L3. */
#ifndef MB_SIZING_H
#define MB_SIZING_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    MB_LLC_NONE = 0,   /* nothing answered */
    MB_LLC_SYSFS,      /* /sys/devices/system/cpu/cpu*\/cache/index* */
    MB_LLC_SYSCONF,    /* sysconf(_SC_LEVEL3_CACHE_SIZE) x sockets */
    MB_LLC_OVERRIDE,   /* --llc or MEMSUITE_LLC */
} mb_llc_source_t;

typedef struct {
    size_t total_bytes;        /* sum over every distinct LLC instance */
    size_t instance_bytes;     /* size of one instance */
    unsigned instances;        /* distinct instances counted */
    unsigned level;            /* cache level of the LLC (3 usually) */
    mb_llc_source_t source;
    char note[512];            /* how the answer was found or why none was, e.g.
                                * "no sysfs cache directory; sysconf reports L3 (on a
                                * VM this is the host's cache); x 2 sockets" */
} mb_llc_t;

const char *mb_llc_source_name(mb_llc_source_t s); /* "sysfs", "sysconf", "override", "none" */

/* Detect the LLC.  override: the --llc text or NULL; when NULL the
 * MEMSUITE_LLC environment variable (if non-empty) is consulted.  An
 * override wins over detection; its note also says what detection found.
 * sysfs: the highest-level Data/Unified cache under cpu*\/cache/index*, each
 * distinct shared_cpu_list counted once (so sockets and CCXs add up).
 * Returns 0 (source NONE is not an error), or -EINVAL when the override
 * text does not parse or is 0 (err filled, naming --llc or MEMSUITE_LLC;
 * *out then holds the detected answer). */
int mb_llc_detect(const char *override, mb_llc_t *out, char *err, size_t errlen);

/* cpu0's Data or Unified cache of this level (1: L1d, 2: L2), read from
 * <sysfs>/devices/system/cpu/cpu0/cache/index* as the LLC detector reads
 * them.  0 with *bytes; -ENOENT when sysfs does not list it; -ENOMEM. */
int mb_cache_bytes(unsigned level, size_t *bytes);

/* Sockets (distinct topology/physical_package_id values); 1 when unknown. */
unsigned mb_socket_count(void);

/* The STREAM rule: every array >= 4 x total LLC.  Returns the minimum
 * bytes per array (0 when the LLC is unknown; SIZE_MAX on overflow). */
size_t mb_min_array_bytes(const mb_llc_t *llc);
#define MB_LLC_FACTOR 4

/* ---- the size policy, one for every tool ----------------------------
 * An explicit size is the user's decision and runs.  A working set under
 * 4x the LLC runs with a warning (naming the LLC, its source and the size
 * that satisfies the rule) and a not-standard label; --strict refuses it
 * (exit 2).  An unknown LLC runs, warned and labelled (the rule could not
 * be checked; --strict does not refuse what it cannot check).  Sizes the
 * tools choose themselves (auto, defaults) are made to satisfy the rule
 * before they are checked here. */
typedef enum {
    MB_RULE_MET = 0,           /* at least 4x the LLC */
    MB_RULE_UNCHECKED,         /* LLC unknown: runs, warned, not-standard */
    MB_RULE_UNDER,             /* under 4x the LLC: runs, warned, not-standard */
    MB_RULE_REFUSED,           /* under 4x the LLC with --strict: exit 2 */
} mb_rule_verdict_t;

/* Writes the tool's way of asking for at least min_bytes (e.g.
 * "--array-size 265751103", "--size 2032MiB") into buf. */
typedef void (*mb_rule_suggest_fn)(size_t min_bytes, const void *ctx, char *buf, size_t buflen);

typedef struct {
    const mb_llc_t *llc;
    size_t bytes;              /* what the rule measures, in bytes */
    const char *subject;       /* "each array", "the working set", "this host's share of
                                * each array (2 ranks here)" */
    const char *given;         /* how the size was asked for: "--array-size 4000000" */
    bool strict;               /* --strict: refuse instead of warning */
    mb_rule_suggest_fn suggest; /* NULL: the bytes, as "a size of at least ..." */
    const void *ctx;
} mb_rule_query_t;

typedef struct {
    mb_rule_verdict_t verdict;
    size_t min_bytes;          /* 4 x LLC; 0 when unknown; SIZE_MAX when 4x overflows */
    char reason[320];          /* for the label (not-standard), empty when MET */
    char message[512];         /* the whole stderr text: the warning or the refusal */
} mb_rule_t;

/* Applies the policy; fills out and returns its verdict. */
mb_rule_verdict_t mb_size_rule(const mb_rule_query_t *q, mb_rule_t *out);

/* MemAvailable (or MemFree+Cached when absent) from <procfs>/meminfo, in
 * bytes.  Returns 0 or -errno (-ENOENT no file, -ENODATA no such field). */
int mb_mem_available(size_t *bytes);
/* MemTotal from <procfs>/meminfo, in bytes.  Returns 0 or -errno. */
int mb_mem_total(size_t *bytes);

/* Decide whether `need` bytes fit before allocating.  Fits when need <=
 * available * 0.9 (headroom for the OS).  On refusal fills msg (msg may be
 * NULL) with what was asked, what is available and the most to ask for:
 * "needs 48.0 GiB (51539607552 bytes) but MemAvailable is 22.1 GiB and 10%
 *  is kept for the OS; pass sizes totalling at most 19.9 GiB (... bytes)
 *  instead".  The caller adds its own option, e.g. "; use -s 800M". */
bool mb_fits_in_memory(size_t need, size_t available, char *msg, size_t msglen);

/* Parse a size string into bytes.
 *   plain integer "1000", exponent form "1e9", "2.5e3", "1.5K" (the value
 *   after scaling must be integral); optional leading '+'
 *   K M G T, KiB MiB GiB TiB  -> powers of 1024 (case-insensitive unit)
 *   KB MB GB TB               -> powers of 1000
 *   optional "B" alone means bytes.
 * Exact integer arithmetic (no double rounding).  Rejects: empty, blank,
 * any whitespace, negative, NaN/inf, trailing garbage, fractional bytes,
 * overflow past SIZE_MAX.  *bytes is untouched on error.  err may be NULL.
 * Returns 0 or -EINVAL/-ERANGE (too large) with err =
 * "invalid size '12yz': trailing garbage 'yz'; use e.g. 512MiB, 2G, ...". */
int mb_parse_size(const char *text, size_t *bytes, char *err, size_t errlen);
/* The same grammar for element counts ("1e9", "2000000"); suffixes
 * K/M/G/T mean x1000^k here and byte units (B, KiB, MB...) are rejected.
 * err = "invalid count '...': ...; use e.g. 2000000, 2M, 1e9 ...". */
int mb_parse_count(const char *text, size_t *count, char *err, size_t errlen);

/* Human form of a byte count: "1.5 GiB", "512.0 KiB", "17 B". */
const char *mb_format_bytes(size_t bytes, char *buf, size_t buflen);

/* Overflow-checked a*b; returns false on overflow. */
static inline bool mb_mul_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_mul_overflow(a, b, out);
}
static inline bool mb_add_size(size_t a, size_t b, size_t *out)
{
    return !__builtin_add_overflow(a, b, out);
}

/* Path under the sysfs/procfs root: writes "<root><rel>" into buf.
 * rel starts with '/', e.g. "/devices/system/cpu".  Returns buf. */
const char *mb_sysfs_path(char *buf, size_t buflen, const char *rel);
const char *mb_procfs_path(char *buf, size_t buflen, const char *rel);
/* Read the first line of a fact file (newline stripped), opened by
 * mb_fact_fopen (no blocking, regular files only, capped).  0 or -errno
 * (mb_fact_strerror says why in words). */
int mb_read_line(const char *path, char *buf, size_t buflen);
/* A small fact file (sysfs counters, labels): a regular file only (never
 * a FIFO, device or directory: opened non-blocking, checked with fstat),
 * at most buflen - 1 bytes; the first line, newline stripped.  0, or
 * -errno: -EINVAL not a regular file, -EFBIG longer than buflen - 1. */
int mb_read_fact(const char *path, char *buf, size_t buflen);

#endif
