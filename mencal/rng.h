#ifndef MC_RNG_H
#define MC_RNG_H

#include <stdint.h>

/* rng: splitmix64-initialised xoshiro256** */
typedef struct { uint64_t s[4]; } mc_rng_t;
void mc_rng_init(mc_rng_t *r, uint64_t random_state, uint64_t stream);
static inline uint64_t mc_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static inline uint64_t mc_rng_next(mc_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = mc_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t; s[3] = mc_rotl(s[3], 45);
    return result;
}
/* Uniform in [0, n) (Lemire's multiply-shift; bias < n / 2^64). */
static inline uint64_t mc_rng_below(mc_rng_t *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)mc_rng_next(r) * n) >> 64);
}

#endif
