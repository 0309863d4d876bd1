/* access: whole-cache-line loads and stores in an exact ratio.
 *
 * A Bresenham accumulator spreads the stores evenly: of every 100
 * consecutive accesses exactly read_pct are loads, so the counts are exact
 * for any run that is a multiple of 100 accesses and within one access
 * otherwise (the counts are kept, not inferred). */
#include <string.h>

#include "access.h"

void mc_mix_init(mc_mix_t *m, uint64_t *base, size_t lines, unsigned read_pct, bool random,
                 uint64_t random_state, uint64_t stream)
{
    memset(m, 0, sizeof *m);
    m->base = base;
    m->lines = lines ? lines : 1;
    m->read_pct = read_pct > 100 ? 100 : read_pct;
    m->random = random;
    mc_rng_init(&m->rng, random_state, stream);
}

static inline uint64_t read_line(const uint64_t *l)
{
    uint64_t s = 0;
    for (int w = 0; w < 8; w++)
        s += l[w];
    return s;
}

static inline void write_line(uint64_t *l, uint64_t v)
{
    for (int w = 0; w < 8; w++)
        l[w] = v + (uint64_t)w;
}

void mc_mix_run(mc_mix_t *m, size_t n)
{
    const unsigned wpct = 100 - m->read_pct;
    uint64_t *base = m->base;
    size_t lines = m->lines, pos = m->seq_pos;
    unsigned bres = m->bres;
    uint64_t reads = 0, writes = 0, sink = m->sink;
    mc_rng_t rng = m->rng;
    for (size_t i = 0; i < n; i++) {
        size_t line;
        if (m->random) {
            line = (size_t)mc_rng_below(&rng, lines);
        } else {
            line = pos;
            pos = pos + 1 == lines ? 0 : pos + 1;
        }
        uint64_t *l = base + line * 8;
        bres += wpct;
        if (bres >= 100) {
            bres -= 100;
            write_line(l, i);
            writes++;
        } else {
            sink += read_line(l);
            reads++;
        }
    }
    m->rng = rng;
    m->seq_pos = pos;
    m->bres = bres;
    m->reads += reads;
    m->writes += writes;
    m->sink = sink;
}
