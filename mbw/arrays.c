/* arrays: allocation policy, first touch, THP probe and --verify. */
#include "arrays.h"
#include "thp.h"

#include <errno.h>
#include <inttypes.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "pagesize.h"
#include "sizing.h"
#include "slice.h"

#define MBW_NO_ADVICE (-1)

/* In mbw_huge_t order (MBW_HUGEPAGES_CHOICES). */
static const struct {
    const char *name;
    int advice;          /* madvise() advice, MBW_NO_ADVICE for none */
} mbw_huge_modes[] = {
    [MBW_HP_NEVER]   = { "never",   MADV_NOHUGEPAGE },
    [MBW_HP_THP]     = { "thp",     MBW_NO_ADVICE },  /* aligned; the system THP setting decides */
    [MBW_HP_MADVISE] = { "madvise", MADV_HUGEPAGE },
};
#define MBW_NHUGE (int)(sizeof mbw_huge_modes / sizeof mbw_huge_modes[0])

const char *mbw_huge_name(mbw_huge_t huge)
{
    return (int)huge >= 0 && (int)huge < MBW_NHUGE ? mbw_huge_modes[huge].name : NULL;
}

/* One anonymous mapping of `len` bytes (a multiple of `align`), aligned
 * on `align` (the PMD huge page): map len + align, trim both ends. */
static void *mbw_map_aligned(size_t len, size_t align)
{
    size_t over = len + align;
    char *p = mmap(NULL, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    uintptr_t start = ((uintptr_t)p + align - 1) & ~(uintptr_t)(align - 1);
    size_t head = start - (uintptr_t)p;
    if (head)
        munmap(p, head);
    size_t tail = over - head - len;
    if (tail)
        munmap((char *)start + len, tail);
    return (void *)start;
}

int mbw_arrays_alloc(mbw_arrays_t *a, size_t bytes, mbw_huge_t huge, char *msg, size_t msglen)
{
    const char *name = mbw_huge_name(huge);

    memset(a, 0, sizeof *a);
    a->bytes = bytes;
    a->huge_mode = name ? name : "default";
    snprintf(a->huge_why, sizeof a->huge_why, "not probed");

    if (huge == MBW_HP_DEFAULT) {
        a->src = calloc(bytes / sizeof(long), sizeof(long));
        a->dst = calloc(bytes / sizeof(long), sizeof(long));
        if (!a->src || !a->dst) {
            snprintf(msg, msglen, "Error allocating memory: %s", strerror(ENOMEM));
            mbw_arrays_free(a);
            return -ENOMEM;
        }
        return 0;
    }

    if (!name) {
        snprintf(msg, msglen, "--hugepages: unknown mode %d; use never, thp or madvise", (int)huge);
        return -EINVAL;
    }
    const int advice = mbw_huge_modes[huge].advice;
    /* the PMD huge page: 2 MiB with 4 KiB pages, 512 MiB with 64 KiB
     * (common/pagesize) */
    const size_t align = mb_huge_align();
    size_t len;
    if (!mb_add_size(bytes, align - 1, &len)) {
        snprintf(msg, msglen, "Error allocating memory: %s", strerror(ENOMEM));
        return -ENOMEM;
    }
    len &= ~(size_t)(align - 1);
    a->map_bytes = len;
    a->src = mbw_map_aligned(len, align);
    a->dst = mbw_map_aligned(len, align);
    if (!a->src || !a->dst) {
        snprintf(msg, msglen, "Error allocating memory: %s", strerror(ENOMEM));
        mbw_arrays_free(a);
        return -ENOMEM;
    }
    if (advice != MBW_NO_ADVICE &&
        (madvise(a->src, len, advice) != 0 || madvise(a->dst, len, advice) != 0)) {
        int e = errno;
        snprintf(msg, msglen, "--hugepages %s: madvise failed: %s; the kernel may lack "
                 "transparent huge pages (CONFIG_TRANSPARENT_HUGEPAGE)", name, strerror(e));
        mbw_arrays_free(a);
        return -EINVAL;
    }
    return 0;
}

void mbw_arrays_free(mbw_arrays_t *a)
{
    if (a->map_bytes) {
        if (a->src)
            munmap(a->src, a->map_bytes);
        if (a->dst)
            munmap(a->dst, a->map_bytes);
    } else {
        free(a->src);
        free(a->dst);
    }
    a->src = a->dst = NULL;
}

/* Source element i: position-dependent and never zero, so that a byte
 * copied from the wrong place, or not copied at all, shows. */
static inline long mbw_pattern(size_t i)
{
    return (long)(((uint64_t)i + 1) * UINT64_C(0x9E3779B97F4A7C15));
}

static void mbw_fill_range(mbw_arrays_t *a, size_t off_bytes, size_t len_bytes, bool src_too)
{
    size_t first = off_bytes / sizeof(long), n = len_bytes / sizeof(long);
    for (size_t i = first; i < first + n; i++) {
        if (src_too)
            a->src[i] = mbw_pattern(i);
        a->dst[i] = 0;
    }
}

static void mbw_fill(mbw_arrays_t *a, int threads, bool src_too)
{
    if (threads <= 1) {
        mbw_fill_range(a, 0, a->bytes, src_too);
        return;
    }
#pragma omp parallel num_threads(threads)
    {
        size_t off, len;
        mbw_slice(a->bytes, MBW_SLICE_ALIGN_BYTES, omp_get_thread_num(), omp_get_num_threads(),
                  &off, &len);
        mbw_fill_range(a, off, len, src_too);
    }
}

void mbw_arrays_fill(mbw_arrays_t *a, int threads)
{
    mbw_fill(a, threads, true);
}

void mbw_arrays_clear_dst(mbw_arrays_t *a, int threads)
{
    mbw_fill(a, threads, false);
}

/* AnonHugePages of both arrays (common/thp reads this process's own
 * /proc/self/smaps; a fixture MEMSUITE_PROCFS does not apply to it). */
void mbw_arrays_huge_probe(mbw_arrays_t *a)
{
    const void *const p[2] = { a->src, a->dst };
    const size_t b[2] = { a->bytes, a->bytes };
    mb_thp_t t;
    a->huge_known = false;
    a->huge_bytes = 0;
    if (mb_thp_measure_ranges("/proc/self/smaps", p, b, 2, &t) != 0) {
        snprintf(a->huge_why, sizeof a->huge_why, "unavailable: %.200s", t.why);
        return;
    }
    a->huge_bytes = t.anon_huge_bytes;
    a->huge_known = true;
    a->huge_why[0] = '\0';
}

/* FNV-1a over 64-bit words: order-sensitive. */
static uint64_t mbw_checksum(const long *v, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        h ^= (uint64_t)v[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

int mbw_arrays_verify(const mbw_arrays_t *a, mbw_verify_t *out)
{
    size_t n = a->bytes / sizeof(long);
    out->src_sum = mbw_checksum(a->src, n);
    out->dst_sum = mbw_checksum(a->dst, n);
    out->first_bad_byte = 0;
    if (out->src_sum == out->dst_sum && memcmp(a->src, a->dst, a->bytes) == 0)
        return 0;
    const unsigned char *s = (const unsigned char *)a->src, *d = (const unsigned char *)a->dst;
    for (size_t i = 0; i < a->bytes; i++) {
        if (s[i] != d[i]) {
            out->first_bad_byte = i;
            break;
        }
    }
    return -EIO;
}
