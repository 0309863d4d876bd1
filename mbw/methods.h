/* methods: mbw's three copy methods as one descriptor table.
 *
 * A method copies `bytes` bytes from src to dst and nothing else: it never
 * times, allocates or prints.  src and dst do not overlap.  `bytes` is a
 * multiple of sizeof(long) for whole arrays; a thread slice may end
 * anywhere (the methods handle any length).  `block_bytes` (> 0) is used by
 * blocked methods only.
 *
 * Semantics are upstream mbw 1.5's (the correct ones), not Debian 1.2.2's:
 *   MEMCPY   one memcpy(dst, src, bytes)
 *   DUMB     an element loop dst[i] = src[i] over long (see dumb.c for how
 *            the compiler is kept from turning it into memcpy)
 *   MCBLOCK  memcpy in block_bytes chunks, source and destination advancing
 *            together, then one memcpy for the tail when block_bytes does
 *            not divide bytes. */
#ifndef MBW_METHODS_H
#define MBW_METHODS_H

#include <stdbool.h>
#include <stddef.h>

#define MBW_NMETHODS 3

typedef void (*mbw_copy_fn)(void *restrict dst, const void *restrict src,
                            size_t bytes, size_t block_bytes);

typedef struct {
    int id;                 /* the -t number */
    const char *name;       /* printed as "Method: <name>" */
    const char *summary;    /* one line for docs and JSON */
    bool blocked;           /* uses block_bytes: thread slices hold whole blocks */
    mbw_copy_fn fn;
} mbw_method_t;

/* Indexed by id: mbw_methods[i].id == i. */
extern const mbw_method_t mbw_methods[MBW_NMETHODS];

/* The DUMB element loop (dumb.c).  Exported (not static) so that a test
 * can disassemble it and check that it contains no call to memcpy. */
void mbw_dumb_copy(void *restrict dst, const void *restrict src,
                   size_t bytes, size_t block_bytes);

#endif
