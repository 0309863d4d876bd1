/* cli: mbw's command line.
 *
 * Short options are mbw's own and keep their meaning: getopt "haqn:t:b:"
 * semantics (clusters such as -qn3, attached values such as -t1, GNU
 * argument permutation, "--" ends options).  Long options are memsuite
 * extensions; they are declared once in an mb_opt_t table that both
 * checks their values (common/opts) and prints their help.
 *
 * Compatible behaviour (the default), as mbw 1.5:
 *   - every error prints "Error: ..." on stdout and exits 1;
 *   - -h prints the usage text on stdout and exits 1;
 *   - an unknown short option gets getopt's message on stderr and the run
 *     continues (exit 0 if nothing else is wrong).
 * With --strict: unknown options and stray arguments are errors, arrays
 * under 4x the LLC are refused (mb_size_rule), and exit codes follow
 * memsuite's convention (2 usage, 3 resource, 4 not built).
 * Unknown or malformed long options are always errors. */
#ifndef MBW_CLI_H
#define MBW_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "arrays.h"
#include "exitcodes.h"
#include "methods.h"

#define MBW_MAX_RUNS 1000000ll
#define MBW_MIB_BYTES 1048576ull

/* Exit statuses: memsuite's (common/exitcodes.h).  Compatible mode (no
 * --strict) turns every error into MB_EXIT_FAIL, as mbw (mbw_exit_code);
 * MB_EXIT_INTERRUPTED: SIGINT stopped a run of -n N > 0. */

typedef struct {
    /* mbw's own options */
    long long runs;                 /* -n: runs per test; 0 = until SIGINT */
    bool test[MBW_NMETHODS];        /* -t: tests to run (all when none given) */
    unsigned long long block_bytes; /* -b: MCBLOCK block size, bytes */
    bool quiet;                     /* -q: drop the informational lines */
    bool no_avg;                    /* -a: drop the AVG lines */
    unsigned long long size_mib;    /* positional: array size, MiB */
    /* derived by mbw_cli_parse */
    size_t array_bytes;             /* per array: size_mib * 2^20 */
    size_t elements;                /* per array: array_bytes / sizeof(long) */
    int ntests;                     /* tests selected */
    /* extensions (long options) */
    long long threads;              /* --threads: OpenMP threads per copy */
    long long numa_node;            /* --numa-node; -1 = not asked */
    int hugepages;                  /* --hugepages: mbw_huge_t; MBW_HP_DEFAULT = not asked */
    int format;                     /* --format: mb_format_t */
    const char *output;             /* --output FILE; NULL = stdout */
    bool counters;                  /* --counters given */
    const char *counter_list;       /* its LIST, or "default" */
    char counter_list_buf[512];     /* storage for counter_list */
    bool verify;                    /* --verify: compare dst with src per method */
    bool plan;                      /* --plan: print the checks' verdicts and exit */
    bool strict;                    /* --strict: memsuite exit codes, 4x LLC enforced */
    bool help, version;             /* --help, --version */
} mbw_cfg_t;

/* cfg = the defaults of both option tables (short and long). */
void mbw_cfg_defaults(mbw_cfg_t *cfg);

/* A plain unsigned decimal: digits only (no sign, space, suffix or
 * exponent).  0, -EINVAL (empty or not digits) or -ERANGE (> 2^64-1). */
int mbw_parse_u64(const char *s, unsigned long long *v);

/* Parse argv into cfg and check every value and their combinations
 * (array size, overflow, block size against the array, -n 0 with one
 * test).  Returns 0 to go on, or 1 when the program must end now with
 * *exit_code (the message, help or version text is already printed). */
int mbw_cli_parse(int argc, char **argv, mbw_cfg_t *cfg, int *exit_code);

/* The exit status for an error of memsuite class `strict_code`:
 * strict_code under --strict, 1 otherwise (mbw compatible). */
int mbw_exit_code(const mbw_cfg_t *cfg, int strict_code);

/* Usage text: mbw's own lines, then the long options from the table. */
void mbw_cli_usage(FILE *f);

/* Whether any tuning extension is active (not a classic mbw run); fills
 * reasons[] (static strings) and returns their count. */
size_t mbw_cli_tuned_reasons(const mbw_cfg_t *cfg, const char **reasons, size_t max);

#endif
