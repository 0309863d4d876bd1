/* buffer: the measured memory.  --buffer mmap: an anonymous mapping,
 * aligned on the PMD huge page (2 MiB with 4 KiB pages, 512 MiB with
 * 64 KiB; common/pagesize) so THP can back it; --buffer malloc: the process's allocator.
 * Advised per --hugepages (nothing by default); what was actually
 * obtained is read back from /proc/self/smaps (common/thp). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "buffer.h"
#include "pagesize.h"
#include "team.h"
#include "thp.h"

/* The PMD huge page, read once: the mapping is rounded and aligned to it
 * and unmapped with the same length. */
static size_t huge_bytes(void)
{
    static size_t once;
    if (!once)
        once = mb_huge_align();
    return once;
}
#define MC_HUGE_BYTES huge_bytes()

const char *mc_hugepages_name(mc_hugepages_t hp)
{
    static const char *const names[] = { "thp", "never", "madvise" };   /* mc_hugepages_t order */
    return (unsigned)hp < 3 ? names[hp] : "unknown";
}

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

/* Advice over [p, p+len) per --hugepages; 0 or -errno with why. */
static int advise(void *p, size_t len, mc_hugepages_t hp, char *why, size_t whylen)
{
    int advice = hp == MC_HP_NEVER ? MADV_NOHUGEPAGE : hp == MC_HP_MADVISE ? MADV_HUGEPAGE : -1;
    if (advice < 0 || len == 0 || madvise(p, len, advice) == 0)
        return 0;
    int e = errno;
    snprintf(why, whylen, "madvise(%s) failed: %s; the kernel may lack THP support, try "
             "--hugepages thp", hp == MC_HP_NEVER ? "MADV_NOHUGEPAGE" : "MADV_HUGEPAGE",
             strerror(e));
    return -e;
}

/* An anonymous mapping of its own, trimmed to a window aligned on the
 * PMD huge page. */
static int alloc_mmap(size_t bytes, mc_hugepages_t hp, void **out, char *why, size_t whylen)
{
    size_t len = round_up(bytes ? bytes : 1, MC_HUGE_BYTES);
    size_t map = len + MC_HUGE_BYTES;
    char *p = mmap(NULL, map, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        char h[32];
        snprintf(why, whylen, "mmap of %s failed: %s; pass a smaller --size",
                 mb_format_bytes(bytes, h, sizeof h), strerror(e));
        return -e;
    }
    uintptr_t base = ((uintptr_t)p + MC_HUGE_BYTES - 1) & ~(uintptr_t)(MC_HUGE_BYTES - 1);
    size_t head = base - (uintptr_t)p, tail = map - head - len;
    if (head)
        munmap(p, head);
    if (tail)
        munmap((char *)base + len, tail);
    int rc = advise((void *)base, len, hp, why, whylen);
    if (rc != 0) {
        munmap((void *)base, len);
        return rc;
    }
    *out = (void *)base;
    return 0;
}

/* malloc() as the process's allocator answers it, the start moved up to a
 * cache line; the pointer malloc returned is kept in the word before. */
static int alloc_malloc(size_t bytes, mc_hugepages_t hp, void **out, char *why, size_t whylen)
{
    size_t total;
    if (!mb_add_size(bytes ? bytes : 1, 2 * MC_LINE_BYTES, &total)) {
        snprintf(why, whylen, "--size %zu overflows", bytes);
        return -EOVERFLOW;
    }
    char *raw = malloc(total);
    if (!raw) {
        char h[32];
        snprintf(why, whylen, "malloc of %s failed: %s; pass a smaller --size",
                 mb_format_bytes(bytes, h, sizeof h), strerror(ENOMEM));
        return -ENOMEM;
    }
    uintptr_t base = ((uintptr_t)raw + sizeof(void *) + MC_LINE_BYTES - 1) &
                     ~(uintptr_t)(MC_LINE_BYTES - 1);
    ((void **)base)[-1] = raw;
    /* the advice covers the whole pages inside the buffer */
    const uintptr_t pg = mb_page_size(), lo = (base + pg - 1) & ~(pg - 1),
                    hi = (base + bytes) & ~(pg - 1);
    int rc = advise((void *)lo, hi > lo ? hi - lo : 0, hp, why, whylen);
    if (rc != 0) {
        free(raw);
        return rc;
    }
    *out = (void *)base;
    return 0;
}

/* How the last buffer was placed by weight (mb_weights_place), for the
 * note mc_buffer_finish writes. */
static char weights_how[400];

int mc_buffer_alloc(const mc_config_t *cfg, size_t bytes, void **out, char *why, size_t whylen)
{
    *out = NULL;
    int rc = cfg->buffer == MC_BUF_MALLOC ? alloc_malloc(bytes, cfg->hugepages, out, why, whylen)
                                          : alloc_mmap(bytes, cfg->hugepages, out, why, whylen);
    if (rc != 0 || (!cfg->bind_node_on && !cfg->weights_on))
        return rc;
    if (cfg->bind_node_on)
        rc = mb_numa_bind_range(*out, bytes, cfg->bind_node, why, whylen);
    else if ((rc = mb_weights_place(*out, bytes, &cfg->weights, weights_how, sizeof weights_how)))
        snprintf(why, whylen, "%s", weights_how);
    if (rc != 0) {
        mc_buffer_free(cfg, *out, bytes);
        *out = NULL;
    }
    return rc;
}

void mc_buffer_free(const mc_config_t *cfg, void *p, size_t bytes)
{
    if (!p)
        return;
    if (cfg->buffer == MC_BUF_MALLOC)
        free(((void **)p)[-1]);
    else
        munmap(p, round_up(bytes ? bytes : 1, MC_HUGE_BYTES));
}

const char *mc_buffer_kind_name(mc_buffer_kind_t k)
{
    return k == MC_BUF_MALLOC ? "malloc" : "mmap";
}

/* The process's own mappings (common/thp reads the real /proc/self/smaps). */
void mc_buffer_thp(mc_result_t *res, const void *p, size_t bytes)
{
    mb_thp_t t;
    res->buffer_bytes = bytes;
    res->thp_known = false;
    if (mb_thp_measure(p, bytes, &t) != 0) {
        snprintf(res->thp_why, sizeof res->thp_why, "%s", t.why);
        return;
    }
    res->rss_bytes = t.rss_bytes;
    res->thp_bytes = t.anon_huge_bytes;
    res->thp_share = t.share_resident;
    res->thp_known = true;
}

void mc_buffer_placement(mc_result_t *res, const void *p, size_t bytes)
{
    mb_numa_placement(p, bytes, 1024, &res->placement);
    res->placement_done = true;
}

/* The weighted placement asked and got: "placed by weight 0:3,2:1 (...):
 * pages on node0 75.0% (asked 75.0%), node2 25.0% (asked 25.0%)". */
static void weights_note(mc_result_t *res, const mc_config_t *cfg)
{
    const mb_weights_t *w = &cfg->weights;
    const mb_numa_placement_t *pl = &res->placement;
    char list[256], shares[600] = "";
    unsigned total = 0;
    size_t at = 0;
    for (int k = 0; k < w->n; k++)
        total += w->weight[k];
    for (int k = 0; k < w->n && at < sizeof shares; k++) {
        double got = pl->valid && pl->pages_sampled && w->node[k] < MB_NUMA_MAX_NODES
                         ? 100.0 * (double)pl->pages_on_node[w->node[k]] / (double)pl->pages_sampled
                         : -1;
        char g[24] = "unknown";
        if (got >= 0)
            snprintf(g, sizeof g, "%.1f%%", got);
        at += (size_t)snprintf(shares + at, sizeof shares - at, "%snode%d %s (asked %.1f%%)",
                               k ? ", " : "", w->node[k], g, 100.0 * w->weight[k] / total);
    }
    mc_result_note(res, "placed by weight %s (%s): pages on %s",
                   mb_weights_format(w, list, sizeof list), weights_how, shares);
}

void mc_buffer_finish(mc_result_t *res, const mc_config_t *cfg, void *p, size_t bytes)
{
    mc_restore_mask(cfg);
    mc_buffer_thp(res, p, bytes);
    if (cfg->weights_on && !cfg->bind_node_on) {
        /* Every page (up to 4 GiB of them): a sample stride near the
         * placement's period would alias (stride 2 over a 3:1 pattern of
         * single pages sees only the first node). */
        size_t pages = bytes / mb_page_size();
        mb_numa_placement(p, bytes, pages < (1u << 20) ? pages : (1u << 20), &res->placement);
        res->placement_done = true;
        weights_note(res, cfg);
    } else {
        mc_buffer_placement(res, p, bytes);
    }
    mc_buffer_free(cfg, p, bytes);
}
