/* json: a small streaming JSON writer.
 * Contract:
 *   - numbers print with %.17g (round-trip exact);
 *   - a non-finite number prints as null followed by a sibling
 *     "<key>_unavailable": "non-finite value (inf|nan)"; inside arrays
 *     it prints as null;
 *   - strings are fully escaped (quote, backslash, control characters as
 *     \uXXXX, \n \t ...); invalid UTF-8 bytes are replaced by U+FFFD.
 * Every call takes `key`: the member name inside an object, NULL inside
 * an array or at top level. */
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
/* Escaped, quoted string to f. */
void mb_json_write_escaped(FILE *f, const char *s);
/* Finish the document (newline). */
void mb_json_finish(mb_json_t *j);

#endif
