/* dumb: the DUMB method, an honest element loop dst[i] = src[i] over long,
 * compiled as the original compiles it: one 8-byte load and one 8-byte
 * store per element.
 *
 * Two compiler passes would change what DUMB measures, so mbw/module.mk
 * compiles this file, and only this file, without them:
 *   - the copy idiom: gcc (-ftree-loop-distribute-patterns, on at -O2 and
 *     above since gcc 10) and clang (LoopIdiomRecognize) replace the loop
 *     by a call to memcpy, and DUMB would measure what MEMCPY measures.
 *     gcc: -fno-tree-loop-distribute-patterns; clang: -fno-builtin.
 *   - vectorisation: at -O3 the loop becomes 32- or 64-byte vector loads
 *     and stores.  Debian's mbw 1.2.2 (gcc -O2) runs the scalar loop, and
 *     out of cache a scalar copy is bound by the core, not by memory: on a
 *     Zen 3 guest (AMD EPYC family 25 model 1, 256 MiB arrays, three
 *     series of 8-15 alternating rounds) the medians of our former AVX2
 *     loop read 1.13-1.19x Debian's, this scalar loop's 0.93-1.00x
 *     (docs/peers.md).  gcc: -fno-tree-vectorize; clang: -fno-vectorize
 *     -fno-slp-vectorize.
 * tests/bats/mbw.bats disassembles mbw_dumb_copy and fails if it calls
 * memcpy or touches a vector register. */
#include "methods.h"

void mbw_dumb_copy(void *restrict dst, const void *restrict src, size_t bytes,
                   size_t block_bytes)
{
    (void)block_bytes;
    long *restrict d = dst;
    const long *restrict s = src;
    size_t n = bytes / sizeof(long);

    for (size_t i = 0; i < n; i++)
        d[i] = s[i];

    /* A thread slice never ends inside a long (slices are 64-byte
     * aligned), but the contract allows any length: copy the odd bytes. */
    char *restrict dc = (char *)(d + n);
    const char *restrict sc = (const char *)(s + n);
    for (size_t i = 0; i < bytes % sizeof(long); i++)
        dc[i] = sc[i];
}
