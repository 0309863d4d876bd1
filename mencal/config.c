/* config: mencal's option table and the resolution of a run's
 * configuration (size rule, threads on physical cores, caches, ranges
 * that depend on the machine). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity.h"
#include "counters.h"
#include "mencal.h"

#define OFF(f) offsetof(mc_opts_t, f)

static const mb_opt_t options[] = {
    /* common */
    { .long_name = "size", .short_name = 's', .type = MB_OPT_SIZE, .offset = OFF(size_bytes),
      .min = 16384, .metavar = "SIZE",
      .def = "8GiB, raised to 8x LLC, at most MemAvailable/2",
      .help = "working set per scenario (split between threads or processes)" },
    { .long_name = "threads", .short_name = 't', .type = MB_OPT_INT, .offset = OFF(threads),
      .min = 1, .max = MB_MAX_THREADS, .metavar = "N", .def = "one per physical core",
      .help = "worker threads, pinned one per CPU, physical cores before SMT siblings" },
    { .long_name = "reps", .short_name = 'r', .type = MB_OPT_INT, .offset = OFF(reps), .min = 1,
      .max = 1000, .metavar = "N", .def = "5",
      .help = "repetitions per measurement (median, min, max, CV reported)" },
    { .long_name = "hugepages", .type = MB_OPT_CHOICE, .offset = OFF(hugepages),
      .choices = "never|thp|madvise", .def = "never",
      .help = "never: MADV_NOHUGEPAGE; thp: the system THP policy; madvise: MADV_HUGEPAGE" },
    { .long_name = "cpunodebind", .type = MB_OPT_STRING, .offset = OFF(cpunodebind),
      .metavar = "NODES", .help = "run on the CPUs of these NUMA nodes (numactl syntax)" },
    { .long_name = "membind", .type = MB_OPT_STRING, .offset = OFF(membind), .metavar = "NODES",
      .help = "allocate memory only on these NUMA nodes" },
    { .long_name = "interleave", .type = MB_OPT_STRING, .offset = OFF(interleave),
      .metavar = "NODES", .help = "interleave memory over these NUMA nodes ('all')" },
    { .long_name = "counters", .type = MB_OPT_STRING, .offset = OFF(counters),
      .optional_arg = true, .metavar = "LIST",
      .help = "hardware counters (PAPI names; default: cycles, instructions, LLC and dTLB "
              "misses)" },
    { .long_name = "format", .short_name = 'f', .type = MB_OPT_CHOICE, .offset = OFF(format),
      .choices = "text|json|csv", .def = "text", .help = "output format" },
    { .long_name = "output", .short_name = 'O', .type = MB_OPT_STRING, .offset = OFF(output),
      .metavar = "FILE", .def = "stdout", .help = "write the result to FILE (atomically)" },
    { .long_name = "seed", .type = MB_OPT_INT, .offset = OFF(seed), .min = 0, .max = 0,
      .metavar = "N", .def = "1", .help = "seed of the random permutations and addresses" },
    { .long_name = "strict", .type = MB_OPT_FLAG, .offset = OFF(strict),
      .help = "refuse (exit 2) a working set under 4x the LLC instead of running it with a "
              "warning, labelled not-standard" },
    { .long_name = "allow-cache", .type = MB_OPT_FLAG, .offset = OFF(allow_cache),
      .help = "accepted for old scripts; does nothing (an explicit size always runs)" },
    { .long_name = "llc", .type = MB_OPT_STRING, .offset = OFF(llc), .metavar = "SIZE",
      .def = "detected", .help = "last-level cache size to use for the size rule" },
    { .long_name = "dry-run", .type = MB_OPT_FLAG, .offset = OFF(dry_run),
      .help = "print the resolved plan (size, threads, CPUs) and exit" },
    { .long_name = "quiet", .short_name = 'q', .type = MB_OPT_FLAG, .offset = OFF(quiet),
      .help = "no progress notes or warnings on stderr" },
    { .long_name = "help", .short_name = 'h', .type = MB_OPT_FLAG, .offset = OFF(help),
      .help = "show this help" },
    { .long_name = "version", .short_name = 'V', .type = MB_OPT_FLAG, .offset = OFF(version),
      .help = "show version and build" },
    /* randread */
    { .long_name = "chains", .type = MB_OPT_INT, .offset = OFF(chains), .min = 1,
      .max = MC_MAX_CHAINS, .metavar = "K", .def = "1",
      .help = "randread: independent chains per thread (memory-level parallelism)" },
    { .long_name = "tlb-locality", .type = MB_OPT_INT, .offset = OFF(tlb_pages), .min = 0,
      .max = 1LL << 30, .metavar = "PAGES", .def = "64, as multichase",
      .help = "randread: hops stay inside groups of PAGES 4 KiB pages (the DRAM latency "
              "people quote); the full-random latency is measured too; 0: full random only" },
    { .long_name = "stride", .type = MB_OPT_INT, .offset = OFF(stride_bytes), .min = 8,
      .max = 1LL << 20, .metavar = "BYTES", .def = "256, as multichase",
      .help = "randread: bytes between chase nodes (a multiple of 8; 128 or more keeps the "
              "adjacent-line prefetcher from serving the next hop)" },
    { .long_name = "sweep", .type = MB_OPT_FLAG, .offset = OFF(sweep),
      .help = "randread: latency curve from 16 KiB to --size by powers of two" },
    /* mixed, concurrent */
    { .long_name = "read-pct", .type = MB_OPT_INT, .offset = OFF(read_pct), .min = 0,
      .max = 100, .metavar = "P", .def = "70",
      .help = "mixed, concurrent: percentage of accesses that are loads" },
    { .long_name = "pattern", .type = MB_OPT_CHOICE, .offset = OFF(pattern),
      .choices = "random|sequential", .def = "random", .help = "mixed: access order" },
    /* concurrent */
    { .long_name = "procs", .short_name = 'p', .type = MB_OPT_INT, .offset = OFF(procs),
      .min = 1, .max = MC_MAX_PROCS, .metavar = "N", .def = "one per physical core",
      .help = "concurrent: worker processes, each with its own buffer of size/N" },
    { .long_name = "duration", .type = MB_OPT_DOUBLE, .offset = OFF(duration_s), .dmin = 0.01,
      .dmax = 31536000, .metavar = "SECONDS", .def = "10",
      .help = "concurrent: run time; stability: run time instead of --iterations" },
    /* stability */
    { .long_name = "iterations", .type = MB_OPT_INT, .offset = OFF(iterations), .min = 1,
      .max = 1000000, .metavar = "N", .def = "30 (10 under 'run all')",
      .help = "stability: samples to take" },
    { .long_name = "interval", .type = MB_OPT_DOUBLE, .offset = OFF(interval_s), .dmin = 0.01,
      .dmax = 86400, .metavar = "SECONDS", .def = "10 (1 under 'run all')",
      .help = "stability: time between bandwidth samples" },
};
#define NOPTIONS (sizeof options / sizeof options[0])

const mb_opt_t *mc_options(size_t *n)
{
    *n = NOPTIONS;
    return options;
}

void mc_opts_defaults(mc_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->size_bytes = MC_DEFAULT_SIZE_BYTES;
    o->reps = 5;
    o->hugepages = "never";
    o->format = "text";
    o->seed = 1;
    o->chains = 1;
    o->tlb_pages = MC_DEFAULT_TLB_PAGES;
    o->stride_bytes = MC_DEFAULT_STRIDE_BYTES;
    o->read_pct = 70;
    o->pattern = "random";
    o->duration_s = 10;
    o->iterations = 30;
    o->interval_s = 10;
}

bool mc_opt_seen(const mc_config_t *cfg, const char *long_name)
{
    int i = mb_opts_index(options, NOPTIONS, long_name);
    return i >= 0 && cfg->seen && cfg->seen[i];
}

/* ---- caches ----------------------------------------------------------- */

/* "48K", "1024K", "32M" as sysfs writes them. */
static size_t parse_cache_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    switch (*end) {
    case 'K': return (size_t)v << 10;
    case 'M': return (size_t)v << 20;
    case 'G': return (size_t)v << 30;
    default: return (size_t)v;
    }
}

/* L1d and L2 of cpu0 from <sysfs>/devices/system/cpu/cpu0/cache/index*. */
static void caches_from_sysfs(mc_caches_t *c)
{
    for (int i = 0; i < 16; i++) {
        char rel[96], path[4096], level[16], type[32], size[32];
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu0/cache/index%d/level", i);
        if (mb_read_line(mb_sysfs_path(path, sizeof path, rel), level, sizeof level) != 0)
            continue;
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu0/cache/index%d/type", i);
        if (mb_read_line(mb_sysfs_path(path, sizeof path, rel), type, sizeof type) != 0)
            continue;
        snprintf(rel, sizeof rel, "/devices/system/cpu/cpu0/cache/index%d/size", i);
        if (mb_read_line(mb_sysfs_path(path, sizeof path, rel), size, sizeof size) != 0)
            continue;
        if (strcmp(type, "Instruction") == 0)
            continue;
        size_t bytes = parse_cache_size(size);
        if (strcmp(level, "1") == 0 && bytes) {
            c->l1d_bytes = bytes;
            c->l1d_source = "sysfs";
        } else if (strcmp(level, "2") == 0 && bytes) {
            c->l2_bytes = bytes;
            c->l2_source = "sysfs";
        }
    }
}

int mc_caches_detect(const char *llc_override, mc_caches_t *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    c->l1d_source = c->l2_source = "unknown";
    caches_from_sysfs(c);
    if (!c->l1d_bytes) {
        long v = sysconf(_SC_LEVEL1_DCACHE_SIZE);
        if (v > 0) {
            c->l1d_bytes = (size_t)v;
            c->l1d_source = "sysconf";
        }
    }
    if (!c->l2_bytes) {
        long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
        if (v > 0) {
            c->l2_bytes = (size_t)v;
            c->l2_source = "sysconf";
        }
    }
    return mb_llc_detect(llc_override, &c->llc, err, errlen);
}

const char *mc_cache_level(const mc_caches_t *c, size_t per_thread, size_t total)
{
    if (c->l1d_bytes && per_thread <= c->l1d_bytes)
        return "L1";
    if (c->l2_bytes && per_thread <= c->l2_bytes)
        return "L2";
    if (c->llc.total_bytes && total <= c->llc.total_bytes)
        return c->llc.level == 2 ? "L2" : c->llc.level == 4 ? "L4" : "L3";
    if (!c->llc.total_bytes)
        return "unknown";
    return "DRAM";
}

/* ---- resolution -------------------------------------------------------- */

static void cfg_warn(mc_config_t *cfg, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void cfg_warn(mc_config_t *cfg, const char *fmt, ...)
{
    if (cfg->nwarn >= sizeof cfg->warn / sizeof cfg->warn[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cfg->warn[cfg->nwarn++], sizeof cfg->warn[0], fmt, ap);
    va_end(ap);
}

static const struct {
    const char *name;
    mc_hugepages_t hp;
} hugepage_modes[] = {
    { "never", MC_HP_NEVER }, { "thp", MC_HP_THP }, { "madvise", MC_HP_MADVISE },
};

static int resolve_threads(mc_config_t *cfg, char *msg, size_t msglen)
{
    /* not the calling thread's mask: OMP_PROC_BIND narrows it to one place */
    int rc = mb_affinity_process_mask(&cfg->orig_mask);
    if (rc < 0) {
        snprintf(msg, msglen, "cannot read the CPU affinity mask: %s", strerror(-rc));
        return 3;
    }
    cfg->ncpus_allowed = CPU_COUNT(&cfg->orig_mask);
    static int extra[MB_MAX_THREADS];
    int nextra = 0;
    char why[256];
    cfg->ncores = mc_physical_cpus(&cfg->orig_mask, cfg->cpu, MB_MAX_THREADS, extra, &nextra, why,
                                   sizeof why);
    if (cfg->ncores <= 0) {
        snprintf(msg, msglen, "no CPU is available to this process");
        return 3;
    }
    if (why[0])
        cfg_warn(cfg, "%s", why);
    if (!mc_opt_seen(cfg, "threads")) {
        cfg->nthreads = cfg->ncores;
        snprintf(cfg->threads_how, sizeof cfg->threads_how,
                 "one per physical core (%d cores among %d allowed CPUs%s)", cfg->ncores,
                 cfg->ncpus_allowed, nextra ? "; SMT siblings left idle" : "");
        return 0;
    }
    int n = (int)cfg->o.threads;
    cfg->nthreads = n;
    if (n <= cfg->ncores) {
        snprintf(cfg->threads_how, sizeof cfg->threads_how, "--threads %d on %d physical cores", n,
                 cfg->ncores);
        return 0;
    }
    /* more threads than cores: SMT siblings next, then wrap around */
    int have = cfg->ncores;
    for (int i = 0; i < nextra && have < n; i++)
        cfg->cpu[have++] = extra[i];
    int base = have;
    for (int i = have; i < n; i++)
        cfg->cpu[i] = cfg->cpu[(i - base) % base];
    snprintf(cfg->threads_how, sizeof cfg->threads_how,
             "--threads %d exceeds the %d physical cores: %s", n, cfg->ncores,
             n <= cfg->ncores + nextra ? "SMT siblings used" : "CPUs oversubscribed");
    cfg_warn(cfg, "--threads %d exceeds the %d physical cores; %s; figures are not comparable "
             "with one thread per core", n, cfg->ncores,
             n <= cfg->ncores + nextra ? "SMT siblings share a core" : "CPUs run several threads");
    return 0;
}

/* mb_rule_suggest_fn: --size in whole MiB, rounded up. */
static void suggest_size(size_t min_bytes, const void *ctx, char *buf, size_t buflen)
{
    (void)ctx;
    snprintf(buf, buflen, "--size %zuMiB", min_bytes / (1u << 20) + (min_bytes % (1u << 20) != 0));
}

/* The 4x LLC rule (mb_size_rule): under it, or with the LLC unknown, the
 * run is labelled not-standard with a warning; --strict refuses (2). */
static int apply_size_rule(mc_config_t *cfg, char *msg, size_t msglen)
{
    char given[96], a[32];
    mb_rule_t rule;

    if (cfg->size_default)
        snprintf(given, sizeof given, "--size not given (%s)",
                 mb_format_bytes(cfg->size_bytes, a, sizeof a));
    else
        snprintf(given, sizeof given, "--size %s", mb_format_bytes(cfg->size_bytes, a, sizeof a));
    mb_rule_query_t q = { &cfg->caches.llc, cfg->size_bytes, "the working set", given,
                          cfg->o.strict, suggest_size, NULL };
    switch (mb_size_rule(&q, &rule)) {
    case MB_RULE_MET:
        return 0;
    case MB_RULE_REFUSED:
        snprintf(msg, msglen, "%s", rule.message);
        return 2;
    case MB_RULE_UNCHECKED:
    case MB_RULE_UNDER:
        cfg->cache_resident = true;
        snprintf(cfg->size_reason, sizeof cfg->size_reason, "%s", rule.message);
        cfg_warn(cfg, "%s", rule.message);
        return 0;
    }
    return 0;
}

static int resolve_size(mc_config_t *cfg, char *msg, size_t msglen)
{
    char a[32], b[32], c[32];
    int rc;
    const mb_llc_t *llc = &cfg->caches.llc;
    size_t avail = 0;
    bool avail_known = mb_mem_available(&avail) == 0;
    cfg->mem_available_bytes = avail_known ? avail : 0;
    cfg->size_default = !mc_opt_seen(cfg, "size");

    if (cfg->size_default) {
        size_t size = MC_DEFAULT_SIZE_BYTES, eight;
        const char *why = "default 8 GiB";
        if (llc->total_bytes && mb_mul_size(llc->total_bytes, MC_SIZE_RULE_FACTOR, &eight)
            && eight > size) {
            size = eight;
            why = "raised to 8x LLC";
        }
        snprintf(cfg->size_how, sizeof cfg->size_how, "%s", why);
        if (avail_known && size > avail / 2) {
            size_t half = (avail / 2) & ~((size_t)(1 << 20) - 1);
            cfg_warn(cfg, "--size: the default %s (%s) exceeds half of MemAvailable (%s); "
                     "clamped to %s", mb_format_bytes(size, a, sizeof a), why,
                     mb_format_bytes(avail, b, sizeof b), mb_format_bytes(half, c, sizeof c));
            snprintf(cfg->size_how, sizeof cfg->size_how, "%s, clamped to MemAvailable/2", why);
            size = half;
        }
        cfg->size_bytes = size;
    } else {
        cfg->size_bytes = cfg->o.size_bytes;
        snprintf(cfg->size_how, sizeof cfg->size_how, "--size");
    }
    if ((rc = apply_size_rule(cfg, msg, msglen)) != 0)
        return rc;
    if (avail_known && !mb_fits_in_memory(cfg->size_bytes, avail, msg, msglen)) {
        char tmp[512];
        snprintf(tmp, sizeof tmp, "--size %s: %s", mb_format_bytes(cfg->size_bytes, a, sizeof a),
                 msg);
        snprintf(msg, msglen, "%s", tmp);
        return 3;
    }
    return 0;
}

int mc_config_resolve(mc_config_t *cfg, bool running_all, bool with_stability, char *msg,
                      size_t msglen)
{
    const mc_opts_t *o = &cfg->o;
    int rc;
    if (mb_format_parse(o->format, &cfg->format) != 0) {
        snprintf(msg, msglen, "--format: invalid value '%s'; use text, json or csv", o->format);
        return 2;
    }
    for (size_t i = 0; i < sizeof hugepage_modes / sizeof hugepage_modes[0]; i++)
        if (strcmp(o->hugepages, hugepage_modes[i].name) == 0)
            cfg->hugepages = hugepage_modes[i].hp;

    /* counters: check the list now so a typo is a usage error */
    cfg->counters_on = mc_opt_seen(cfg, "counters");
    cfg->counters_list = cfg->counters_on ? (o->counters ? o->counters : "default") : NULL;
    if (mb_counters_check_list(cfg->counters_list, msg, msglen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", msg);
        snprintf(msg, msglen, "--counters: %s", why);
        return 2;
    }

    /* NUMA: validate, and apply before threads are chosen and memory is touched */
    cfg->numa.cpunodebind = o->cpunodebind;
    cfg->numa.membind = o->membind;
    cfg->numa.interleave = o->interleave;
    rc = mb_numa_check_request(&cfg->numa, msg, msglen);
    if (rc == -ENOSYS)
        return 4;
    if (rc != 0)
        return 2;
    if (!o->dry_run) {
        rc = mb_numa_apply(&cfg->numa, msg, msglen);
        if (rc == -ENOSYS)
            return 4;
        if (rc == -EINVAL)
            return 2;
        if (rc != 0)
            return 3;
    }
    mb_numa_describe(&cfg->numa, cfg->numa_desc, sizeof cfg->numa_desc);

    if ((rc = resolve_threads(cfg, msg, msglen)) != 0)
        return rc;

    char err[256];
    if (mc_caches_detect(o->llc, &cfg->caches, err, sizeof err) != 0) {
        snprintf(msg, msglen, "%s", err);
        return 2;
    }
    if ((rc = resolve_size(cfg, msg, msglen)) != 0)
        return rc;
    if (cfg->size_bytes / (size_t)cfg->nthreads < 4096) {
        char a[32];
        snprintf(msg, msglen, "--size %s is too small for %d threads: each needs at least 4 KiB; "
                 "pass a larger --size or fewer --threads",
                 mb_format_bytes(cfg->size_bytes, a, sizeof a), cfg->nthreads);
        return 2;
    }

    cfg->seed = (uint64_t)o->seed;
    cfg->reps = (int)o->reps;
    cfg->chains = (int)o->chains;
    cfg->tlb_pages = (size_t)o->tlb_pages;
    if (o->stride_bytes % (long long)sizeof(void *) != 0) {
        snprintf(msg, msglen, "--stride %lld: expected a multiple of %zu bytes (a pointer), "
                 "e.g. 256", o->stride_bytes, sizeof(void *));
        return 2;
    }
    cfg->stride_bytes = (size_t)o->stride_bytes;
    cfg->sweep = o->sweep;
    cfg->read_pct = (int)o->read_pct;
    cfg->pattern_random = strcmp(o->pattern, "random") == 0;

    /* concurrent */
    cfg->procs = mc_opt_seen(cfg, "procs") ? (int)o->procs : cfg->ncores;
    if (cfg->procs > MC_PROCS_PER_CPU * cfg->ncpus_allowed) {
        snprintf(msg, msglen, "--procs %d is more than %d per allowed CPU (%d CPUs); use at most "
                 "%d", cfg->procs, MC_PROCS_PER_CPU, cfg->ncpus_allowed,
                 MC_PROCS_PER_CPU * cfg->ncpus_allowed);
        return 2;
    }
    if (cfg->size_bytes / (size_t)cfg->procs < 4096) {
        snprintf(msg, msglen, "--procs %d: each process needs at least 4 KiB of --size", cfg->procs);
        return 2;
    }
    /* More threads or processes than allowed CPUs time-share the cores:
     * not a standard figure (stream labels it the same way). */
    if (cfg->nthreads > cfg->ncpus_allowed)
        snprintf(cfg->oversub_threads, sizeof cfg->oversub_threads, "%d threads on %d allowed "
                 "CPUs: oversubscribed, not a standard result", cfg->nthreads, cfg->ncpus_allowed);
    if (cfg->procs > cfg->ncpus_allowed)
        snprintf(cfg->oversub_procs, sizeof cfg->oversub_procs, "--procs %d on %d allowed CPUs: "
                 "oversubscribed, not a standard result", cfg->procs, cfg->ncpus_allowed);
    cfg->duration_s = o->duration_s;

    /* stability: samples x interval, or --duration / --interval */
    bool it = mc_opt_seen(cfg, "iterations"), iv = mc_opt_seen(cfg, "interval"),
         du = mc_opt_seen(cfg, "duration");
    cfg->interval_s = o->interval_s;
    cfg->iterations = (int)o->iterations;
    if (running_all && !it && !iv && !du) {
        cfg->stability_short = true;
        cfg->iterations = 10;
        cfg->interval_s = 1;
        snprintf(cfg->stability_how, sizeof cfg->stability_how,
                 "short profile under 'run all': 10 samples x 1 s; pass --iterations/--interval "
                 "for the full 30 x 10 s run");
    } else if (du && !it && with_stability) {
        if (cfg->interval_s > o->duration_s) {
            snprintf(msg, msglen, "--interval %g is longer than the run (--duration %g): no sample "
                     "would be taken; use an interval of at most %g s", cfg->interval_s,
                     o->duration_s, o->duration_s);
            return 2;
        }
        cfg->iterations = (int)floor(o->duration_s / cfg->interval_s);
        snprintf(cfg->stability_how, sizeof cfg->stability_how,
                 "--duration %g s / --interval %g s = %d samples", o->duration_s, cfg->interval_s,
                 cfg->iterations);
    } else {
        if (with_stability && du && it && cfg->interval_s > o->duration_s) {
            snprintf(msg, msglen, "--interval %g is longer than the run (--duration %g)",
                     cfg->interval_s, o->duration_s);
            return 2;
        }
        snprintf(cfg->stability_how, sizeof cfg->stability_how, "%d samples x %g s", cfg->iterations,
                 cfg->interval_s);
    }
    return 0;
}
