/* chase: dependent pointer chasing over nodes spaced `stride` bytes apart.
 *
 * Each node's first word points to the next node of its chain.  A chain
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
#include "timer.h"

typedef struct node {
    struct node *next;
} node_t;

void *mc_chain_node(void *base, size_t stride, size_t i)
{
    size_t lines = stride / MC_LINE_BYTES, off = 0;
    if (lines >= 2 && stride % MC_LINE_BYTES == 0)   /* Fibonacci hash of i picks the line */
        off = (size_t)(((uint64_t)i * 0x9E3779B97F4A7C15ULL) >> 32) % lines * MC_LINE_BYTES;
    return (char *)base + i * stride + off;
}

/* The chain being built: its region and node spacing. */
typedef struct {
    void *base;
    size_t stride;
} region_t;

static inline node_t *node_at(const region_t *g, size_t i)
{
    return mc_chain_node(g->base, g->stride, i);
}

/* Members of chain k among n nodes: nodes k, k+K, k+2K, ... */
static size_t chain_members(size_t n, int chains, int k)
{
    return (size_t)k < n ? (n - (size_t)k + (size_t)chains - 1) / (size_t)chains : 0;
}

/* One cycle through all members of chain k (in place: the next fields
 * first hold member numbers, Sattolo permutes them, then they become
 * addresses). */
static void build_whole(const region_t *base, size_t n, int K, int k, mc_rng_t *rng)
{
    size_t m = chain_members(n, K, k);
    for (size_t t = 0; t < m; t++)
        node_at(base, (size_t)k + t * (size_t)K)->next = (void *)(uintptr_t)t;
    for (size_t i = m - 1; i > 0; i--) {   /* Sattolo: j uniform in [0, i) */
        size_t j = (size_t)mc_rng_below(rng, i);
        node_t *a = node_at(base, (size_t)k + i * (size_t)K);
        node_t *b = node_at(base, (size_t)k + j * (size_t)K);
        void *tmp = a->next;
        a->next = b->next;
        b->next = tmp;
    }
    for (size_t t = 0; t < m; t++) {
        node_t *a = node_at(base, (size_t)k + t * (size_t)K);
        size_t to = (size_t)(uintptr_t)a->next;
        a->next = node_at(base, (size_t)k + to * (size_t)K);
    }
}

/* Hops stay inside groups of `gn` consecutive nodes: the chain walks every
 * member of a group in random order, then moves to the next group of a
 * random cycle over the groups (Sattolo again).  Returns 0 or -ENOMEM. */
static int build_grouped(const region_t *base, size_t n, int K, int k, size_t gn, mc_rng_t *rng,
                         void **start)
{
    size_t m = chain_members(n, K, k);
    size_t ngroups = (n + gn - 1) / gn;
    size_t *first = malloc(ngroups * sizeof *first);
    size_t *last = malloc(ngroups * sizeof *last);
    size_t *gnext = malloc(ngroups * sizeof *gnext);
    size_t *ord = malloc((gn / (size_t)K + 2) * sizeof *ord);
    if (!first || !last || !gnext || !ord) {
        free(first), free(last), free(gnext), free(ord);
        return -ENOMEM;
    }
    size_t used = 0;   /* groups holding at least one member */
    size_t t = 0;
    while (t < m) {
        size_t g = ((size_t)k + t * (size_t)K) / gn, cnt = 0;
        while (t < m && ((size_t)k + t * (size_t)K) / gn == g)
            ord[cnt++] = t++;
        for (size_t i = cnt; i > 1; i--) {   /* Fisher-Yates inside the group */
            size_t j = (size_t)mc_rng_below(rng, i);
            size_t tmp = ord[i - 1];
            ord[i - 1] = ord[j];
            ord[j] = tmp;
        }
        for (size_t i = 0; i + 1 < cnt; i++)
            node_at(base, (size_t)k + ord[i] * (size_t)K)->next =
                node_at(base, (size_t)k + ord[i + 1] * (size_t)K);
        first[used] = ord[0];
        last[used] = ord[cnt - 1];
        used++;
    }
    if (used == 0) {   /* m == 0: no member (the caller prevents it) */
        free(first), free(last), free(gnext), free(ord);
        return -EINVAL;
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
        node_at(base, (size_t)k + last[g] * (size_t)K)->next =
            node_at(base, (size_t)k + first[gnext[g]] * (size_t)K);
    *start = node_at(base, (size_t)k + first[0] * (size_t)K);
    free(first), free(last), free(gnext), free(ord);
    return 0;
}

int mc_chain_build(void *mem, const mc_chain_spec_t *spec, mc_rng_t *rng, void **start)
{
    size_t n = spec->nodes;
    int K = spec->chains;
    if (K < 1 || K > MC_MAX_CHAINS || n < (size_t)K || spec->stride < sizeof(void *) ||
        spec->stride % sizeof(void *) != 0)
        return -EINVAL;
    const region_t region = { mem, spec->stride }, *base = &region;
    for (int k = 0; k < K; k++) {
        size_t m = chain_members(n, K, k);
        if (spec->group_nodes && spec->group_nodes < n && m > 1) {
            int rc = build_grouped(base, n, K, k, spec->group_nodes, rng, &start[k]);
            if (rc)
                return rc;
        } else {
            if (m > 1)
                build_whole(base, n, K, k, rng);
            else
                node_at(base, (size_t)k)->next = node_at(base, (size_t)k);
            start[k] = node_at(base, (size_t)k);
        }
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
    if (stride % (long long)sizeof(void *) == 0)
        return true;
    snprintf(msg, msglen, "--stride %lld: expected a multiple of %zu bytes (a pointer), e.g. 256",
             stride, sizeof(void *));
    return false;
}
