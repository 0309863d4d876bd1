#ifndef MC_ACCESS_H
#define MC_ACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

/* access: cache-line read/write mix shared by mixed and concurrent */
typedef struct {
    uint64_t *base;       /* lines of 8 words */
    size_t lines;
    unsigned read_pct;    /* 0..100 */
    bool random;
    mc_rng_t rng;
    size_t seq_pos;
    unsigned bres;        /* Bresenham accumulator: exact read share per 100 */
    uint64_t reads, writes, sink;
} mc_mix_t;
void mc_mix_init(mc_mix_t *m, uint64_t *base, size_t lines, unsigned read_pct, bool random,
                 uint64_t random_state, uint64_t stream);
/* n accesses: exactly read_pct of every 100 consecutive accesses are loads. */
void mc_mix_run(mc_mix_t *m, size_t n);

#endif
