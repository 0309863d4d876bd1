/* wstatus: the errno behind a failed stdio stream (contract in wstatus.h). */
#include "wstatus.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

int mb_write_status(FILE *f)
{
    errno = 0;
    if (fflush(f) != 0 && errno)
        return errno;
    if (!ferror(f))
        return 0;
    int fd = fileno(f);
    if (fd < 0)
        return EIO;
    errno = 0;
    if (write(fd, "", 0) < 0 && errno)
        return errno;
    struct stat st;
    struct statvfs vfs;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && fstatvfs(fd, &vfs) == 0 &&
        vfs.f_bavail == 0)
        return ENOSPC;
    return EIO;
}
