/* json: a small streaming JSON writer.
 * Contract:
 *   - numbers print with %.17g (round-trip exact);
 *   - a non-finite number prints as null followed by a sibling
 *     "<key>_unavailable": "non-finite value (inf|nan)"; inside arrays
 *     it prints as null;
 *   - strings are fully escaped (quote, backslash, control characters as
 *     \uXXXX, \n \t ...); invalid UTF-8 bytes are replaced by U+FFFD.
 * Every call takes `key`: the member name inside an object, NULL inside
 * an array or at top level (a key given there is ignored).
 *
 * Layout: compact ({"a":1,"b":[1,2]}) or pretty (two-space indent,
 * "key": value, empty containers as {} and []).
 * Depth guard: at most MB_JSON_MAX_DEPTH - 1 nested containers.  A
 * container that would go deeper is written as null (with a
 * "<key>_unavailable" sibling inside an object) and everything inside it
 * is dropped, so the document stays valid; mb_json_error() then reports
 * -E2BIG.  Unbalanced ends are ignored and reported as -EINVAL. */
#ifndef MB_JSON_H
#define MB_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define MB_JSON_MAX_DEPTH 32

typedef struct mb_json {
    FILE *f;
    int depth;
    bool first[MB_JSON_MAX_DEPTH];   /* no member written yet at this depth */
    bool pretty;                     /* two-space indentation */
    bool is_array[MB_JSON_MAX_DEPTH];/* container at this depth is an array */
    int dropped_depth;               /* containers open past MB_JSON_MAX_DEPTH, whose
                                      * contents are dropped (0: writing normally) */
    int err;                         /* first error: 0, -E2BIG, -EINVAL, -EIO */
} mb_json_t;

void mb_json_init(mb_json_t *j, FILE *f, bool pretty);
void mb_json_object_begin(mb_json_t *j, const char *key);
void mb_json_object_end(mb_json_t *j);
void mb_json_array_begin(mb_json_t *j, const char *key);
void mb_json_array_end(mb_json_t *j);
void mb_json_string(mb_json_t *j, const char *key, const char *s); /* NULL -> null */
void mb_json_number(mb_json_t *j, const char *key, double v);
void mb_json_int(mb_json_t *j, const char *key, long long v);
void mb_json_uint(mb_json_t *j, const char *key, unsigned long long v);
void mb_json_bool(mb_json_t *j, const char *key, bool v);
/* "<key>": null, "<key>_unavailable": "<why>"  (why NULL: no sibling) */
void mb_json_unavailable(mb_json_t *j, const char *key, const char *why);
/* Escaped, quoted string to f; NULL writes null.  Bytes that are not
 * well-formed UTF-8 become \ufffd (one per maximal ill-formed subpart). */
void mb_json_write_escaped(FILE *f, const char *s);
/* Finish the document (newline, flush). */
void mb_json_finish(mb_json_t *j);
/* 0, or the first error: -E2BIG (too deep), -EINVAL (unbalanced end,
 * NULL key inside an object, unclosed container at finish), -EIO (the
 * stream reported an error). */
int mb_json_error(const mb_json_t *j);

#endif
