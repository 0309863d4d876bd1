/* readkern: the sequential-read kernel variants (readkern.h).
 *
 * One template: VBYTES-byte vectors, ACC independent accumulators (so the
 * adds never limit the loads), and with PF > 0 one software prefetch per
 * 64-byte line PF bytes ahead (a hint that never faults, so it may run
 * past the end).  Check the loops with
 * `objdump -d --no-show-raw-insn build/mencal/readkern.o`: the avx512
 * clone of v64x4 adds zmm registers straight from memory. */
#include <string.h>

#include "readkern.h"

#define MB_ISA_FIXED_WIDTH 1   /* NEON on aarch64, one body (isa.h) */
#include "isa.h"

/* NAME_passes: `passes` passes over w[0, n), the sums kept in acc (ACC
 * vectors, carried from call to call in registers within one); NAME: one
 * pass from zero, the sum of every word (the same loop). */
#define MC_READ_FN(NAME, VBYTES, ACC, PF)                                            \
    typedef uint64_t NAME##_vec_t __attribute__((vector_size(VBYTES)));              \
    MB_HOT_LOOP void NAME##_passes(const uint64_t *w, size_t n, uint64_t passes,     \
                                   uint64_t *acc)                                    \
    {                                                                                \
        enum { LANES = (VBYTES) / 8 };                                               \
        const NAME##_vec_t *v = (const NAME##_vec_t *)(const void *)w;               \
        const size_t nv = n / LANES;                                                 \
        NAME##_vec_t a[ACC];                                                         \
        uint64_t tail = 0;                                                           \
        memcpy(a, acc, sizeof a);                                                    \
        for (uint64_t p = 0; p < passes; p++) {                                      \
            size_t i = 0;                                                            \
            for (; i + (ACC) <= nv; i += (ACC)) {                                    \
                if (PF) {                                                            \
                    _Pragma("GCC unroll 8") for (unsigned b = 0; b < (ACC) * (VBYTES); b += 64) \
                        __builtin_prefetch((const char *)(v + i) + (PF) + b, 0, 0);  \
                }                                                                    \
                _Pragma("GCC unroll 8") for (int k = 0; k < (ACC); k++) a[k] += v[i + k]; \
            }                                                                        \
            for (; i < nv; i++)                                                      \
                a[0] += v[i];                                                        \
            for (size_t j = nv * LANES; j < n; j++)                                  \
                tail += w[j];                                                        \
        }                                                                            \
        a[0][0] += tail;                                                             \
        memcpy(acc, a, sizeof a);                                                    \
    }                                                                                \
    static uint64_t NAME(const uint64_t *w, size_t n)                                \
    {                                                                                \
        uint64_t acc[(ACC) * (VBYTES) / 8] = { 0 }, s = 0;                           \
        NAME##_passes(w, n, 1, acc);                                                 \
        for (size_t k = 0; k < sizeof acc / sizeof acc[0]; k++)                      \
            s += acc[k];                                                             \
        return s;                                                                    \
    }

/* name, vector bytes, accumulators, prefetch distance (bytes) */
#define MC_READKERN_LIST(X) \
    X(v16x4, 16, 4, 0)      \
    X(v32x4, 32, 4, 0)      \
    X(v32x8, 32, 8, 0)      \
    X(v64x4, 64, 4, 0)      \
    X(v64x8, 64, 8, 0)      \
    X(v32x4pf, 32, 4, 1024) \
    X(v64x4pf, 64, 4, 2048)

MC_READKERN_LIST(MC_READ_FN)

_Static_assert(8 * 64 <= MC_READKERN_ACC_WORDS * 8, "acc holds 8 vectors of 64 bytes");

const mc_readkern_t mc_readkerns[] = {
#define MC_READKERN_ENTRY(NAME, VBYTES, ACC, PF) \
    { { #NAME, VBYTES, ACC, PF, false, NULL, NULL, NULL }, NAME, NAME##_passes },
    MC_READKERN_LIST(MC_READKERN_ENTRY)
#undef MC_READKERN_ENTRY
};
const size_t mc_nreadkerns = sizeof mc_readkerns / sizeof mc_readkerns[0];

const mc_kfamily_t mc_read_family = { "read", mc_readkerns, sizeof mc_readkerns[0],
                                      sizeof mc_readkerns / sizeof mc_readkerns[0],
                                      MC_READKERN_DEFAULT };
const mc_kfamily_t mc_read_traffic_family = { "read", mc_readkerns, sizeof mc_readkerns[0],
                                              sizeof mc_readkerns / sizeof mc_readkerns[0],
                                              MC_READKERN_TRAFFIC };
