/* buffer: the measured memory.  Anonymous mmap, 2 MiB aligned so THP can
 * back it, advised per --hugepages; what was actually obtained is read
 * back from /proc/self/smaps. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "buffer.h"
#include "team.h"

#define MC_HUGE_BYTES (2UL << 20)

const char *mc_hugepages_name(mc_hugepages_t hp)
{
    static const char *const names[] = { "never", "thp", "madvise" };
    return (unsigned)hp < 3 ? names[hp] : "unknown";
}

static size_t round_up(size_t v, size_t a)
{
    return (v + a - 1) / a * a;
}

int mc_buffer_alloc(size_t bytes, mc_hugepages_t hp, void **out, char *why, size_t whylen)
{
    *out = NULL;
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
    /* trim to a 2 MiB aligned window of len bytes */
    uintptr_t base = ((uintptr_t)p + MC_HUGE_BYTES - 1) & ~(uintptr_t)(MC_HUGE_BYTES - 1);
    size_t head = base - (uintptr_t)p, tail = map - head - len;
    if (head)
        munmap(p, head);
    if (tail)
        munmap((char *)base + len, tail);
    int advice = hp == MC_HP_NEVER ? MADV_NOHUGEPAGE : hp == MC_HP_MADVISE ? MADV_HUGEPAGE : -1;
    if (advice >= 0 && madvise((void *)base, len, advice) != 0) {
        int e = errno;
        munmap((void *)base, len);
        snprintf(why, whylen, "madvise(%s) failed: %s; the kernel may lack THP support, try "
                 "--hugepages thp", hp == MC_HP_NEVER ? "MADV_NOHUGEPAGE" : "MADV_HUGEPAGE",
                 strerror(e));
        return -e;
    }
    *out = (void *)base;
    return 0;
}

void mc_buffer_free(void *p, size_t bytes)
{
    if (p)
        munmap(p, round_up(bytes ? bytes : 1, MC_HUGE_BYTES));
}

/* "7f00-7f80 rw-p ..." starts a mapping; "Rss:   4 kB" is a field. */
static bool is_header(const char *line)
{
    size_t tok = strcspn(line, " ");
    const char *dash = memchr(line, '-', tok), *colon = memchr(line, ':', tok);
    return dash && !colon;
}

/* The process's own mappings: /proc/self/smaps is about this process,
 * so it is read from the real /proc, not MEMSUITE_PROCFS. */
void mc_buffer_thp(mc_result_t *res, const void *p, size_t bytes)
{
    res->buffer_bytes = bytes;
    res->thp_known = false;
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) {
        snprintf(res->thp_why, sizeof res->thp_why, "/proc/self/smaps: %s", strerror(errno));
        return;
    }
    char line[512];
    bool inside = false, found = false;
    unsigned long long rss_kib = 0, huge_kib = 0;
    uintptr_t lo = (uintptr_t)p, hi = lo + bytes;
    while (fgets(line, sizeof line, f)) {
        uintptr_t a, b;
        if (is_header(line) && sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &a, &b) == 2) {
            inside = a < hi && b > lo;   /* a mapping overlapping the buffer */
            found |= inside;
            continue;
        }
        if (!inside)
            continue;
        unsigned long long v;
        if (sscanf(line, "Rss: %llu kB", &v) == 1)
            rss_kib += v;
        else if (sscanf(line, "AnonHugePages: %llu kB", &v) == 1)
            huge_kib += v;
    }
    fclose(f);
    if (!found) {
        snprintf(res->thp_why, sizeof res->thp_why,
                 "the buffer's mapping was not found in /proc/self/smaps");
        return;
    }
    res->rss_bytes = (size_t)(rss_kib * 1024);
    res->thp_bytes = (size_t)(huge_kib * 1024);
    res->thp_share = rss_kib ? (double)huge_kib / (double)rss_kib : 0.0;
    res->thp_known = true;
}

void mc_buffer_placement(mc_result_t *res, const void *p, size_t bytes)
{
    mb_numa_placement(p, bytes, 1024, &res->placement);
    res->placement_done = true;
}

void mc_buffer_finish(mc_result_t *res, const mc_config_t *cfg, void *p, size_t bytes)
{
    mc_restore_mask(cfg);
    mc_buffer_thp(res, p, bytes);
    mc_buffer_placement(res, p, bytes);
    mc_buffer_free(p, bytes);
}
