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
 *   STRING   const char * (points into argv, or at the table's def)
 *   CHOICE   int: the index of the value in the '|'-separated `choices`
 *            ("text|json|csv": json is 1), so it can be an enum directly
 *   CHOICE_STR const char *: the matched text (legacy, for tables not yet
 *            moved to indexes; new code uses CHOICE)
 *   CALLBACK calls cb(cfg, arg, msg, msglen); nonzero = usage error.  This
 *            is how a tool adds a typed option of its own (stream's
 *            N|SIZE|auto): the callback converts and stores.
 *   (INT min applies also when max is 0; SIZE/COUNT treat min <= 0 as 0)
 * Every error message names the option as the user spelt it (-n or
 * --ntimes), the bad value and the accepted form, e.g.
 * "--ntimes: invalid value '1': out of range; must be an integer in 2..1000000".
 * A CALLBACK's msg is prefixed with the option name (a short spelling
 * with its long name too: "-s/--array-size: ...").
 *
 * Defaults are data: `def` is the default as the user would type it, and
 * mb_opts_defaults stores every entry's def through the same conversion
 * (without the range check, so a default may be a "not given" value
 * outside the range: mbw's --numa-node -1).  A CHOICE without a def holds
 * -1 (not given).  --help shows def_text when set ("" shows nothing),
 * else def. */
#ifndef MB_OPTS_H
#define MB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum {
    MB_OPT_FLAG, MB_OPT_INT, MB_OPT_DOUBLE, MB_OPT_SIZE, MB_OPT_COUNT,
    MB_OPT_STRING, MB_OPT_CHOICE, MB_OPT_CALLBACK, MB_OPT_CHOICE_STR,
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
    const char *def;           /* the default, as typed ("10", "text"); NULL: none */
    const char *help;
    int (*cb)(void *cfg, const char *arg, char *msg, size_t msglen);
    bool optional_arg;         /* argument only via --name=VAL (may be absent: arg NULL) */
    const char *def_text;      /* help's "(default: X)" when not def ("OMP_NUM_THREADS");
                                * "" shows none */
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
/* Stores each entry's def into cfg (a CHOICE without one: -1); entries
 * without a def are left alone.  Returns 0, or 2 when a def does not
 * convert (a table bug; msg names the option). */
int mb_opts_defaults(const mb_opt_t *table, size_t n, void *cfg, char *msg, size_t msglen);
/* Converts, checks and stores one value for one entry, as the parser
 * does: a front end with its own scanner (mbw's getopt) calls it per
 * option.  name is the option as spelt (NULL: "--long_name", or "-c" for
 * a short-only entry); arg NULL means no value (a FLAG, or an optional
 * argument left out).  Returns 0, or 2 with msg filled. */
int mb_opts_apply(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                  char *msg, size_t msglen);
/* The idx-th name of a '|'-separated choices list into buf; returns buf,
 * or NULL when idx is out of range. */
const char *mb_opts_choice_name(const char *choices, int idx, char *buf, size_t len);
/* Index of the entry with this long name, or -1. */
int mb_opts_index(const mb_opt_t *table, size_t n, const char *long_name);
/* Prints "Usage: <usage>\n\nOptions:\n" (usage NULL: no Usage line) and
 * one aligned line per entry ("  -s, --array-size SIZE   help (default: X)").
 * metavar NULL: N, X, SIZE, STR, VALUE by type; a CHOICE shows its choices.
 * Optional arguments show as --name[=META]; very long option columns put
 * the help on the next line. */
void mb_opts_help(FILE *f, const char *usage, const mb_opt_t *table, size_t n);
/* The option lines alone, without the Usage and Options headers. */
void mb_opts_help_lines(FILE *f, const mb_opt_t *table, size_t n);

#endif
