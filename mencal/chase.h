#ifndef MC_CHASE_H
#define MC_CHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"

#define MC_MAX_CHAINS 16

/* chase: pointer chasing */
typedef struct {
    size_t nodes;        /* nodes in the region */
    size_t stride;       /* bytes from one node's slot to the next (a multiple of 8) */
    int chains;          /* independent cycles (node i belongs to chain i % chains) */
    size_t group_nodes;  /* 0: whole region; else hops stay inside groups of this many nodes per chain */
} mc_chain_spec_t;
/* The address of node i: slot i (i * stride bytes from base), at a line
 * inside the slot chosen by a fixed hash of i when the slot spans two or
 * more lines (so nodes use every cache set, as multichase's mixer does). */
void *mc_chain_node(void *base, size_t stride, size_t i);
/* Builds `chains` random cycles over the nodes at base, each a
 * single cycle (Sattolo) through its members; start[k] = first node of
 * chain k.  Writes every node.  0, or -ENOMEM / -EINVAL. */
int mc_chain_build(void *base, const mc_chain_spec_t *spec, mc_rng_t *rng, void **start);
/* Follows the cycle of start to verify it has `members` nodes (slow:
 * one dependent load per node).  true when it does. */
bool mc_chain_verify(void *start, size_t members);
/* Advance every chain by rounds*8 hops (chains <= MC_MAX_CHAINS); start[]
 * is updated to the final positions.  One dependent load per hop. */
void mc_chase(void **start, int chains, size_t rounds);
/* The loop without the loads, for the overhead figure: ns for rounds. */
uint64_t mc_chase_overhead_ns(int chains, size_t rounds);
#define MC_CHASE_UNROLL 8
/* --stride: nodes hold a pointer, so a stride is a multiple of one;
 * false with msg naming the value otherwise. */
bool mc_chase_stride_ok(long long stride, char *msg, size_t msglen);

#endif
