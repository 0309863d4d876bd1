/* test_chase: the chain layout (mencal/chase.c) against its definition.
 *
 * multichase (its default chase, google/multichase permutation.c): slots
 * `stride` bytes apart; chain k's node in slot x is the word
 * mixer[x % 64][k] of the slot, each mixer column a random permutation of
 * the slot's words (so the chains of a slot use distinct words); every
 * chain is one cycle through every slot; with TLB groups of G consecutive
 * slots the cycle walks all of one group, in random order, then the next
 * group, in a random order of the groups; it starts at slot 0.
 * tuned: slot i belongs to chain i % K, its node at the line a Fibonacci
 * hash of i picks. */
#include "check.h"
#include "chase.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *name;
    size_t nodes, stride, group;
    int chains;
    mc_chain_layout_t layout;
} layout_case_t;

static const layout_case_t cases[] = {
    { "multichase, 1 chain, 64-slot groups", 4096, 256, 64, 1, MC_LAYOUT_MULTICHASE },
    { "multichase, 4 chains, 16-slot groups", 4096, 256, 16, 4, MC_LAYOUT_MULTICHASE },
    { "multichase, 1 chain, full random", 4096, 256, 0, 1, MC_LAYOUT_MULTICHASE },
    { "multichase, 16 chains, stride 128, 128-slot groups", 2048, 128, 128, 16, MC_LAYOUT_MULTICHASE },
    { "multichase, 2 chains, stride 512, a partial last group", 1000, 512, 96, 2, MC_LAYOUT_MULTICHASE },
    { "tuned, 1 chain, 64-slot groups", 4096, 256, 64, 1, MC_LAYOUT_TUNED },
    { "tuned, 4 chains, full random", 4096, 256, 0, 4, MC_LAYOUT_TUNED },
};

/* The Fibonacci-hashed line of slot i (the tuned definition). */
static size_t tuned_off(size_t stride, size_t i)
{
    size_t lines = stride / 64;
    return lines >= 2 ? (size_t)(((uint64_t)i * 0x9E3779B97F4A7C15ULL) >> 32) % lines * 64 : 0;
}

/* Members of group g of chain k (the slots g*G .. g*G+G-1 that the chain
 * uses; one group of all slots without groups). */
static size_t group_members(const layout_case_t *c, int k, size_t g)
{
    const size_t G = c->group ? c->group : c->nodes;
    size_t lo = g * G, hi = lo + G < c->nodes ? lo + G : c->nodes, m = 0;
    for (size_t x = lo; x < hi; x++)
        m += c->layout == MC_LAYOUT_MULTICHASE || x % (size_t)c->chains == (size_t)k;
    return m;
}

/* Walks chain k once and checks every hop against the definition. */
static void check_chain(const layout_case_t *c, char *base, const mc_chain_map_t *map, int k,
                        void *start)
{
    const size_t n = c->nodes, K = (size_t)c->chains;
    const bool mcl = c->layout == MC_LAYOUT_MULTICHASE;
    const size_t members = mcl ? n : (n - (size_t)k + K - 1) / K;
    const size_t G = c->group ? c->group : n, ngroups = (n + G - 1) / G;
    size_t *seq = calloc(members, sizeof *seq);
    unsigned char *seen = calloc(n, 1), *gseen = calloc(ngroups, 1);
    if (!seq || !seen || !gseen) {
        CHECK(0, "%s: memory for the walk", c->name);
        free(seq), free(seen), free(gseen);
        return;
    }
    size_t bad_off = 0, bad_member = 0, repeats = 0, ascending = 0;
    void *p = start;
    CHECK(start == mc_chain_addr(map, k, mcl ? 0 : (size_t)k), "%s: chain %d starts at its first slot",
          c->name, k);
    for (size_t h = 0; h < members; h++) {
        size_t rel = (size_t)((char *)p - base), slot = rel / c->stride, off = rel % c->stride;
        size_t want = mcl ? (size_t)map->mixer[slot % MC_MIXER_COLUMNS][k] * 8
                          : tuned_off(c->stride, slot);
        seq[h] = slot;
        if (slot >= n || off != want || off % 8 || p != mc_chain_addr(map, k, slot))
            bad_off++;
        if (slot < n && !mcl && slot % K != (size_t)k)
            bad_member++;
        if (slot < n && seen[slot]++)
            repeats++;
        if (h && slot == seq[h - 1] + (mcl ? 1 : K))
            ascending++;
        p = *(void **)p;
    }
    CHECK(p == start, "%s: chain %d is one cycle of %zu nodes", c->name, k, members);
    CHECK(repeats == 0, "%s: chain %d visits each of its slots once (%zu repeats)", c->name, k,
          repeats);
    CHECK(bad_off == 0, "%s: chain %d: every node at its defined offset (%zu not)", c->name, k,
          bad_off);
    CHECK(bad_member == 0, "%s: chain %d: only its own slots (%zu others)", c->name, k, bad_member);
    /* group membership: from a group boundary of the cycle, the hops fall
     * into runs, one per group, each run the whole group */
    size_t from = 0, runs = 0, broken = 0, lowest_entries = 0;
    for (size_t h = 1; h < members && !from; h++)
        if (seq[h] / G != seq[h - 1] / G)
            from = h;
    for (size_t i = 0; i < members;) {
        size_t g = seq[(from + i) % members] / G, len = 0;
        lowest_entries += c->group && seq[(from + i) % members] == g * G + (mcl ? 0 : (size_t)k);
        while (i < members && seq[(from + i) % members] / G == g)
            i++, len++;
        broken += g >= ngroups || gseen[g]++ || len != group_members(c, k, g);
        runs++;
    }
    CHECK(broken == 0 && runs == ngroups, "%s: chain %d walks each group whole, once (%zu runs "
          "for %zu groups, %zu broken)", c->name, k, runs, ngroups, broken);
    CHECK(ascending * 4 < members, "%s: chain %d: random order (%zu of %zu hops to the next slot)",
          c->name, k, ascending, members);
    if (c->group && ngroups >= 8)
        CHECK(lowest_entries * 2 < ngroups, "%s: chain %d: a group is entered anywhere (%zu of "
              "%zu at its lowest slot)", c->name, k, lowest_entries, ngroups);
    free(seq), free(seen), free(gseen);
}

static void check_case(const layout_case_t *c, uint64_t rng_stream)
{
    const size_t bytes = c->nodes * c->stride;
    char *base = aligned_alloc(4096, (bytes + 4095) / 4096 * 4096);
    if (!base) {
        CHECK(0, "%s: memory for the chain", c->name);
        return;
    }
    memset(base, 0, bytes);
    mc_chain_spec_t spec = { .nodes = c->nodes, .stride = c->stride, .chains = c->chains,
                             .group_nodes = c->group, .layout = c->layout };
    mc_rng_t rng;
    mc_rng_init(&rng, 1, rng_stream);
    void *start[MC_MAX_CHAINS];
    mc_chain_map_t map;
    int rc = mc_chain_build(base, &spec, &rng, start, &map);
    CHECK(rc == 0, "%s: built", c->name);
    if (rc) {
        free(base);
        return;
    }
    for (int k = 0; k < c->chains; k++) {
        CHECK(mc_chain_members(&spec, k) == (c->layout == MC_LAYOUT_MULTICHASE ? c->nodes
              : (c->nodes - (size_t)k + (size_t)c->chains - 1) / (size_t)c->chains),
              "%s: chain %d members", c->name, k);
        check_chain(c, base, &map, k, start[k]);
    }
    if (c->layout == MC_LAYOUT_MULTICHASE) {
        const size_t words = c->stride / 8;
        size_t dup = 0, range = 0, distinct = 0, unaligned = 0, period = 0;
        unsigned char used[MC_MIXER_COLUMNS * 8] = { 0 };
        for (int x = 0; x < MC_MIXER_COLUMNS; x++)
            for (int k = 0; k < c->chains; k++) {
                uint32_t w = map.mixer[x][k];
                range += w >= words;
                for (int j = 0; j < k; j++)
                    dup += map.mixer[x][j] == w;
                if (k == 0 && w < sizeof used && !used[w]++)
                    distinct++;
                unaligned += (w * 8) % 64 != 0;
            }
        for (size_t x = 0; x + MC_MIXER_COLUMNS < c->nodes; x++)
            for (int k = 0; k < c->chains; k++)
                period += mc_chain_addr(&map, k, x + MC_MIXER_COLUMNS)
                              != (char *)mc_chain_addr(&map, k, x) + MC_MIXER_COLUMNS * c->stride;
        CHECK(range == 0, "%s: mixer words inside the slot", c->name);
        CHECK(dup == 0, "%s: a slot's chains use distinct words (%zu shared)", c->name, dup);
        CHECK(period == 0, "%s: a chain's word repeats every 64 slots", c->name);
        /* 64 draws over `words` words: all but a few words appear */
        CHECK(distinct * 2 > (words < 64 ? words : 64), "%s: chain 0's words spread over the slot "
              "(%zu distinct of %zu)", c->name, distinct, words);
        CHECK(unaligned > 0, "%s: words, not only line starts", c->name);
    }
    /* the chase itself follows the same cycle: n/8 rounds of 8 hops
     * from start[0] land back on it when n is a multiple of 8 */
    size_t m0 = mc_chain_members(&spec, 0);
    if (m0 % MC_CHASE_UNROLL == 0 && c->chains == 1) {
        void *s[1] = { start[0] };
        mc_chase(s, 1, m0 / MC_CHASE_UNROLL);
        CHECK(s[0] == start[0], "%s: mc_chase walks the built cycle", c->name);
    }
    free(base);
}

int main(void)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(&cases[i], i);

    /* two builds with different random streams differ (the order is drawn) */
    {
        mc_chain_spec_t spec = { .nodes = 1024, .stride = 256, .chains = 1, .group_nodes = 64 };
        char *a = aligned_alloc(4096, 1024 * 256), *b = aligned_alloc(4096, 1024 * 256);
        if (!a || !b) {
            free(a), free(b);
            CHECK(0, "memory for two chains");
            return check_done();
        }
        mc_rng_t r1, r2;
        mc_rng_init(&r1, 1, 0), mc_rng_init(&r2, 2, 0);
        void *sa[1], *sb[1];
        mc_chain_map_t ma, mb;
        mc_chain_build(a, &spec, &r1, sa, &ma);
        mc_chain_build(b, &spec, &r2, sb, &mb);
        size_t same = 0;
        void *p = sa[0], *q = sb[0];
        for (int h = 0; h < 1024; h++) {
            same += (char *)p - a == (char *)q - b;
            p = *(void **)p, q = *(void **)q;
        }
        CHECK(same < 64, "another random stream, another chain (%zu of 1024 hops alike)", same);
        free(a), free(b);
    }

    /* bad specs and options */
    {
        char buf[256] = { 0 }, msg[256];
        void *s[MC_MAX_CHAINS];
        mc_rng_t rng;
        mc_rng_init(&rng, 1, 0);
        mc_chain_spec_t spec = { .nodes = 4, .stride = 64, .chains = 16 };
        CHECK(mc_chain_build(buf, &spec, &rng, s, NULL) == -EINVAL, "fewer slots than chains: -EINVAL");
        mc_chain_spec_t words = { .nodes = 32, .stride = 64, .chains = 9 };
        char *big = calloc(32, 64);
        if (!big)
            return check_done();
        CHECK(mc_chain_build(big, &words, &rng, s, NULL) == -EINVAL,
              "multichase: 9 chains in 8-word slots: -EINVAL");
        words.layout = MC_LAYOUT_TUNED;
        CHECK(mc_chain_build(big, &words, &rng, s, NULL) == 0, "tuned: 9 chains in 64-byte slots build");
        free(big);
        CHECK(!mc_chase_stride_ok(4, msg, sizeof msg) && strstr(msg, "--stride 4:") &&
              strstr(msg, "at least 8"), "--stride 4 refused: %s", msg);
        CHECK(!mc_chase_stride_ok(12, msg, sizeof msg) && strstr(msg, "multiple of 8"),
              "--stride 12 refused: %s", msg);
        CHECK(mc_chase_stride_ok(8, msg, sizeof msg) && mc_chase_stride_ok(256, msg, sizeof msg),
              "--stride 8 and 256 accepted");
        CHECK(!mc_chase_chains_fit(16, 64, MC_LAYOUT_MULTICHASE, msg, sizeof msg) &&
              strstr(msg, "--stride 128 or more"), "16 chains need 128-byte slots: %s", msg);
        CHECK(mc_chase_chains_fit(16, 64, MC_LAYOUT_TUNED, msg, sizeof msg) &&
              mc_chase_chains_fit(8, 64, MC_LAYOUT_MULTICHASE, msg, sizeof msg),
              "tuned fits any chains; 8 chains fit 64-byte slots");
    }
    return check_done();
}
