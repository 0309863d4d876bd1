/* config: mencal's common options, the command line joined from them and
 * each scenario's table, and the resolution of a run's configuration
 * (size rule, threads on physical cores, caches, NUMA binding). */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "affinity.h"
#include "counters.h"
#include "config.h"
#include "memnodes.h"
#include "exitcodes.h"
#include "scenario.h"
#include "team.h"

#define OFF(f) offsetof(mc_opts_t, f)


static const mb_opt_t options[] = {
    /* common */
    { .long_name = "size", .short_name = 's', .type = MB_OPT_SIZE, .offset = OFF(size_bytes),
      .min = 16384, .metavar = "SIZE",
      .def = "8GiB", .def_text = "8GiB, raised to 8x LLC, at most MemAvailable/2",
      .help = "working set per scenario (split between threads or processes)" },
    { .long_name = "threads", .short_name = 't', .type = MB_OPT_INT, .offset = OFF(threads),
      .min = 1, .max = MB_MAX_THREADS, .metavar = "N", .def_text = "one per physical core",
      .help = "worker threads, pinned one per CPU, physical cores before SMT siblings" },
    { .long_name = "reps", .short_name = 'r', .type = MB_OPT_INT, .offset = OFF(reps), .min = 1,
      .max = 1000, .metavar = "N", .def = "5",
      .help = "repetitions per measurement (median, min, max, CV reported)" },
    { .long_name = "hugepages", .type = MB_OPT_CHOICE, .offset = OFF(hugepages),
      .choices = MC_HUGEPAGES_CHOICES, .def = "thp",
      .help = "thp: no advice, the system THP policy decides (as for any program); never: "
              "MADV_NOHUGEPAGE; madvise: MADV_HUGEPAGE (never and madvise are tuned)" },
    { .long_name = "buffer", .type = MB_OPT_CHOICE, .offset = OFF(buffer),
      .choices = MC_BUFFER_CHOICES, .def = "mmap",
      .help = "mmap: a 2 MiB aligned mapping of its own, the allocator plays no part; malloc: "
              "the process's allocator (GLIBC_TUNABLES, LD_PRELOAD) provides it" },
    { .long_name = "cpunodebind", .type = MB_OPT_STRING, .offset = OFF(cpunodebind),
      .metavar = "NODES", .help = "run on the CPUs of these NUMA nodes (numactl syntax)" },
    { .long_name = "membind", .type = MB_OPT_STRING, .offset = OFF(membind), .metavar = "NODES",
      .help = "allocate memory only on these NUMA nodes" },
    { .long_name = "interleave", .type = MB_OPT_STRING, .offset = OFF(interleave),
      .metavar = "NODES", .help = "interleave memory over these NUMA nodes ('all')" },
    { .long_name = "interleave-weights", .type = MB_OPT_STRING, .offset = OFF(interleave_weights),
      .metavar = "NODE:W,...", .help = "spread the measured buffer's pages over nodes by weight "
      "(0:3,2:1: three on node 0 per one on node 2); tuned" },
    { .long_name = "counters", .type = MB_OPT_STRING, .offset = OFF(counters),
      .optional_arg = true, .metavar = "LIST",
      .help = "events counted on every thread or worker (PAPI or perf names, e.g. "
              "cycles,task-clock; default: cycles, instructions, LLC and dTLB misses)" },
    { .long_name = "format", .short_name = 'f', .type = MB_OPT_CHOICE, .offset = OFF(format),
      .choices = MB_FORMAT_CHOICES, .def = "text", .help = "output format" },
    { .long_name = "output", .short_name = 'O', .type = MB_OPT_STRING, .offset = OFF(output),
      .metavar = "FILE", .def_text = "stdout", .help = "write the result to FILE (atomically)" },
    { .long_name = "random-state", .type = MB_OPT_INT, .offset = OFF(random_state), .min = 0,
      .max = 0, .metavar = "N", .def = "1",
      .help = "where the random generator starts: equal N, equal permutations and addresses "
              "(the multichase layout's mixer table is the one multichase draws from start N; "
              "its own start is 1)" },
    { .long_name = "strict", .type = MB_OPT_FLAG, .offset = OFF(strict),
      .help = "refuse (exit 2) a working set under 4x the LLC instead of running it with a "
              "warning, labelled not-standard" },
    { .long_name = "allow-cache", .type = MB_OPT_FLAG, .offset = OFF(allow_cache),
      .help = "accepted for old scripts; does nothing (an explicit size always runs)" },
    { .long_name = "llc", .type = MB_OPT_STRING, .offset = OFF(llc), .metavar = "SIZE",
      .def_text = "detected", .help = "last-level cache size to use for the size rule" },
    { .long_name = "dry-run", .type = MB_OPT_FLAG, .offset = OFF(dry_run),
      .help = "print the resolved plan (size, threads, CPUs) and exit" },
    { .long_name = "plan", .type = MB_OPT_FLAG, .offset = OFF(plan),
      .help = "print what would run and the checks' verdicts (4x LLC rule, memory fit, "
              "threads, label) with --format text or json, then exit with the code the run "
              "would have (0, or its refusal: 2, 3, 4); nothing is allocated or measured" },
    { .long_name = "quiet", .short_name = 'q', .type = MB_OPT_FLAG, .offset = OFF(quiet),
      .help = "no progress notes or warnings on stderr" },
    { .long_name = "help", .short_name = 'h', .type = MB_OPT_FLAG, .offset = OFF(help),
      .help = "show this help" },
    { .long_name = "version", .short_name = 'V', .type = MB_OPT_FLAG, .offset = OFF(version),
      .help = "show version and build" },
};
#define NOPTIONS (sizeof options / sizeof options[0])

/* ---- the joined command line ------------------------------------------ */

static size_t align_up(size_t v)
{
    const size_t a = _Alignof(max_align_t);
    return (v + a - 1) / a * a;
}

/* Bytes a table entry stores (for copying a shared option's value). */
static size_t opt_bytes(mb_opt_type_t t)
{
    switch (t) {
    case MB_OPT_FLAG: return sizeof(bool);
    case MB_OPT_INT: return sizeof(long long);
    case MB_OPT_DOUBLE: return sizeof(double);
    case MB_OPT_SIZE:
    case MB_OPT_COUNT: return sizeof(size_t);
    case MB_OPT_CHOICE: return sizeof(int);
    case MB_OPT_STRING:
    case MB_OPT_CHOICE_STR: return sizeof(const char *);
    case MB_OPT_CALLBACK: return 0;
    }
    return 0;
}

int mc_cli_init(mc_cli_t *cli)
{
    const size_t nsc = mc_scenario_count();
    size_t nmax = NOPTIONS, bytes = align_up(sizeof(mc_opts_t));
    memset(cli, 0, sizeof *cli);
    cli->conf_off = calloc(nsc ? nsc : 1, sizeof *cli->conf_off);
    for (size_t s = 0; s < nsc; s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        nmax += sc->nopts;
        if (sc->conf_size) {
            cli->conf_off[s] = bytes;
            bytes += align_up(sc->conf_size);
        }
    }
    cli->table = calloc(nmax, sizeof *cli->table);
    cli->seen = calloc(nmax, sizeof *cli->seen);
    cli->store = calloc(1, bytes);
    if (!cli->conf_off || !cli->table || !cli->seen || !cli->store) {
        mc_cli_free(cli);
        return -ENOMEM;
    }
    /* every default from the tables themselves, the shared names' too */
    char msg[256];
    if (mb_opts_defaults(options, NOPTIONS, cli->store, msg, sizeof msg) != 0)
        return -EINVAL;
    memcpy(cli->table, options, sizeof options);
    cli->n = NOPTIONS;
    for (size_t s = 0; s < nsc; s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        if (sc->nopts && mb_opts_defaults(sc->opts, sc->nopts, cli->store + cli->conf_off[s], msg,
                                          sizeof msg) != 0)
            return -EINVAL;
        for (size_t k = 0; k < sc->nopts; k++) {
            mb_opt_t e = sc->opts[k];
            e.offset += cli->conf_off[s];
            int first = mb_opts_index(cli->table, cli->n, e.long_name);
            if (first < 0) {
                cli->table[cli->n++] = e;
            } else if (cli->nalias < sizeof cli->alias_to / sizeof cli->alias_to[0]) {
                /* a shared name: one entry, its value copied here too */
                cli->alias_from[cli->nalias] = (size_t)first;
                cli->alias_to[cli->nalias++] = e.offset;
            }
        }
    }
    return 0;
}

void mc_cli_free(mc_cli_t *cli)
{
    free(cli->table), free(cli->seen), free(cli->store), free(cli->conf_off);
    memset(cli, 0, sizeof *cli);
}

int mc_cli_parse(mc_cli_t *cli, int argc, char **argv, char **pos, int *npos, char *msg,
                 size_t msglen)
{
    mb_opts_out_t out = { .pos = pos, .seen = cli->seen };
    if (mb_opts_parse(cli->table, cli->n, argc, argv, cli->store, &out, msg, msglen) != 0)
        return MB_EXIT_USAGE;
    *npos = out.npos;
    for (size_t k = 0; k < cli->nalias; k++) {
        const mb_opt_t *e = &cli->table[cli->alias_from[k]];
        if (cli->seen[cli->alias_from[k]])
            memcpy(cli->store + cli->alias_to[k], cli->store + e->offset, opt_bytes(e->type));
    }
    return 0;
}

const mc_opts_t *mc_cli_opts(const mc_cli_t *cli)
{
    return (const mc_opts_t *)(const void *)cli->store;
}

void *mc_cli_conf(const mc_cli_t *cli, const mc_scenario_t *sc)
{
    for (size_t s = 0; s < mc_scenario_count(); s++)
        if (mc_scenario_at(s) == sc)
            return sc->conf_size ? cli->store + cli->conf_off[s] : NULL;
    return NULL;
}

bool mc_cli_seen(const mc_cli_t *cli, const char *long_name)
{
    int i = mb_opts_index(cli->table, cli->n, long_name);
    return i >= 0 && cli->seen[i];
}

bool mc_run_selects(const mc_config_t *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->nsel; i++)
        if (strcmp(cfg->sel[i]->name, name) == 0)
            return true;
    return false;
}

/* ---- caches ----------------------------------------------------------- */

/* A private cache of cpu0: sysfs (common/sizing's cache walk), else
 * sysconf, else unknown (0). */
static void private_cache(unsigned level, int sysconf_name, size_t *bytes, const char **source)
{
    long v;
    if (mb_cache_bytes(level, bytes) == 0) {
        *source = "sysfs";
    } else if ((v = sysconf(sysconf_name)) > 0) {
        *bytes = (size_t)v;
        *source = "sysconf";
    } else {
        *bytes = 0;
        *source = "unknown";
    }
}

int mc_caches_detect(const char *llc_override, mc_caches_t *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    private_cache(1, _SC_LEVEL1_DCACHE_SIZE, &c->l1d_bytes, &c->l1d_source);
    private_cache(2, _SC_LEVEL2_CACHE_SIZE, &c->l2_bytes, &c->l2_source);
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

void mc_config_warn(mc_config_t *cfg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    mc_lines_add(cfg->warn[0], sizeof cfg->warn[0], sizeof cfg->warn / sizeof cfg->warn[0], &cfg->nwarn,
             fmt, ap);
    va_end(ap);
}

void mc_config_record(mc_config_t *cfg, const char *line)
{
    if (cfg->nrecord < sizeof cfg->record / sizeof cfg->record[0])
        snprintf(cfg->record[cfg->nrecord++], sizeof cfg->record[0], "%s", line);
}

static int resolve_threads(mc_config_t *cfg, char *msg, size_t msglen)
{
    /* not the calling thread's mask: OMP_PROC_BIND narrows it to one place */
    int rc = mb_affinity_process_mask(&cfg->orig_mask);
    if (rc < 0) {
        snprintf(msg, msglen, "cannot read the CPU affinity mask: %s", strerror(-rc));
        return MB_EXIT_RESOURCE;
    }
    cfg->ncpus_allowed = CPU_COUNT(&cfg->orig_mask);
    static int extra[MB_MAX_THREADS];
    int nextra = 0;
    char why[256];
    cfg->ncores = mc_physical_cpus(&cfg->orig_mask, cfg->cpu, MB_MAX_THREADS, extra, &nextra, why,
                                   sizeof why);
    if (cfg->ncores <= 0) {
        snprintf(msg, msglen, "no CPU is available to this process");
        return MB_EXIT_RESOURCE;
    }
    if (why[0])
        mc_config_warn(cfg, "%s", why);
    if (!mc_opt_seen(cfg, "threads")) {
        cfg->nthreads = cfg->ncores;
        snprintf(cfg->threads_how, sizeof cfg->threads_how,
                 "one per physical core (%d cores among %d allowed CPUs%s)", cfg->ncores,
                 cfg->ncpus_allowed, nextra ? "; SMT siblings left idle" : "");
        return 0;
    }
    int n = (int)cfg->o->threads;
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
    mc_config_warn(cfg, "--threads %d exceeds the %d physical cores; %s; figures are not comparable "
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
                          cfg->o->strict, suggest_size, NULL };
    cfg->stage = "size_rule";
    mb_size_rule(&q, &rule);
    cfg->rule = rule;
    cfg->rule_checked = true;
    switch (rule.verdict) {
    case MB_RULE_MET:
        return 0;
    case MB_RULE_REFUSED:
        snprintf(msg, msglen, "%s", rule.message);
        return MB_EXIT_USAGE;
    case MB_RULE_UNCHECKED:
    case MB_RULE_UNDER:
        cfg->cache_resident = true;
        snprintf(cfg->size_reason, sizeof cfg->size_reason, "%s", rule.message);
        mc_config_warn(cfg, "%s", rule.message);
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
            mc_config_warn(cfg, "--size: the default %s (%s) exceeds half of MemAvailable (%s); "
                     "clamped to %s", mb_format_bytes(size, a, sizeof a), why,
                     mb_format_bytes(avail, b, sizeof b), mb_format_bytes(half, c, sizeof c));
            snprintf(cfg->size_how, sizeof cfg->size_how, "%s, clamped to MemAvailable/2", why);
            size = half;
        }
        cfg->size_bytes = size;
    } else {
        cfg->size_bytes = cfg->o->size_bytes;
        snprintf(cfg->size_how, sizeof cfg->size_how, "--size");
    }
    if ((rc = apply_size_rule(cfg, msg, msglen)) != 0)
        return rc;
    cfg->stage = "memory";
    cfg->fit = avail_known ? MB_FIT_FITS : MB_FIT_UNKNOWN;
    if (avail_known && !mb_fits_in_memory(cfg->size_bytes, avail, msg, msglen)) {
        cfg->fit = MB_FIT_REFUSED;
        snprintf(cfg->fit_msg, sizeof cfg->fit_msg, "%s", msg);
        char tmp[512];
        snprintf(tmp, sizeof tmp, "--size %s: %s", mb_format_bytes(cfg->size_bytes, a, sizeof a),
                 msg);
        snprintf(msg, msglen, "%s", tmp);
        return MB_EXIT_RESOURCE;
    }
    return 0;
}

int mc_config_resolve(mc_config_t *cfg, char *msg, size_t msglen)
{
    const mc_opts_t *o = cfg->o;
    int rc;
    cfg->format = (mb_format_t)o->format;   /* CHOICE indexes follow the enums */
    cfg->hugepages = (mc_hugepages_t)o->hugepages;
    cfg->buffer = (mc_buffer_kind_t)o->buffer;

    /* counters: check the list now so a typo is a usage error */
    cfg->stage = "counters";
    cfg->counters_on = mc_opt_seen(cfg, "counters");
    cfg->counters_list = cfg->counters_on ? (o->counters ? o->counters : "default") : NULL;
    if (mb_counters_check_list(cfg->counters_list, msg, msglen) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", msg);
        snprintf(msg, msglen, "--counters: %s", why);
        return MB_EXIT_USAGE;
    }

    /* the buffer takes one placement: a usage error before any is checked */
    cfg->stage = "numa";
    if (o->interleave_weights && (o->membind || o->interleave)) {
        snprintf(msg, msglen, "--interleave-weights and --%s conflict: the buffer takes one "
                 "placement", o->membind ? "membind" : "interleave");
        return MB_EXIT_USAGE;
    }
    /* NUMA: validate, and apply before threads are chosen and memory is touched */
    cfg->numa.cpunodebind = o->cpunodebind;
    cfg->numa.membind = o->membind;
    cfg->numa.interleave = o->interleave;
    rc = mb_numa_check_request(&cfg->numa, msg, msglen);
    if (rc == -ENOSYS)
        return MB_EXIT_UNBUILT;
    if (rc != 0)
        return MB_EXIT_USAGE;
    if (!o->dry_run) {
        rc = mb_numa_apply(&cfg->numa, msg, msglen);
        if (rc == -ENOSYS)
            return MB_EXIT_UNBUILT;
        if (rc == -EINVAL)
            return MB_EXIT_USAGE;
        if (rc != 0)
            return MB_EXIT_RESOURCE;
    }
    mb_numa_describe(&cfg->numa, cfg->numa_desc, sizeof cfg->numa_desc);
    if (o->interleave_weights) {
        if (mb_weights_parse(o->interleave_weights, mb_memnodes_usable_mask(), &cfg->weights, msg,
                             msglen) != 0)
            return MB_EXIT_USAGE;
        cfg->weights_on = true;
        char w[256];
        snprintf(cfg->numa_desc + strlen(cfg->numa_desc),
                 sizeof cfg->numa_desc - strlen(cfg->numa_desc), "; buffer weighted %s",
                 mb_weights_format(&cfg->weights, w, sizeof w));
    }

    cfg->stage = "threads";
    if ((rc = resolve_threads(cfg, msg, msglen)) != 0)
        return rc;

    cfg->stage = "llc";
    char err[256];
    if (mc_caches_detect(o->llc, &cfg->caches, err, sizeof err) != 0) {
        snprintf(msg, msglen, "%s", err);
        return MB_EXIT_USAGE;
    }
    if ((rc = resolve_size(cfg, msg, msglen)) != 0)
        return rc;
    cfg->stage = "size";
    if (cfg->size_bytes / (size_t)cfg->nthreads < 4096) {
        char a[32];
        snprintf(msg, msglen, "--size %s is too small for %d threads: each needs at least 4 KiB; "
                 "pass a larger --size or fewer --threads",
                 mb_format_bytes(cfg->size_bytes, a, sizeof a), cfg->nthreads);
        return MB_EXIT_USAGE;
    }

    cfg->random_state = (uint64_t)o->random_state;
    cfg->reps = (int)o->reps;
    /* More threads than allowed CPUs time-share the cores: not a standard
     * figure (stream labels it the same way). */
    if (cfg->nthreads > cfg->ncpus_allowed)
        snprintf(cfg->oversub_threads, sizeof cfg->oversub_threads, "%d threads on %d allowed "
                 "CPUs: oversubscribed, not a standard result", cfg->nthreads, cfg->ncpus_allowed);
    /* each scenario's own values, in registry order */
    for (size_t s = 0; s < mc_scenario_count(); s++) {
        const mc_scenario_t *sc = mc_scenario_at(s);
        cfg->stage = sc->name;
        if (sc->resolve && (rc = sc->resolve(mc_cli_conf(cfg->cli, sc), cfg, msg, msglen)) != 0)
            return rc;
    }
    cfg->stage = NULL;
    return 0;
}
