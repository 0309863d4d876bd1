/* alloc/opts: the options of `mencal run alloc` and their validation.
 * Everything that can be refused is refused here, before a child runs. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "worker.h"
#include "exitcodes.h"
#include "opts.h"
#include "sizing.h"

#define DEFAULT_BLOCKS "4K,16K,256K,1M,4M,16M,32M"
#define OFF(f) offsetof(mc_alloc_cfg_t, f)

static const mb_opt_t options[] = {
    { .long_name = "allocators", .short_name = 'a', .type = MB_OPT_STRING,
      .offset = OFF(allocators), .metavar = "LIST|all", .def = "all",
      .help = "allocators to compare: glibc, jemalloc, tcmalloc, mimalloc (comma-separated)" },
    { .long_name = "threads", .short_name = 't', .type = MB_OPT_STRING, .offset = OFF(threads),
      .metavar = "LIST", .def_text = "one per allowed CPU",
      .help = "thread counts, e.g. 16,64; one table block per count" },
    { .long_name = "block-sizes", .short_name = 'b', .type = MB_OPT_STRING,
      .offset = OFF(block_sizes), .metavar = "LIST", .def = DEFAULT_BLOCKS,
      .help = "block sizes (K M G = KiB MiB GiB)" },
    { .long_name = "blocks-per-thread", .short_name = 'n', .type = MB_OPT_COUNT,
      .offset = OFF(blocks_per_thread), .min = 1, .max = 1 << 24, .metavar = "N", .def = "16",
      .help = "slots each thread owns; each step frees a full one or fills an empty one" },
    { .long_name = "ops", .type = MB_OPT_COUNT, .offset = OFF(ops), .min = 1,
      .max = 1000000000000LL, .metavar = "N",
      .def_text = "auto: 2 GiB of copies per thread, 400..4000000 steps",
      .help = "steps per thread (a free or an allocate+memcpy)" },
    { .long_name = "duration", .type = MB_OPT_DOUBLE, .offset = OFF(duration_s), .dmin = 0.001,
      .dmax = 86400, .metavar = "SECONDS", .help = "run each child for this long instead of --ops" },
    { .long_name = "nofree", .type = MB_OPT_FLAG, .offset = OFF(nofree),
      .help = "keep blocks and refill them instead of freeing (isolates page-fault cost)" },
    { .long_name = "jemalloc-conf", .type = MB_OPT_STRING, .offset = OFF(jemalloc_conf),
      .metavar = "STR", .def_text = "$JEMALLOC_CONF, else $MALLOC_CONF",
      .help = "jemalloc options for the jemalloc children (set as MALLOC_CONF and JEMALLOC_CONF)" },
    { .long_name = "reps", .short_name = 'r', .type = MB_OPT_INT, .offset = OFF(reps), .min = 1,
      .max = MC_ALLOC_MAX_REPS, .metavar = "N", .def = "3",
      .help = "repetitions per cell; medians are reported" },
    { .long_name = "random-state", .type = MB_OPT_INT, .offset = OFF(random_state), .min = 0,
      .max = 0, .metavar = "N", .def = "1",
      .help = "where the random slot choices start (thread t uses stream t)" },
    { .long_name = "rss-interval", .type = MB_OPT_DOUBLE, .offset = OFF(rss_interval_s),
      .dmin = 0.001, .dmax = 60, .metavar = "SECONDS", .def = "0.05",
      .help = "period of the VmRSS samples taken from /proc/<child>/status" },
    { .long_name = "format", .short_name = 'f', .type = MB_OPT_CHOICE, .offset = OFF(format),
      .choices = MB_FORMAT_CHOICES, .def = "text", .help = "output format" },
    { .long_name = "output", .short_name = 'O', .type = MB_OPT_STRING, .offset = OFF(output),
      .metavar = "FILE", .def_text = "stdout", .help = "write the result to FILE (atomically)" },
    { .long_name = "plot", .type = MB_OPT_STRING, .offset = OFF(plot), .metavar = "FILE.png",
      .help = "chart of time and minor faults against block size (needs python3-matplotlib)" },
    { .long_name = "overhead", .type = MB_OPT_FLAG, .offset = OFF(overhead),
      .help = "after each measurement run the harness alone (as --harness-only) in the same "
              "child; report its time per step as a share of the measured one" },
    { .long_name = "harness-only", .type = MB_OPT_FLAG, .offset = OFF(harness_only),
      .help = "internal: slot choice, bookkeeping and timing only, no malloc/free/memcpy (the "
              "free-or-malloc branch itself counts as workload)" },
    { .long_name = "quiet", .short_name = 'q', .type = MB_OPT_FLAG, .offset = OFF(quiet),
      .help = "no progress notes or warnings on stderr" },
    { .long_name = "help", .short_name = 'h', .type = MB_OPT_FLAG, .offset = OFF(help),
      .help = "show this help" },
};
#undef OFF
#define NOPTIONS (sizeof options / sizeof options[0])

void mc_alloc_defaults(mc_alloc_cfg_t *c)
{
    memset(c, 0, sizeof *c);
    char msg[160];
    (void)mb_opts_defaults(options, NOPTIONS, c, msg, sizeof msg);   /* the table's own defs */
    c->auto_bytes = MC_ALLOC_AUTO_BYTES;
    c->auto_min_ops = MC_ALLOC_AUTO_MIN_OPS;
}

void mc_alloc_help(FILE *f)
{
    mb_opts_help(f, "mencal run alloc [OPTIONS]\n\n"
                    "Allocator comparison: each thread owns N slots of one block size;\n"
                    "each step picks a slot at random, frees it when full, else mallocs it and\n"
                    "fills it with memcpy.  Every allocator runs in its own child process (this\n"
                    "binary with LD_PRELOAD), checked to really use that allocator.  Reported per\n"
                    "allocator, thread count and block size (medians over --reps): wall time,\n"
                    "steps/s, CPU utilisation, minor/major faults, max RSS (the child's VmHWM;\n"
                    "wait4's ru_maxrss, also in JSON, counts the parent's image too), VmRSS over\n"
                    "time, p50/p99 latency of allocate+memcpy.\n"
                    "Defaults suit a 2-core machine: threads = allowed CPUs, 3 reps, automatic\n"
                    "step counts; the full default run took 1m16s on a busy 2-core VM.\n"
                    "Libraries: ldconfig -p and the usual directories, or only the directories\n"
                    "in $MEMSUITE_ALLOC_LIBDIR when set.  A missing one is skipped (exit 0); a\n"
                    "failed or crashed child fails its cell (exit 1); bad options exit 2; sizes\n"
                    "that do not fit in memory exit 3.",
                 options, NOPTIONS);
}

const char *mc_alloc_size_name(size_t bytes, char *buf, size_t buflen)
{
    static const char units[] = "KMGT";
    int u = -1;
    size_t v = bytes;
    while (v >= 1024 && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, buflen, "%zu", bytes);
    else
        snprintf(buf, buflen, "%zu%c", v, units[u]);
    return buf;
}

uint64_t mc_alloc_ops_for(const mc_alloc_cfg_t *c, size_t block_bytes)
{
    if (c->ops)
        return c->ops;
    if (c->duration_s > 0)
        return 0;
    /* half the steps are copies */
    uint64_t ops = 2 * (c->auto_bytes / (block_bytes ? block_bytes : 1));
    if (ops < c->auto_min_ops)
        ops = c->auto_min_ops;
    if (ops > MC_ALLOC_AUTO_MAX_OPS)
        ops = MC_ALLOC_AUTO_MAX_OPS;
    return ops;
}

/* Splits a comma list; returns the item count or -1 (empty item, too many).
 * example: a valid value of this option, shown in the message. */
static int split_list(const char *text, char items[][64], int max, char *msg, size_t msglen,
                      const char *opt, const char *example)
{
    int n = 0;
    const char *p = text;
    for (;;) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= 64) {
            snprintf(msg, msglen, "%s: invalid value '%s': %s; use a comma-separated list such "
                     "as %s", opt, text, len ? "an item is too long" : "an item is empty",
                     example);
            return -1;
        }
        if (n == max) {
            snprintf(msg, msglen, "%s: invalid value '%s': more than %d items", opt, text, max);
            return -1;
        }
        memcpy(items[n], p, len);
        items[n++][len] = '\0';
        if (!p[len])
            return n;
        p += len + 1;
    }
}

static int parse_allocators(mc_alloc_cfg_t *c, char *msg, size_t msglen)
{
    char known[128], items[MC_ALLOC_MAX_LIST][64];
    mc_allocator_names(known, sizeof known);
    c->nalloc = 0;
    if (strcmp(c->allocators, "all") == 0) {
        for (size_t i = 0; i < mc_allocator_count(); i++)
            c->alloc[c->nalloc++] = (int)i;
        return 0;
    }
    char example[320];
    snprintf(example, sizeof example, "glibc,jemalloc (known: %s; or all)", known);
    int n = split_list(c->allocators, items, MC_ALLOC_MAX_LIST, msg, msglen, "--allocators",
                       example);
    if (n < 0)
        return MB_EXIT_USAGE;
    for (int i = 0; i < n; i++) {
        int idx = mc_allocator_index(items[i]);
        if (idx < 0) {
            snprintf(msg, msglen, "--allocators: unknown allocator '%s'; known: %s (or all)",
                     items[i], known);
            return MB_EXIT_USAGE;
        }
        bool dup = false;
        for (int k = 0; k < c->nalloc; k++)
            dup |= c->alloc[k] == idx;
        if (dup) {
            snprintf(msg, msglen, "--allocators: '%s' is listed twice", items[i]);
            return MB_EXIT_USAGE;
        }
        c->alloc[c->nalloc++] = idx;
    }
    return 0;
}

static int parse_threads(mc_alloc_cfg_t *c, char *msg, size_t msglen)
{
    char items[MC_ALLOC_MAX_LIST][64];
    if (!c->threads) {
        int n = c->cpus_allowed > 0 ? c->cpus_allowed : 1;
        c->threads_list[0] = n > MC_ALLOC_MAX_THREADS ? MC_ALLOC_MAX_THREADS : n;
        c->nthreads = 1;
        return 0;
    }
    int n = split_list(c->threads, items, MC_ALLOC_MAX_LIST, msg, msglen, "--threads", "16,64");
    if (n < 0)
        return MB_EXIT_USAGE;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        long v = strtol(items[i], &end, 10);
        if (errno || *end || end == items[i] || v < 1 || v > MC_ALLOC_MAX_THREADS) {
            snprintf(msg, msglen, "--threads: invalid value '%s': must be an integer in 1..%d",
                     items[i], MC_ALLOC_MAX_THREADS);
            return MB_EXIT_USAGE;
        }
        c->threads_list[i] = (int)v;
    }
    c->nthreads = n;
    return 0;
}

static int parse_blocks(mc_alloc_cfg_t *c, char *msg, size_t msglen)
{
    char items[MC_ALLOC_MAX_LIST][64], err[256];
    int n = split_list(c->block_sizes, items, MC_ALLOC_MAX_LIST, msg, msglen, "--block-sizes",
                       "4K,16K,1M");
    if (n < 0)
        return MB_EXIT_USAGE;
    for (int i = 0; i < n; i++) {
        size_t b;
        if (mb_parse_size(items[i], &b, err, sizeof err) != 0) {
            snprintf(msg, msglen, "--block-sizes: %s", err);
            return MB_EXIT_USAGE;
        }
        if (b == 0) {
            snprintf(msg, msglen, "--block-sizes: invalid value '%s': a block must be at least "
                     "1 byte; use e.g. 4K", items[i]);
            return MB_EXIT_USAGE;
        }
        for (int k = 0; k < i; k++)
            if (c->block_list[k] == b) {
                snprintf(msg, msglen, "--block-sizes: '%s' is listed twice", items[i]);
                return MB_EXIT_USAGE;
            }
        c->block_list[i] = b;
    }
    c->nblocks = n;
    return 0;
}

/* The largest thread count and block must fit: threads x (blocks + the
 * source buffer) x block bytes, against MemAvailable. */
static int check_memory(const mc_alloc_cfg_t *c, char *msg, size_t msglen)
{
    int tmax = 0;
    size_t bmax = 0;
    for (int i = 0; i < c->nthreads; i++)
        tmax = c->threads_list[i] > tmax ? c->threads_list[i] : tmax;
    for (int i = 0; i < c->nblocks; i++)
        bmax = c->block_list[i] > bmax ? c->block_list[i] : bmax;
    size_t per_thread, need, avail;
    char bname[32], hneed[32], tail[512];
    mc_alloc_size_name(bmax, bname, sizeof bname);
    bool ok = c->blocks_per_thread < SIZE_MAX &&
              mb_mul_size(c->blocks_per_thread + 1, bmax, &per_thread) &&
              mb_mul_size(per_thread, (size_t)tmax, &need);
    if (!ok) {
        snprintf(msg, msglen, "--block-sizes %s: %d threads x (%zu blocks + 1 source buffer) x "
                 "%zu bytes overflows a 64-bit size; lower --block-sizes, --blocks-per-thread or "
                 "--threads", bname, tmax, c->blocks_per_thread, bmax);
        return MB_EXIT_RESOURCE;
    }
    if (tmax < 1 || mb_mem_available(&avail) != 0)
        return 0;   /* cannot tell: the children will report ENOMEM */
    if (mb_fits_in_memory(need, avail, tail, sizeof tail))
        return 0;
    size_t room = (size_t)((double)avail * 0.9);
    size_t fit = room / ((c->blocks_per_thread + 1) * (size_t)tmax);
    char hfit[32];
    snprintf(msg, msglen, "--block-sizes %s: %d threads x (%zu blocks + 1 source buffer) x %s = "
             "%s (%zu bytes) at worst: %s; the largest block that fits is %s (%zu bytes); lower "
             "--block-sizes, --blocks-per-thread or --threads", bname, tmax, c->blocks_per_thread,
             bname, mb_format_bytes(need, hneed, sizeof hneed), need, tail,
             mb_format_bytes(fit, hfit, sizeof hfit), fit);
    return MB_EXIT_RESOURCE;
}

int mc_alloc_parse(mc_alloc_cfg_t *c, int argc, char **argv, char *msg, size_t msglen)
{
    bool seen[NOPTIONS];
    mb_opts_out_t out = { 0, NULL, seen };
    cpu_set_t set;
    c->cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN);
    c->cpus_allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                                  : c->cpus_online;
    int rc = mb_opts_parse(options, NOPTIONS, argc, argv, c, &out, msg, msglen);
    if (rc != 0 || c->help)
        return rc;
    if (c->ops && c->duration_s > 0) {
        snprintf(msg, msglen, "--ops and --duration: give one of them, not both");
        return MB_EXIT_USAGE;
    }
    c->ops_auto = !c->ops && !(c->duration_s > 0);
    c->fmt = (mb_format_t)c->format;   /* the CHOICE index is the mb_format_t */
    if (c->harness_only && c->overhead) {
        snprintf(msg, msglen, "--harness-only and --overhead: --overhead already runs the "
                 "harness alone after each measurement; give one of them");
        return MB_EXIT_USAGE;
    }
    if ((rc = parse_allocators(c, msg, msglen)) || (rc = parse_threads(c, msg, msglen)) ||
        (rc = parse_blocks(c, msg, msglen)))
        return rc;
    return check_memory(c, msg, msglen);
}
