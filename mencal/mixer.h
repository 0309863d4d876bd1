#ifndef MC_MIXER_H
#define MC_MIXER_H

#include <stdint.h>

#include "chase.h"

/* mixer: the table that places multichase-layout nodes in their slots.
 *
 * Contract: fills mixer[x][k] for every column x < MC_MIXER_COLUMNS and row
 * k < chains with a word number < words, each column the first `chains`
 * entries of a permutation of the slot's words, and the whole table the
 * one multichase draws when its random generator starts at `start`
 * (multichase's own start is 1; ours is --random-state, taken modulo
 * 2^32).  Returns 0, -ENOMEM, or -ENOSYS where the draw cannot be made:
 * the C library has no random_r (MC_MIXER_AS_MULTICHASE is then 0), and
 * the caller draws a table of the same distribution itself. */
#if defined(__GLIBC__)
#define MC_MIXER_AS_MULTICHASE 1
#else
#define MC_MIXER_AS_MULTICHASE 0
#endif

int mc_mixer_multichase(uint32_t mixer[MC_MIXER_COLUMNS][MC_MAX_CHAINS], uint32_t words,
                        int chains, uint64_t start);

#endif
