/* wstatus: why writing to a stdio stream failed, with the real errno.
 *
 * A FILE keeps only an error flag: once a buffered write has failed, a
 * later fflush() may succeed (nothing left to write) while ferror() is
 * set and errno says nothing, and "Input/output error" would be a guess.
 * mb_write_status asks the descriptor instead. */
#ifndef MB_WSTATUS_H
#define MB_WSTATUS_H

#include <stdio.h>

/* Flushes f.  Returns 0 when every write so far succeeded, else an errno
 * value: the flush's own; or, for a failure seen earlier, the error an
 * empty write(2) on the descriptor gives now (a full device: ENOSPC),
 * ENOSPC when the file's file system has no free block, EIO otherwise.
 * The stream's error flag is left set. */
int mb_write_status(FILE *f);

#endif
