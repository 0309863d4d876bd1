/* storekern: the store loops of the write and copy traffic (traffic.h),
 * chosen by measurement like the read sums (kcalib.h).
 *
 * Variants: v16, v32, v64 (ordinary write-allocate stores of 16-, 32- or
 * 64-byte vectors, GCC's vector extension, MB_HOT_LOOP) and the
 * non-temporal ones of the binary's architecture, each followed by a
 * store fence, so the stores are globally visible when the call returns:
 *   x86-64:  v16nt, v32nt, v64nt (SSE2 movntpd, AVX vmovntpd ymm, AVX-512
 *            vmovntpd zmm, then sfence; the wider ones where the CPU has them)
 *   aarch64: neonnt (stnp of q register pairs) and svent (SVE stnt1d at
 *            the CPU's vector length, where the CPU has SVE), then dmb ishst
 *
 * write stores q into a[0..n); copy copies a[0..n) to b[0..n); n doubles,
 * a multiple of 8 (whole lines), arrays 64-byte aligned.  The copy loop is
 * kept from becoming a memcpy call (which picks its own stores). */
#ifndef MC_STOREKERN_H
#define MC_STOREKERN_H

#include <stddef.h>

#include "kcalib.h"

typedef struct {
    mc_kvar_t v;
    void (*write)(double *a, size_t n, double q);
    void (*copy)(const double *a, double *b, size_t n);
} mc_storekern_t;

#define MC_STOREKERN_DEFAULT 2     /* v64: what the write and copy traffic ran before */
extern const mc_storekern_t mc_storekerns[];
extern const size_t mc_nstorekerns;
extern const mc_kfamily_t mc_store_family;

#endif
