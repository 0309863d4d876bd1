#ifndef MC_CHASE_H
#define MC_CHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define MC_MAX_CHAINS 16
/* multichase's mixer has max(64, chases rounded up to a power of two)
 * columns; at most 16 chains per thread here, so always 64. */
#define MC_MIXER_COLUMNS 64

/* --chain-layout: MC_CHAIN_LAYOUT_CHOICES names them in this order.
 *  multichase: multichase's default layout (google/multichase,
 *    permutation.c generate_chase): every chain visits every slot; the
 *    node of chain k in slot x is the word mixer[x % 64][k] of the slot,
 *    where each mixer column is a random permutation of the slot's words
 *    (so chains never share a word and the word a chain uses repeats with
 *    period 64 slots);
 *  tuned: slot i belongs to chain i % chains, its node at the cache line
 *    of the slot picked by a Fibonacci hash of i (memsuite's layout before
 *    issue 24; it read 10-20% lower on an Intel Xeon at small TLB groups,
 *    most likely through DRAM row-buffer hits: docs/peers.md). */
#define MC_CHAIN_LAYOUT_CHOICES "multichase|tuned"
typedef enum { MC_LAYOUT_MULTICHASE, MC_LAYOUT_TUNED } mc_chain_layout_t;
const char *mc_chain_layout_name(mc_chain_layout_t layout);
/* Why a run with this layout is not standard (NULL for multichase's). */
const char *mc_chain_layout_not_standard(mc_chain_layout_t layout);
/* One sentence for a result note: the layout and what it means. */
const char *mc_chain_layout_note(mc_chain_layout_t layout);

/* chase: pointer chasing */
typedef struct {
    size_t nodes;        /* slots in the region, `stride` bytes each */
    size_t stride;       /* bytes from one slot to the next (a multiple of 8) */
    int chains;          /* independent cycles */
    size_t group_nodes;  /* 0: whole region; else hops stay inside groups of this many
                          * consecutive slots (multichase's TLB locality / stride) */
    mc_chain_layout_t layout;
    uint64_t mixer_start; /* multichase layout: the mixer table is the one multichase
                           * draws from this start value (mixer.h; --random-state) */
} mc_chain_spec_t;

/* Where the nodes lie once built (mc_chain_build fills it). */
typedef struct {
    void *base;
    size_t stride;
    int chains;
    mc_chain_layout_t layout;
    uint32_t mixer[MC_MIXER_COLUMNS][MC_MAX_CHAINS];   /* multichase: word of chain k in slot x
                                                        * is mixer[x % 64][k] */
} mc_chain_map_t;

/* The address of chain k's node in slot `slot` (a slot the chain uses:
 * mc_chain_slot). */
void *mc_chain_addr(const mc_chain_map_t *map, int k, size_t slot);
/* Members of chain k: n for multichase; slots k, k+K, ... for tuned. */
size_t mc_chain_members(const mc_chain_spec_t *spec, int k);
/* The slot of chain k's member t (t < mc_chain_members). */
size_t mc_chain_slot(const mc_chain_spec_t *spec, int k, size_t t);
/* Builds `chains` random cycles over the slots at base, each one cycle
 * through its members: with group_nodes, the members of one group in a
 * uniformly random order, the groups in a random cyclic order (as
 * multichase's tlb_perm); without, one uniformly random cycle.  start[k]
 * = chain k's node in its first slot.  map (may be NULL) receives the
 * layout.  0, or -ENOMEM / -EINVAL (bad spec; multichase with fewer words
 * per slot than chains). */
int mc_chain_build(void *base, const mc_chain_spec_t *spec, mc_rng_t *rng, void **start,
                   mc_chain_map_t *map);
/* Follows the cycle of start to verify it has `members` nodes (slow:
 * one dependent load per node).  true when it does. */
bool mc_chain_verify(void *start, size_t members);
/* Advance every chain by rounds*8 hops (chains <= MC_MAX_CHAINS); start[]
 * is updated to the final positions.  One dependent load per hop. */
void mc_chase(void **start, int chains, size_t rounds);
/* The loop without the loads, for the overhead figure: ns for rounds. */
uint64_t mc_chase_overhead_ns(int chains, size_t rounds);
#define MC_CHASE_UNROLL 8
/* --stride: nodes hold a pointer, so a stride is at least one and a
 * multiple of one; false with msg naming the value otherwise. */
bool mc_chase_stride_ok(long long stride, char *msg, size_t msglen);
/* --chains with --chain-layout multichase: each chain takes its own word
 * of every slot, so chains <= stride / 8; false with msg otherwise. */
bool mc_chase_chains_fit(int chains, size_t stride, mc_chain_layout_t layout, char *msg,
                         size_t msglen);

#endif
