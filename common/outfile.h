/* outfile: the one way any memsuite tool writes a file (results, plots,
 * environment documents).
 *
 * What a path means, decided once at open (before any measurement, so an
 * unwritable path fails early):
 *   NULL or "-"                 standard output.
 *   /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N, or any chain of
 *   symlinks that reaches /proc/<our pid>/fd/N
 *                               descriptor N itself (never the file it
 *                               points to, never a rename over the link).
 *   a character device or FIFO  written in place (a rename would replace
 *                               the node itself, even /dev/null as root),
 *                               opened non-blocking: a FIFO that nobody
 *                               reads is refused at open (-ENXIO), never
 *                               waited for.
 *   a block device, a socket, a directory, or a symlink to any non-regular
 *   file                        refused.
 *   a regular file, a symlink to one, or nothing yet
 *                               replaced atomically: open creates an
 *                               unnamed O_TMPFILE in the target's directory
 *                               and reserves MB_OUT_RESERVE bytes in it
 *                               (so a full file system fails before any
 *                               measurement); the document is kept in
 *                               memory until commit(), which writes it
 *                               there, links it under an unpredictable
 *                               name ("<path>.tmp.<pid>.<random>", created
 *                               exclusively) and renames that over the
 *                               path.  A symlink is replaced, never
 *                               followed.  Where the file system has no
 *                               O_TMPFILE, /proc is not mounted, or
 *                               MEMSUITE_OUT_NAMED_TEMP=1, the named
 *                               temporary exists for the whole run instead.
 *                               When commit() cannot write the document
 *                               there (the disk filled meanwhile), it is
 *                               saved under $TMPDIR (else /tmp) and the
 *                               message names that file: never lost.
 *
 * Descriptors: every descriptor opened here is 3 or above, so a tool
 * started with stdout closed never writes one output into another through
 * a reused descriptor 1.
 *
 * Junk: while a named temporary exists, the terminating signals whose
 * action is still the default (HUP, INT, QUIT, TERM, USR1, USR2, PIPE,
 * ALRM, VTALRM, PROF, XCPU, XFSZ) remove it before the process dies.
 * open() removes the stale temporaries of the same path left by processes
 * that no longer exist (e.g. killed with SIGKILL): regular files owned by
 * us only, never through a symlink, never a live process's.
 *
 * Every function returns 0 or -errno with msg set to "<what> '<path>':
 * what failed: why; hint". */
#ifndef MB_OUTFILE_H
#define MB_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

typedef enum {
    MB_OUT_CLOSED = 0,
    MB_OUT_DESCRIPTOR,   /* "-", /dev/stdout, /proc/self/fd/N: an open fd */
    MB_OUT_IN_PLACE,     /* an existing character device or FIFO */
    MB_OUT_ATOMIC,       /* temporary + rename */
} mb_out_kind_t;

typedef struct {
    FILE *f;             /* where to write; NULL when closed */
    mb_out_kind_t kind;
    bool is_stdout;      /* f is stdout (the tool's own text must not go there too) */
    const char *what;    /* "result file", "plot file": for messages */
    char path[4096];
    char tmp[4352];      /* the named temporary while one exists, else "" */
    int fd;              /* MB_OUT_ATOMIC: the temporary file (f is memory) */
    char *mem;           /* MB_OUT_ATOMIC: what f holds (open_memstream) */
    size_t memlen;
} mb_out_t;

/* Bytes open() reserves in a new file: more than a result document of
 * any tool (the largest, a long stability run's, is a few hundred KiB),
 * less than any file system worth writing to. */
#define MB_OUT_RESERVE (1024 * 1024)

/* Open a result file ("result file" in messages). */
int mb_out_open(mb_out_t *o, const char *path, char *msg, size_t msglen);
/* The same with another noun for the messages ("plot file"). */
int mb_out_open_as(mb_out_t *o, const char *path, const char *what, char *msg, size_t msglen);
/* The stream to write into *f: o->f.  0, or -EBADF with msg when closed. */
int mb_out_stream(mb_out_t *o, FILE **f, char *msg, size_t msglen);
/* 0 when o's target is not the file at input (the same device and inode,
 * through any symlink, hard link or spelling of either path); else
 * -EEXIST with msg "<what> '<path>': is the input '<input>'; ...".  An
 * input that does not exist is no conflict. */
int mb_out_not_input(const mb_out_t *o, const char *input, char *msg, size_t msglen);
/* Flush (and fsync a file), then rename into place; the previous file is
 * unchanged on any failure.  o is closed afterwards either way. */
int mb_out_commit(mb_out_t *o, char *msg, size_t msglen);
/* Drop what was written: nothing is renamed, the temporary is removed.
 * Harmless when already closed. */
void mb_out_abort(mb_out_t *o);

/* Remove the stale "<path>.tmp.<pid>[.<suffix>]" temporaries whose process
 * is gone (open() calls it).  Returns how many were removed. */
int mb_out_clean_stale(const char *path);

#endif
