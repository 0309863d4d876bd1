/* log: diagnostics on stderr in one shape.
 *
 *   prog: context: what failed: why; what to do
 *
 * The program name is set once by main (mb_log_init).  Results never go
 * through this module: they go to stdout or a result file. */
#ifndef MB_LOG_H
#define MB_LOG_H

#include <stdarg.h>
#include <stddef.h>

void mb_log_init(const char *prog);      /* prog: basename used as prefix */
const char *mb_log_prog(void);           /* "memsuite" until init */

/* "prog: error: <fmt>" on stderr.  The caller's text carries
 * "context: what failed: why; what to do". */
void mb_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: warning: <fmt>" on stderr; suppressed by mb_log_quiet(1). */
void mb_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "prog: note: <fmt>" on stderr; suppressed by mb_log_quiet(1). */
void mb_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void mb_log_quiet(int quiet);

/* A user's value made safe to quote in a message: printable ASCII as is,
 * control characters in caret notation (ESC as ^[, DEL as ^?), every
 * other byte (UTF-8) as \xHH; at most `keep` input characters (0: as many
 * as fit), and when cut "... (N bytes)" after what is kept, N the value's
 * whole length.  Writes buf (always terminated) and returns it.
 * mb_error/mb_warn/mb_note apply the same rules to the whole message
 * (control characters in caret notation, a word over 256 bytes cut to its
 * first 64 characters and marked), so a value quoted raw is safe too. */
const char *mb_shown(const char *s, size_t keep, char *buf, size_t buflen);

#endif
