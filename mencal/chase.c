/* chase: dependent pointer chasing over nodes in slots `stride` bytes apart.
 *
 * Each node's word points to the next node of its chain.  Where a node
 * lies inside its slot is the layout (chase.h): multichase's by default,
 * a word from its random mixer table, drawn as multichase draws it
 * (mixer.c: the draw alone moves the latency by up to 5%), so that
 * figures compare with multichase's on every CPU (issue 24: on an Intel
 * Xeon the tuned layout's hashed lines read 10-20% faster at small TLB
 * groups).  A chain
 * is one random cycle (Sattolo's algorithm) through its members, so the
 * walk visits every member before repeating and the next address is
 * known only when the current load completes: one dependent load per hop.
 * The stride (default 256 B, as multichase) keeps the next hop out of the
 * line pair that the adjacent-line prefetcher fetches with the current
 * one: with 64-byte nodes that prefetcher served about a quarter of the
 * hops inside a TLB group and the latency read ~27% low.
 * Check with `objdump -d --no-show-raw-insn build/mencal/chase.o`: the
 * chase_K bodies are runs of `mov (%reg),%reg` with no other memory access
 * between hops. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chase.h"
#include "config.h"
#include "mixer.h"
#include "timer.h"

typedef struct node {
    struct node *next;
} node_t;

const char *mc_chain_layout_name(mc_chain_layout_t layout)
{
    return layout == MC_LAYOUT_TUNED ? "tuned" : "multichase";
}

const char *mc_chain_layout_not_standard(mc_chain_layout_t layout)
{
    return layout == MC_LAYOUT_TUNED ? "--chain-layout tuned (not multichase's layout; its latency "
                                       "is not multichase's figure)" : NULL;
}

const char *mc_chain_layout_note(mc_chain_layout_t layout)
{
    return layout == MC_LAYOUT_TUNED
               ? "chain layout tuned: a Fibonacci-hashed line per slot, chains interleaved "
                 "(not multichase's layout: on some CPUs it reads 10-20% lower at small TLB "
                 "groups)"
               : MC_MIXER_AS_MULTICHASE
                     ? "chain layout multichase: a word per slot from multichase's 64-column "
                       "mixer table (the table multichase draws from start value --random-state, "
                       "its own being 1), every chain over every slot, groups in random order (as "
                       "multichase's default chase)"
                     : "chain layout multichase: a word per slot from a 64-column random mixer "
                       "table (not multichase's own draw: this C library has no random_r), every "
                       "chain over every slot, groups in random order";
}

/* tuned: the line of slot i picked by a Fibonacci hash of i when the slot
 * spans two or more lines, else the slot's start. */
static size_t tuned_offset(size_t stride, size_t i)
{
    size_t lines = stride / MC_LINE_BYTES;
    if (lines >= 2 && stride % MC_LINE_BYTES == 0)
        return (size_t)(((uint64_t)i * 0x9E3779B97F4A7C15ULL) >> 32) % lines * MC_LINE_BYTES;
    return 0;
}

void *mc_chain_addr(const mc_chain_map_t *map, int k, size_t slot)
{
    size_t off = map->layout == MC_LAYOUT_TUNED
                     ? tuned_offset(map->stride, slot)
                     : (size_t)map->mixer[slot % MC_MIXER_COLUMNS][k] * sizeof(void *);
    return (char *)map->base + slot * map->stride + off;
}

size_t mc_chain_members(const mc_chain_spec_t *spec, int k)
{
    size_t n = spec->nodes, K = (size_t)spec->chains;
    if (spec->layout != MC_LAYOUT_TUNED)
        return n;
    return (size_t)k < n ? (n - (size_t)k + K - 1) / K : 0;
}

size_t mc_chain_slot(const mc_chain_spec_t *spec, int k, size_t t)
{
    return spec->layout == MC_LAYOUT_TUNED ? (size_t)k + t * (size_t)spec->chains : t;
}

/* The chain being built: its layout, spec and number. */
typedef struct {
    const mc_chain_map_t *map;
    const mc_chain_spec_t *spec;
    int k;
} chain_t;

/* The node of member t. */
static inline node_t *node_at(const chain_t *c, size_t t)
{
    return mc_chain_addr(c->map, c->k, mc_chain_slot(c->spec, c->k, t));
}

/* The mixer table: multichase's own draw from spec->mixer_start
 * (mixer.c).  Where the C library cannot make that draw, a table of the
 * same distribution from rng: per column, `chains` distinct words drawn
 * uniformly (the first entries of a uniformly random permutation).
 * Returns 0 or -ENOMEM. */
static int build_mixer(mc_chain_map_t *map, const mc_chain_spec_t *spec, mc_rng_t *rng)
{
    const uint64_t words = map->stride / sizeof(void *);
    int rc = words <= UINT32_MAX
                 ? mc_mixer_multichase(map->mixer, (uint32_t)words, map->chains, spec->mixer_start)
                 : -ENOSYS;
    if (rc != -ENOSYS)
        return rc;
    for (int x = 0; x < MC_MIXER_COLUMNS; x++)
        for (int k = 0; k < map->chains; k++) {
            uint32_t w;
            bool taken;
            do {
                w = (uint32_t)mc_rng_below(rng, words);
                taken = false;
                for (int j = 0; j < k; j++)
                    taken |= map->mixer[x][j] == w;
            } while (taken);
            map->mixer[x][k] = w;
        }
    return 0;
}

/* One uniformly random cycle through all m members (in place: the next
 * fields first hold member numbers, Sattolo permutes them, then they
 * become addresses). */
static void build_whole(const chain_t *c, size_t m, mc_rng_t *rng)
{
    for (size_t t = 0; t < m; t++)
        node_at(c, t)->next = (void *)(uintptr_t)t;
    for (size_t i = m - 1; i > 0; i--) {   /* Sattolo: j uniform in [0, i) */
        size_t j = (size_t)mc_rng_below(rng, i);
        node_t *a = node_at(c, i), *b = node_at(c, j);
        void *tmp = a->next;
        a->next = b->next;
        b->next = tmp;
    }
    for (size_t t = 0; t < m; t++) {
        node_t *a = node_at(c, t);
        a->next = node_at(c, (size_t)(uintptr_t)a->next);
    }
}

/* Hops stay inside groups of `gn` consecutive slots: the chain walks the
 * members of a group in a uniformly random order (Fisher-Yates), then
 * moves to the next group of a random cycle over the groups (Sattolo).
 * Returns 0 or -ENOMEM. */
static int build_grouped(const chain_t *c, size_t m, size_t gn, mc_rng_t *rng)
{
    const mc_chain_spec_t *sp = c->spec;
    size_t ngroups = (sp->nodes + gn - 1) / gn;
    size_t per_group = sp->layout == MC_LAYOUT_TUNED ? gn / (size_t)sp->chains + 2 : gn;
    size_t *first = malloc(ngroups * sizeof *first);
    size_t *last = malloc(ngroups * sizeof *last);
    size_t *gnext = malloc(ngroups * sizeof *gnext);
    size_t *ord = malloc(per_group * sizeof *ord);
    if (!first || !last || !gnext || !ord) {
        free(first), free(last), free(gnext), free(ord);
        return -ENOMEM;
    }
    size_t used = 0;   /* groups holding at least one member */
    size_t t = 0;
    while (t < m) {
        size_t g = mc_chain_slot(sp, c->k, t) / gn, cnt = 0;
        while (t < m && mc_chain_slot(sp, c->k, t) / gn == g)
            ord[cnt++] = t++;
        for (size_t i = cnt; i > 1; i--) {   /* Fisher-Yates inside the group */
            size_t j = (size_t)mc_rng_below(rng, i);
            size_t tmp = ord[i - 1];
            ord[i - 1] = ord[j];
            ord[j] = tmp;
        }
        for (size_t i = 0; i + 1 < cnt; i++)
            node_at(c, ord[i])->next = node_at(c, ord[i + 1]);
        first[used] = ord[0];
        last[used] = ord[cnt - 1];
        used++;
    }
    for (size_t g = 0; g < used; g++)
        gnext[g] = g;
    for (size_t i = used; i > 1; i--) {   /* Sattolo over the groups: j in [0, i-1) */
        size_t j = (size_t)mc_rng_below(rng, i - 1);
        size_t tmp = gnext[i - 1];
        gnext[i - 1] = gnext[j];
        gnext[j] = tmp;
    }
    for (size_t g = 0; g < used; g++)
        node_at(c, last[g])->next = node_at(c, first[gnext[g]]);
    free(first), free(last), free(gnext), free(ord);
    return 0;
}

int mc_chain_build(void *mem, const mc_chain_spec_t *spec, mc_rng_t *rng, void **start,
                   mc_chain_map_t *map_out)
{
    size_t n = spec->nodes;
    int K = spec->chains;
    if (K < 1 || K > MC_MAX_CHAINS || n < (size_t)K || spec->stride < sizeof(void *) ||
        spec->stride % sizeof(void *) != 0 ||
        (spec->layout != MC_LAYOUT_TUNED && spec->stride / sizeof(void *) < (size_t)K))
        return -EINVAL;
    mc_chain_map_t local = { 0 }, *map = map_out ? map_out : &local;
    *map = (mc_chain_map_t){ .base = mem, .stride = spec->stride, .chains = K,
                             .layout = spec->layout };
    if (spec->layout != MC_LAYOUT_TUNED) {
        int rc = build_mixer(map, spec, rng);
        if (rc)
            return rc;
    }
    for (int k = 0; k < K; k++) {
        const chain_t c = { map, spec, k };
        size_t m = mc_chain_members(spec, k);
        if (m <= 1)
            node_at(&c, 0)->next = node_at(&c, 0);
        else if (spec->group_nodes && spec->group_nodes < n) {
            int rc = build_grouped(&c, m, spec->group_nodes, rng);
            if (rc)
                return rc;
        } else
            build_whole(&c, m, rng);
        start[k] = node_at(&c, 0);   /* multichase starts at slot 0 */
    }
    return 0;
}

bool mc_chain_verify(void *start, size_t members)
{
    const node_t *p = start;
    size_t len = 0;
    do {
        p = p->next;
        len++;
    } while (p != start && len <= members);
    return len == members;
}

/* One function per chain count, so that the K live pointers stay in
 * registers: each round is MC_CHASE_UNROLL hops on each chain. */
#define MC_CHASE_FN(K)                                                      \
    static __attribute__((noinline)) void chase_##K(void **start, size_t rounds) \
    {                                                                       \
        void *p[K];                                                         \
        for (int k = 0; k < K; k++)                                         \
            p[k] = start[k];                                                \
        for (size_t r = 0; r < rounds; r++) {                               \
            _Pragma("GCC unroll 128") for (int u = 0; u < MC_CHASE_UNROLL; u++) \
                _Pragma("GCC unroll 16") for (int k = 0; k < K; k++)        \
                    p[k] = *(void **)p[k];                                  \
        }                                                                   \
        for (int k = 0; k < K; k++)                                         \
            start[k] = p[k];                                                \
    }

#define MC_CHASE_LIST(X) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) \
                         X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)
MC_CHASE_LIST(MC_CHASE_FN)

static void (*const chase_fn[MC_MAX_CHAINS + 1])(void **, size_t) = {
#define MC_CHASE_ENTRY(K) [K] = chase_##K,
    MC_CHASE_LIST(MC_CHASE_ENTRY)
#undef MC_CHASE_ENTRY
};

void mc_chase(void **start, int chains, size_t rounds)
{
    if (chains >= 1 && chains <= MC_MAX_CHAINS)
        chase_fn[chains](start, rounds);
}

/* The loop control alone: the same round count, a compiler barrier per
 * hop group instead of the loads. */
static __attribute__((noinline)) void empty_rounds(size_t rounds)
{
    for (size_t r = 0; r < rounds; r++)
        __asm__ volatile("" : : "r"(r) : "memory");
}

uint64_t mc_chase_overhead_ns(int chains, size_t rounds)
{
    (void)chains;
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t t0 = mb_now_ns();
        empty_rounds(rounds);
        uint64_t dt = mb_now_ns() - t0;
        best = dt < best ? dt : best;
    }
    return best;
}

bool mc_chase_stride_ok(long long stride, char *msg, size_t msglen)
{
    if (stride >= (long long)sizeof(void *) && stride % (long long)sizeof(void *) == 0)
        return true;
    snprintf(msg, msglen, "--stride %lld: expected a multiple of %zu bytes (a pointer) of at "
             "least %zu, e.g. 256", stride, sizeof(void *), sizeof(void *));
    return false;
}

bool mc_chase_chains_fit(int chains, size_t stride, mc_chain_layout_t layout, char *msg,
                         size_t msglen)
{
    if (layout == MC_LAYOUT_TUNED || (size_t)chains <= stride / sizeof(void *))
        return true;
    snprintf(msg, msglen, "--chains %d with --chain-layout multichase: each chain takes its own "
             "word of every slot, so --stride %zu holds at most %zu chains; use --stride %zu or "
             "more, or --chain-layout tuned", chains, stride, stride / sizeof(void *),
             (size_t)chains * sizeof(void *));
    return false;
}
