/* log: diagnostics on stderr, "prog: level: text".
 *
 * The program name and the quiet switch are the only state; main sets
 * them once before any thread starts, so no locking is needed for them.
 * Each message is formatted first and written with one call, so lines
 * from concurrent threads do not interleave. */
#include "log.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MB_PROG_MAX 64

static char log_prog[MB_PROG_MAX] = "memsuite";
static bool log_quiet;

void mb_log_init(const char *prog)
{
    if (!prog || !*prog)
        return;
    const char *slash = strrchr(prog, '/');
    const char *base = slash ? slash + 1 : prog;
    if (!*base)
        return;
    snprintf(log_prog, sizeof log_prog, "%s", base);
}

const char *mb_log_prog(void)
{
    return log_prog;
}

void mb_log_quiet(int quiet)
{
    log_quiet = quiet != 0;
}

/* Formats the whole line, adds the newline the caller left out, writes
 * it with one fputs.  Falls back to piecewise output if memory is short. */
static void log_emit(const char *level, const char *fmt, va_list ap)
{
    char *text = NULL;
    va_list copy;
    va_copy(copy, ap);
    int len = vasprintf(&text, fmt, copy);
    va_end(copy);
    if (len < 0) {
        fprintf(stderr, "%s: %s: ", log_prog, level);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        return;
    }
    bool has_nl = len > 0 && text[len - 1] == '\n';
    char *line = NULL;
    if (asprintf(&line, "%s: %s: %s%s", log_prog, level, text, has_nl ? "" : "\n") >= 0) {
        fputs(line, stderr);
        free(line);
    } else {
        fprintf(stderr, "%s: %s: %s%s", log_prog, level, text, has_nl ? "" : "\n");
    }
    free(text);
    fflush(stderr);
}

void mb_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_emit("error", fmt, ap);
    va_end(ap);
}

void mb_warn(const char *fmt, ...)
{
    if (log_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_emit("warning", fmt, ap);
    va_end(ap);
}

void mb_note(const char *fmt, ...)
{
    if (log_quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    log_emit("note", fmt, ap);
    va_end(ap);
}

const char *mb_shown(const char *s, size_t keep, char *buf, size_t buflen)
{
    size_t o = 0, i = 0;

    if (buflen == 0)
        return buf;
    for (; (keep == 0 || i < keep) && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        bool plain = c >= 0x20 && c < 0x7f;
        if (o + (plain ? 1 : 4) + 4 >= buflen)
            break;
        if (plain)
            buf[o++] = (char)c;
        else
            o += (size_t)snprintf(buf + o, buflen - o, "\\x%02x", c);
    }
    if (s[i] && o + 4 <= buflen) {
        memcpy(buf + o, "...", 3);
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}
