/* mixer: multichase's mixer table, drawn the way multichase draws it.
 *
 * Why the draw itself and not a table of the same distribution: which 64
 * permutations are drawn moves the latency.  On an Intel Xeon (family 6
 * model 167, 2-vCPU KVM guest), with 64-page TLB groups and the same
 * pages, six start values of multichase's own generator read 140.5 to
 * 148.0 ns and its default (1) was the fastest; six tables of ours read
 * 144.4 to 150.2 ns; with the table fixed, five different permutations
 * of the chain stayed within 1.2% (docs/peers.md, "model 167").  So a
 * figure comparable with multichase's needs multichase's table.
 *
 * The draw, as multichase's permutation code defines it: glibc's random_r
 * over a 32-byte state set up by initstate_r(start); a number below
 * limit + 1 is four random_r results, the low 16 bits of each stacked
 * low word first, modulo limit + 1; each of the 64 columns is an
 * inside-out Fisher-Yates shuffle of the slot's words, drawn in column
 * order; column x, row k is entry k of column x's permutation.
 *
 * Feature gate: random_r and initstate_r are glibc's (MC_MIXER_AS_MULTICHASE). */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mixer.h"

#if MC_MIXER_AS_MULTICHASE

#define STATE_BYTES 32   /* multichase's generator state size: glibc's TYPE_1 */

/* A number in [0, limit]. */
static uint64_t draw_upto(struct random_data *rd, uint64_t limit)
{
    uint64_t r = 0;
    for (int part = 0; part < 4; part++) {
        int32_t v;
        random_r(rd, &v);
        r |= ((uint64_t)v & 0xFFFFu) << (16 * part);
    }
    return r % (limit + 1);
}

int mc_mixer_multichase(uint32_t mixer[MC_MIXER_COLUMNS][MC_MAX_CHAINS], uint32_t words,
                        int chains, uint64_t start)
{
    char state[STATE_BYTES] = { 0 };
    struct random_data rd;
    memset(&rd, 0, sizeof rd);   /* initstate_r requires a zeroed random_data */
    uint32_t *perm = malloc((size_t)words * sizeof *perm);
    if (!perm)
        return -ENOMEM;
    if (initstate_r((unsigned)start, state, sizeof state, &rd) != 0) {
        free(perm);
        return -ENOSYS;   /* cannot happen with 32 bytes; the caller draws */
    }
    for (int x = 0; x < MC_MIXER_COLUMNS; x++) {
        for (uint32_t i = 0; i < words; i++) {   /* inside-out: entry i lands at a uniform j <= i */
            uint32_t j = (uint32_t)draw_upto(&rd, i);
            if (j != i)
                perm[i] = perm[j];
            perm[j] = i;
        }
        for (int k = 0; k < chains; k++)
            mixer[x][k] = perm[k];
    }
    free(perm);
    return 0;
}

#else

int mc_mixer_multichase(uint32_t mixer[MC_MIXER_COLUMNS][MC_MAX_CHAINS], uint32_t words,
                        int chains, uint64_t start)
{
    (void)mixer, (void)words, (void)chains, (void)start;
    return -ENOSYS;
}

#endif
