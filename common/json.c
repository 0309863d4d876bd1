/* json: streaming JSON writer (contract in json.h). */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "wstatus.h"

static const char *const short_escape[0x20] = {
    ['\b'] = "\\b", ['\f'] = "\\f", ['\n'] = "\\n", ['\r'] = "\\r", ['\t'] = "\\t",
};

/* Length of the well-formed UTF-8 sequence at s (1..4), or the negative
 * length of its maximal ill-formed subpart (-1..-3).  s[0] >= 0x80. */
static int utf8_sequence(const unsigned char *s)
{
    /* Unicode Table 3-7: lead byte range -> length and second-byte range. */
    static const struct { unsigned char lo_lead, hi_lead, len, lo2, hi2; } forms[] = {
        { 0xC2, 0xDF, 2, 0x80, 0xBF },
        { 0xE0, 0xE0, 3, 0xA0, 0xBF },
        { 0xE1, 0xEC, 3, 0x80, 0xBF },
        { 0xED, 0xED, 3, 0x80, 0x9F },   /* no surrogates */
        { 0xEE, 0xEF, 3, 0x80, 0xBF },
        { 0xF0, 0xF0, 4, 0x90, 0xBF },   /* no overlongs */
        { 0xF1, 0xF3, 4, 0x80, 0xBF },
        { 0xF4, 0xF4, 4, 0x80, 0x8F },   /* <= U+10FFFF */
    };
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        if (s[0] < forms[i].lo_lead || s[0] > forms[i].hi_lead)
            continue;
        if (s[1] < forms[i].lo2 || s[1] > forms[i].hi2)
            return -1;
        for (int k = 2; k < forms[i].len; k++)
            if (s[k] < 0x80 || s[k] > 0xBF)
                return -k;
        return forms[i].len;
    }
    return -1;   /* 0x80..0xC1, 0xF5..0xFF: never a lead byte */
}

/* The escaped text of s without the surrounding quotes. */
static void write_body(FILE *f, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') {
            putc('\\', f);
            putc(c, f);
            s++;
        } else if (c < 0x20) {
            if (short_escape[c])
                fputs(short_escape[c], f);
            else
                fprintf(f, "\\u%04x", c);
            s++;
        } else if (c < 0x80) {
            putc(c, f);
            s++;
        } else {
            int n = utf8_sequence(s);
            if (n > 0) {
                fwrite(s, 1, (size_t)n, f);
                s += n;
            } else {
                fputs("\\ufffd", f);
                s += -n;
            }
        }
    }
}

void mb_json_write_escaped(FILE *f, const char *s)
{
    if (!s) {
        fputs("null", f);
        return;
    }
    putc('"', f);
    write_body(f, s);
    putc('"', f);
}

static void set_err(mb_json_t *j, int err)
{
    if (!j->err)
        j->err = err;
}

void mb_json_init(mb_json_t *j, FILE *f, bool pretty)
{
    memset(j, 0, sizeof *j);
    j->f = f;
    j->pretty = pretty;
    j->first[0] = true;
}

static bool in_object(const mb_json_t *j)
{
    return j->depth > 0 && !j->is_array[j->depth];
}

static void newline_indent(mb_json_t *j, int depth)
{
    if (!j->pretty)
        return;
    putc('\n', j->f);
    for (int i = 0; i < depth; i++)
        fputs("  ", j->f);
}

/* Separator, indentation and "key": before a value.  `suffix` extends the
 * key (for "<key>_unavailable"). */
static void member_prefix(mb_json_t *j, const char *key, const char *suffix)
{
    int d = j->depth;
    if (d > 0) {
        if (!j->first[d])
            putc(',', j->f);
        newline_indent(j, d);
    }
    j->first[d] = false;
    if (!in_object(j))
        return;
    if (!key) {
        set_err(j, -EINVAL);
        key = "";
    }
    putc('"', j->f);
    write_body(j->f, key);
    if (suffix)
        fputs(suffix, j->f);
    fputs(j->pretty ? "\": " : "\":", j->f);
}

/* Inside an object: "<key>_unavailable": "<why>". */
static void unavailable_sibling(mb_json_t *j, const char *key, const char *why)
{
    if (!in_object(j) || !why)
        return;
    member_prefix(j, key, "_unavailable");
    mb_json_write_escaped(j->f, why);
}

static void begin(mb_json_t *j, const char *key, bool array)
{
    if (j->dropped_depth) {
        j->dropped_depth++;
        return;
    }
    if (j->depth + 1 >= MB_JSON_MAX_DEPTH) {
        member_prefix(j, key, NULL);
        fputs("null", j->f);
        unavailable_sibling(j, key, "nesting too deep for the JSON writer");
        set_err(j, -E2BIG);
        j->dropped_depth = 1;
        return;
    }
    member_prefix(j, key, NULL);
    putc(array ? '[' : '{', j->f);
    j->depth++;
    j->first[j->depth] = true;
    j->is_array[j->depth] = array;
}

static void end(mb_json_t *j, bool array)
{
    if (j->dropped_depth) {
        j->dropped_depth--;
        return;
    }
    if (j->depth == 0) {
        set_err(j, -EINVAL);
        return;
    }
    bool was_array = j->is_array[j->depth];
    if (was_array != array)
        set_err(j, -EINVAL);   /* close what is open so the text stays JSON */
    if (!j->first[j->depth])
        newline_indent(j, j->depth - 1);
    putc(was_array ? ']' : '}', j->f);
    j->depth--;
}

void mb_json_object_begin(mb_json_t *j, const char *key) { begin(j, key, false); }
void mb_json_object_end(mb_json_t *j) { end(j, false); }
void mb_json_array_begin(mb_json_t *j, const char *key) { begin(j, key, true); }
void mb_json_array_end(mb_json_t *j) { end(j, true); }

void mb_json_string(mb_json_t *j, const char *key, const char *s)
{
    if (j->dropped_depth)
        return;
    member_prefix(j, key, NULL);
    mb_json_write_escaped(j->f, s);
}

void mb_json_number(mb_json_t *j, const char *key, double v)
{
    if (j->dropped_depth)
        return;
    member_prefix(j, key, NULL);
    if (isfinite(v)) {
        fprintf(j->f, "%.17g", v);
        return;
    }
    fputs("null", j->f);
    unavailable_sibling(j, key, isnan(v) ? "non-finite value (nan)"
                                : v > 0  ? "non-finite value (inf)"
                                         : "non-finite value (-inf)");
}

void mb_json_int(mb_json_t *j, const char *key, long long v)
{
    if (j->dropped_depth)
        return;
    member_prefix(j, key, NULL);
    fprintf(j->f, "%lld", v);
}

void mb_json_uint(mb_json_t *j, const char *key, unsigned long long v)
{
    if (j->dropped_depth)
        return;
    member_prefix(j, key, NULL);
    fprintf(j->f, "%llu", v);
}

void mb_json_bool(mb_json_t *j, const char *key, bool v)
{
    if (j->dropped_depth)
        return;
    member_prefix(j, key, NULL);
    fputs(v ? "true" : "false", j->f);
}

void mb_json_unavailable(mb_json_t *j, const char *key, const char *why)
{
    if (j->dropped_depth)
        return;
    member_prefix(j, key, NULL);
    fputs("null", j->f);
    unavailable_sibling(j, key, why);
}

void mb_json_finish(mb_json_t *j)
{
    if (j->depth != 0 || j->dropped_depth)
        set_err(j, -EINVAL);
    putc('\n', j->f);
    int e = mb_write_status(j->f);
    if (e)
        set_err(j, -e);
}

int mb_json_error(const mb_json_t *j)
{
    return j->err;
}
