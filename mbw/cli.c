/* cli: mbw's short options (getopt "haqn:t:b:" semantics, mbw's texts)
 * and the long-option extensions from one mb_opt_t table. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "buildinfo.h"
#include "counters.h"
#include "log.h"
#include "numa.h"
#include "opts.h"
#include "report.h"
#include "sizing.h"

/* getopt_long returns MBW_LONG_BASE + table index for a long option. */
#define MBW_LONG_BASE 1000

/* ---- value parsing ------------------------------------------------- */

int mbw_parse_u64(const char *s, unsigned long long *v)
{
    unsigned long long x = 0;
    if (!s || !*s)
        return -EINVAL;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return -EINVAL;
    }
    for (const char *p = s; *p; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (__builtin_mul_overflow(x, 10ull, &x) || __builtin_add_overflow(x, digit, &x))
            return -ERANGE;
    }
    *v = x;
    return 0;
}

/* ---- short options: mbw's own -------------------------------------- */

/* A refused value: mbw's own line on stdout (mbw's users and scripts
 * know it, word for word), and under --strict a line on stderr that
 * names the option and the value given (escaped and cut by mb_shown),
 * with the exit code --strict documents. */
static int mbw_refuse(mbw_cfg_t *cfg, int *exit_code, const char *opt, const char *arg,
                      const char *mbw_line, const char *want)
{
    printf("%s\n", mbw_line);
    if (cfg->strict) {
        char shown[160];
        mb_error("%s '%s': %s (--strict)", opt, mb_shown(arg ? arg : "", 64, shown, sizeof shown),
                 want);
    }
    *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
    return 1;
}

typedef int (*mbw_short_fn)(mbw_cfg_t *cfg, const char *arg, int *exit_code);

typedef struct {
    char name;
    bool takes_arg;
    mbw_short_fn fn;      /* 0: go on; 1: stop with *exit_code */
    const char *def;      /* the default, given to fn by mbw_cfg_defaults; NULL: none */
} mbw_short_opt_t;

static int mbw_opt_help(mbw_cfg_t *cfg, const char *arg, int *exit_code)
{
    (void)cfg;
    (void)arg;
    mbw_cli_usage(stdout);
    *exit_code = MB_EXIT_FAIL;        /* mbw -h exits 1 */
    return 1;
}

static int mbw_opt_no_avg(mbw_cfg_t *cfg, const char *arg, int *exit_code)
{
    (void)arg;
    (void)exit_code;
    cfg->no_avg = true;
    return 0;
}

static int mbw_opt_quiet(mbw_cfg_t *cfg, const char *arg, int *exit_code)
{
    (void)arg;
    (void)exit_code;
    cfg->quiet = true;
    return 0;
}

static int mbw_opt_runs(mbw_cfg_t *cfg, const char *arg, int *exit_code)
{
    unsigned long long v;
    if (mbw_parse_u64(arg, &v) != 0 || v > (unsigned long long)MBW_MAX_RUNS) {
        char line[96], want[96];
        snprintf(line, sizeof line, "Error: number of runs must be between 0 and %lld", MBW_MAX_RUNS);
        snprintf(want, sizeof want, "not a number of runs from 0 to %lld", MBW_MAX_RUNS);
        return mbw_refuse(cfg, exit_code, "-n", arg, line, want);
    }
    cfg->runs = (long long)v;
    return 0;
}

static int mbw_opt_test(mbw_cfg_t *cfg, const char *arg, int *exit_code)
{
    unsigned long long v;
    if (mbw_parse_u64(arg, &v) != 0 || v >= MBW_NMETHODS) {
        char line[96];
        snprintf(line, sizeof line, "Error: test number must be between 0 and %d", MBW_NMETHODS - 1);
        return mbw_refuse(cfg, exit_code, "-t", arg, line,
                          "not a test number (0 memcpy, 1 dumb, 2 mcblock)");
    }
    cfg->test[v] = true;
    return 0;
}

static int mbw_opt_block(mbw_cfg_t *cfg, const char *arg, int *exit_code)
{
    unsigned long long v;
    if (mbw_parse_u64(arg, &v) != 0 || v == 0)
        return mbw_refuse(cfg, exit_code, "-b", arg, "Error: what block size do you mean?",
                          "not a block size (a whole number of bytes, at least 1)");
    cfg->block_bytes = v;
    return 0;
}

/* Order gives the optstring "haqn:t:b:". */
static const mbw_short_opt_t mbw_short_opts[] = {
    { 'h', false, mbw_opt_help,   NULL },
    { 'a', false, mbw_opt_no_avg, NULL },
    { 'q', false, mbw_opt_quiet,  NULL },
    { 'n', true,  mbw_opt_runs,   "10" },
    { 't', true,  mbw_opt_test,   NULL },     /* none given: all tests */
    { 'b', true,  mbw_opt_block,  "262144" }, /* MCBLOCK */
};
#define MBW_NSHORT (sizeof mbw_short_opts / sizeof mbw_short_opts[0])

/* mbw's usage text, line by line. */
static const char *const mbw_usage_lines[] = {
    "Usage: mbw [options] array_size_in_MiB",
    "Options:",
    "\t-n: number of runs per test",
    "\t-a: Don't display average",
    "\t-t0: memcpy test",
    "\t-t1: dumb (b[i]=a[i] style) test",
    "\t-t2 : memcpy test with fixed block size",
    "\t-b <size>: block size in bytes for -t2 (default: 262144)",
    "\t-q: quiet (print statistics only)",
    "(will then use two arrays, watch out for swapping)",
    "'Bandwidth' is amount of data copied over the time this operation took.",
    "",
    "The default is to run all tests available.",
};

/* ---- long options: memsuite extensions ----------------------------- */

/* --counters[=LIST]: the list is copied into cfg, bounded. */
static int mbw_counters_cb(void *cfgp, const char *arg, char *msg, size_t msglen)
{
    mbw_cfg_t *cfg = cfgp;
    if (!arg) {                /* --counters alone; "--counters=" is refused below */
        cfg->counters = true;
        cfg->counter_list = "default";
        return 0;
    }
    if (strlen(arg) >= sizeof cfg->counter_list_buf) {
        snprintf(msg, msglen, "LIST is longer than %zu characters; give at most %d PAPI "
                 "event names", sizeof cfg->counter_list_buf - 1, MB_COUNTERS_MAX);
        return 1;
    }
    if (mb_counters_check_list(arg, msg, msglen) != 0)
        return 1;
    snprintf(cfg->counter_list_buf, sizeof cfg->counter_list_buf, "%s", arg);
    cfg->counters = true;
    cfg->counter_list = cfg->counter_list_buf;
    return 0;
}

static const mb_opt_t mbw_long_opts[] = {
    { .long_name = "threads", .type = MB_OPT_INT, .offset = offsetof(mbw_cfg_t, threads),
      .min = 1, .max = MB_MAX_THREADS, .metavar = "N", .def = "1",
      .help = "split each copy across N OpenMP threads, each copying its own slice "
              "(placement per OMP_PLACES/OMP_PROC_BIND); 1 keeps the classic figure" },
    { .long_name = "numa-node", .type = MB_OPT_INT, .offset = offsetof(mbw_cfg_t, numa_node),
      .min = 0, .max = MB_NUMA_MAX_NODES - 1, .metavar = "N", .def = "-1", .def_text = "",
      .help = "bind CPUs and memory to NUMA node N (libnuma)" },
    { .long_name = "hugepages", .type = MB_OPT_CHOICE, .offset = offsetof(mbw_cfg_t, hugepages),
      .choices = MBW_HUGEPAGES_CHOICES, .metavar = "MODE",
      .help = "never: MADV_NOHUGEPAGE; thp: arrays aligned on the PMD huge page (2 MiB with "
              "4 KiB pages), the system THP setting decides; madvise: so aligned + MADV_HUGEPAGE "
              "(default: calloc, as mbw)" },
    { .long_name = "format", .type = MB_OPT_CHOICE, .offset = offsetof(mbw_cfg_t, format),
      .choices = MB_FORMAT_CHOICES, .metavar = "FMT", .def = "text",
      .help = "result format; json and csv follow docs/result.schema.json" },
    { .long_name = "output", .type = MB_OPT_STRING, .offset = offsetof(mbw_cfg_t, output),
      .metavar = "FILE", .def_text = "stdout",
      .help = "write the result to FILE (atomically); with json/csv the mbw lines "
              "still go to stdout" },
    { .long_name = "counters", .type = MB_OPT_CALLBACK, .cb = mbw_counters_cb,
      .optional_arg = true, .metavar = "LIST",
      .help = "events around each copy on every copying thread, PAPI or perf names (default "
              MB_COUNTERS_DEFAULT "); page faults and max RSS always; shown on stderr and in "
              "json/csv" },
    { .long_name = "verify", .type = MB_OPT_FLAG, .offset = offsetof(mbw_cfg_t, verify),
      .help = "diagnostic: after each method compare destination with source "
              "(checksum); exit 1 on a mismatch" },
    { .long_name = "strict", .type = MB_OPT_FLAG, .offset = offsetof(mbw_cfg_t, strict),
      .help = "unknown options and stray arguments are errors, arrays under 4x the "
              "last-level cache are refused; exit 2 usage, 3 resource, 4 feature not built "
              "(default: 1 for every error, as mbw; small arrays warn on stderr)" },
    { .long_name = "plan", .type = MB_OPT_FLAG, .offset = offsetof(mbw_cfg_t, plan),
      .help = "print what would run and the checks' verdicts (4x LLC rule, memory fit, "
              "threads, label) with --format text or json, then exit with the code the run "
              "would have; nothing is allocated or measured" },
    { .long_name = "help", .type = MB_OPT_FLAG, .offset = offsetof(mbw_cfg_t, help),
      .help = "this text, exit 0 (-h prints it and exits 1, as mbw)" },
    { .long_name = "version", .type = MB_OPT_FLAG, .offset = offsetof(mbw_cfg_t, version),
      .help = "version and build summary" },
};
#define MBW_NLONG (sizeof mbw_long_opts / sizeof mbw_long_opts[0])

/* The tables' defaults are constants that convert: a failure here is a
 * table bug, caught by the unit tests. */
void mbw_cfg_defaults(mbw_cfg_t *cfg)
{
    char msg[256];
    int code;

    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < MBW_NSHORT; i++)
        if (mbw_short_opts[i].def)
            (void)mbw_short_opts[i].fn(cfg, mbw_short_opts[i].def, &code);
    (void)mb_opts_defaults(mbw_long_opts, MBW_NLONG, cfg, msg, sizeof msg);
}

int mbw_exit_code(const mbw_cfg_t *cfg, int strict_code)
{
    return cfg->strict ? strict_code : MB_EXIT_FAIL;
}

void mbw_cli_usage(FILE *f)
{
    for (size_t i = 0; i < sizeof mbw_usage_lines / sizeof mbw_usage_lines[0]; i++)
        fprintf(f, "%s\n", mbw_usage_lines[i]);

    /* The long options' lines come from the table through common/opts,
     * under a heading of mbw's own. */
    fprintf(f, "\nmemsuite extensions (long options only; short options keep mbw's meaning):\n");
    mb_opts_help_lines(f, mbw_long_opts, MBW_NLONG);
    fprintf(f, "\nExit status: 0 ok; 1 any error (mbw compatible); with --strict "
               "2 usage (or arrays under 4x the LLC), 3 resource, 4 feature not built; "
               "130 interrupted.\n");
}

/* Is "--strict" among the options?  Looked for before parsing, so that the
 * exit code of an early error already follows it. */
static bool mbw_strict_requested(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--strict") == 0)
            return true;
    }
    return false;
}

/* One long option through common/opts: converted, range-checked and
 * stored by its table entry, named "--name" in messages. */
static int mbw_long_one(mbw_cfg_t *cfg, size_t idx, char *arg, int *exit_code)
{
    char msg[512];

    if (mb_opts_apply(&mbw_long_opts[idx], NULL, arg, cfg, msg, sizeof msg) != 0) {
        mb_error("%s", msg);
        *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
        return 1;
    }
    return 0;
}

static int mbw_parse_size_arg(mbw_cfg_t *cfg, const char *text, int *exit_code)
{
    unsigned long long mib;
    int rc = mbw_parse_u64(text, &mib);
    size_t bytes, total;

    if (rc == -EINVAL || (rc == 0 && mib == 0))
        return mbw_refuse(cfg, exit_code, "the array size", text, "Error: array size wrong!",
                          "not an array size (a whole number of MiB, at least 1)");
    if (rc != 0 || mib > SIZE_MAX || !mb_mul_size((size_t)mib, MBW_MIB_BYTES, &bytes) ||
        !mb_mul_size(bytes, 2, &total) || total > (size_t)PTRDIFF_MAX) {
        char shown[160];
        printf("Error: array size too large (%s MiB overflows the byte count)!\n",
               mb_shown(text, 64, shown, sizeof shown));
        *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
        return 1;
    }
    cfg->size_mib = mib;
    cfg->array_bytes = bytes;
    cfg->elements = bytes / sizeof(long);
    return 0;
}

/* Checks that need the whole command line. */
static int mbw_check_combination(mbw_cfg_t *cfg, int *exit_code)
{
    if ((unsigned long long)cfg->array_bytes < cfg->block_bytes) {
        printf("Error: array size larger than block size (%llu bytes)!\n", cfg->block_bytes);
        *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
        return 1;
    }
    cfg->ntests = 0;
    for (int i = 0; i < MBW_NMETHODS; i++)
        cfg->ntests += cfg->test[i];
    if (cfg->ntests == 0) {
        for (int i = 0; i < MBW_NMETHODS; i++)
            cfg->test[i] = true;
        cfg->ntests = MBW_NMETHODS;
    }
    if (cfg->runs == 0 && cfg->ntests != 1) {
        printf("Error: -n 0 (run until interrupted) needs exactly one test (-t 0, 1 or 2)\n");
        *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
        return 1;
    }
    return 0;
}

/* getopt's own message for a refused option, in getopt's words (mbw's
 * users and tests know them), with the user's bytes shown escaped: getopt
 * itself prints them raw, so a control character in an option reached
 * the terminal.  prev is the argument getopt was reading. */
static void getopt_message(const char *prog, const char *prev, int opt, const char *optstring,
                           const struct option *lo)
{
    char shown[160];
    if (opt == 0 || opt >= MBW_LONG_BASE) {
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)strcspn(prev, "="), prev);
        mb_shown(opt >= MBW_LONG_BASE ? name : prev, 120, shown, sizeof shown);
        if (opt >= MBW_LONG_BASE && lo[opt - MBW_LONG_BASE].has_arg == required_argument &&
            !strchr(prev, '='))
            fprintf(stderr, "%s: option '%s' requires an argument\n", prog, shown);
        else if (opt >= MBW_LONG_BASE)
            fprintf(stderr, "%s: option '%s' doesn't allow an argument\n", prog, shown);
        else
            fprintf(stderr, "%s: unrecognized option '%s'\n", prog, shown);
        return;
    }
    char c[2] = { (char)opt, '\0' };
    mb_shown(c, 0, shown, sizeof shown);
    const char *known = opt != ':' ? strchr(optstring, opt) : NULL;
    if (known && known[1] == ':')
        fprintf(stderr, "%s: option requires an argument -- '%s'\n", prog, shown);
    else
        fprintf(stderr, "%s: invalid option -- '%s'\n", prog, shown);
}

int mbw_cli_parse(int argc, char **argv, mbw_cfg_t *cfg, int *exit_code)
{
    struct option lo[MBW_NLONG + 1];
    char optstring[2 * MBW_NSHORT + 1];
    size_t k = 0;

    cfg->strict = mbw_strict_requested(argc, argv);
    for (size_t i = 0; i < MBW_NSHORT; i++) {
        optstring[k++] = mbw_short_opts[i].name;
        if (mbw_short_opts[i].takes_arg)
            optstring[k++] = ':';
    }
    optstring[k] = '\0';
    for (size_t i = 0; i < MBW_NLONG; i++) {
        const mb_opt_t *o = &mbw_long_opts[i];
        lo[i].name = o->long_name;
        lo[i].has_arg = o->type == MB_OPT_FLAG ? no_argument
                        : o->optional_arg ? optional_argument : required_argument;
        lo[i].flag = NULL;
        lo[i].val = MBW_LONG_BASE + (int)i;
    }
    lo[MBW_NLONG] = (struct option){ NULL, 0, NULL, 0 };

    optind = 1;
    opterr = 0;                 /* getopt_message() speaks instead */
    int c;
    while ((c = getopt_long(argc, argv, optstring, lo, NULL)) != -1) {
        if (c >= MBW_LONG_BASE) {
            size_t idx = (size_t)(c - MBW_LONG_BASE);
            if (mbw_long_one(cfg, idx, optarg, exit_code))
                return 1;
            if (cfg->help) {
                mbw_cli_usage(stdout);
                *exit_code = MB_EXIT_OK;
                return 1;
            }
            if (cfg->version) {
                mb_print_version("mbw");
                *exit_code = MB_EXIT_OK;
                return 1;
            }
            continue;
        }
        if (c == '?') {
            getopt_message(argv[0], argv[optind > 1 ? optind - 1 : 0], optopt, optstring, lo);
            /* getopt's message is printed.  optopt 0: an unknown long
             * option; >= base: a long option missing or refusing its
             * argument; otherwise a short one (mbw carries on). */
            if (optopt == 0 || optopt >= MBW_LONG_BASE) {
                mb_error("bad long option; run 'mbw --help' for the list");
                *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
                return 1;
            }
            if (cfg->strict) {
                if (isprint(optopt))
                    mb_error("-%c: unknown option or missing argument (--strict); the options "
                             "are -n N, -t 0|1|2, -b BYTES, -q, -a, -h; run 'mbw --help'", optopt);
                else
                    mb_error("unknown option (--strict); run 'mbw --help' for the list");
                *exit_code = MB_EXIT_USAGE;
                return 1;
            }
            continue;
        }
        for (size_t i = 0; i < MBW_NSHORT; i++) {
            if (mbw_short_opts[i].name == c) {
                if (mbw_short_opts[i].fn(cfg, optarg, exit_code))
                    return 1;
                break;
            }
        }
    }

    if (optind >= argc) {
        printf("Error: no array size given!\n");
        *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
        return 1;
    }
    if (cfg->strict && optind + 1 < argc) {
        char shown[96];
        mb_error("unexpected argument '%s' after the array size (--strict); "
                 "mbw takes one size in MiB", mb_shown(argv[optind + 1], 60, shown, sizeof shown));
        *exit_code = MB_EXIT_USAGE;
        return 1;
    }
    if (mbw_parse_size_arg(cfg, argv[optind], exit_code))
        return 1;
    if (cfg->plan && cfg->format == MB_FMT_CSV) {
        mb_error("--plan --format csv: a plan is written as text or json; use --format text "
                 "or --format json");
        *exit_code = mbw_exit_code(cfg, MB_EXIT_USAGE);
        return 1;
    }
    return mbw_check_combination(cfg, exit_code);
}

size_t mbw_cli_tuned_reasons(const mbw_cfg_t *cfg, const char **reasons, size_t max)
{
    size_t n = 0;
    if (cfg->threads != 1 && n < max)
        reasons[n++] = "--threads: copy split across several threads";
    if (cfg->numa_node >= 0 && n < max)
        reasons[n++] = "--numa-node: CPUs and memory bound to one node";
    if (cfg->hugepages != MBW_HP_DEFAULT && n < max)
        reasons[n++] = "--hugepages: arrays allocated with an explicit huge page policy";
    return n;
}
