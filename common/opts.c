/* opts: one generic parser and help printer driven by a tool's table. */
#include "opts.h"

#include "log.h"

#include "sizing.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MB_HELP_COL_MAX 34     /* wider option columns wrap the help text */

/* Printable, bounded copy of a user value for messages (log.h). */
static const char *shown(const char *s, char *buf, size_t buflen)
{
    return mb_shown(s, 0, buf, buflen);
}

static void *field(void *cfg, const mb_opt_t *o)
{
    return (char *)cfg + o->offset;
}

static bool takes_value(const mb_opt_t *o)
{
    return o->type != MB_OPT_FLAG;
}

/* "2..1000000", ">= 2": the accepted integer range in words. */
static void range_text(char *buf, size_t len, long long lo, long long hi, bool unsigned_kind)
{
    if (hi == 0)
        snprintf(buf, len, ">= %lld", unsigned_kind && lo < 0 ? 0 : lo);
    else
        snprintf(buf, len, "in %lld..%lld", unsigned_kind && lo < 0 ? 0 : lo, hi);
}

/* Each set_* converts arg into the entry's field; ranged false skips the
 * range check (a table's default, mb_opts_defaults). */
static int set_int(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                   char *msg, size_t msglen, bool ranged)
{
    char q[64], r[64];
    range_text(r, sizeof r, o->min, o->max, false);
    long long hi = o->max == 0 ? LLONG_MAX : o->max;
    char *end;
    errno = 0;
    long long v = 0;
    bool syntax_ok = *arg && !isspace((unsigned char)*arg);
    if (syntax_ok) {
        v = strtoll(arg, &end, 10);
        syntax_ok = end != arg && *end == '\0';
    }
    if (!syntax_ok || errno == ERANGE || (ranged && (v < o->min || v > hi))) {
        snprintf(msg, msglen, "%s: invalid value '%s': %s; must be an integer %s", name,
                 shown(arg, q, sizeof q),
                 syntax_ok ? "out of range" : "not an integer",
                 r);
        return 2;
    }
    *(long long *)field(cfg, o) = v;
    return 0;
}

static int set_double(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                      char *msg, size_t msglen, bool ranged)
{
    char q[64], r[96];
    bool bounded = ranged && !(o->dmin == 0.0 && o->dmax == 0.0);
    if (bounded)
        snprintf(r, sizeof r, "a number in %g..%g", o->dmin, o->dmax);
    else
        snprintf(r, sizeof r, "a finite number");
    char *end;
    errno = 0;
    double v = 0.0;
    const char *why = NULL;
    if (!*arg || isspace((unsigned char)*arg)) {
        why = "not a number";
    } else {
        v = strtod(arg, &end);
        if (end == arg || *end)
            why = "not a number";
        else if (strpbrk(arg, "xX"))
            why = "not a decimal number";   /* strtod takes hex: 0x10 = 16 */
        else if (!isfinite(v) || errno == ERANGE)
            why = "not finite or out of range";
        else if (bounded && (v < o->dmin || v > o->dmax))
            why = "out of range";
    }
    if (why) {
        snprintf(msg, msglen, "%s: invalid value '%s': %s; must be %s", name,
                 shown(arg, q, sizeof q), why, r);
        return 2;
    }
    *(double *)field(cfg, o) = v;
    return 0;
}

static int set_scaled(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                      char *msg, size_t msglen, bool ranged)
{
    bool is_size = o->type == MB_OPT_SIZE;
    char perr[256], q[64], r[64];
    size_t v;
    int rc = is_size ? mb_parse_size(arg, &v, perr, sizeof perr)
                     : mb_parse_count(arg, &v, perr, sizeof perr);
    if (rc) {
        snprintf(msg, msglen, "%s: %s", name, perr);
        return 2;
    }
    size_t lo = o->min > 0 ? (size_t)o->min : 0;
    size_t hi = o->max > 0 ? (size_t)o->max : SIZE_MAX;
    if (ranged && (v < lo || v > hi)) {
        range_text(r, sizeof r, o->min, o->max, true);
        snprintf(msg, msglen, "%s: invalid value '%s': out of range; must be %s %s%s", name,
                 shown(arg, q, sizeof q), is_size ? "a size" : "a count", r,
                 is_size ? " bytes" : "");
        return 2;
    }
    *(size_t *)field(cfg, o) = v;
    return 0;
}

/* Index of arg in a '|'-separated list, or -1 ("" never matches). */
static int choice_index(const char *choices, const char *arg)
{
    const char *c = choices ? choices : "";
    size_t alen = strlen(arg);
    for (int idx = 0; alen > 0; c++, idx++) {
        const char *bar = strchr(c, '|');
        size_t len = bar ? (size_t)(bar - c) : strlen(c);
        if (len == alen && strncmp(c, arg, len) == 0)
            return idx;
        if (!bar)
            break;
        c = bar;
    }
    return -1;
}

const char *mb_opts_choice_name(const char *choices, int idx, char *buf, size_t len)
{
    const char *c = choices ? choices : "";
    for (int i = 0; i < idx && c; i++) {
        c = strchr(c, '|');
        c = c ? c + 1 : NULL;
    }
    if (!c || idx < 0 || len == 0)
        return NULL;
    const char *bar = strchr(c, '|');
    int w = bar ? (int)(bar - c) : (int)strlen(c);
    snprintf(buf, len, "%.*s", w, c);
    return buf;
}

static int set_choice(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                      char *msg, size_t msglen)
{
    int idx = choice_index(o->choices, arg);
    if (idx >= 0) {
        if (o->type == MB_OPT_CHOICE)
            *(int *)field(cfg, o) = idx;
        else
            *(const char **)field(cfg, o) = arg;
        return 0;
    }
    char q[64];
    snprintf(msg, msglen, "%s: invalid value '%s': must be one of %s", name,
             shown(arg, q, sizeof q), o->choices ? o->choices : "(none)");
    return 2;
}

static int set_callback(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                        char *msg, size_t msglen)
{
    if (!o->cb)
        return 0;
    char why[512] = "";
    if (o->cb(cfg, arg, why, sizeof why) == 0)
        return 0;
    char q[64], both[136];
    if (name[0] == '-' && name[1] != '-' && o->long_name) {
        snprintf(both, sizeof both, "%s/--%s", name, o->long_name);
        name = both;
    }
    if (why[0])
        snprintf(msg, msglen, "%s: %s", name, why);
    else
        snprintf(msg, msglen, "%s: invalid value '%s'", name, arg ? shown(arg, q, sizeof q) : "");
    return 2;
}

/* A STRING value must not be empty: "--membind ''" would otherwise read as
 * "not given" and silently mean the default.  A short spelling is named
 * with its long name too ("-s/--array-size"), so scripts can grep either. */
static int set_string(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                      char *msg, size_t msglen)
{
    if (*arg == '\0') {
        bool short_form = name[0] == '-' && name[1] != '-';
        snprintf(msg, msglen, "%s%s%s: invalid value '': empty; give a value (%s), or leave the "
                 "option out for the default", name, short_form && o->long_name ? "/--" : "",
                 short_form && o->long_name ? o->long_name : "", o->metavar ? o->metavar : "STR");
        return 2;
    }
    *(const char **)field(cfg, o) = arg;
    return 0;
}

/* Stores arg (NULL: an optional argument left out) into the entry. */
static int apply(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                 char *msg, size_t msglen, bool ranged)
{
    if (o->type == MB_OPT_FLAG) {
        *(bool *)field(cfg, o) = true;
        return 0;
    }
    if (o->type == MB_OPT_CALLBACK)
        return set_callback(o, name, arg, cfg, msg, msglen);
    if (!arg)                  /* optional_arg without "=VAL": seen only */
        return 0;
    switch (o->type) {
    case MB_OPT_INT:    return set_int(o, name, arg, cfg, msg, msglen, ranged);
    case MB_OPT_DOUBLE: return set_double(o, name, arg, cfg, msg, msglen, ranged);
    case MB_OPT_SIZE:
    case MB_OPT_COUNT:  return set_scaled(o, name, arg, cfg, msg, msglen, ranged);
    case MB_OPT_CHOICE:
    case MB_OPT_CHOICE_STR: return set_choice(o, name, arg, cfg, msg, msglen);
    case MB_OPT_STRING:
        return set_string(o, name, arg, cfg, msg, msglen);
    default:
        snprintf(msg, msglen, "%s: internal error: unknown option type %d", name, (int)o->type);
        return 2;
    }
}

int mb_opts_apply(const mb_opt_t *o, const char *name, const char *arg, void *cfg,
                  char *msg, size_t msglen)
{
    char own[136];
    if (!name) {
        if (o->long_name)
            snprintf(own, sizeof own, "--%s", o->long_name);
        else
            snprintf(own, sizeof own, "-%c", o->short_name);
        name = own;
    }
    return apply(o, name, arg, cfg, msg, msglen, true);
}

int mb_opts_defaults(const mb_opt_t *table, size_t n, void *cfg, char *msg, size_t msglen)
{
    for (size_t i = 0; i < n; i++) {
        const mb_opt_t *o = &table[i];
        char name[136], why[512];
        if (!o->def) {
            if (o->type == MB_OPT_CHOICE)
                *(int *)field(cfg, o) = -1;
            continue;
        }
        snprintf(name, sizeof name, "--%s", o->long_name ? o->long_name : "?");
        if (o->type == MB_OPT_FLAG || apply(o, name, o->def, cfg, why, sizeof why, false)) {
            snprintf(msg, msglen, "internal error: the default of %s does not convert: %s",
                     name, o->type == MB_OPT_FLAG ? "a flag has no default" : why);
            return 2;
        }
    }
    return 0;
}

int mb_opts_index(const mb_opt_t *table, size_t n, const char *long_name)
{
    if (!long_name)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (table[i].long_name && strcmp(table[i].long_name, long_name) == 0)
            return (int)i;
    return -1;
}

static int short_index(const mb_opt_t *table, size_t n, char c)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].short_name && table[i].short_name == c)
            return (int)i;
    return -1;
}

static int add_positional(mb_opts_out_t *out, char *arg, char *msg, size_t msglen)
{
    char q[64];
    if (!out || !out->pos) {
        snprintf(msg, msglen, "unexpected argument '%s'; this program takes no operands",
                 shown(arg, q, sizeof q));
        return 2;
    }
    out->pos[out->npos++] = arg;
    return 0;
}

/* One "--name" or "--name=VAL" word; may consume argv[*i + 1]. */
static int parse_long(const mb_opt_t *table, size_t n, int argc, char **argv, int *i,
                      void *cfg, mb_opts_out_t *out, char *msg, size_t msglen)
{
    char *word = argv[*i];
    char *body = word + 2;
    char *eq = strchr(body, '=');
    char key[128], name[136], q[64];
    size_t klen = eq ? (size_t)(eq - body) : strlen(body);
    if (klen >= sizeof key) {
        snprintf(msg, msglen, "unknown option '%s'; see --help", shown(word, q, sizeof q));
        return 2;
    }
    memcpy(key, body, klen);
    key[klen] = '\0';
    int idx = mb_opts_index(table, n, key);
    if (idx < 0 || klen == 0) {
        snprintf(msg, msglen, "unknown option '--%s'; see --help",
                 shown(klen ? key : body, q, sizeof q));
        return 2;
    }
    const mb_opt_t *o = &table[idx];
    snprintf(name, sizeof name, "--%s", key);
    const char *arg = NULL;
    if (eq) {
        if (!takes_value(o)) {
            snprintf(msg, msglen, "%s: takes no value (got '%s'); use %s alone", name,
                     shown(eq + 1, q, sizeof q), name);
            return 2;
        }
        arg = eq + 1;
    } else if (takes_value(o) && !o->optional_arg) {
        if (*i + 1 >= argc) {
            snprintf(msg, msglen, "%s: missing value; use %s %s", name, name,
                     o->metavar ? o->metavar : "VALUE");
            return 2;
        }
        arg = argv[++*i];
    }
    if (out && out->seen)
        out->seen[idx] = true;
    return apply(o, name, arg, cfg, msg, msglen, true);
}

/* One "-x", "-xVAL", "-x VAL" or a cluster of flags "-abc". */
static int parse_short(const mb_opt_t *table, size_t n, int argc, char **argv, int *i,
                       void *cfg, mb_opts_out_t *out, char *msg, size_t msglen)
{
    char *word = argv[*i];
    for (char *p = word + 1; *p; p++) {
        char name[3] = {'-', *p, '\0'}, q[64];
        int idx = short_index(table, n, *p);
        if (idx < 0) {
            /* name the whole character: a UTF-8 lead byte with its
             * continuation bytes ("-\xc3\xa9" for -é), escaped */
            char ch[8];
            size_t len = 1;
            ch[0] = *p;
            while ((unsigned char)*p >= 0xc0 && len < 4 && ((unsigned char)p[len] & 0xc0) == 0x80) {
                ch[len] = p[len];
                len++;
            }
            ch[len] = '\0';
            snprintf(msg, msglen, "unknown option '-%s'; see --help", shown(ch, q, sizeof q));
            return 2;
        }
        const mb_opt_t *o = &table[idx];
        if (out && out->seen)
            out->seen[idx] = true;
        if (!takes_value(o) || o->optional_arg) {
            int rc = apply(o, name, NULL, cfg, msg, msglen, true);
            if (rc)
                return rc;
            continue;
        }
        const char *arg;
        if (p[1]) {
            arg = p + 1;
        } else if (*i + 1 < argc) {
            arg = argv[++*i];
        } else {
            snprintf(msg, msglen, "%s: missing value; use %s %s", name, name,
                     o->metavar ? o->metavar : "VALUE");
            return 2;
        }
        return apply(o, name, arg, cfg, msg, msglen, true);
    }
    return 0;
}

int mb_opts_parse(const mb_opt_t *table, size_t n, int argc, char **argv,
                  void *cfg, mb_opts_out_t *out, char *msg, size_t msglen)
{
    char dummy[1];
    if (!msg || msglen == 0) {
        msg = dummy;
        msglen = sizeof dummy;
    }
    msg[0] = '\0';
    if (out) {
        out->npos = 0;
        if (out->seen)
            memset(out->seen, 0, n * sizeof *out->seen);
    }
    bool only_positionals = false;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        int rc;
        if (only_positionals || a[0] != '-' || a[1] == '\0') {
            rc = add_positional(out, a, msg, msglen);   /* "-" is an operand */
        } else if (a[1] == '-' && a[2] == '\0') {
            only_positionals = true;
            continue;
        } else if (a[1] == '-') {
            rc = parse_long(table, n, argc, argv, &i, cfg, out, msg, msglen);
        } else {
            rc = parse_short(table, n, argc, argv, &i, cfg, out, msg, msglen);
        }
        if (rc)
            return 2;
    }
    return 0;
}

/* ---- help ------------------------------------------------------------ */

static const char *default_metavar(const mb_opt_t *o)
{
    static const char *const names[] = {
        [MB_OPT_FLAG] = NULL, [MB_OPT_INT] = "N", [MB_OPT_DOUBLE] = "X",
        [MB_OPT_SIZE] = "SIZE", [MB_OPT_COUNT] = "N", [MB_OPT_STRING] = "STR",
        [MB_OPT_CHOICE] = NULL, [MB_OPT_CALLBACK] = "VALUE", [MB_OPT_CHOICE_STR] = NULL,
    };
    if (o->metavar)
        return o->metavar;
    if (o->type == MB_OPT_CHOICE || o->type == MB_OPT_CHOICE_STR)
        return o->choices ? o->choices : "CHOICE";
    if ((unsigned)o->type < sizeof names / sizeof names[0])
        return names[o->type];
    return NULL;
}

/* "  -s, --array-size SIZE" into buf; returns its length. */
static int left_column(const mb_opt_t *o, char *buf, size_t len)
{
    const char *mv = default_metavar(o);
    char arg[96] = "";
    if (mv && o->type != MB_OPT_FLAG) {
        if (o->optional_arg && o->long_name)
            snprintf(arg, sizeof arg, "[=%s]", mv);
        else if (o->optional_arg)
            arg[0] = '\0';     /* a short-only optional takes no value */
        else
            snprintf(arg, sizeof arg, " %s", mv);
    }
    int w;
    if (o->short_name && o->long_name)
        w = snprintf(buf, len, "  -%c, --%s%s", o->short_name, o->long_name, arg);
    else if (o->long_name)
        w = snprintf(buf, len, "      --%s%s", o->long_name, arg);
    else
        w = snprintf(buf, len, "  -%c%s", o->short_name, arg);
    return w < 0 ? 0 : (w >= (int)len ? (int)len - 1 : w);
}

void mb_opts_help(FILE *f, const char *usage, const mb_opt_t *table, size_t n)
{
    if (usage)
        fprintf(f, "Usage: %s\n\n", usage);
    fprintf(f, "Options:\n");
    mb_opts_help_lines(f, table, n);
}

void mb_opts_help_lines(FILE *f, const mb_opt_t *table, size_t n)
{
    char left[256];
    int col = 0;
    for (size_t i = 0; i < n; i++) {
        int w = left_column(&table[i], left, sizeof left);
        if (w <= MB_HELP_COL_MAX && w > col)
            col = w;
    }
    col += 2;
    for (size_t i = 0; i < n; i++) {
        const mb_opt_t *o = &table[i];
        int w = left_column(o, left, sizeof left);
        fputs(left, f);
        if (w + 2 > col)
            fprintf(f, "\n%*s", col, "");
        else
            fprintf(f, "%*s", col - w, "");
        fputs(o->help ? o->help : "", f);
        if ((o->type == MB_OPT_CHOICE || o->type == MB_OPT_CHOICE_STR) && o->metavar &&
            o->choices)
            fprintf(f, " (one of %s)", o->choices);
        const char *def = o->def_text ? o->def_text : o->def;
        if (def && *def)
            fprintf(f, " (default: %s)", def);
        fputc('\n', f);
    }
}
