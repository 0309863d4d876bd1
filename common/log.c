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

static char *msg_tidy(const char *text);

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
    char *tidy = msg_tidy(text);
    if (tidy) {
        free(text);
        text = tidy;
        len = (int)strlen(text);
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

/* ---- the one way a value reaches a message ----------------------------- */

/* Caret notation of one C0 or DEL byte: ESC "^[", DEL "^?". */
static void caret(unsigned char c, char out[3])
{
    out[0] = '^';
    out[1] = c == 0x7f ? '?' : (char)(c + 64);
    out[2] = '\0';
}

static bool is_ctl(unsigned char c)
{
    return c < 0x20 || c == 0x7f;
}

/* Bytes that byte c takes in mb_shown's form. */
static size_t shown_width(unsigned char c)
{
    return (c >= 0x20 && c < 0x7f) ? 1 : is_ctl(c) ? 2 : 4;
}

const char *mb_shown(const char *s, size_t keep, char *buf, size_t buflen)
{
    if (buflen == 0)
        return buf;
    size_t len = strlen(s), need = 1;
    bool cut = keep && len > keep;
    for (size_t i = 0; !cut && i < len; i++)
        if ((need += shown_width((unsigned char)s[i])) > buflen)
            cut = true;
    char mark[48] = "";
    if (cut) {
        snprintf(mark, sizeof mark, "... (%zu bytes)", len);
        if (strlen(mark) + 1 > buflen)
            snprintf(mark, sizeof mark, "%s", buflen > 4 ? "..." : "");
    }
    size_t room = buflen - 1 - strlen(mark), o = 0;
    for (size_t i = 0; i < len && (!cut || !keep || i < keep); i++) {
        unsigned char c = (unsigned char)s[i];
        size_t w = shown_width(c);
        if (o + w > room)
            break;
        if (w == 1)
            buf[o] = (char)c;
        else if (w == 2)
            caret(c, buf + o);
        else
            snprintf(buf + o, buflen - o, "\\x%02x", c);
        o += w;
    }
    memcpy(buf + o, mark, strlen(mark) + 1);
    return buf;
}

/* The text of a message as it reaches the terminal: control characters
 * but newline and tab in caret notation (C1, UTF-8 \xc2\x80-\x9f, as
 * M-^X), a word (a run without blanks) over MB_MSG_WORD_MAX bytes cut to
 * its first MB_MSG_WORD_KEPT characters and marked "... (N bytes)", and
 * the whole text over MB_MSG_MAX bytes cut and marked alike.  Every
 * mb_error/mb_warn/mb_note goes through it, so a value a message quotes
 * raw (an argument, a name from a file) neither drives the terminal nor
 * floods it.  Returns a malloc'd string, or NULL when memory is short. */
#define MB_MSG_WORD_MAX 256
#define MB_MSG_WORD_KEPT 64
#define MB_MSG_MAX 8192
static char *msg_tidy(const char *text)
{
    /* Each input byte takes at most two output bytes (a cut word fewer),
     * and a step past MB_MSG_MAX adds at most one cut word and the mark. */
    size_t len = strlen(text), cap = 2 * (len < MB_MSG_MAX ? len : MB_MSG_MAX) + 512, o = 0;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    for (size_t i = 0; i < len;) {
        if (o >= MB_MSG_MAX) {
            o += (size_t)snprintf(out + o, cap - o, "... (%zu bytes)", len);
            break;
        }
        size_t word = strcspn(text + i, " \t\n");
        if (word > MB_MSG_WORD_MAX) {
            /* the quotes and punctuation around the value stay, and the
             * count is the value's own length */
            size_t pre = strspn(text + i, "'\"`([{"), post = 0;
            pre = pre > 2 ? 2 : pre;
            while (post < 3 && strchr("'\"`)]};:,.", text[i + word - 1 - post]))
                post++;
            size_t kept = pre + MB_MSG_WORD_KEPT;
            while (kept > pre && ((unsigned char)text[i + kept] & 0xc0) == 0x80)
                kept--;    /* do not split a UTF-8 character */
            for (size_t k = 0; k < kept; k++) {
                unsigned char c = (unsigned char)text[i + k];
                if (is_ctl(c)) {
                    caret(c, out + o);
                    o += 2;
                } else {
                    out[o++] = (char)c;
                }
            }
            o += (size_t)snprintf(out + o, cap - o, "... (%zu bytes)%.*s", word - pre - post,
                                  (int)post, text + i + word - post);
            i += word;
            continue;
        }
        unsigned char c = (unsigned char)text[i];
        if (c == 0xc2 && i + 1 < len && (unsigned char)text[i + 1] >= 0x80 &&
            (unsigned char)text[i + 1] <= 0x9f) {
            out[o++] = 'M';
            out[o++] = '-';
            caret((unsigned char)(text[i + 1] - 0x80), out + o);
            o += 2;
            i += 2;
            continue;
        }
        if (is_ctl(c) && c != '\n' && c != '\t') {
            caret(c, out + o);
            o += 2;
        } else {
            out[o++] = (char)c;
        }
        i++;
    }
    out[o] = '\0';
    return out;
}
