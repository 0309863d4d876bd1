/* readkern_body.h: the sequential-read loops (readkern.h), the MB_HOT_LOOP
 * bodies (common/isa.h).  Included by readkern.c (the build's target:
 * x86's clones, aarch64's NEON body) and, on aarch64, by readkern_sve.c
 * (the SVE body).
 *
 * One template: VBYTES-byte vectors, ACC independent accumulators (so the
 * adds never limit the loads), and with PF > 0 one software prefetch per
 * 64-byte line PF bytes ahead (a hint that never faults, so it may run
 * past the end).
 *
 * NAME_passes: `passes` passes over w[0, n), the sums kept in acc (ACC
 * vectors, carried from call to call in registers within one). */
#ifndef MC_READKERN_BODY_H
#define MC_READKERN_BODY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "isa.h"

#define MC_READ_BODY(NAME, VBYTES, ACC, PF)                                            \
    typedef uint64_t NAME##_vec_t __attribute__((vector_size(VBYTES)));              \
    MB_HOT_LOOP void MB_HOT_NAME(NAME##_passes)(const uint64_t *w, size_t n, uint64_t passes, \
                                                uint64_t *acc)                             \
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

MC_READKERN_LIST(MC_READ_BODY)

#endif
