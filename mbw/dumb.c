/* dumb: the DUMB method, an honest element loop dst[i] = src[i] over long.
 *
 * Compilers recognise this loop as a copy idiom and replace it by a call to
 * memcpy (gcc's -ftree-loop-distribute-patterns, on at -O2 and above since
 * gcc 10; clang's LoopIdiomRecognize).  DUMB would then measure the same
 * thing as MEMCPY.  mbw/module.mk therefore compiles this file, and only
 * this file, with
 *     gcc:   -fno-tree-loop-distribute-patterns
 *     clang: -fno-builtin   (LoopIdiomRecognize needs memcpy as a builtin)
 * Nothing else changes: the loop may still be unrolled and vectorised
 * (at -O3 -march=native it becomes wide vector loads and stores), which is
 * what a C programmer's copy loop compiles to.  tests/bats/mbw.bats
 * disassembles mbw_dumb_copy and fails if it calls memcpy.
 *
 * Debian's mbw 1.2.2 (gcc -O2) compiles its loop to one 8-byte load and
 * store per element; in cache our vectorised loop is faster, out of cache
 * both are bound by memory.  docs/mbw.1 says so. */
#include "isa.h"
#include "methods.h"

/* MB_HOT_LOOP (common/isa.h): the vectorised loop is compiled for AVX-512,
 * AVX2 and the build's target, the best chosen at start-up, so a packaged
 * (portable) build copies as a native one does. */
MB_HOT_LOOP void mbw_dumb_copy(void *restrict dst, const void *restrict src,
                   size_t bytes, size_t block_bytes)
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
