/* readkern: the sequential-read kernel variants (readkern.h); their loops
 * are in readkern_body.h.  Check them with
 * `objdump -d --no-show-raw-insn build/mencal/readkern.o`: the avx512
 * clone of v64x4 adds zmm registers straight from memory. */
#include <string.h>

#include "readkern.h"

#include "isa.h"
#include "readkern_body.h"

/* NAME: one pass from zero, the sum of every word (the hot loop, reached
 * through MB_HOT_DISPATCH). */
#define MC_READ_FN(NAME, VBYTES, ACC, PF)                                            \
    MB_HOT_DISPATCH(void, NAME##_passes,                                             \
                    (const uint64_t *w, size_t n, uint64_t passes, uint64_t *acc))   \
    static uint64_t NAME(const uint64_t *w, size_t n)                                \
    {                                                                                \
        uint64_t acc[(ACC) * (VBYTES) / 8] = { 0 }, s = 0;                           \
        NAME##_passes(w, n, 1, acc);                                                 \
        for (size_t k = 0; k < sizeof acc / sizeof acc[0]; k++)                      \
            s += acc[k];                                                             \
        return s;                                                                    \
    }

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
