/* mountain: sweep sizes and plateau reading (contract in mountain.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mountain.h"
#include "stats.h"

size_t mc_mountain_sizes(size_t top, size_t *sizes, size_t cap)
{
    size_t n = 0;
    for (size_t p = MC_MOUNTAIN_MIN_BYTES; p <= top; p *= 2) {
        if (n < cap)
            sizes[n] = p;
        n++;
        size_t mid = p + p / 2;
        if (mid <= top && mid != top) {
            if (n < cap)
                sizes[n] = mid;
            n++;
        }
        if (p > SIZE_MAX / 2)
            break;
    }
    if (n && n <= cap && sizes[n - 1] != top) {
        if (n < cap)
            sizes[n] = top;
        n++;
    }
    return n < cap ? n : cap;
}

size_t mc_mountain_default_top(const mc_caches_t *c, char *how, size_t howlen)
{
    size_t llc = c->llc.total_bytes;
    if (!llc) {
        snprintf(how, howlen, "1 GiB: the LLC size is unknown (pass --llc SIZE or --size)");
        return (size_t)1 << 30;
    }
    size_t p = MC_MOUNTAIN_MIN_BYTES;
    while (p < llc * 4 && p <= SIZE_MAX / 4)
        p *= 2;
    snprintf(how, howlen, "twice the smallest power of two >= 4x LLC");
    return p * 2;
}

static uint64_t clamp_passes(double p)
{
    return !(p >= 1) ? 1 : p > (double)MC_MOUNTAIN_MAX_PASSES ? MC_MOUNTAIN_MAX_PASSES
                                                                : (uint64_t)p;
}

uint64_t mc_mountain_sample_passes(double pass_ns, double min_ns)
{
    return clamp_passes(pass_ns > 0 ? ceil(min_ns * MC_MOUNTAIN_SIZE_MARGIN / pass_ns) : 1);
}

uint64_t mc_mountain_retry_passes(uint64_t passes, double ns, double min_ns)
{
    if (ns >= min_ns || passes >= MC_MOUNTAIN_MAX_PASSES)
        return 0;
    double scale = ns > 0 ? min_ns * MC_MOUNTAIN_SIZE_MARGIN / ns : 2;
    return clamp_passes(ceil((double)passes * (scale > 2 ? scale : 2)));
}

/* The region of one level: lo <= share and total <= hi_total, etc. */
typedef struct {
    size_t share_min, share_max;   /* per-thread bounds (0 / SIZE_MAX: none) */
    size_t total_min, total_max;   /* total bounds */
} region_t;

static bool region_of(const mc_caches_t *c, mc_plateau_id_t id, region_t *r, char *why,
                      size_t whylen)
{
    const size_t l1 = c->l1d_bytes, l2 = c->l2_bytes, llc = c->llc.total_bytes;
    *r = (region_t){ 0, SIZE_MAX, 0, SIZE_MAX };
    switch (id) {   /* the four rules of mountain.h */
    case MC_PL_L1:
        if (!l1)
            return snprintf(why, whylen, "the L1d size is unknown"), false;
        r->share_min = l1 / 8;
        r->share_max = l1 / 2;
        return true;
    case MC_PL_L2:
        if (!l1 || !l2)
            return snprintf(why, whylen, "the L1d or L2 size is unknown"), false;
        r->share_min = 2 * l1;
        r->share_max = l2 / 2;
        return true;
    case MC_PL_L3:
        if (!l2 || !llc)
            return snprintf(why, whylen, "the L2 or LLC size is unknown"), false;
        if (c->llc.level <= 2)
            return snprintf(why, whylen, "the last-level cache is the L2: no L3"), false;
        r->share_min = 2 * l2;
        r->total_max = llc / 2;
        return true;
    case MC_PL_DRAM:
        if (!llc)
            return snprintf(why, whylen, "the LLC size is unknown (pass --llc SIZE)"), false;
        r->total_min = 4 * llc;
        return true;
    default:
        return false;
    }
}

static const char *const level_names[MC_PLATEAUS] = { "L1", "L2", "L3", "DRAM" };

void mc_mountain_plateaus(const mc_caches_t *c, int threads, const size_t *sizes,
                          const double *gbps, size_t n, mc_plateau_t out[MC_PLATEAUS])
{
    double v[MC_MOUNTAIN_MAX_POINTS];
    for (int id = 0; id < MC_PLATEAUS; id++) {
        mc_plateau_t *p = &out[id];
        memset(p, 0, sizeof *p);
        p->name = level_names[id];
        p->gbps = NAN;
        region_t r;
        if (!region_of(c, (mc_plateau_id_t)id, &r, p->why, sizeof p->why))
            continue;
        int m = 0;
        for (size_t i = 0; i < n && m < MC_MOUNTAIN_MAX_POINTS; i++) {
            size_t share = sizes[i] / (size_t)(threads > 0 ? threads : 1);
            if (share < r.share_min || share > r.share_max || sizes[i] < r.total_min ||
                sizes[i] > r.total_max || !isfinite(gbps[i]))
                continue;
            if (!m)
                p->from_bytes = sizes[i];
            p->to_bytes = sizes[i];
            v[m++] = gbps[i];
        }
        if (!m) {
            char a[32], b[32];
            if (r.total_min)
                snprintf(p->why, sizeof p->why, "no point at or above 4x LLC (%s); the sweep "
                         "stopped at %s", mb_format_bytes(r.total_min, a, sizeof a),
                         n ? mb_format_bytes(sizes[n - 1], b, sizeof b) : "no size");
            else
                snprintf(p->why, sizeof p->why, "no measured point well inside %s at %d "
                         "thread%s", p->name, threads, threads == 1 ? "" : "s");
            continue;
        }
        p->gbps = mb_median(v, (size_t)m);
        p->points = m;
        p->ok = true;
    }
}
