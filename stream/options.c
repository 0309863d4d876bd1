/* options: the mb_opt_t table for stream. */
#include "options.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "affinity.h"
#include "counters.h"
#include "defaults.h"
#include "exitcodes.h"
#include "log.h"
#include "nt.h"
#include "opts.h"
#include "report.h"
#include "sizing.h"

#define ST_STR_(x) #x
#define ST_STR(x) ST_STR_(x)

size_t st_default_array_size(void) { return (size_t)(STREAM_ARRAY_SIZE); }

/* The list is checked here, with every tool's rule (common/counters), so
 * a malformed one is a usage error before anything is set up. */
static int cb_counters(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_options_t *o = cfg;
    const char *list = arg ? arg : "default";   /* "--counters=" is refused by the check */
    if (mb_counters_check_list(list, msg, msglen) != 0)
        return MB_EXIT_USAGE;
    o->counters = list;
    return 0;
}

/* --nt-isa: a variant of this binary's architecture (ST_NT_ISA_CHOICES,
 * stored as its index); anything else, another architecture's name
 * included, is a usage error that names what this CPU has. */
static int cb_nt_isa(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_options_t *o = cfg;
    char name[32], q[64], have[128];
    for (int i = 0; arg && mb_opts_choice_name(ST_NT_ISA_CHOICES, i, name, sizeof name); i++) {
        if (strcmp(arg, name) == 0) {
            o->nt_isa = i;
            return 0;
        }
    }
    snprintf(msg, msglen, "invalid value '%s': not a variant for %s; this CPU has %s",
             mb_shown(arg ? arg : "", 0, q, sizeof q), ST_NT_ARCH,
             st_nt_cpu_choices(have, sizeof have, "|"));
    return MB_EXIT_USAGE;
}

static int cb_inject(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_options_t *o = cfg;
    static const char *const ok[] = { "a", "b", "c", "dot" };
    if (!arg) {                 /* --inject-error alone: array a */
        o->inject = "a";
        return 0;
    }
    if (!*arg) {                /* "--inject-error=" is no way to say "a" (as --counters=) */
        snprintf(msg, msglen, "invalid value '': empty; give a, b, c or dot, or leave out '='");
        return MB_EXIT_USAGE;
    }
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        if (strcmp(arg, ok[i]) == 0) {
            o->inject = ok[i];
            return 0;
        }
    }
    char q[64];
    snprintf(msg, msglen, "invalid value '%s': must be one of a|b|c|dot",
             mb_shown(arg, 0, q, sizeof q));
    return MB_EXIT_USAGE;
}

/* A size text ending in 'b'/'B' is bytes (2GiB, 800MB, 64B); anything
 * else counts elements (2e7, 20M). */
static bool is_byte_size(const char *s)
{
    size_t len = strlen(s);
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    return len > 0 && (s[len - 1] == 'b' || s[len - 1] == 'B');
}

/* --array-size N|SIZE|auto: the typed entry (st_size_arg_t). */
int st_options_parse_size(const char *arg, st_size_arg_t *out, char *msg, size_t msglen)
{
    st_size_arg_t a = { ST_SIZE_AUTO, 0, arg };

    if (strcmp(arg, "auto") == 0) {
        *out = a;
        return 0;
    }
    if (is_byte_size(arg)) {
        a.kind = ST_SIZE_BYTES;
        if (mb_parse_size(arg, &a.value, msg, msglen) != 0)
            return MB_EXIT_USAGE;
    } else {
        a.kind = ST_SIZE_ELEMENTS;
        if (mb_parse_count(arg, &a.value, msg, msglen) != 0)
            return MB_EXIT_USAGE;
        if (a.value == 0) {
            char q[64];
            snprintf(msg, msglen, "invalid value '%s': must be at least 1 element; "
                     "use e.g. 20000000, 2e7, 2GiB or auto", mb_shown(arg, 0, q, sizeof q));
            return MB_EXIT_USAGE;
        }
    }
    *out = a;
    return 0;
}

static int cb_array_size(void *cfg, const char *arg, char *msg, size_t msglen)
{
    st_options_t *o = cfg;
    return st_options_parse_size(arg, &o->array_size, msg, msglen);
}

#define OFF(f) offsetof(st_options_t, f)

/* The last ST_NTAIL entries (quiet, help, version) stay last: stream_mpi's
 * extra entries go before them (joined_table). */
static const mb_opt_t st_opts[] = {
    { .long_name = "array-size", .short_name = 's', .type = MB_OPT_CALLBACK, .cb = cb_array_size,
      .metavar = "N|SIZE|auto", .def_text = ST_STR(STREAM_ARRAY_SIZE) ", or auto's size when " ST_STR(STREAM_ARRAY_SIZE)
                  " elements are under 4x the LLC",
      .help = "elements per array (20000000, 2e7, 20M = 20 million); a size ending in B is "
              "bytes per array (2GiB, 800MB); auto = each array at least 4x the total "
              "last-level cache" },
    { .long_name = "ntimes", .short_name = 'n', .type = MB_OPT_INT, .offset = OFF(ntimes),
      .min = 2, .max = ST_NTIMES_MAX, .metavar = "N", .def = ST_STR(NTIMES),
      .help = "passes per kernel; the first pass is not counted" },
    { .long_name = "offset", .short_name = 'o', .type = MB_OPT_INT, .offset = OFF(offset),
      .min = 0, .max = ST_OFFSET_MAX, .metavar = "N", .def = ST_STR(OFFSET),
      .help = "extra elements between the arrays" },
    { .long_name = "type", .type = MB_OPT_CHOICE, .offset = OFF(type), .choices = ST_TYPE_CHOICES,
      .metavar = "TYPE", .def = sizeof(STREAM_TYPE) == 4 ? "float" : "double",
      .def_text = ST_STR(STREAM_TYPE), .help = "element type" },
    { .long_name = "threads", .short_name = 't', .type = MB_OPT_INT, .offset = OFF(threads),
      .min = 1, .max = MB_MAX_THREADS, .metavar = "N", .def_text = "OMP_NUM_THREADS",
      .help = "OpenMP threads; more than the allowed CPUs is labelled not-standard" },
    { .long_name = "cpunodebind", .type = MB_OPT_STRING, .offset = OFF(cpunodebind),
      .metavar = "NODES",
      .help = "run threads only on these NUMA nodes (numactl syntax: 0, 0-1, 0,2)" },
    { .long_name = "membind", .type = MB_OPT_STRING, .offset = OFF(membind), .metavar = "NODES",
      .help = "allocate the arrays only on these NUMA nodes" },
    { .long_name = "interleave", .type = MB_OPT_STRING, .offset = OFF(interleave),
      .metavar = "NODES",
      .help = "interleave the arrays' pages over these nodes (all = every node)" },
    { .long_name = "format", .type = MB_OPT_CHOICE, .offset = OFF(format),
      .choices = MB_FORMAT_CHOICES, .metavar = "FMT", .def = "text",
      .help = "text is STREAM 5.10's output; json and csv are the memsuite result" },
    { .long_name = "output", .short_name = 'O', .type = MB_OPT_STRING, .offset = OFF(output),
      .metavar = "FILE", .def_text = "stdout",
      .help = "write the result to FILE (atomically; checked before measuring)" },
    { .long_name = "counters", .type = MB_OPT_CALLBACK, .cb = cb_counters, .optional_arg = true,
      .metavar = "LIST",
      .help = "events per kernel on every thread, through PAPI or perf_event_open "
              "(--counters=cycles,task-clock,...; without a list: " MB_COUNTERS_DEFAULT ")" },
    { .long_name = "llc", .type = MB_OPT_STRING, .offset = OFF(llc), .metavar = "SIZE",
      .def_text = "detected",
      .help = "total last-level cache for the 4x rule (e.g. 32MiB), instead of detecting it" },
    { .long_name = "strict", .type = MB_OPT_FLAG, .offset = OFF(strict),
      .help = "refuse (exit 2) an --array-size under 4x the LLC instead of running it with a "
              "warning, labelled not-standard" },
    { .long_name = "allow-small", .type = MB_OPT_FLAG, .offset = OFF(allow_small),
      .help = "accepted for old scripts; does nothing (an explicit size always runs)" },
    { .long_name = "kernels", .type = MB_OPT_STRING, .offset = OFF(kernels), .metavar = "LIST",
      .def = "copy,scale,add,triad",
      .help = "kernels in run order: copy,scale,add,triad,dot,nstream (any other set is tuned)" },
    { .long_name = "nt-stores", .type = MB_OPT_FLAG, .offset = OFF(nt_stores),
      .help = "non-temporal stores (tuned)" },
    { .long_name = "nt-isa", .type = MB_OPT_CALLBACK, .cb = cb_nt_isa, .metavar = "ISA",
      .def = "auto",
      .help = "non-temporal store variant (implies --nt-stores)" },
    { .long_name = "hugepages", .type = MB_OPT_CHOICE, .offset = OFF(hugepages),
      .choices = ST_HUGEPAGES_CHOICES, .metavar = "MODE", .def = "thp",
      .help = "thp: the system's THP policy; never: MADV_NOHUGEPAGE; madvise: MADV_HUGEPAGE "
              "(never and madvise are tuned)" },
    { .long_name = "inject-error", .type = MB_OPT_CALLBACK, .cb = cb_inject, .optional_arg = true,
      .metavar = "ARRAY",
      .help = "corrupt one element of a (or --inject-error=b|c|dot) after the run, to test "
              "the failure path" },
    { .long_name = "quiet", .short_name = 'q', .type = MB_OPT_FLAG, .offset = OFF(quiet),
      .help = "no warnings or notes on stderr (errors still print)" },
    { .long_name = "help", .short_name = 'h', .type = MB_OPT_FLAG, .offset = OFF(help),
      .help = "print this help and exit" },
    { .long_name = "version", .short_name = 'V', .type = MB_OPT_FLAG, .offset = OFF(version),
      .help = "print the version and build summary and exit" },
};
#define ST_NOPTS (sizeof st_opts / sizeof st_opts[0])
#define ST_NTAIL 3             /* quiet, help, version */

/* stream's own entries, not stream_mpi's (joined like its extras). */
static const mb_opt_t st_only_opts[] = {
    { .long_name = "plan", .type = MB_OPT_FLAG, .offset = OFF(plan),
      .help = "print what would run and the checks' verdicts (4x LLC rule, memory fit, "
              "threads, label) with --format text or json, then exit with the code the run "
              "would have (0, or its refusal: 2, 3, 4); nothing is allocated or measured" },
};
#define ST_NONLY (sizeof st_only_opts / sizeof st_only_opts[0])

int st_options_parse(int argc, char **argv, st_options_t *o, char *msg, size_t msglen)
{
    return st_options_parse_ext(argc, argv, o, st_only_opts, ST_NONLY, msg, msglen);
}

/* stream's table with the caller's entries before its last ST_NTAIL. */
static mb_opt_t *joined_table(const mb_opt_t *extra, size_t nextra, size_t *n)
{
    const size_t head = ST_NOPTS - ST_NTAIL;
    mb_opt_t *t = calloc(ST_NOPTS + nextra, sizeof *t);

    if (!t)
        return NULL;
    memcpy(t, st_opts, head * sizeof *t);
    if (nextra)
        memcpy(t + head, extra, nextra * sizeof *t);
    memcpy(t + head + nextra, st_opts + head, ST_NTAIL * sizeof *t);
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
    if (!table || !seen) {
        free(table);
        free(seen);
        snprintf(msg, msglen, "out of memory parsing the options");
        return MB_EXIT_RESOURCE;
    }
    rc = mb_opts_defaults(table, n, o, msg, msglen);
    if (rc == 0)
        rc = mb_opts_parse(table, n, argc, argv, o, &out, msg, msglen);
    if (rc == 0 && out.npos > 0) {
        snprintf(msg, msglen, "unexpected argument '%s'; %s takes options only (see --help)",
                 out.pos[0], argv[0] ? (strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0])
                                     : "stream");
        rc = MB_EXIT_USAGE;
    } else if (rc != 0) {
        rc = MB_EXIT_USAGE;
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
                        st_only_opts, ST_NONLY);
}

void st_options_help_ext(FILE *f, const char *usage, const mb_opt_t *extra, size_t nextra)
{
    size_t n = 0;
    mb_opt_t *table = joined_table(extra, nextra, &n);

    if (!table) {
        mb_opts_help(f, usage, st_opts, ST_NOPTS);
        return;
    }
    /* --nt-isa's line names what this CPU has too; the "(one of a|b)" is
     * a choice's own form, which the shell completion reads */
    static char nt_help[256];
    char have[128];
    int i = mb_opts_index(table, n, "nt-isa");
    if (i >= 0) {
        snprintf(nt_help, sizeof nt_help, "%s; this CPU has %s (one of %s)", table[i].help,
                 st_nt_cpu_choices(have, sizeof have, ", "), ST_NT_ISA_CHOICES);
        table[i].help = nt_help;
    }
    mb_opts_help(f, usage, table, n);
    free(table);
}
