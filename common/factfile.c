/* factfile: kernel fact files opened without blocking, regular files
 * only, reads capped (factfile.h states the contract). */
#include "factfile.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

/* What the last refused file was, for mb_fact_strerror's words. */
static _Thread_local const char *refused_kind = "";

typedef struct {
    int fd;
    size_t left;               /* bytes still allowed to be read */
} capped_t;

/* Seeking (a reader that rewinds to parse twice): the cap is counted from
 * the start of the file, so a seek sets what is left from the offset. */
static int capped_seek(void *cookie, off64_t *offset, int whence)
{
    capped_t *c = cookie;
    off_t to = lseek(c->fd, (off_t)*offset, whence);
    if (to < 0)
        return -1;
    *offset = to;
    c->left = (size_t)to >= MB_FACT_FILE_MAX ? 0 : MB_FACT_FILE_MAX - (size_t)to;
    return 0;
}

static ssize_t capped_read(void *cookie, char *buf, size_t size)
{
    capped_t *c = cookie;
    if (size > c->left)
        size = c->left;
    if (size == 0)
        return 0;
    ssize_t n;
    do
        n = read(c->fd, buf, size);
    while (n < 0 && errno == EINTR);
    if (n > 0)
        c->left -= (size_t)n;
    return n;
}

static int capped_close(void *cookie)
{
    capped_t *c = cookie;
    int rc = close(c->fd);
    free(c);
    return rc;
}

static const char *kind_of(mode_t m)
{
    return S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
           : S_ISSOCK(m) ? "a socket" : S_ISDIR(m) ? "a directory" : "not a plain file";
}

FILE *mb_fact_fopen(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0) {
        err = errno;
    } else if (!S_ISREG(st.st_mode)) {
        refused_kind = kind_of(st.st_mode);
        err = MB_EFACT_NOTREG;
    } else if (st.st_size > (off_t)MB_FACT_FILE_MAX) {
        err = EFBIG;
    }
    capped_t *c = err ? NULL : malloc(sizeof *c);
    if (!err && !c)
        err = ENOMEM;
    FILE *f = NULL;
    if (!err) {
        *c = (capped_t){ fd, MB_FACT_FILE_MAX };
        f = fopencookie(c, "r", (cookie_io_functions_t){ .read = capped_read, .seek = capped_seek,
                                                      .close = capped_close });
        if (!f) {
            err = errno ? errno : ENOMEM;
            free(c);
        }
    }
    if (err) {
        close(fd);
        errno = err;
        return NULL;
    }
    return f;
}

const char *mb_fact_strerror(int err)
{
    static _Thread_local char why[96];
    if (err < 0)
        err = -err;
    if (err == MB_EFACT_NOTREG) {
        snprintf(why, sizeof why, "not a regular file (%s)", refused_kind);
        return why;
    }
    if (err == EFBIG) {
        snprintf(why, sizeof why, "larger than %u MiB, not a kernel fact file", MB_FACT_FILE_MAX >> 20);
        return why;
    }
    if (err == ELOOP)
        return "a symbolic link, not a kernel fact file";
    return strerror(err);
}
