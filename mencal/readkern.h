#ifndef MC_READKERN_H
#define MC_READKERN_H

#include <stddef.h>
#include <stdint.h>

/* readkern: the sequential-read kernels seqread chooses from by
 * measurement (issue 24: the best vector width differs by CPU: 32-byte
 * loads won on Zen 4, 64-byte ones by 12% on an Intel Xeon).  Each sums
 * n 64-bit words at w (64-byte aligned) with GCC's vector extension and
 * returns the sum, which the caller checks, so no load can be dropped.
 * Every kernel is MB_HOT_LOOP (common/isa.h): compiled for AVX-512, AVX2
 * and the build's target, chosen at start-up, so its vector width is the
 * one named wherever the CPU has it. */
typedef uint64_t (*mc_readkern_fn)(const uint64_t *w, size_t n);

typedef struct {
    const char *name;          /* "v32x4": vector bytes x accumulators */
    unsigned vector_bytes;     /* 16, 32 or 64 */
    unsigned accumulators;     /* independent sums (4 or 8) */
    unsigned prefetch_bytes;   /* 0, or software prefetch this far ahead */
    mc_readkern_fn fn;
} mc_readkern_t;

/* --kernel-variant: "auto" (index 0, calibrate) then the table in order. */
#define MC_READKERN_CHOICES "auto|v16x4|v32x4|v32x8|v64x4|v64x8|v32x4pf|v64x4pf"
#define MC_READKERN_DEFAULT 1      /* table index of v32x4: what seqread ran before issue 24 */
extern const mc_readkern_t mc_readkerns[];
extern const size_t mc_nreadkerns;

#endif
