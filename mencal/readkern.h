#ifndef MC_READKERN_H
#define MC_READKERN_H

#include <stddef.h>
#include <stdint.h>

#include "kcalib.h"

/* readkern: the sequential-read kernels seqread, sweep's read and loaded's
 * read traffic choose from by measurement (kcalib.h; issue 24: the best
 * vector width differs by CPU: 32-byte loads won on Zen 4, 64-byte ones
 * by 12% on an Intel Xeon).  Every kernel is MB_HOT_LOOP (common/isa.h):
 * compiled for AVX-512, AVX2 and the build's target, chosen at start-up,
 * so its vector width is the one named wherever the CPU has it.
 *
 * fn sums n 64-bit words at w (64-byte aligned) with GCC's vector
 * extension and returns the sum, which the caller checks, so no load can
 * be dropped.  passes reads the same n words `passes` times into the
 * running sums at acc (MC_READKERN_ACC_WORDS words, any alignment), which
 * stay in registers over the passes and in acc between calls: a short
 * pass (sweep at 16 KiB) pays no horizontal sum. */
typedef uint64_t (*mc_readkern_fn)(const uint64_t *w, size_t n);
typedef void (*mc_readpass_fn)(const uint64_t *w, size_t n, uint64_t passes, uint64_t *acc);
#define MC_READKERN_ACC_WORDS 64   /* 8 accumulators of 64 bytes at most */

typedef struct {
    mc_kvar_t v;               /* name "v32x4": vector bytes x accumulators (pf: prefetch) */
    mc_readkern_fn fn;
    mc_readpass_fn passes;
} mc_readkern_t;

#define MC_READKERN_DEFAULT 1      /* table index of v32x4: what seqread ran before issue 24 */
#define MC_READKERN_TRAFFIC 4      /* table index of v64x8: what sweep and loaded read before */
extern const mc_readkern_t mc_readkerns[];
extern const size_t mc_nreadkerns;
/* The family for kcalib: seqread's (default v32x4) and the traffic's (default v64x8). */
extern const mc_kfamily_t mc_read_family, mc_read_traffic_family;

#endif
