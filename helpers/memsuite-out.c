/* memsuite-out: common/outfile for the bash side, so scripts/memsuite
 * writes every file (references, reports, run state, Prometheus files) by
 * the same rules as the tools, from one implementation.
 *
 *   memsuite-out check [OPTIONS] PATH   PATH could be written now
 *   memsuite-out write [OPTIONS] PATH   standard input becomes PATH (read
 *                                       whole first: nothing is written
 *                                       when the input cannot be read)
 *   memsuite-out hold [OPTIONS] PATH    check; a FIFO or device is kept open
 *                                       for writing after the "kind" line,
 *                                       while the caller opens it too, until
 *                                       the message descriptor (a pipe) is
 *                                       closed
 * Options:
 *   --what NOUN     the noun the message starts with ("reference"); without
 *                   it the message starts at the quoted path
 *   --input FILE    an input of the command: PATH must not be that file
 *                   (the same device and inode); may be repeated
 *   --msg-fd N      where the one-line message goes (default 2), so the
 *                   caller's stderr can itself be a target (/dev/stderr)
 *
 * What PATH means (stdout, descriptors, devices, FIFOs, symlinks, atomic
 * replacement, a full disk) is common/outfile.h's contract.  The message
 * is "<what> '<path>': what failed: why; hint", then "why: <reason>"
 * when there is one and "exit: <status>"; on success it is "kind: atomic|descriptor|in
 * place", how PATH is written.  Exit status
 * (common/exitcodes.h): 0 done, 2 PATH is one of the inputs or the
 * command line is wrong, 3 PATH cannot be written. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exitcodes.h"
#include "outfile.h"

static const char usage[] =
    "Usage: memsuite-out check|write|hold [--what NOUN] [--input FILE]... [--msg-fd N] PATH\n"
    "A helper of scripts/memsuite: common/outfile's rules for the files it writes.\n"
    "Exit status: 0 ok, 2 PATH is an input (or usage), 3 PATH cannot be written.\n";

#define MAX_INPUTS 64

typedef struct {
    const char *mode, *path, *what;
    const char *input[MAX_INPUTS];
    int ninputs;
    FILE *msg;
} args_t;

/* The message, then "why: <strerror of err>" when err is an errno;
 * without --what it starts at the quoted path, as the callers' sentences
 * expect ("cannot write the reference 'x': ..."). */
static int say(const args_t *a, int code, int err, const char *text)
{
    fprintf(a->msg, "%s\n", !*a->what && *text == ' ' ? text + 1 : text);
    if (err > 0)
        fprintf(a->msg, "why: %s\n", strerror(err));
    fprintf(a->msg, "exit: %d\n", code);
    fflush(a->msg);
    return code;
}

/* On success: "kind: atomic|descriptor|in place" (how PATH is written). */
static int done(const args_t *a, mb_out_kind_t kind)
{
    fprintf(a->msg, "kind: %s\n", kind == MB_OUT_ATOMIC ? "atomic" : kind == MB_OUT_DESCRIPTOR
            ? "descriptor" : "in place");
    fflush(a->msg);
    return MB_EXIT_OK;
}

static int parse(int argc, char **argv, args_t *a)
{
    a->what = "";
    a->msg = stderr;
    if (argc < 2)
        return -1;
    a->mode = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--what") == 0 && v) {
            a->what = v, i++;
        } else if (strcmp(argv[i], "--input") == 0 && v && a->ninputs < MAX_INPUTS) {
            a->input[a->ninputs++] = v, i++;
        } else if (strcmp(argv[i], "--msg-fd") == 0 && v) {
            char *end;
            long fd = strtol(v, &end, 10);
            FILE *f = *v && !*end && fd >= 0 && fd < 1024 ? fdopen((int)fd, "w") : NULL;
            if (!f)
                return -1;
            a->msg = f, i++;
        } else if (strcmp(argv[i], "--") == 0 && i + 2 == argc) {
            a->path = argv[++i];
        } else if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0) {
            if (a->path)
                return -1;
            a->path = argv[i];
        } else {
            return -1;
        }
    }
    return a->path ? 0 : -1;
}

/* stdin, whole; NULL with errno on a read error. */
static char *slurp_stdin(size_t *len)
{
    size_t cap = 65536, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b)
                break;
            buf = b;
        }
        ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
        if (r == 0) {
            *len = n;
            return buf;
        }
        if (r < 0 && errno != EINTR)
            break;
        if (r > 0)
            n += (size_t)r;
    }
    int e = errno;
    free(buf);
    errno = e ? e : ENOMEM;
    return NULL;
}

int main(int argc, char **argv)
{
    args_t a = { 0 };
    if (parse(argc, argv, &a) != 0 ||
        (strcmp(a.mode, "check") != 0 && strcmp(a.mode, "write") != 0 && strcmp(a.mode, "hold") != 0)) {
        fputs(usage, stderr);
        return MB_EXIT_USAGE;
    }
    char msg[8192];
    size_t len = 0;
    char *doc = NULL;
    if (strcmp(a.mode, "write") == 0 && !(doc = slurp_stdin(&len))) {
        snprintf(msg, sizeof msg, "%s '%s': reading the content failed: %s", a.what, a.path,
                 strerror(errno));
        return say(&a, MB_EXIT_RESOURCE, errno, msg);
    }
    mb_out_t o;
    int rc = mb_out_open_as(&o, a.path, a.what, msg, sizeof msg);
    if (rc != 0)
        return say(&a, MB_EXIT_RESOURCE, -rc, msg);
    for (int i = 0; i < a.ninputs; i++)
        if (mb_out_not_input(&o, a.input[i], msg, sizeof msg) != 0) {
            mb_out_abort(&o);
            return say(&a, MB_EXIT_USAGE, 0, msg);
        }
    mb_out_kind_t kind = o.kind;
    if (strcmp(a.mode, "check") == 0) {
        mb_out_abort(&o);
        return done(&a, kind);
    }
    if (strcmp(a.mode, "hold") == 0) {
        done(&a, kind);
        /* the caller opens the FIFO itself while ours keeps its reader
         * from seeing an end; we are done when it closes the message
         * descriptor (a pipe) */
        struct pollfd p = { .fd = fileno(a.msg), .events = 0 };
        while (kind == MB_OUT_IN_PLACE && poll(&p, 1, -1) >= 0 &&
               !(p.revents & (POLLERR | POLLHUP | POLLNVAL)))
            ;
        mb_out_abort(&o);
        return MB_EXIT_OK;
    }
    FILE *f;
    rc = mb_out_stream(&o, &f, msg, sizeof msg);
    if (rc == 0 && len && fwrite(doc, 1, len, f) != len) {
        rc = -(errno ? errno : EIO);
        snprintf(msg, sizeof msg, "%s '%s': write failed: %s; check the disk, device or pipe",
                 a.what, a.path, strerror(-rc));
    }
    if (rc != 0) {
        free(doc);
        mb_out_abort(&o);
        return say(&a, MB_EXIT_RESOURCE, -rc, msg);
    }
    free(doc);
    rc = mb_out_commit(&o, msg, sizeof msg);
    if (rc != 0)
        return say(&a, MB_EXIT_RESOURCE, -rc, msg);
    return done(&a, kind);
}
