/* factfile: the one way a kernel fact file is opened.
 *
 * Every file the tools read a machine fact from (under sysfs, procfs, or
 * the fixture trees MEMSUITE_SYSFS / MEMSUITE_PROCFS point at) is opened
 * here: without blocking (a FIFO there has no writer; a plain open()
 * waited for one for ever), not through a symbolic link at its last
 * component (the kernel's trees have none there; the links of sysfs,
 * e.g. node/nodeN/cpuM, are directories on the way and still work), and
 * only when it is a regular file (fstat after the open: a FIFO, a device
 * or a socket is no fact).  A file whose size says more than
 * MB_FACT_FILE_MAX bytes (a sparse 1 GiB file in a fixture tree) is
 * refused, and reads stop after MB_FACT_FILE_MAX bytes whatever the size
 * says (procfs files report 0), so no fact read runs long.
 *
 * A refused file gives errno MB_EFACT_NOTREG or EFBIG; mb_fact_strerror
 * says why in words ("not a regular file (a FIFO)") for the fact's
 * "unavailable: <why>". */
#ifndef MB_FACTFILE_H
#define MB_FACTFILE_H

#include <errno.h>
#include <stddef.h>
#include <stdio.h>

#define MB_FACT_FILE_MAX (16u << 20)     /* bytes: /proc/cpuinfo of 1024 CPUs is ~1.5 MiB */
#define MB_EFACT_NOTREG EMEDIUMTYPE      /* errno for "not a regular file"; open() never
                                          * gives it for a file */

/* The fact file at path opened for reading, as a stream whose reads stop
 * at MB_FACT_FILE_MAX bytes; NULL with errno set (the open's own errno,
 * ELOOP for a symbolic link, MB_EFACT_NOTREG, EFBIG).  fclose closes it. */
FILE *mb_fact_fopen(const char *path);

/* Why a fact file could not be read, in words, for errno value err:
 * "not a regular file (a FIFO)" and "larger than 16 MiB, not a kernel fact file"
 * for the refusals above, strerror otherwise.  The kind of file is the
 * one mb_fact_fopen saw last in this thread. */
const char *mb_fact_strerror(int err);

#endif
