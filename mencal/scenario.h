/* scenario: the descriptor each mencal/sc-<name>.c ends with, and the
 * registry (registry.c) expanded from scenarios.h.
 *
 * A scenario owns, in its own file: its option table (offsets into its
 * own conf struct), that struct's defaults, the validation of its values
 * once the common configuration is known, its object in the JSON
 * "config", its lines of --dry-run, and run(), which measures (through
 * measure.h for thread-team scenarios), fills an mc_result_t and never
 * prints.  Registering it is one X(<name>) line in scenarios.h. */
#ifndef MC_SCENARIO_H
#define MC_SCENARIO_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config.h"
#include "opts.h"
#include "result.h"

struct mb_json;

/* The command line of a scenario with its own parser: argv[0] is the
 * program, argv[first] the scenario's name; its options follow. */
typedef struct {
    int argc;
    char **argv;
    int first;
} mc_cmdline_t;

typedef struct mc_scenario {
    const char *name;
    const char *summary;
    /* Its options: entries whose offsets are into its conf struct, of
     * conf_size bytes, which starts with each entry's def (the table holds
     * the defaults).  An option another scenario also declares (same long
     * name, same type, same def) is shown once, at the first scenario in
     * registry order. */
    const mb_opt_t *opts;
    size_t nopts;
    size_t conf_size;
    /* Optional: checks and completes the conf once the common
     * configuration (size, threads, CPUs) is resolved.  Called for every
     * registered scenario, selected or not (the JSON config shows each).
     * 0, or an MB_EXIT_* code with msg. */
    int (*resolve)(void *conf, mc_config_t *cfg, char *msg, size_t msglen);
    /* Optional: members of its object in the JSON "config". */
    void (*config_json)(struct mb_json *j, const void *conf);
    /* Optional: its lines of `mencal run --dry-run`. */
    void (*plan)(FILE *f, const void *conf);
    /* Optional: why the run is not standard once this scenario has run
     * (e.g. oversubscribed), or NULL; a label reason of the whole run. */
    const char *(*not_standard)(const void *conf);
    /* Optional (NULL: it can run anywhere): 0 when it can run here;
     * otherwise an exit code (3 resource, 4 not built) and why. */
    int (*supported)(const mc_config_t *cfg, char *why, size_t whylen);
    /* Measure; fill res; never print.  0, or an exit code with res->why. */
    int (*run)(const mc_config_t *cfg, const void *conf, mc_result_t *res);
    /* Optional: a scenario with its own command line.  When the first word
     * after `run` names it, main hands it the whole command line with the
     * signal flag installed, and exits with what it returns. */
    int (*cli)(const mc_cmdline_t *cmd, const volatile sig_atomic_t *stop);
} mc_scenario_t;

/* The option members of a descriptor: a table and its conf type, e.g.
 * MC_SCENARIO_OPTIONS(fill_opts, fill_conf_t). */
#define MC_SCENARIO_OPTIONS(table, conf_type)                                      \
    .opts = (table), .nopts = sizeof(table) / sizeof((table)[0]), .conf_size = sizeof(conf_type)

/* Options several scenarios declare, written once so that their copies
 * agree (same name, type, range, default and help; the joined table
 * shows the first).  conf_t and field: the scenario's conf struct. */
#define MC_OPT_READ_PCT(conf_t, field)                                                \
    { .long_name = "read-pct", .type = MB_OPT_INT, .offset = offsetof(conf_t, field), \
      .min = 0, .max = 100, .metavar = "P", .def = "70",                           \
      .help = "mixed, concurrent: percentage of accesses that are loads" }
#define MC_OPT_DURATION(conf_t, field)                                                \
    { .long_name = "duration", .type = MB_OPT_DOUBLE, .offset = offsetof(conf_t, field), \
      .dmin = 0.01, .dmax = 31536000, .metavar = "SECONDS", .def = "10",           \
      .help = "concurrent: run time; stability: run time instead of --iterations" }
#define MC_OPT_TLB_LOCALITY(conf_t, field)                                            \
    { .long_name = "tlb-locality", .type = MB_OPT_INT, .offset = offsetof(conf_t, field), \
      .min = 0, .max = 1LL << 30, .metavar = "PAGES", .def = "64",                 \
      .def_text = "64, as multichase",                                             \
      .help = "randread: hops stay inside groups of PAGES base pages (4 KiB on x86-64, the page size in the result's facts; the DRAM latency " \
              "people quote); the full-random latency is measured too; 0: full random only" }
#define MC_OPT_STRIDE(conf_t, field)                                                  \
    { .long_name = "stride", .type = MB_OPT_INT, .offset = offsetof(conf_t, field),   \
      .min = 8, .max = 1LL << 20, .metavar = "BYTES", .def = "256",                \
      .def_text = "256, as multichase",                                            \
      .help = "randread: bytes between chase nodes (a multiple of 8; 128 or more keeps the " \
              "adjacent-line prefetcher from serving the next hop)" }
/* The kernel variant chosen by measurement (kcalib.h); each scenario checks
 * the names against its own kernels' families in resolve(). */
/* The non-temporal store variants of this binary's architecture (storekern.c). */
#if defined(__x86_64__)
#define MC_STORE_NT_NAMES "v16nt v32nt v64nt"
#elif defined(__aarch64__)
#define MC_STORE_NT_NAMES "neonnt svent"
#else
#define MC_STORE_NT_NAMES "(none here)"
#endif
#define MC_OPT_KERNEL_VARIANT(conf_t, field)                                          \
    { .long_name = "kernel-variant", .type = MB_OPT_STRING, .offset = offsetof(conf_t, field), \
      .metavar = "auto|NAME[,NAME]", .def = "auto",                                \
      .help = "seqread, sweep, loaded: the kernel variant (read: v16x4 v32x4 v32x8 v64x4 "  \
              "v64x8 v32x4pf v64x4pf, vector bytes x accumulators, pf: software prefetch; " \
              "write and copy: v16 v32 v64 " MC_STORE_NT_NAMES ", nt: non-temporal stores), at " \
              "most one per family; auto: the fastest in a short calibration on this "      \
              "machine at this size" }
#define MC_OPT_KERNEL_CALIBRATION(conf_t, field)                                      \
    { .long_name = "kernel-calibration", .type = MB_OPT_DOUBLE, .offset = offsetof(conf_t, field), \
      .dmin = 0, .dmax = 1, .metavar = "SECONDS", .def = "1",                      \
      .help = "seqread, sweep, loaded: most time the calibration of --kernel-variant auto " \
              "may take (it also takes at most 5% of the run); 0: no calibration, the "     \
              "default variant" }
/* One chart file: main refuses it when two selected scenarios take it. */
#define MC_OPT_PLOT(conf_t, field)                                                    \
    { .long_name = "plot", .type = MB_OPT_STRING, .offset = offsetof(conf_t, field),  \
      .metavar = "FILE",                                                           \
      .help = "loaded, sweep: also write a PNG of the curve to FILE (drawn by memsuite-analyse) (one of them " \
              "per run)" }
#define MC_OPT_CHAIN_LAYOUT(conf_t, field)                                            \
    { .long_name = "chain-layout", .type = MB_OPT_CHOICE, .offset = offsetof(conf_t, field), \
      .choices = MC_CHAIN_LAYOUT_CHOICES, .def = "multichase",                     \
      .help = "randread, loaded: where a node lies in its slot: multichase (its default "     \
              "layout: a word from a random mixer table, every chain over every slot) or "   \
              "tuned (a hashed line per slot, chains interleaved; not multichase's figure)" }

size_t mc_scenario_count(void);
const mc_scenario_t *mc_scenario_at(size_t i);
const mc_scenario_t *mc_scenario_find(const char *name);
/* "seqread, randread, ..." */
const char *mc_scenario_names(char *buf, size_t buflen);
bool mc_scenario_accepts(const mc_scenario_t *sc, const char *opt);

#endif
