/* options: the mb_opt_t table for stream. */
#include "options.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "counters.h"
#include "opts.h"

#ifndef STREAM_ARRAY_SIZE
#define STREAM_ARRAY_SIZE 10000000
#endif
#ifndef NTIMES
#define NTIMES 10
#endif
#ifndef OFFSET
#define OFFSET 0
#endif
#ifndef STREAM_TYPE
#define STREAM_TYPE double
#endif

#if NTIMES <= 1
#error "NTIMES must be at least 2: the first iteration is not counted"
#endif
#if OFFSET < 0
#error "OFFSET must not be negative"
#endif
_Static_assert(sizeof(STREAM_TYPE) == 4 || sizeof(STREAM_TYPE) == 8,
               "STREAM_TYPE must be float or double");

#define ST_STR_(x) #x
#define ST_STR(x) ST_STR_(x)

size_t st_default_array_size(void) { return (size_t)(STREAM_ARRAY_SIZE); }
int st_default_ntimes(void) { return NTIMES; }
long long st_default_offset(void) { return OFFSET; }
const char *st_default_type(void) { return sizeof(STREAM_TYPE) == 4 ? "float" : "double"; }

/* The list is checked here, with every tool's rule (common/counters), so
 * a malformed one is a usage error before anything is set up. */
static int cb_counters(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_options_t *o = cfg;
    const char *list = (arg && *arg) ? arg : "default";
    if (mb_counters_check_list(list, msg, msglen) != 0)
        return 2;
    o->counters = list;
    return 0;
}

static int cb_inject(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_options_t *o = cfg;
    static const char *const ok[] = { "a", "b", "c", "dot" };
    if (!arg || !*arg) {
        o->inject = "a";
        return 0;
    }
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (strcmp(arg, ok[i]) == 0) {
            o->inject = ok[i];
            return 0;
        }
    }
    snprintf(msg, msglen, "--inject-error: invalid value '%s': must be one of a|b|c|dot", arg);
    return 2;
}

#define OFF(f) offsetof(st_options_t, f)

static const mb_opt_t st_opts[] = {
    { "array-size", 's', MB_OPT_STRING, OFF(array_size), 0, 0, 0, 0, NULL, "N|SIZE|auto",
      ST_STR(STREAM_ARRAY_SIZE),
      "elements per array (20000000, 2e7, 20M = 20 million); a size ending in B is bytes "
      "per array (2GiB, 800MB); auto = each array at least 4x the total last-level cache",
      NULL, false },
    { "ntimes", 'n', MB_OPT_INT, OFF(ntimes), 2, ST_NTIMES_MAX, 0, 0, NULL, "N",
      ST_STR(NTIMES), "passes per kernel; the first pass is not counted", NULL, false },
    { "offset", 'o', MB_OPT_INT, OFF(offset), 0, ST_OFFSET_MAX, 0, 0, NULL, "N",
      ST_STR(OFFSET), "extra elements between the arrays", NULL, false },
    { "type", 0, MB_OPT_CHOICE, OFF(type), 0, 0, 0, 0, "double|float", "TYPE",
      ST_STR(STREAM_TYPE), "element type", NULL, false },
    { "threads", 't', MB_OPT_INT, OFF(threads), 1, MB_MAX_THREADS, 0, 0, NULL, "N",
      "OMP_NUM_THREADS", "OpenMP threads; more than the allowed CPUs is labelled not-standard",
      NULL, false },
    { "cpunodebind", 0, MB_OPT_STRING, OFF(cpunodebind), 0, 0, 0, 0, NULL, "NODES", NULL,
      "run threads only on these NUMA nodes (numactl syntax: 0, 0-1, 0,2)", NULL, false },
    { "membind", 0, MB_OPT_STRING, OFF(membind), 0, 0, 0, 0, NULL, "NODES", NULL,
      "allocate the arrays only on these NUMA nodes", NULL, false },
    { "interleave", 0, MB_OPT_STRING, OFF(interleave), 0, 0, 0, 0, NULL, "NODES", NULL,
      "interleave the arrays' pages over these nodes (all = every node)", NULL, false },
    { "format", 0, MB_OPT_CHOICE, OFF(format), 0, 0, 0, 0, "text|json|csv", "FMT", "text",
      "text is STREAM 5.10's output; json and csv are the memsuite result", NULL, false },
    { "output", 'O', MB_OPT_STRING, OFF(output), 0, 0, 0, 0, NULL, "FILE", "stdout",
      "write the result to FILE (atomically; checked before measuring)", NULL, false },
    { "counters", 0, MB_OPT_CALLBACK, 0, 0, 0, 0, 0, NULL, "LIST", NULL,
      "hardware counters per kernel through PAPI (--counters=PAPI_TOT_CYC,...; "
      "without a list: " MB_COUNTERS_DEFAULT ")", cb_counters, true },
    { "llc", 0, MB_OPT_STRING, OFF(llc), 0, 0, 0, 0, NULL, "SIZE", "detected",
      "total last-level cache for the 4x rule (e.g. 32MiB), instead of detecting it",
      NULL, false },
    { "strict", 0, MB_OPT_FLAG, OFF(strict), 0, 0, 0, 0, NULL, NULL, NULL,
      "refuse (exit 2) an --array-size under 4x the LLC instead of running it with a "
      "warning, labelled not-standard", NULL, false },
    { "allow-small", 0, MB_OPT_FLAG, OFF(allow_small), 0, 0, 0, 0, NULL, NULL, NULL,
      "accepted for old scripts; does nothing (an explicit size always runs)", NULL, false },
    { "kernels", 0, MB_OPT_STRING, OFF(kernels), 0, 0, 0, 0, NULL, "LIST",
      "copy,scale,add,triad",
      "kernels in run order: copy,scale,add,triad,dot,nstream (any other set is tuned)",
      NULL, false },
    { "nt-stores", 0, MB_OPT_FLAG, OFF(nt_stores), 0, 0, 0, 0, NULL, NULL, NULL,
      "non-temporal stores (tuned)", NULL, false },
    { "nt-isa", 0, MB_OPT_CHOICE, OFF(nt_isa), 0, 0, 0, 0, "auto|avx512|avx2|sse2|portable",
      "ISA", "auto", "non-temporal store variant (implies --nt-stores)", NULL, false },
    { "hugepages", 0, MB_OPT_CHOICE, OFF(hugepages), 0, 0, 0, 0, "thp|never|madvise", "MODE",
      "thp", "thp: the system's THP policy; never: MADV_NOHUGEPAGE; madvise: MADV_HUGEPAGE "
      "(never and madvise are tuned)", NULL, false },
    { "inject-error", 0, MB_OPT_CALLBACK, 0, 0, 0, 0, 0, NULL, "ARRAY", NULL,
      "corrupt one element of a (or --inject-error=b|c|dot) after the run, to test the "
      "failure path", cb_inject, true },
    { "quiet", 'q', MB_OPT_FLAG, OFF(quiet), 0, 0, 0, 0, NULL, NULL, NULL,
      "no warnings or notes on stderr (errors still print)", NULL, false },
    { "help", 'h', MB_OPT_FLAG, OFF(help), 0, 0, 0, 0, NULL, NULL, NULL,
      "print this help and exit", NULL, false },
    { "version", 'V', MB_OPT_FLAG, OFF(version), 0, 0, 0, 0, NULL, NULL, NULL,
      "print the version and build summary and exit", NULL, false },
};
#define ST_NOPTS (sizeof st_opts / sizeof st_opts[0])

int st_options_parse(int argc, char **argv, st_options_t *o, char *msg, size_t msglen)
{
    return st_options_parse_ext(argc, argv, o, NULL, 0, msg, msglen);
}

/* stream's table followed by the caller's entries. */
static mb_opt_t *joined_table(const mb_opt_t *extra, size_t nextra, size_t *n)
{
    mb_opt_t *t = calloc(ST_NOPTS + nextra, sizeof *t);

    if (!t)
        return NULL;
    /* help, version stay last: the extra entries go before them. */
    memcpy(t, st_opts, (ST_NOPTS - 3) * sizeof *t);
    if (nextra)
        memcpy(t + ST_NOPTS - 3, extra, nextra * sizeof *t);
    memcpy(t + ST_NOPTS - 3 + nextra, st_opts + ST_NOPTS - 3, 3 * sizeof *t);
    *n = ST_NOPTS + nextra;
    return t;
}

int st_options_parse_ext(int argc, char **argv, st_options_t *o, const mb_opt_t *extra,
                         size_t nextra, char *msg, size_t msglen)
{
    char *pos[argc > 0 ? argc : 1];
    size_t n = 0;
    mb_opt_t *table = joined_table(extra, nextra, &n);
    bool *seen = calloc(n, sizeof *seen);
    mb_opts_out_t out = { 0, pos, seen };
    int rc;

    memset(o, 0, sizeof *o);
    o->ntimes = NTIMES;
    o->offset = OFFSET;
    o->type = st_default_type();
    o->format = "text";
    o->kernels = "copy,scale,add,triad";
    o->nt_isa = "auto";
    o->hugepages = "thp";
    if (!table || !seen) {
        free(table);
        free(seen);
        snprintf(msg, msglen, "out of memory parsing the options");
        return 3;
    }

    rc = mb_opts_parse(table, n, argc, argv, o, &out, msg, msglen);
    if (rc == 0 && out.npos > 0) {
        snprintf(msg, msglen, "unexpected argument '%s'; %s takes options only (see --help)",
                 out.pos[0], argv[0] ? (strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0])
                                     : "stream");
        rc = 2;
    } else if (rc != 0) {
        rc = 2;
    }
    if (rc == 0 && seen[mb_opts_index(table, n, "nt-isa")])
        o->nt_stores = true;
    free(table);
    free(seen);
    return rc;
}

void st_options_help(FILE *f)
{
    st_options_help_ext(f, "stream [OPTIONS]\n\n"
                           "STREAM 5.10 compatible memory bandwidth benchmark (Copy, Scale, Add, Triad).\n"
                           "Exit status: 0 ok, 1 validation failed, 2 usage error, 3 resource unavailable,\n"
                           "4 feature not built, 130 interrupted (no result written).",
                        NULL, 0);
}

void st_options_help_ext(FILE *f, const char *usage, const mb_opt_t *extra, size_t nextra)
{
    size_t n = 0;
    mb_opt_t *table = joined_table(extra, nextra, &n);

    if (!table) {
        mb_opts_help(f, usage, st_opts, ST_NOPTS);
        return;
    }
    mb_opts_help(f, usage, table, n);
    free(table);
}
