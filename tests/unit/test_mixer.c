/* test_mixer: the multichase layout's mixer table (mencal/mixer.c) is the
 * table multichase draws.
 *
 * The expected columns were printed by google/multichase's own
 * generate_chase_mixer (permutation.c), built outside this tree, after
 * its rng_init(1): stride 256 (32 words), one mixer per chase, the
 * table's rows 0 and 1 (the words of chains 0 and 1) of its 64 columns,
 * glibc 2.36, 2026-12-04.  They are a fact about the reference program,
 * like an output format: randread reproduces them so that its latency
 * is multichase's figure (the draw alone moved it by up to 5% on an
 * Intel Xeon). */
#include "check.h"
#include "chase.h"
#include "mixer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const uint32_t multichase_start1_row0[MC_MIXER_COLUMNS] = {
    12, 18, 16, 28, 4,  24, 5,  24, 31, 28, 10, 20, 1,  28, 22, 31, 22, 13, 6,  2,  31, 7,
    1,  14, 30, 22, 21, 17, 23, 13, 8,  29, 25, 1,  29, 18, 5,  3,  17, 25, 25, 18, 24, 26,
    13, 8,  29, 18, 29, 6,  6,  30, 2,  7,  1,  21, 7,  28, 6,  10, 21, 0,  2,  16,
};
static const uint32_t multichase_start1_row1[MC_MIXER_COLUMNS] = {
    1,  5,  5,  21, 21, 16, 21, 16, 5,  3,  13, 26, 19, 21, 16, 19, 3,  28, 30, 11, 20, 21,
    15, 30, 14, 31, 26, 1,  30, 15, 23, 7,  16, 24, 17, 29, 26, 14, 7,  23, 17, 21, 10, 18,
    11, 16, 31, 10, 6,  17, 2,  20, 12, 9,  7,  26, 17, 2,  3,  19, 28, 17, 27, 7,
};

/* Every column holds `chains` distinct words below `words`. */
static int columns_bad(uint32_t m[MC_MIXER_COLUMNS][MC_MAX_CHAINS], uint32_t words, int chains)
{
    int bad = 0;
    for (int x = 0; x < MC_MIXER_COLUMNS; x++)
        for (int k = 0; k < chains; k++) {
            bad += m[x][k] >= words;
            for (int j = 0; j < k; j++)
                bad += m[x][j] == m[x][k];
        }
    return bad;
}

/* Columns whose row-k word equals want[x]. */
static int alike(uint32_t m[MC_MIXER_COLUMNS][MC_MAX_CHAINS], int k, const uint32_t *want)
{
    int n = 0;
    for (int x = 0; x < MC_MIXER_COLUMNS; x++)
        n += m[x][k] == want[x];
    return n;
}

int main(void)
{
    uint32_t m[MC_MIXER_COLUMNS][MC_MAX_CHAINS];
#if MC_MIXER_AS_MULTICHASE
    CHECK(mc_mixer_multichase(m, 32, 2, 1) == 0, "start 1, 32 words, 2 chains: drawn");
    int row0 = alike(m, 0, multichase_start1_row0), row1 = alike(m, 1, multichase_start1_row1);
    CHECK(row0 == MC_MIXER_COLUMNS && row1 == MC_MIXER_COLUMNS,
          "start 1: rows 0 and 1 are multichase's (%d and %d of 64 columns equal)", row0, row1);

    /* fewer chains draw the same table: row 0 does not depend on them */
    uint32_t one[MC_MIXER_COLUMNS][MC_MAX_CHAINS];
    mc_mixer_multichase(one, 32, 1, 1);
    int same = alike(one, 0, multichase_start1_row0);
    CHECK(same == MC_MIXER_COLUMNS, "1 chain: row 0 unchanged (%d of 64)", same);

    /* another start value, another table */
    uint32_t two[MC_MIXER_COLUMNS][MC_MAX_CHAINS];
    mc_mixer_multichase(two, 32, 1, 2);
    same = alike(two, 0, multichase_start1_row0);
    CHECK(same < 16, "start 2 draws another table (%d of 64 columns alike)", same);

    /* the start value is taken modulo 2^32, as multichase's unsigned start */
    mc_mixer_multichase(two, 32, 1, 1 + (1ULL << 32));
    same = alike(two, 0, multichase_start1_row0);
    CHECK(same == MC_MIXER_COLUMNS, "start 2^32 + 1 is start 1 (%d of 64)", same);

    /* columns are permutation prefixes at every stride */
    static const struct { uint32_t words; int chains; } shapes[] = { { 8, 8 }, { 16, 16 }, { 32, 16 }, { 512, 16 } };
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        CHECK(mc_mixer_multichase(m, shapes[i].words, shapes[i].chains, 7) == 0
                  && columns_bad(m, shapes[i].words, shapes[i].chains) == 0,
              "%u words, %d chains: distinct words in range", shapes[i].words, shapes[i].chains);
    }

    /* the chain builder uses the table of spec.mixer_start */
    {
        mc_chain_spec_t spec = { .nodes = 256, .stride = 256, .chains = 2, .group_nodes = 64,
                                 .mixer_start = 1 };
        char *buf = aligned_alloc(4096, 256 * 256);
        if (buf) {
            mc_rng_t rng;
            mc_rng_init(&rng, 99, 0);
            void *s[2];
            mc_chain_map_t map;
            int rc = mc_chain_build(buf, &spec, &rng, s, &map);
            int eq0 = alike(map.mixer, 0, multichase_start1_row0),
                eq1 = alike(map.mixer, 1, multichase_start1_row1);
            CHECK(rc == 0 && eq0 == MC_MIXER_COLUMNS && eq1 == MC_MIXER_COLUMNS,
                  "mc_chain_build, mixer_start 1: multichase's table (%d and %d of 64 columns)", eq0, eq1);
            CHECK((char *)s[0] == buf + multichase_start1_row0[0] * 8,
                  "chain 0 starts at slot 0, word %u", multichase_start1_row0[0]);
            free(buf);
        } else
            CHECK(0, "memory for a chain");
    }
#else
    CHECK(mc_mixer_multichase(m, 32, 1, 1) == -ENOSYS, "no random_r: -ENOSYS, the caller draws");
    (void)columns_bad, (void)alike;
    (void)multichase_start1_row0, (void)multichase_start1_row1;
#endif
    return check_done();
}
