/* methods: the MEMCPY and MCBLOCK methods and the descriptor table. */
#include "methods.h"

#include <string.h>

static void mbw_memcpy_copy(void *restrict dst, const void *restrict src,
                            size_t bytes, size_t block_bytes)
{
    (void)block_bytes;
    memcpy(dst, src, bytes);
}

/* Whole blocks first, source and destination advancing together (Debian
 * 1.2.2 forgot to advance the source and re-read one cached block), then
 * the tail that a block size not dividing the array leaves over. */
static void mbw_mcblock_copy(void *restrict dst, const void *restrict src,
                             size_t bytes, size_t block_bytes)
{
    char *d = dst;
    const char *s = src;
    size_t left = bytes;

    while (left >= block_bytes) {
        memcpy(d, s, block_bytes);
        d += block_bytes;
        s += block_bytes;
        left -= block_bytes;
    }
    if (left > 0)
        memcpy(d, s, left);
}

const mbw_method_t mbw_methods[MBW_NMETHODS] = {
    { 0, "MEMCPY",  "one memcpy of the whole array",                    false, mbw_memcpy_copy },
    { 1, "DUMB",    "element loop b[i] = a[i] over long",               false, mbw_dumb_copy },
    { 2, "MCBLOCK", "memcpy in -b sized blocks, source and destination advancing, tail included",
      true, mbw_mcblock_copy },
};
