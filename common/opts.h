/* opts: one option table per tool.  The same table parses argv, checks
 * ranges and prints --help.
 *
 * Accepted forms: -x VAL, -xVAL, --name VAL, --name=VAL; "--" ends options.
 * Short flags cluster ("-qa"; "-qn 5" ends with an option taking a value).
 * Long names match exactly (no abbreviations).  A value word is taken as
 * is, even when it starts with '-' ("-n -5" gives -5 to -n).
 * An option with optional_arg takes an argument only as --name=VAL; given
 * without it, seen[] is set, a CALLBACK gets arg NULL and other types leave
 * their field untouched.  A FLAG given as --flag=VAL is an error.
 * Non-option arguments (and "-" alone) are returned in order as
 * positionals, wherever they appear; with out->pos NULL they are errors.
 * A repeated option is applied again (the last value wins).
 *
 * Storage by type (at cfg + offset):
 *   FLAG     bool      (set true)
 *   INT      long long (checked against [min, max])
 *   DOUBLE   double    (finite; checked against [dmin, dmax] unless both are 0)
 *   SIZE     size_t    bytes via mb_parse_size, checked against [min, max]
 *   COUNT    size_t    via mb_parse_count, checked against [min, max]
 *   STRING   const char * (points into argv)
 *   CHOICE   const char * (one of the '|'-separated `choices`)
 *   CALLBACK calls cb(cfg, arg, msg, msglen); nonzero = usage error
 *   (INT min applies also when max is 0; SIZE/COUNT treat min <= 0 as 0)
 * Every error message names the option as the user spelt it (-n or
 * --ntimes), the bad value and the accepted form, e.g.
 * "--ntimes: invalid value '1': out of range; must be an integer in 2..1000000".
 * A CALLBACK's msg is prefixed with the option name. */
#ifndef MB_OPTS_H
#define MB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
    MB_OPT_FLAG, MB_OPT_INT, MB_OPT_DOUBLE, MB_OPT_SIZE, MB_OPT_COUNT,
    MB_OPT_STRING, MB_OPT_CHOICE, MB_OPT_CALLBACK,
} mb_opt_type_t;

typedef struct mb_opt {
    const char *long_name;     /* without "--"; NULL for short-only */
    char short_name;           /* 0 for long-only */
    mb_opt_type_t type;
    size_t offset;             /* offsetof(cfg_t, field) */
    long long min, max;        /* INT/SIZE/COUNT inclusive range (max 0 = unbounded) */
    double dmin, dmax;         /* DOUBLE range */
    const char *choices;       /* CHOICE: "text|json|csv" */
    const char *metavar;       /* shown in help: "N", "SIZE", "LIST" */
    const char *def;           /* default shown in help, or NULL */
    const char *help;
    int (*cb)(void *cfg, const char *arg, char *msg, size_t msglen);
    bool optional_arg;         /* argument only via --name=VAL (may be absent: arg NULL) */
} mb_opt_t;

typedef struct {
    int npos;                  /* positional arguments found */
    char **pos;                /* caller-provided array of argc entries */
    bool *seen;                /* caller-provided, one per table entry */
} mb_opts_out_t;

/* Parse argv[1..argc).  Returns 0, or 2 (usage error; msg filled, without
 * the program name: pass it to mb_error).  out may be NULL; npos and seen[]
 * are reset first. */
int mb_opts_parse(const mb_opt_t *table, size_t n, int argc, char **argv,
                  void *cfg, mb_opts_out_t *out, char *msg, size_t msglen);
/* Index of the entry with this long name, or -1. */
int mb_opts_index(const mb_opt_t *table, size_t n, const char *long_name);
/* Prints "Usage: <usage>\n\nOptions:\n" (usage NULL: no Usage line) and
 * one aligned line per entry ("  -s, --array-size SIZE   help (default: X)").
 * metavar NULL: N, X, SIZE, STR, VALUE by type; a CHOICE shows its choices.
 * Optional arguments show as --name[=META]; very long option columns put
 * the help on the next line. */
void mb_opts_help(FILE *f, const char *usage, const mb_opt_t *table, size_t n);

#endif
