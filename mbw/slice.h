/* slice: how one array is split across threads.
 *
 * The array of `bytes` bytes is cut into whole `unit`s (64 bytes, or one
 * block for MCBLOCK) dealt out as evenly as possible; the last thread also
 * takes the remainder that is not a whole unit.  Every byte belongs to
 * exactly one slice.  A thread may get an empty slice (len 0) when there
 * are more threads than units. */
#ifndef MBW_SLICE_H
#define MBW_SLICE_H

#include <stddef.h>

#define MBW_SLICE_ALIGN_BYTES 64   /* cache line: threads never share one */

static inline void mbw_slice(size_t bytes, size_t unit, int t, int nthreads,
                             size_t *off_bytes, size_t *len_bytes)
{
    size_t T = (size_t)nthreads, ti = (size_t)t;
    size_t units = bytes / unit;
    size_t base = units / T, extra = units % T;
    size_t first = ti * base + (ti < extra ? ti : extra);
    size_t count = base + (ti < extra ? 1 : 0);

    *off_bytes = first * unit;
    *len_bytes = count * unit;
    if (ti == T - 1)
        *len_bytes += bytes - units * unit;
}

#endif
