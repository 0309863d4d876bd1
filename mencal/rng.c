/* rng: xoshiro256** initialised through splitmix64, one stream per thread or
 * chain, so --random-state N reproduces every permutation. */
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void mc_rng_init(mc_rng_t *r, uint64_t random_state, uint64_t stream)
{
    uint64_t x = random_state ^ (stream * 0xD1B54A32D192ED03ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))   /* the one forbidden state */
        r->s[0] = 1;
}
